/**
 * The board clients' shared request budget (src/philomena/shared-state.ts `SharedSlots`) over Redis, for a
 * bot run as several processes with one `STORE_URL=redis://…`: every process draws each site's slots (30
 * per 5 s; 20 per 10 s on the search paths) from one sorted set per site and window,
 * `philomena-bot::budget:<site>:overall` and `…:search`. A member is one slot; its score is when it stops
 * occupying the window, on the Redis server's clock (`TIME`), so hosts whose clocks disagree still agree.
 *
 * - take (one Lua script, atomic over the windows of the request): drop the members whose time has passed;
 *   if every window is under its limit, add the slot to each with the score now + `inFlightMs` + window
 *   (a process that dies with requests in flight does not hold their slots for ever); else answer how long
 *   until the first member of a full window leaves.
 * - release: the member's score becomes now + window (now, when nothing was sent).
 *
 * It rides on the store's own Redis connection. Redis away: every call rejects at once and the budget keeps
 * to its own small share of each window (budget.ts); one line says so, and one more when Redis is back.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SharedSlots, SharedTake, SharedWindow, SharedWindowName } from '../philomena/shared-state.js';
import { REDIS_NAMESPACE } from '../store/index.js';
import { createRedisHealth, scriptRunner, type RedisScripting } from './scripts.js';

/** Redis's clock in ms, to the microsecond. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
`;

/** KEYS: one sorted set per window. ARGV: id, inFlightMs, then limit and windowMs per key. */
const TAKE = `${NOW}
local id = ARGV[1]
local flight = tonumber(ARGV[2])
local wait = 0
local full = {}
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[1 + 2 * i]) then
    local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    local left = math.ceil(tonumber(first[2]) - now)
    if left > wait then wait = left end
    full[#full + 1] = i
  end
end
if #full > 0 then return { 0, wait, full } end
for i, key in ipairs(KEYS) do
  local ms = flight + tonumber(ARGV[2 + 2 * i])
  redis.call('ZADD', key, now + ms, id)
  if redis.call('PTTL', key) < ms + 1000 then redis.call('PEXPIRE', key, math.ceil(ms + 1000)) end
end
return { 1 }
`;

/** KEYS: the slot's sorted sets. ARGV: id, then windowMs per key (0: nothing was sent, gone at once). */
const RELEASE = `${NOW}
for i, key in ipairs(KEYS) do
  local ms = tonumber(ARGV[1 + i])
  if ms <= 0 then
    redis.call('ZREM', key, ARGV[1])
  else
    redis.call('ZADD', key, 'XX', now + ms, ARGV[1])
  end
end
return 1
`;

export interface RedisBudgetSlotsOptions {
  /** A connected client, or how to get one (the store's adapter connects on first use). */
  readonly client: () => Promise<RedisScripting>;
  readonly logger: Logger;
  /**
   * How long a slot taken and never released (its process died) stays occupied, before its window. Longer
   * than any request may take (the transport's call deadline, 30 s). Default 60 s.
   */
  readonly inFlightMs?: number;
  /** Key prefix. Default `philomena-bot::budget:`. */
  readonly prefix?: string;
}

export function createRedisBudgetSlots(options: RedisBudgetSlotsOptions): SharedSlots {
  const prefix = options.prefix ?? `${REDIS_NAMESPACE}::budget:`;
  const inFlightMs = options.inFlightMs ?? 60_000;
  const health = createRedisHealth(
    options.logger,
    'board request budget',
    "each process keeps to a quarter of each board's budget",
  );
  const keysOf = (site: string, windows: readonly SharedWindow[]): string[] =>
    windows.map((w) => `${prefix}${site}:${w.name}`);

  const run = scriptRunner(options.client, health);

  return {
    async take(site, windows): Promise<SharedTake> {
      if (windows.length === 0) return { ok: true, id: randomUUID() };
      const id = randomUUID();
      const args = [id, String(inFlightMs), ...windows.flatMap((w) => [String(w.limit), String(w.windowMs)])];
      const reply = await run(TAKE, keysOf(site, windows), args);
      const [taken, wait, full] = Array.isArray(reply) ? (reply as unknown[]) : [];
      if (taken === 1) return { ok: true, id };
      const names: SharedWindowName[] = Array.isArray(full)
        ? full.flatMap((index: unknown) => {
            const window = typeof index === 'number' ? windows[index - 1] : undefined;
            return window === undefined ? [] : [window.name];
          })
        : [];
      return { ok: false, retryAfterMs: typeof wait === 'number' && wait > 0 ? wait : 0, full: names };
    },
    async release(site, windows, id, releaseOptions = {}): Promise<void> {
      if (windows.length === 0) return;
      const args = [id, ...windows.map((w) => String(releaseOptions.unused === true ? 0 : w.windowMs))];
      await run(RELEASE, keysOf(site, windows), args);
    },
  };
}
