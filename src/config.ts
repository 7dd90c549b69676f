/**
 * The environment, validated once at start. `loadConfig` reports every problem at once, each with how to
 * fix it, and never repeats a value back (the token and the key are secrets; the rest is not worth the
 * risk of a pasted secret in the wrong variable).
 */
import { z } from 'zod';
import project from '../package.json' with { type: 'json' };
import { ConfigError, SiteUrlError } from './errors.js';
import { isLocalNetworkHost, resolveSite } from './philomena/sites.js';
import { normaliseTagName } from './render/content-rules.js';
import { storeUrlProblem } from './store/index.js';
import { checkUploadSites, uploadsEnv, uploadsOf } from './upload-config.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The words UNFURL takes, any case, as on/off pairs (zod's own list would add y/n and enabled/disabled). */
const UNFURL_WORDS = [
  ['true', 'false'],
  ['1', '0'],
  ['on', 'off'],
  ['yes', 'no'],
] as const;

/** Blank (or only spaces) means unset, so `KEY=` in `.env` falls back to the default. */
function blankIsUnset(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankIsUnset, schema.optional());

const snowflake = z.string().regex(/^\d{1,20}$/, 'must be a Discord id (digits only)');

/** A sliding-window rate: `limit` actions in any span of `windowMs`. */
export interface RateLimit {
  readonly limit: number;
  readonly windowMs: number;
}

const RATE_OFF_WORDS = new Set(['0', 'off', 'false', 'no', 'none']);
const RATE_PATTERN = /^(\d{1,5})\s*\/\s*(\d{1,6})\s*(ms|s|m|h)?$/;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const RATE_WINDOW_MAX_MS = 24 * 3_600_000;

/**
 * The largest counts accepted. The limiter keeps one timestamp per allowed action per key (up to 50,000
 * keys) and scans them on every action, so the count is memory and CPU per member or server; buttons get 3×
 * and autocomplete 10× the command count (router.ts). No person types more than 100 commands in any window,
 * and 1,000 cards (over 300 messages of links) per server per window is past any real chat: a count beyond
 * these is a typo or a wish to turn the limit off, which `off` says plainly.
 */
const COMMAND_RATE_COUNT_MAX = 100;
const UNFURL_RATE_COUNT_MAX = 1_000;

/**
 * `5/10s` (5 per 10 seconds), `10/1m`, `30/60` (seconds when no unit); `0` or `off` turns the limit off
 * (undefined). A limit of 0 also means off. A count above `countMax` is refused.
 */
function rateLimit(defaultValue: string, countMax: number) {
  return z.preprocess(
    blankIsUnset,
    z
      .string()
      .default(defaultValue)
      .transform((value, ctx): RateLimit | undefined => {
        const word = value.toLowerCase();
        if (RATE_OFF_WORDS.has(word)) return undefined;
        const match = RATE_PATTERN.exec(word);
        const windowMs = match ? Number(match[2]) * (UNIT_MS[match[3] ?? 's'] ?? 1_000) : Number.NaN;
        const limit = match ? Number(match[1]) : Number.NaN;
        if (!(windowMs >= 1_000 && windowMs <= RATE_WINDOW_MAX_MS) || !Number.isInteger(limit)) {
          ctx.addIssue({
            code: 'custom',
            message: 'must be <count>/<window> such as 5/10s or 10/1m (window 1 s to 24 h), or off',
          });
          return z.NEVER;
        }
        if (limit > countMax) {
          ctx.addIssue({
            code: 'custom',
            message: `allows at most ${countMax} per window (the limiter keeps every action of the window in memory), or off`,
          });
          return z.NEVER;
        }
        return limit === 0 ? undefined : { limit, windowMs };
      }),
  );
}

/**
 * Discord's REST base: https, or plain http only to this machine or a private network (a local REST proxy),
 * by the rule BOORU_URL follows, since the bot token goes with every request. Also the REST proxy's
 * upstream (src/rest-proxy/config.ts), which carries the same token.
 */
export const discordApiUrl = z
  .url({
    // Not zod's own /^https?$/ (z.httpUrl's), which also refuses a URL without `//` such as
    // http:127.0.0.1/api, which the URL parser reads as http://127.0.0.1/api and this key has accepted.
    protocol: /^(?:http|https)$/,
    abort: true,
    error: 'must be an http(s) URL',
  })
  .refine(
    (value) => {
      const url = new URL(value);
      return url.protocol === 'https:' || isLocalNetworkHost(url.host);
    },
    {
      error:
        'must be https: plain http would send the bot token in cleartext, so it is accepted only for a proxy on this machine or a private network (127.x, 10.x, 172.16-31.x, 192.168.x, localhost)',
    },
  );

/** FEED_INTERVAL's bounds: the board's politeness floor, and a day. */
const FEED_INTERVAL_MIN_MS = 60_000;
const FEED_INTERVAL_MAX_MS = 24 * 3_600_000;
const DURATION_PATTERN = /^(\d{1,6})\s*(s|m|h)?$/;

/** NEVER_SHOW_TAGS's bounds: tags in the operator's own list, characters in one tag name. */
const NEVER_SHOW_MAX = 200;
const TAG_NAME_MAX = 100;

/** A comma-separated list of tag names, as the board writes them (lowercase, single spaces), once each. */
const tagList = z
  .string()
  .default('')
  .transform((text) => [
    ...new Set(
      text
        .split(',')
        .map(normaliseTagName)
        .filter((name) => name !== ''),
    ),
  ])
  .refine((names) => names.length <= NEVER_SHOW_MAX, `must name at most ${NEVER_SHOW_MAX} tags`)
  .refine(
    (names) => names.every((name) => name.length <= TAG_NAME_MAX),
    `must be tag names of at most ${TAG_NAME_MAX} characters, separated by commas`,
  );

/** FEED_SETTLE's bound: how long a plain-channel feed may hold new images back at most. */
const FEED_SETTLE_MAX_MS = 24 * 3_600_000;

/** A duration (`90s`, `30m`, `2h`, seconds without a unit) from `minMs` to `maxMs`, with its default. */
function duration(defaultValue: string, minMs: number, maxMs: number, message: string) {
  return z.preprocess(
    blankIsUnset,
    z
      .string()
      .default(defaultValue)
      .transform((value, ctx) => {
        const match = DURATION_PATTERN.exec(value.toLowerCase());
        const ms = match ? Number(match[1]) * (UNIT_MS[match[2] ?? 's'] ?? 1_000) : Number.NaN;
        if (!(ms >= minMs && ms <= maxMs)) {
          ctx.addIssue({ code: 'custom', message });
          return z.NEVER;
        }
        return ms;
      }),
  );
}

/** A whole number from `min` to `max`, with its default. */
function count(defaultValue: number, min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.preprocess(
    blankIsUnset,
    z
      .string()
      .regex(/^\d{1,6}$/, message)
      .transform(Number)
      .refine((n) => n >= min && n <= max, message)
      .default(defaultValue),
  );
}

/** Discord's own ceiling is far lower; this only stops a typo from starting a million connections. */
export const SHARD_COUNT_MAX = 100_000;

/**
 * `SHARD_IDS`: shard ids and ranges, `0,1,2` or `0-3,8`, in any order; duplicates are a mistake. Checked
 * against SHARD_COUNT in the object's own step (envSchema's superRefine).
 */
const shardIds = z.string().transform((value, ctx) => {
  const ids: number[] = [];
  for (const part of value.split(',')) {
    const match = /^\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?$/.exec(part);
    const first = match ? Number(match[1]) : Number.NaN;
    const last = match?.[2] === undefined ? first : Number(match[2]);
    if (!match || last < first) {
      ctx.addIssue({ code: 'custom', message: 'must be shard ids and ranges such as 0,1,2 or 0-3' });
      return z.NEVER;
    }
    for (let id = first; id <= last; id += 1) ids.push(id);
  }
  if (new Set(ids).size !== ids.length) {
    ctx.addIssue({ code: 'custom', message: 'names a shard twice' });
    return z.NEVER;
  }
  return ids.sort((a, b) => a - b);
});

/**
 * MEMBER_KEY_SECRET and MEMBER_KEY_SECRET_PREVIOUS: 32 random bytes in standard base64, as
 * `openssl rand -base64 32` prints them (44 characters, the last one `=`). Kept as the text the operator set
 * (like the token and the board key, so the logger can scrub it as written); commands/shared/key-sealing.ts
 * decodes it. A problem says what is wrong (never the value): a pasted secret must not reach the log.
 */
const MEMBER_KEY_SECRET_BYTES = 32;
const memberKeySecret = z.string().superRefine((value, ctx) => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
    ctx.addIssue({
      code: 'custom',
      message: `is not base64 (${value.length} characters; only A-Z, a-z, 0-9, + and / with = at the end, in groups of 4)`,
    });
    return;
  }
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length !== MEMBER_KEY_SECRET_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `must be ${MEMBER_KEY_SECRET_BYTES} bytes in base64, but decodes to ${bytes.length}`,
    });
    return;
  }
  // Node's decoder ignores stray bits in the last character; only the canonical spelling is the secret.
  if (bytes.toString('base64') !== value) {
    ctx.addIssue({
      code: 'custom',
      message: 'is not base64 as openssl prints it (its last characters are off)',
    });
  }
});

/** The environment, key by key: each blank, missing or wrong value becomes a problem on its own key. */
const envSchema = z
  .object({
    DISCORD_TOKEN: z.preprocess(blankIsUnset, z.string({ error: 'is required' })),
    DISCORD_APPLICATION_ID: optional(snowflake),
    DISCORD_API_URL: optional(discordApiUrl),
    DISCORD_GUILD_ID: optional(snowflake),
    // on: interaction answers under the global limit as @discordjs/rest does by itself (the bench's
    // comparison; src/discord/interaction-rest.ts). Default off, as Discord applies its limit.
    DISCORD_INTERACTIONS_GLOBAL_LIMIT: z.preprocess(
      blankIsUnset,
      z
        .stringbool({
          truthy: UNFURL_WORDS.map(([on]) => on),
          falsy: UNFURL_WORDS.map(([, off]) => off),
          error: `must be one of ${UNFURL_WORDS.map((pair) => pair.join('/')).join(', ')}`,
        })
        .default(false),
    ),
    BOORU_URL: z.preprocess(
      blankIsUnset,
      z
        .string()
        .default('https://derpibooru.org')
        .transform((value, ctx) => {
          try {
            return resolveSite(value);
          } catch (error) {
            // The value is not repeated: a secret pasted into the wrong variable must not reach the log.
            const insecure = error instanceof SiteUrlError && error.problem === 'insecure';
            ctx.addIssue({
              code: 'custom',
              message: insecure
                ? 'must be https: plain http would send the API key and show every link in cleartext, so it is accepted only for a server on this machine or a private network (127.x, 10.x, 172.16-31.x, 192.168.x, localhost)'
                : 'must be a known site name or an https URL',
            });
            return z.NEVER;
          }
        }),
    ),
    BOORU_API_KEY: optional(z.string()),
    BOORU_FILTER_ID: optional(
      z
        .string()
        .regex(/^\d{1,15}$/, 'must be a filter id (a positive whole number)')
        .transform(Number)
        .refine((n) => n > 0, 'must be a filter id (a positive whole number)'),
    ),
    STORE_URL: z.preprocess(
      blankIsUnset,
      z
        .string()
        .default('sqlite://data/bot.sqlite')
        // The store's own rule (store.ts), so the check and the store cannot disagree; never echoes the value,
        // which may hold a Redis password.
        .superRefine((value, ctx) => {
          const problem = storeUrlProblem(value);
          if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
        }),
    ),
    UNFURL: z.preprocess(
      blankIsUnset,
      z
        .stringbool({
          truthy: UNFURL_WORDS.map(([on]) => on),
          falsy: UNFURL_WORDS.map(([, off]) => off),
          error: `must be one of ${UNFURL_WORDS.map((pair) => pair.join('/')).join(', ')}`,
        })
        .default(true),
    ),
    COMMAND_RATE_LIMIT: rateLimit('5/10s', COMMAND_RATE_COUNT_MAX),
    UNFURL_RATE_LIMIT: rateLimit('10/1m', UNFURL_RATE_COUNT_MAX),
    LOG_LEVEL: z.preprocess(
      (value) => {
        const unset = blankIsUnset(value);
        return typeof unset === 'string' ? unset.toLowerCase() : unset;
      },
      z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    ),
    METRICS_PORT: optional(
      z
        .string()
        .regex(/^\d{1,5}$/, 'must be a port number from 1 to 65535')
        .transform(Number)
        .refine((n) => n >= 1 && n <= 65_535, 'must be a port number from 1 to 65535'),
    ),
    METRICS_HOST: z.preprocess(
      blankIsUnset,
      z
        .string()
        .regex(
          /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|[0-9A-Fa-f]*:[0-9A-Fa-f:.]*)$/,
          'must be an IP address or a host name to bind to',
        )
        .default('127.0.0.1'),
    ),
    SHARD_COUNT: optional(
      z
        .string()
        .regex(/^\d{1,6}$/, `must be a whole number from 1 to ${SHARD_COUNT_MAX}`)
        .transform(Number)
        .refine((n) => n >= 1 && n <= SHARD_COUNT_MAX, `must be a whole number from 1 to ${SHARD_COUNT_MAX}`),
    ),
    SHARD_IDS: optional(shardIds),
    FEED_INTERVAL: duration(
      '5m',
      FEED_INTERVAL_MIN_MS,
      FEED_INTERVAL_MAX_MS,
      'must be a duration from 1m to 24h, such as 5m or 90s',
    ),
    FEED_SETTLE: duration('30m', 0, FEED_SETTLE_MAX_MS, 'must be a duration from 0 to 24h, such as 30m or 0'),
    FEEDS_PER_SERVER: count(10, 1, 100),
    FEED_MAX_PER_POLL: count(10, 1, 50),
    SEARCH_WINDOW: count(50, 1, 50),
    NEVER_SHOW_TAGS: z.preprocess(blankIsUnset, tagList),
    FLOOR_DEFAULTS: z.preprocess(
      blankIsUnset,
      z.stringbool({ truthy: ['on'], falsy: ['off'], error: 'must be on or off' }).default(true),
    ),
    MEMBER_KEY_SECRET: optional(memberKeySecret),
    MEMBER_KEY_SECRET_PREVIOUS: optional(memberKeySecret),
    ...uploadsEnv,
  })
  .superRefine((env, ctx) => {
    checkUploadSites(env, ctx);
    // A previous secret alone is a rotation half done: nothing could be sealed, and the keys would read as
    // if the secret were current.
    if (env.MEMBER_KEY_SECRET_PREVIOUS !== undefined && env.MEMBER_KEY_SECRET === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['MEMBER_KEY_SECRET_PREVIOUS'],
        message: 'needs MEMBER_KEY_SECRET (the new secret) beside it',
      });
    }
    if (env.SHARD_IDS === undefined) return;
    if (env.SHARD_COUNT === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['SHARD_IDS'],
        message: 'needs SHARD_COUNT (every process must agree on it)',
      });
      return;
    }
    const count = env.SHARD_COUNT;
    if (env.SHARD_IDS.some((id) => id >= count)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SHARD_IDS'],
        message: `names a shard ${count} or above: ids run from 0 to SHARD_COUNT - 1`,
      });
    }
  });

/** The environment checked, then named as the code reads it. */
export const configSchema = envSchema.transform((env) => ({
  discordToken: env.DISCORD_TOKEN,
  discordApplicationId: env.DISCORD_APPLICATION_ID,
  /** REST base handed to discord.js (`rest.api`); undefined means Discord's own. */
  discordApiUrl: env.DISCORD_API_URL?.replace(/\/+$/, ''),
  discordGuildId: env.DISCORD_GUILD_ID,
  /** Interaction answers held to the global limit too (off: exempt, as Discord does). */
  discordInteractionsGlobalLimit: env.DISCORD_INTERACTIONS_GLOBAL_LIMIT,
  /** The site BOORU_URL names: the default site of every server. */
  site: env.BOORU_URL,
  booruApiKey: env.BOORU_API_KEY,
  /** The filter for servers that chose none, on the default site only. */
  booruFilterId: env.BOORU_FILTER_ID,
  storeUrl: env.STORE_URL,
  unfurl: env.UNFURL,
  /**
   * Slash and context-menu commands per member (undefined: no limit). Buttons and autocomplete have
   * their own, more generous buckets derived from it (see router.ts).
   */
  commandRateLimit: env.COMMAND_RATE_LIMIT,
  /** Unfurled cards per server, or per DM channel (undefined: no limit). */
  unfurlRateLimit: env.UNFURL_RATE_LIMIT,
  logLevel: env.LOG_LEVEL,
  /** The port of /healthz, /readyz and /metrics; undefined: no metrics server (the default). */
  metricsPort: env.METRICS_PORT,
  /** The address the metrics server binds to (default 127.0.0.1: this machine only). */
  metricsHost: env.METRICS_HOST,
  /** How often each feed's search is polled (FEED_INTERVAL, default 5 min, at least 1 min). */
  feedIntervalMs: env.FEED_INTERVAL,
  /** Feeds one server may have. */
  feedsPerServer: env.FEEDS_PER_SERVER,
  /**
   * How old an image must be before a feed posts it outside age-restricted channels (FEED_SETTLE, default
   * 30 min, 0 for none): new uploads are often re-rated within minutes, and a posted card cannot be recalled.
   */
  feedSettleMs: env.FEED_SETTLE,
  /** Images one feed posts per poll; the rest are summed up in one line with a link. */
  feedMaxPerPoll: env.FEED_MAX_PER_POLL,
  /**
   * Search results read per board call while paging (SEARCH_WINDOW, default 50, the board's largest page):
   * pages and grids inside one window cost no further call. 1 reads one result per page.
   */
  searchWindow: env.SEARCH_WINDOW,
  /**
   * The operator's floor (src/render/floor.ts): its defaults, on unless FLOOR_DEFAULTS=off (a warning at
   * every start says so), and NEVER_SHOW_TAGS, hidden at every rating on every site.
   */
  floor: { defaults: env.FLOOR_DEFAULTS, neverShow: env.NEVER_SHOW_TAGS },
  /**
   * The secret members' board keys are sealed with (issue 22; commands/shared/member-keys.ts), as set:
   * undefined leaves linking off. `previous` is still accepted for reading while keys move to `current`.
   */
  memberKeySecret: env.MEMBER_KEY_SECRET,
  memberKeySecretPrevious: env.MEMBER_KEY_SECRET_PREVIOUS,
  /**
   * Members' uploads with their own keys (issue 22 §2; commands/upload/): the sites they are on (`all`, or
   * site ids; none by default) and the caps, per member and per site in any hour.
   */
  uploads: uploadsOf(env),
  /**
   * The gateway shards this process connects: 'auto' (the default) is every shard Discord recommends;
   * else `ids` of `count` (SHARD_IDS of SHARD_COUNT; every shard when SHARD_IDS is unset).
   */
  shards:
    env.SHARD_COUNT === undefined
      ? ('auto' as const)
      : {
          count: env.SHARD_COUNT,
          ids: env.SHARD_IDS ?? Array.from({ length: env.SHARD_COUNT }, (_, id) => id),
        },
}));

/** The validated settings, in the shape the schema's last step gives them. */
export type Config = Readonly<z.output<typeof configSchema>>;

/** How to fix each key, appended to its problem. */
const HOW_TO_FIX: Readonly<Record<string, string>> = {
  DISCORD_TOKEN:
    'get one in the Discord Developer Portal (https://discord.com/developers/applications) → your application → Bot → Reset Token, and set DISCORD_TOKEN in .env',
  DISCORD_APPLICATION_ID:
    'copy the Application ID from the Developer Portal → your application → General Information, or leave it blank to learn it from Discord',
  DISCORD_API_URL:
    'leave it blank to use Discord itself, or give an https base, or http on this machine or your own network such as http://127.0.0.1:8080/api',
  DISCORD_GUILD_ID: 'right-click the server with Developer Mode on → Copy Server ID, or leave it blank',
  DISCORD_INTERACTIONS_GLOBAL_LIMIT: 'leave it blank (off); on only to compare in the bench',
  BOORU_URL:
    'use derpibooru, furbooru, tantabus, ponybooru, manebooru, ponerpics or an https URL like https://booru.example (http only for a board on this machine or your own network, e.g. http://192.168.1.20:4000)',
  BOORU_API_KEY: 'copy it from your account settings on the board, or leave it blank',
  BOORU_FILTER_ID: "use the number at the end of the filter's page URL (/filters/<id>), or leave it blank",
  STORE_URL:
    'for example sqlite://data/bot.sqlite (one process), redis://127.0.0.1:6379/0 (any number of processes; see "Running Redis" in the README), or memory:// for a store that forgets on restart',
  UNFURL: 'set UNFURL=on or UNFURL=off',
  COMMAND_RATE_LIMIT: `for example COMMAND_RATE_LIMIT=5/10s (per member; count 1 to ${COMMAND_RATE_COUNT_MAX}), or off`,
  UNFURL_RATE_LIMIT: `for example UNFURL_RATE_LIMIT=10/1m (cards per server; count 1 to ${UNFURL_RATE_COUNT_MAX}), or off`,
  LOG_LEVEL: 'for example LOG_LEVEL=info',
  METRICS_PORT:
    'for example METRICS_PORT=9464 to serve /healthz, /readyz and /metrics, or leave it blank for no metrics server',
  METRICS_HOST:
    'for example METRICS_HOST=127.0.0.1 (this machine only, the default) or 0.0.0.0 (every interface, for a scraper elsewhere)',
  SHARD_COUNT:
    'for example SHARD_COUNT=4 (the same in every process of the bot), or leave it blank for the count Discord recommends (README, "Running at scale")',
  FEED_INTERVAL: 'for example FEED_INTERVAL=5m (the default), or 1m at the fastest',
  FEEDS_PER_SERVER: 'for example FEEDS_PER_SERVER=10 (the default)',
  FEED_MAX_PER_POLL: 'for example FEED_MAX_PER_POLL=10 (the default)',
  SEARCH_WINDOW: 'for example SEARCH_WINDOW=50 (the default, the most the board gives per call)',
  MEMBER_KEY_SECRET:
    'make one with `openssl rand -base64 32` and paste it as printed, or leave it blank to keep members from linking their board accounts',
  MEMBER_KEY_SECRET_PREVIOUS:
    'set it to the secret MEMBER_KEY_SECRET had before a rotation (made with `openssl rand -base64 32`), or leave it blank',
  SHARD_IDS:
    'for example SHARD_IDS=0,1 with SHARD_COUNT=4 in one process and SHARD_IDS=2,3 in the other, or leave it blank for every shard',
};

/** The config from an environment (`process.env` after `.env` was loaded). Throws ConfigError listing every problem. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '(environment)');
      const fix = HOW_TO_FIX[key];
      return `${key} ${issue.message}${fix ? `: ${fix}` : ''}`;
    });
    throw new ConfigError(problems);
  }
  return parsed.data;
}

/**
 * The bot's User-Agent towards the boards, `philomena-bot/<version> (Discord bot for Philomena image boards)`:
 * the project's name and version (its package.json) and what it is, so a site's operators can tell who is
 * calling. The library has a default without a version; the bot passes this one.
 */
export function projectUserAgent(): string {
  return `${project.name}/${project.version} (Discord bot for Philomena image boards)`;
}
