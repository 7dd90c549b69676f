/**
 * The identify throttle shared through a real redis-server (src/redis/redis-identify-throttle.ts): two
 * throttles on two store connections stand for two bot processes. One IDENTIFY per bucket per window
 * across both; buckets apart do not wait on each other; an abort ends the wait; Redis away, each process
 * spaces its own identifies and says so once. Windows are short and only the order is asserted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createRedisIdentifyThrottle } from '../../src/redis/redis-identify-throttle.js';
import { redisClientOfStore } from '../../src/redis/scripts.js';
import { closeStore, createStore } from '../../src/store/index.js';
import { parseLogLines } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';

const WINDOW_MS = 400;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function redis(): Promise<TestRedis> {
  const server = await startRedis();
  cleanups.push(() => server.stop());
  return server;
}

/** One bot process's throttle: its own connection to the shared Redis, its own log. */
function processOn(url: string, maxConcurrency = 1) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } });
  const store = createStore(url);
  cleanups.push(() => closeStore(store).catch(() => undefined));
  const client = redisClientOfStore(store);
  if (client === undefined) throw new Error('a redis:// store has a Redis client');
  const throttle = createRedisIdentifyThrottle({ client, logger, maxConcurrency, windowMs: WINDOW_MS });
  return { throttle, logs: () => parseLogLines(lines) };
}

function createStoreFor(url: string) {
  const store = createStore(url);
  cleanups.push(() => closeStore(store).catch(() => undefined));
  return store;
}

/** Waits for each shard in turn order as discord.js would, recording when each may go. */
function race(entries: readonly { throttle: ReturnType<typeof processOn>['throttle']; shard: number }[]) {
  const order: number[] = [];
  const signal = new AbortController().signal;
  return Promise.all(
    entries.map(async ({ throttle, shard }) => {
      await throttle.waitForIdentify(shard, signal);
      order.push(shard);
      return performance.now();
    }),
  ).then((times) => ({ order, times }));
}

describe('the identify throttle shared in Redis', () => {
  it('GIVEN two processes identifying shards of one bucket THEN one goes at once and the other a whole window later', async () => {
    const server = await redis();
    const a = processOn(server.url);
    const b = processOn(server.url);
    const started = performance.now();
    const { times } = await race([
      { throttle: a.throttle, shard: 0 },
      { throttle: b.throttle, shard: 1 },
    ]);
    const [first, second] = [...times].sort((x, y) => x - y) as [number, number];
    // Lower bound only (a slow machine waits longer, never shorter): they were a window apart.
    expect(second - first).toBeGreaterThanOrEqual(WINDOW_MS - 50);
    expect(first - started).toBeLessThan(second - started);
  });

  it('GIVEN max_concurrency 2 THEN shards of the two buckets identify without waiting on each other, a third waits', async () => {
    const server = await redis();
    const a = processOn(server.url, 2);
    const b = processOn(server.url, 2);
    const started = performance.now();
    const { order } = await race([
      { throttle: a.throttle, shard: 0 },
      { throttle: b.throttle, shard: 1 },
    ]);
    const bothAt = performance.now();
    // Both went, each on its own bucket's key, neither holding the other's.
    expect(order.sort()).toEqual([0, 1]);
    const client = await redisClientOfStore(createStoreFor(server.url))?.();
    const keys = (await client?.eval(`return redis.call('KEYS', 'philomena-bot::identify:*')`, {
      keys: [],
      arguments: [],
    })) as string[];
    expect(keys.sort()).toEqual(['philomena-bot::identify:0', 'philomena-bot::identify:1']);
    // Shard 2 is bucket 0 again: it waits for shard 0's window to end.
    await a.throttle.waitForIdentify(2, new AbortController().signal);
    expect(performance.now() - started).toBeGreaterThanOrEqual(WINDOW_MS - 50);
    expect(bothAt).toBeLessThan(performance.now());
  });

  it('GIVEN a wait aborted THEN it rejects with the abort reason and takes nothing', async () => {
    const server = await redis();
    const a = processOn(server.url);
    await a.throttle.waitForIdentify(0, new AbortController().signal);
    const controller = new AbortController();
    const waiting = a.throttle.waitForIdentify(0, controller.signal);
    controller.abort(new Error('shard destroyed'));
    await expect(waiting).rejects.toThrow('shard destroyed');
  });

  it('GIVEN Redis stopped THEN each process spaces its own identifies, says so once, and uses Redis again when it is back', async () => {
    const server = await redis();
    const a = processOn(server.url);
    await server.shutdown();
    const signal = new AbortController().signal;
    const t0 = performance.now();
    await a.throttle.waitForIdentify(0, signal);
    await a.throttle.waitForIdentify(1, signal);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(WINDOW_MS - 50);
    const down = a.logs().filter((l) => String(l['msg']).includes('Redis unreachable'));
    expect(down).toHaveLength(1);
    expect(down[0]?.['msg']).toBe(
      'gateway identify throttle: Redis unreachable, each process spaces its own identifies until it answers again',
    );

    await server.start();
    const b = processOn(server.url);
    // Back on Redis: b takes the bucket, so a, even past its own local window, waits for b's.
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    await b.throttle.waitForIdentify(0, signal);
    const afterB = performance.now();
    await a.throttle.waitForIdentify(0, signal);
    expect(performance.now() - afterB).toBeGreaterThanOrEqual(WINDOW_MS - 100);
    expect(a.logs().some((l) => String(l['msg']).includes('Redis answers again'))).toBe(true);
  });
});
