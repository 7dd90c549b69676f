/**
 * What the launcher runs before any child starts: the shard count (asked of Discord under 'auto'), how the
 * shards split over the processes, and the refusals of a launch that cannot work.
 */
import { REST } from '@discordjs/rest';
import { Routes } from 'discord.js';
import { z } from 'zod';
import type { Config } from '../config.js';

/** A problem with how the launcher was asked to run, in one line that says what to do. */
export class LaunchRefusedError extends Error {
  readonly code = 'LAUNCH_REFUSED';
  override get name(): string {
    return 'LaunchRefusedError';
  }
}

/** Shards 0..count-1 split contiguously over min(processes, count) processes, the first ones taking one more. */
export function planShards(shardCount: number, processes: number): number[][] {
  const groups = Math.max(1, Math.min(processes, shardCount));
  const base = Math.floor(shardCount / groups);
  const extra = shardCount % groups;
  const plan: number[][] = [];
  let next = 0;
  for (let group = 0; group < groups; group += 1) {
    const size = base + (group < extra ? 1 : 0);
    plan.push(Array.from({ length: size }, (_, offset) => next + offset));
    next += size;
  }
  return plan;
}

/** SHARD_IDS for a contiguous run: `3` or `3-5`. */
export function shardIdsText(shards: readonly number[]): string {
  const first = shards[0];
  const last = shards.at(-1);
  if (first === undefined || last === undefined) throw new Error('a process with no shards');
  return first === last ? String(first) : `${first}-${last}`;
}

/** A redis:// or rediss:// store URL: the one store several processes can share. */
export function isRedisStore(url: string): boolean {
  return /^rediss?:\/\//i.test(url.trim());
}

/**
 * What the launcher reads of GET /gateway/bot: the shard count must be there; a missing or odd
 * `max_concurrency` means one identify at a time, the safe reading.
 */
const gatewayBotAnswer = z.object({
  shards: z.number().int().min(1),
  session_start_limit: z.unknown().transform((limit) => {
    const parsed = z.object({ max_concurrency: z.number() }).safeParse(limit);
    return { maxConcurrency: parsed.success ? parsed.data.max_concurrency : 1 };
  }),
});

/** Asks Discord (through DISCORD_API_URL when set) how many shards it recommends. */
export async function recommendedShards(config: Config): Promise<{ shards: number; maxConcurrency: number }> {
  const rest = new REST(config.discordApiUrl === undefined ? {} : { api: config.discordApiUrl }).setToken(
    config.discordToken,
  );
  try {
    const answer = gatewayBotAnswer.safeParse(await rest.get(Routes.gatewayBot()));
    if (!answer.success) throw new Error('the answer has no shard count');
    return { shards: answer.data.shards, maxConcurrency: answer.data.session_start_limit.maxConcurrency };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new LaunchRefusedError(
      `could not ask Discord for the shard count (GET /gateway/bot: ${why}): check DISCORD_TOKEN and DISCORD_API_URL, or set SHARD_COUNT`,
    );
  } finally {
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  }
}
