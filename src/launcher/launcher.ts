/**
 * The one-host shard launcher (`npm run launch`, scripts/launch.ts): runs the bot as N child processes
 * that split the gateway shards between them through the bot's own SHARD_COUNT and SHARD_IDS (src/config.ts),
 * restarts a process that dies, stops them all on request and restarts them one at a time (a rolling deploy).
 *
 * Why not a library: discord.js's ShardingManager runs exactly one process per shard (it cannot put several
 * shards in one process, so "N processes" is impossible), and discord-hybrid-sharding asks a hard-coded
 * https://discord.com for the shard count, ignoring DISCORD_API_URL (the REST proxy, the local Discord of
 * the tests), and needs its own IPC client inside the bot. The bot already knows how to connect a subset of
 * the shards and to share the identify limit, board budget, cache and settings through Redis, so all this
 * needs is a process supervisor over those two variables.
 *
 * - Shard count 'auto': GET /gateway/bot through DISCORD_API_URL (or Discord's own API), its `shards`.
 * - Shards 0..count-1 go contiguously to min(N, count) processes (5 over 2: [0,1,2] and [3,4]).
 * - More than one process needs STORE_URL=redis://... (or rediss://): without Redis each process would
 *   spend the whole board budget alone and keep its own cache and settings. Refused otherwise.
 *
 * The launch is checked and planned here (plan.ts); the processes are run and restarted by the supervisor
 * (supervisor.ts), which passes their lines on through child-lines.ts.
 */
import { loadConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { LEVEL_VALUES } from './child-lines.js';
import { isRedisStore, LaunchRefusedError, recommendedShards } from './plan.js';
import { createSupervisor, type Launcher, type LauncherTimings, type LineSink } from './supervisor.js';

export { LaunchRefusedError, planShards } from './plan.js';
export type { ChildInfo, ChildState, Launcher, LauncherTimings, LineSink } from './supervisor.js';

export interface LauncherOptions {
  /** How many bot processes (at most one per shard). */
  readonly processes: number;
  /** The total shard count, or 'auto' for the count Discord recommends in GET /gateway/bot. */
  readonly shardCount: number | 'auto';
  /** The children's environment (DISCORD_TOKEN, STORE_URL ...); SHARD_COUNT and SHARD_IDS are set per child. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** What runs one bot process: `process.execPath` and the path of dist/src/main.js in production. */
  readonly command: { readonly execPath: string; readonly args: readonly string[] };
  /** The launcher's own lines. */
  readonly logger: Logger;
  /** The children's working directory; default this process's. */
  readonly cwd?: string;
  readonly timings?: Partial<LauncherTimings>;
  readonly output?: { readonly stdout: LineSink; readonly stderr: LineSink };
}

/**
 * Checks and plans the launch (refusing, before anything starts, what cannot work), then starts the
 * supervisor over the planned processes.
 */
export async function startLauncher(options: LauncherOptions): Promise<Launcher> {
  const { logger } = options;
  if (!Number.isInteger(options.processes) || options.processes < 1) {
    throw new LaunchRefusedError('the number of processes must be a whole number, 1 or more');
  }
  if (options.shardCount !== 'auto' && (!Number.isInteger(options.shardCount) || options.shardCount < 1)) {
    throw new LaunchRefusedError('the shard count must be a whole number, 1 or more, or auto');
  }
  // The launcher owns which shards each child runs.
  const baseEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) {
    if (value !== undefined && key !== 'SHARD_IDS' && key !== 'SHARD_COUNT') baseEnv[key] = value;
  }
  // The bot's own check, once here rather than in N crash-looping children (throws ConfigError).
  const config = loadConfig(baseEnv);
  if (options.processes > 1 && !isRedisStore(config.storeUrl)) {
    throw new LaunchRefusedError(
      `${options.processes} bot processes need a shared Redis store: set STORE_URL=redis://host:6379 (or rediss://), see the README, "Running at scale" (without it each process spends the whole board budget alone and keeps its own cache and settings)`,
    );
  }
  let shardCount: number;
  if (options.shardCount === 'auto') {
    const recommended = await recommendedShards(config);
    shardCount = recommended.shards;
    logger.info(
      { shardCount, maxConcurrency: recommended.maxConcurrency },
      'shard count recommended by Discord',
    );
  } else {
    shardCount = options.shardCount;
  }

  // Children log at least at info, so "bot ready" reaches us; what the operator did not ask for stops here.
  const wantedLevel = LEVEL_VALUES[config.logLevel];
  const filterLevels = wantedLevel > LEVEL_VALUES.info;
  if (filterLevels) baseEnv['LOG_LEVEL'] = 'info';

  return createSupervisor({
    processes: options.processes,
    shardCount,
    env: baseEnv,
    levels: { filter: filterLevels, wanted: wantedLevel },
    command: options.command,
    logger,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.timings === undefined ? {} : { timings: options.timings }),
    ...(options.output === undefined ? {} : { output: options.output }),
  });
}
