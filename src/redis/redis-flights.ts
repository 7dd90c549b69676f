/**
 * Request coalescing across processes (src/philomena/shared-state.ts `SharedFlights`) over Redis: a claim
 * on a cache key is one key, `philomena-bot::flight:<cache key>`, set NX with a lifetime (a process that
 * dies while loading holds nobody up past it) and a random token, so only its holder gives it back (one
 * Lua compare-and-delete). The answer itself travels through the shared store (the response cache writes
 * it before giving the claim back); the waiters read it there.
 *
 * It rides on the store's own Redis connection. Redis away: every call rejects at once and each process
 * asks the board for itself (the budget, shared or its fallback share, still bounds what that costs); one
 * line says so, and one more when Redis answers again.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SharedFlights } from '../philomena/shared-state.js';
import { REDIS_NAMESPACE } from '../store/index.js';
import { createRedisHealth, scriptRunner, type RedisScripting } from './scripts.js';

const CLAIM = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;

const HELD = `return redis.call('EXISTS', KEYS[1])`;

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export interface RedisFlightsOptions {
  /** A connected client, or how to get one (the store's adapter connects on first use). */
  readonly client: () => Promise<RedisScripting>;
  readonly logger: Logger;
  /** Key prefix. Default `philomena-bot::flight:`. */
  readonly prefix?: string;
}

export function createRedisFlights(options: RedisFlightsOptions): SharedFlights {
  const prefix = options.prefix ?? `${REDIS_NAMESPACE}::flight:`;
  const health = createRedisHealth(
    options.logger,
    'request coalescing across processes',
    'each process asks the board for itself',
  );
  const run = scriptRunner(options.client, health);
  return {
    async claim(key, ms) {
      const token = randomUUID();
      const reply = await run(CLAIM, [prefix + key], [token, String(Math.max(1, Math.ceil(ms)))]);
      return reply === 1 ? token : undefined;
    },
    async held(key) {
      return (await run(HELD, [prefix + key], [])) === 1;
    },
    async release(key, token) {
      await run(RELEASE, [prefix + key], [token]);
    },
  };
}
