/**
 * `npm run rest-proxy`: the shared Discord REST proxy (src/rest-proxy/proxy.ts). Configured from the
 * environment (or `.env`): REST_PROXY_PORT (default 8080), REST_PROXY_HOST (default 127.0.0.1) and
 * REST_PROXY_UPSTREAM (default Discord's API). Point every bot process's DISCORD_API_URL at the printed URL.
 * SIGINT/SIGTERM stop it.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { DISCORD_API, startRestProxy } from '../src/rest-proxy/proxy.js';

const envSchema = z.object({
  REST_PROXY_PORT: z.coerce.number().int().min(1).max(65_535).default(8080),
  REST_PROXY_HOST: z.string().min(1).default('127.0.0.1'),
  REST_PROXY_UPSTREAM: z.url({ protocol: /^https?$/ }).default(DISCORD_API),
});

async function main(): Promise<number> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const blankIsUnset = Object.fromEntries(
    Object.entries(process.env).filter(([, value]) => value !== undefined && value.trim() !== ''),
  );
  const parsed = envSchema.safeParse(blankIsUnset);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) console.error(`${issue.path.join('.')}: ${issue.message}`);
    return 1;
  }
  const env = parsed.data;
  const proxy = await startRestProxy({
    upstream: env.REST_PROXY_UPSTREAM,
    host: env.REST_PROXY_HOST,
    port: env.REST_PROXY_PORT,
    onError: (error) => {
      console.error(`could not forward a request: ${error instanceof Error ? error.message : String(error)}`);
    },
  });
  console.log(`Discord REST proxy to ${env.REST_PROXY_UPSTREAM} on ${proxy.url}`);
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
