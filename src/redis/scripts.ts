/**
 * What every Redis adapter here shares: the store's own Redis connection (same URL, time-outs,
 * reconnection; no offline queue, so a call fails at once while Redis is away), a Lua script runner, and
 * one log line when Redis goes away and one when it is back.
 */
import KeyvRedis from '@keyv/redis';
import type Keyv from 'keyv';
import type { Logger } from 'pino';

/** What the adapters need of a Redis client: node-redis's `eval`. */
export interface RedisScripting {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/**
 * Says once that Redis went away and once that it is back, whatever number of calls fail in between, so a
 * busy bot's log does not fill with one line per board request.
 */
export interface RedisHealth {
  ok(): void;
  failed(error: unknown): void;
}

export function createRedisHealth(logger: Logger, what: string, fallback: string): RedisHealth {
  let down = false;
  return {
    ok() {
      if (!down) return;
      down = false;
      logger.info(`${what}: Redis answers again, shared across processes once more`);
    },
    failed(error) {
      if (down) return;
      down = true;
      logger.warn(
        { err: error instanceof Error ? { message: error.message, name: error.name } : String(error) },
        `${what}: Redis unreachable, ${fallback} until it answers again`,
      );
    },
  };
}

/**
 * Runs a Lua script on the shared Redis, telling `health` whether Redis answered (so an outage is one log
 * line, and its end another); a failure is rethrown for the caller's local fallback.
 */
export function scriptRunner(
  client: () => Promise<RedisScripting>,
  health: RedisHealth,
): (script: string, keys: string[], args: string[]) => Promise<unknown> {
  return async (script, keys, args) => {
    try {
      const reply = await (await client()).eval(script, { keys, arguments: args });
      health.ok();
      return reply;
    } catch (error) {
      health.failed(error);
      throw error;
    }
  };
}

/** The Redis client under a store made by `createStore` for `redis://`, or undefined for any other store. */
export function redisClientOfStore(store: Keyv): (() => Promise<RedisScripting>) | undefined {
  const adapter: unknown = store.store;
  if (!(adapter instanceof KeyvRedis)) return undefined;
  return () => adapter.getClient();
}
