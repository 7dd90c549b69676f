/**
 * The REST proxy's environment (`npm run rest-proxy`, scripts/rest-proxy.ts), checked before it starts:
 * one line per problem, never repeating a value (DISCORD_TOKEN is a secret).
 */
import { z } from 'zod';
import { discordApiUrl } from '../config.js';
import { DISCORD_API } from './proxy.js';

/** A comma-separated list, each item trimmed, blanks dropped. */
function list(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length === 0 ? undefined : items;
}

const envSchema = z.object({
  DISCORD_TOKEN: z.preprocess(
    list,
    z.array(z.string(), {
      error:
        'is required: the proxy relays only for the bots whose tokens it holds (comma-separated for several bots)',
    }),
  ),
  DISCORD_APPLICATION_ID: z.preprocess(
    list,
    z
      .array(z.string().regex(/^\d{1,20}$/, 'must be application ids (digits), comma-separated, or blank'))
      .optional(),
  ),
  REST_PROXY_PORT: z.coerce.number().int().min(1).max(65_535).default(8080),
  REST_PROXY_HOST: z.string().min(1).default('127.0.0.1'),
  // The bots' tokens go upstream with every request: the rule DISCORD_API_URL follows.
  REST_PROXY_UPSTREAM: discordApiUrl.default(DISCORD_API),
});

export interface RestProxyConfig {
  readonly tokens: readonly string[];
  readonly applicationIds: readonly string[];
  readonly port: number;
  readonly host: string;
  readonly upstream: string;
}

/** The proxy's settings, or one line per problem (`KEY: what is wrong`). */
export function loadRestProxyConfig(
  env: Readonly<Record<string, string | undefined>>,
):
  | { readonly ok: true; readonly config: RestProxyConfig }
  | { readonly ok: false; readonly problems: string[] } {
  // Blank means unset, so `KEY=` in `.env` falls back to the default.
  const set = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''),
  );
  const parsed = envSchema.safeParse(set);
  if (!parsed.success) {
    // One line per key: an array's issue can come once per bad item.
    const problems = parsed.error.issues.map((issue) => `${String(issue.path[0])}: ${issue.message}`);
    return { ok: false, problems: [...new Set(problems)] };
  }
  const settings = parsed.data;
  return {
    ok: true,
    config: {
      // As discord.js's login reads DISCORD_TOKEN (a `Bot ` prefix dropped), so one .env serves both.
      tokens: settings.DISCORD_TOKEN.map((token) => token.replace(/^(?:Bot|Bearer)\s*/i, '')),
      applicationIds: settings.DISCORD_APPLICATION_ID ?? [],
      port: settings.REST_PROXY_PORT,
      host: settings.REST_PROXY_HOST,
      upstream: settings.REST_PROXY_UPSTREAM.replace(/\/+$/, ''),
    },
  };
}
