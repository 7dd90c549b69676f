/**
 * The identify throttle (src/discord/identify.ts) shared by every process of the bot through Redis, for
 * shards run over several processes and hosts (SHARD_IDS): bucket `shard % max_concurrency` is one key,
 * `philomena-bot::identify:<bucket>`, set NX with a lifetime of the 5 s window plus a margin. Whoever set
 * it may IDENTIFY now; the others wait for its lifetime (Redis's own clock, so hosts need not agree) and
 * try again. A process that dies after taking the key holds the bucket no longer than the window.
 *
 * Redis away: the process keeps the window per bucket by itself (as discord.js would alone), says so in
 * one line, and goes back to Redis when it answers. Two processes may then IDENTIFY in one window; Discord
 * closes one with 4008 and discord.js connects it again, so a Redis outage costs a reconnect, never a shard.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { IIdentifyThrottler } from '@discordjs/ws';
import type { Logger } from 'pino';
import { IDENTIFY_WINDOW_MS } from '../discord/identify.js';
import { REDIS_NAMESPACE } from '../store/index.js';
import { createRedisHealth, scriptRunner, type RedisScripting } from './scripts.js';

/** The key's lifetime over the window: IDENTIFY leaves a little after the key was set (event loop, network). */
const MARGIN_MS = 500;

/** 0: taken, go; else the key's time left in ms. */
const TAKE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
local left = redis.call('PTTL', KEYS[1])
if left < 1 then return 1 end
return left
`;

export interface RedisIdentifyThrottleOptions {
  /** A connected client, or how to get one (the store's adapter connects on first use). */
  readonly client: () => Promise<RedisScripting>;
  readonly logger: Logger;
  /** `session_start_limit.max_concurrency`: the number of buckets. */
  readonly maxConcurrency: number;
  /** Key prefix. Default `philomena-bot::identify:`. */
  readonly prefix?: string;
  /** Who holds the key, for an operator reading Redis; default the process id. */
  readonly holder?: string;
  /** The window a bucket is held; default 5 s + 500 ms. */
  readonly windowMs?: number;
}

/**
 * The platform's sleep, but an abort rejects with the signal's own reason (why the shard stopped waiting),
 * not with the AbortError the platform throws.
 */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  }
}

export function createRedisIdentifyThrottle(options: RedisIdentifyThrottleOptions): IIdentifyThrottler {
  const prefix = options.prefix ?? `${REDIS_NAMESPACE}::identify:`;
  const windowMs = options.windowMs ?? IDENTIFY_WINDOW_MS + MARGIN_MS;
  const holder = options.holder ?? `pid ${process.pid}`;
  const buckets = Math.max(1, Math.floor(options.maxConcurrency));
  const health = createRedisHealth(
    options.logger,
    'gateway identify throttle',
    'each process spaces its own identifies',
  );
  const run = scriptRunner(options.client, health);
  /** Per bucket, when this process may next IDENTIFY by itself (Redis away). */
  const localNext = new Map<number, number>();

  async function takeLocally(bucket: number, signal: AbortSignal): Promise<void> {
    for (;;) {
      const at = performance.now();
      const next = localNext.get(bucket) ?? 0;
      if (next <= at) {
        localNext.set(bucket, at + windowMs);
        return;
      }
      await pause(next - at, signal);
    }
  }

  return {
    async waitForIdentify(shardId, signal) {
      const bucket = shardId % buckets;
      for (;;) {
        if (signal.aborted) throw signal.reason;
        let left: number;
        try {
          const reply = await run(
            TAKE,
            [`${prefix}${bucket}`],
            [`${holder} shard ${shardId}`, String(windowMs)],
          );
          left = typeof reply === 'number' ? reply : Number(reply);
        } catch {
          await takeLocally(bucket, signal);
          return;
        }
        if (left === 0) {
          // Also known locally, so a Redis outage right after does not let this process IDENTIFY at once.
          localNext.set(bucket, performance.now() + windowMs);
          return;
        }
        // A little jitter, so processes waiting on one bucket do not all ask in the same millisecond.
        await pause(Math.min(Math.max(1, left), windowMs) + Math.floor(Math.random() * 50), signal);
      }
    },
  };
}
