/**
 * Who may IDENTIFY next. Discord lets a bot start `session_start_limit.max_concurrency` sessions per 5 s:
 * shard `id` is in bucket `id % max_concurrency`, and each bucket takes one IDENTIFY per 5 s (one more
 * closes the connection, 4008 rate limited). discord.js keeps that within one process; a bot whose shards
 * run in several processes needs one throttle they all share (the app's is in Redis,
 * src/redis/redis-identify-throttle.ts). Same shape as @discordjs/ws's IIdentifyThrottler.
 */
export interface IdentifyThrottler {
  /** Resolves when shard `shardId` may IDENTIFY now; rejects when `signal` aborts first. */
  waitForIdentify(shardId: number, signal: AbortSignal): Promise<void>;
}

/** Builds the throttle once Discord has said the bot's `max_concurrency`. */
export type IdentifyThrottlerFactory = (maxConcurrency: number) => IdentifyThrottler;

/** Discord's identify window per bucket. */
export const IDENTIFY_WINDOW_MS = 5_000;
