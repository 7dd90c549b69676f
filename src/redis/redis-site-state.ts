/**
 * The board clients' shared site state (src/philomena/shared-state.ts) over Redis, for a bot run as several
 * processes with one `STORE_URL=redis://…`: a `Retry-After` pause, a breaker's cool-down, the board's
 * anti-bot block and the time after its 501 challenge in which an empty 500 is that block
 * (docs/board-behaviour.md), per site, as plain keys whose PX lifetime is the time left
 * (`philomena-bot::site:<id>:paused`, `…:open`, `…:blocked`, `…:challenged`). Redis
 * keeps the time on its own clock and deletes them itself, so processes on hosts whose clocks disagree
 * still agree on "how long from now". A write keeps a longer lifetime already there (one Lua script, so
 * two processes writing at once cannot shorten it).
 *
 * It rides on the store's own Redis connection (same URL, time-outs, reconnection). Redis away: every call
 * rejects at once (the store's client has no offline queue) and the breaker works on its own process's
 * state; one line says so, and one more when Redis answers again.
 */
import type { Logger } from 'pino';
import type { SharedSiteState, SiteHold } from '../philomena/shared-state.js';
import { REDIS_NAMESPACE } from '../store/index.js';
import { createRedisHealth, scriptRunner, type RedisScripting } from './scripts.js';

/** SET with PX unless the key already lives longer (a missing key's PTTL is -2, a key without one's -1). */
const EXTEND = `
local ms = tonumber(ARGV[1])
local left = redis.call('PTTL', KEYS[1])
if left == -1 or left >= ms then return 0 end
redis.call('SET', KEYS[1], '1', 'PX', ms)
return 1
`;

const READ = `
local out = {}
for i, key in ipairs(KEYS) do out[i] = redis.call('PTTL', key) end
return out
`;

export interface RedisSiteStateOptions {
  /** A connected client, or how to get one (the store's adapter connects on first use). */
  readonly client: () => Promise<RedisScripting>;
  readonly logger: Logger;
  /** Key prefix. Default `philomena-bot::site:`. */
  readonly prefix?: string;
}

export function createRedisSiteState(options: RedisSiteStateOptions): SharedSiteState {
  const prefix = options.prefix ?? `${REDIS_NAMESPACE}::site:`;
  const health = createRedisHealth(
    options.logger,
    'board pause and breaker',
    "each process keeps its own sites' pauses and breakers",
  );
  const keyOf = (site: string, what: 'paused' | 'open' | 'blocked' | 'challenged'): string =>
    `${prefix}${site}:${what}`;

  const run = scriptRunner(options.client, health);

  const extend = async (key: string, ms: number): Promise<void> => {
    if (!(ms > 0)) return;
    await run(EXTEND, [key], [String(Math.ceil(ms))]);
  };

  return {
    pause: (site, ms) => extend(keyOf(site, 'paused'), ms),
    open: (site, ms) => extend(keyOf(site, 'open'), ms),
    block: (site, ms) => extend(keyOf(site, 'blocked'), ms),
    challenge: (site, ms) => extend(keyOf(site, 'challenged'), ms),
    async read(site): Promise<SiteHold> {
      const keys = (['paused', 'open', 'blocked', 'challenged'] as const).map((what) => keyOf(site, what));
      const reply = await run(READ, keys, []);
      const left = (value: unknown): number => (typeof value === 'number' && value > 0 ? value : 0);
      const values: unknown[] = Array.isArray(reply) ? reply : [];
      const [paused, open, blocked, challenged] = values;
      return {
        pausedMs: left(paused),
        openMs: left(open),
        blockedMs: left(blocked),
        challengedMs: left(challenged),
      };
    },
  };
}
