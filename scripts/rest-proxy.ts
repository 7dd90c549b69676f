/**
 * `npm run rest-proxy`: the shared Discord REST proxy (src/rest-proxy/proxy.ts). Configured from the
 * environment (or `.env`; src/rest-proxy/config.ts): DISCORD_TOKEN (required: the tokens of the bots it
 * relays for, comma-separated), DISCORD_APPLICATION_ID (optional, comma-separated), REST_PROXY_PORT
 * (default 8080), REST_PROXY_HOST (default 127.0.0.1) and REST_PROXY_UPSTREAM (default Discord's API; https,
 * or http only on this machine or a private network). Point every bot process's DISCORD_API_URL at the
 * printed URL. SIGINT/SIGTERM stop it. Nothing it prints holds a token: every line goes through the
 * redactor, which knows the configured tokens and scrubs interaction and webhook tokens from paths.
 */
import { existsSync } from 'node:fs';
import { createRedactor } from '../src/redact.js';
import { loadRestProxyConfig } from '../src/rest-proxy/config.js';
import { startRestProxy } from '../src/rest-proxy/proxy.js';

/** Refused requests are summed up in at most one line a minute: a flood must not flood the log. */
const REFUSED_LOG_EVERY_MS = 60_000;

async function main(): Promise<number> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const loaded = loadRestProxyConfig(process.env);
  if (!loaded.ok) {
    for (const problem of loaded.problems) console.error(problem);
    return 1;
  }
  const { config } = loaded;
  const redact = createRedactor(config.tokens);
  let refused = 0;
  let lastRefusedLog = Number.NEGATIVE_INFINITY;
  const proxy = await startRestProxy({
    tokens: config.tokens,
    applicationIds: config.applicationIds,
    upstream: config.upstream,
    host: config.host,
    port: config.port,
    onError: (error) => {
      console.error(
        redact(`could not forward a request: ${error instanceof Error ? error.message : String(error)}`),
      );
    },
    onRefused: ({ method, path }) => {
      refused += 1;
      const now = Date.now();
      if (now - lastRefusedLog < REFUSED_LOG_EVERY_MS) return;
      lastRefusedLog = now;
      console.error(
        redact(
          `refused ${refused} request(s) without one of the configured bot tokens (401), the last: ${method} ${path}`,
        ),
      );
      refused = 0;
    },
    onTokenRefused: (position) => {
      console.error(
        `Discord refused token ${position} of DISCORD_TOKEN (401): that bot's requests will fail; check the token`,
      );
    },
  });
  console.log(`Discord REST proxy to ${redact(config.upstream)} on ${proxy.url}`);
  console.log(`Set DISCORD_API_URL=${proxy.url} for every bot process.`);
  const stop = (): void => {
    void proxy.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return 0;
}

main().then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
