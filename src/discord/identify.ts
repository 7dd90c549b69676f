/**
 * Who may IDENTIFY next. Discord lets a bot start `session_start_limit.max_concurrency` sessions per 5 s:
 * shard `id` is in bucket `id % max_concurrency`, and each bucket takes one IDENTIFY per 5 s (one more
 * closes the connection, 4008 rate limited). discord.js keeps that within one process; a bot whose shards
 * run in several processes needs one throttle they all share (the app's is in Redis,
 * src/redis/redis-identify-throttle.ts). The throttle is @discordjs/ws's own `IIdentifyThrottler` type, so
 * a change of it in discord.js breaks the build, not the gateway.
 */
import type { IIdentifyThrottler } from '@discordjs/ws';

/** Builds the throttle once Discord has said the bot's `max_concurrency`. */
export type IdentifyThrottlerFactory = (maxConcurrency: number) => IIdentifyThrottler;

/** Discord's identify window per bucket. */
export const IDENTIFY_WINDOW_MS = 5_000;
