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
 * - Processes start one after another, each once the previous one logged "bot ready" (or its ready timeout
 *   passed): Discord's identify limit is shared anyway, and this keeps the logs readable.
 * - A child's stdout and stderr go through line by line, unchanged; its stdout is watched for "bot ready".
 *   Children log at least at info so the launcher sees that line; lines below the LOG_LEVEL asked for are
 *   then dropped here instead.
 * - A process that exits unasked (a crash, kill -9) is started again with the same shards after an
 *   exponential backoff with jitter (1 s doubling to 60 s; back to 1 s once one stayed up 60 s).
 * - `stop()` sends SIGTERM to every child (the bot drains up to 10 s), SIGKILL after the grace.
 * - `rollingRestart()` replaces one process at a time (SIGTERM, exit, start, "bot ready"), and stops at the
 *   first one that does not come back ready, leaving the rest as they were.
 *
 * Children are started in their own process group, so a Ctrl-C in the terminal reaches the launcher only
 * and each child receives a single SIGTERM from it (the bot exits at once on a second signal); under
 * systemd use KillMode=mixed for the same reason. The launcher's own lines never carry an environment
 * value (the token).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { REST } from '@discordjs/rest';
import { Routes } from 'discord.js';
import { loadConfig, type Config } from '../config.js';
import type { Logger } from '../logger.js';

/** A problem with how the launcher was asked to run, in one line that says what to do. */
export class LaunchRefusedError extends Error {
  readonly code = 'LAUNCH_REFUSED';
  override get name(): string {
    return 'LaunchRefusedError';
  }
}

export interface LauncherTimings {
  /** The first restart delay after a crash; doubles on each crash in a row. Default 1 s. */
  readonly restartBaseMs: number;
  /** The longest restart delay. Default 60 s. */
  readonly restartMaxMs: number;
  /** A process up this long counts as healthy: its next crash waits `restartBaseMs` again. Default 60 s. */
  readonly stableAfterMs: number;
  /**
   * How long to wait for a process's "bot ready" before starting the next one (or, in a rolling restart,
   * giving up). Default 60 s plus 5.5 s per shard of the process (one identify window each).
   */
  readonly readyTimeoutMs: number | undefined;
  /** How long a child has after SIGTERM before SIGKILL. Default 20 s (the bot drains 10 s, forces at 15 s). */
  readonly stopGraceMs: number;
}

const DEFAULT_TIMINGS: LauncherTimings = {
  restartBaseMs: 1_000,
  restartMaxMs: 60_000,
  stableAfterMs: 60_000,
  readyTimeoutMs: undefined,
  stopGraceMs: 20_000,
};

/** Where children's lines go (process.stdout / process.stderr by default). */
export interface LineSink {
  write(text: string): unknown;
}

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

export type ChildState = 'starting' | 'ready' | 'stopping' | 'waiting' | 'stopped';

export interface ChildInfo {
  /** The process's place, 0 to processes - 1; its shards never change. */
  readonly index: number;
  readonly shards: readonly number[];
  /** The running (or last) child's pid; undefined before the first start. */
  readonly pid: number | undefined;
  /** 'waiting': crashed, restart pending; 'stopped': not running and not coming back. */
  readonly state: ChildState;
  /** Restarts after unasked exits (rolling restarts not counted). */
  readonly restarts: number;
}

export interface Launcher {
  /** The total shard count the children run with (Discord's recommendation under 'auto'). */
  readonly shardCount: number;
  /** Each process as it is now. */
  children(): ChildInfo[];
  /** Resolves when every process got its turn at start (ready, or its ready timeout passed). */
  readonly started: Promise<void>;
  /** SIGTERM to every child, SIGKILL after the grace; resolves once all exited. Idempotent. */
  stop(): Promise<void>;
  /**
   * Replaces the processes one at a time; rejects (leaving the rest untouched) when a new one exits or is not
   * ready in time. A call during one queues one more after it.
   */
  rollingRestart(): Promise<void>;
  /** The launcher's exit code: 0 after stop(), 1 when a child could not be spawned at all. */
  readonly done: Promise<number>;
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
function shardIdsText(shards: readonly number[]): string {
  const first = shards[0];
  const last = shards.at(-1);
  if (first === undefined || last === undefined) throw new Error('a process with no shards');
  return first === last ? String(first) : `${first}-${last}`;
}

function isRedisStore(url: string): boolean {
  return /^rediss?:\/\//i.test(url.trim());
}

/** Asks Discord (through DISCORD_API_URL when set) how many shards it recommends. */
async function recommendedShards(config: Config): Promise<{ shards: number; maxConcurrency: number }> {
  const rest = new REST(config.discordApiUrl === undefined ? {} : { api: config.discordApiUrl }).setToken(
    config.discordToken,
  );
  try {
    const body = (await rest.get(Routes.gatewayBot())) as {
      shards?: unknown;
      session_start_limit?: { max_concurrency?: unknown };
    };
    const shards = body.shards;
    if (typeof shards !== 'number' || !Number.isInteger(shards) || shards < 1) {
      throw new Error('the answer has no shard count');
    }
    const maxConcurrency = body.session_start_limit?.max_concurrency;
    return { shards, maxConcurrency: typeof maxConcurrency === 'number' ? maxConcurrency : 1 };
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

/** pino's numeric levels; LOG_LEVEL names. */
const LEVEL_VALUES: Readonly<Record<Config['logLevel'], number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

/** The numeric level of a pino line, undefined for anything else (kept). */
function levelOf(line: string): number | undefined {
  const quick = /^\{"level":(\d+)/.exec(line);
  if (quick) return Number(quick[1]);
  if (!line.startsWith('{')) return undefined;
  try {
    const level = (JSON.parse(line) as { level?: unknown }).level;
    return typeof level === 'number' ? level : undefined;
  } catch {
    return undefined;
  }
}

function isReadyLine(line: string): boolean {
  if (!line.includes('"bot ready"')) return false;
  try {
    return (JSON.parse(line) as { msg?: unknown }).msg === 'bot ready';
  } catch {
    return false;
  }
}

/** A line longer than this without a newline is passed on in pieces (a child must not grow our memory). */
const MAX_LINE = 1 << 20;

/** Calls `onLine` with each complete line of `stream` (without its newline), and the rest at the end. */
function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      onLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    if (pending.length > MAX_LINE) {
      onLine(pending);
      pending = '';
    }
  });
  stream.on('end', () => {
    if (pending !== '') onLine(pending);
    pending = '';
  });
}

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** One spawned child. */
interface Run {
  readonly child: ChildProcess;
  readonly pid: number | undefined;
  readonly startedAt: number;
  ready: boolean;
  done: boolean;
  /** Its exit was asked for (stop, rolling restart): not a crash. */
  expected: boolean;
  /** True on "bot ready"; false when it exited first. */
  readonly becameReady: Promise<boolean>;
  readonly exited: Promise<Exit>;
}

/** One process's place: its shards, and the child running them now. */
interface Slot {
  readonly index: number;
  readonly shards: readonly number[];
  run: Run | undefined;
  lastPid: number | undefined;
  restarts: number;
  /** Crashes in a row (reset once a run stayed up `stableAfterMs`): the backoff's exponent. */
  failures: number;
  restartTimer: NodeJS.Timeout | undefined;
}

export async function startLauncher(options: LauncherOptions): Promise<Launcher> {
  const { logger } = options;
  const timings: LauncherTimings = { ...DEFAULT_TIMINGS, ...options.timings };
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

  const stdout = options.output?.stdout ?? process.stdout;
  const stderr = options.output?.stderr ?? process.stderr;
  const slots: Slot[] = planShards(shardCount, options.processes).map((shards, index) => ({
    index,
    shards,
    run: undefined,
    lastPid: undefined,
    restarts: 0,
    failures: 0,
    restartTimer: undefined,
  }));

  let stopping = false;
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });

  // Should the launcher itself exit while children run, they are told to drain and go, not left behind.
  const onLauncherExit = (): void => {
    for (const slot of slots) {
      if (slot.run !== undefined && !slot.run.done) slot.run.child.kill('SIGTERM');
    }
  };
  process.on('exit', onLauncherExit);

  const readyTimeoutOf = (slot: Slot): number =>
    timings.readyTimeoutMs ?? 60_000 + 5_500 * slot.shards.length;

  function restartDelay(slot: Slot): number {
    const ceiling = Math.min(timings.restartMaxMs, timings.restartBaseMs * 2 ** Math.min(slot.failures, 30));
    // Equal jitter: half fixed, half random, so processes that died together do not come back together.
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  function spawnSlot(slot: Slot): Run {
    const child = spawn(options.command.execPath, [...options.command.args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...baseEnv, SHARD_COUNT: String(shardCount), SHARD_IDS: shardIdsText(slot.shards) },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a terminal's Ctrl-C reaches the launcher only, which then signals it once.
      detached: true,
    });
    let markReady: (ready: boolean) => void = () => undefined;
    let markExited: (exit: Exit) => void = () => undefined;
    const run: Run = {
      child,
      pid: child.pid,
      startedAt: Date.now(),
      ready: false,
      done: false,
      expected: false,
      becameReady: new Promise<boolean>((resolve) => {
        markReady = resolve;
      }),
      exited: new Promise<Exit>((resolve) => {
        markExited = resolve;
      }),
    };
    slot.run = run;
    if (child.pid !== undefined) slot.lastPid = child.pid;
    let spawnError: Error | undefined;

    eachLine(child.stdout, (line) => {
      const level = filterLevels ? levelOf(line) : undefined;
      if (level === undefined || level >= wantedLevel) stdout.write(`${line}\n`);
      if (!run.ready && isReadyLine(line)) {
        run.ready = true;
        markReady(true);
        logger.info({ process: slot.index, shards: slot.shards, pid: run.pid }, 'bot process ready');
      }
    });
    eachLine(child.stderr, (line) => {
      stderr.write(`${line}\n`);
    });
    child.on('error', (error) => {
      // Only a failed spawn matters here ('close' follows it); a failed kill of a gone process does not.
      if (run.pid === undefined) spawnError = error;
    });
    // 'close', not 'exit': its output has been passed on in full by then.
    child.on('close', (code, signal) => {
      run.done = true;
      markReady(false);
      markExited({ code, signal });
      if (slot.run !== run) return;
      if (spawnError !== undefined) {
        logger.fatal(
          { process: slot.index, shards: slot.shards, err: spawnError },
          'could not start a bot process: stopping',
        );
        void shutdown(1);
        return;
      }
      if (run.expected || stopping) return;
      const upMs = Date.now() - run.startedAt;
      if (upMs >= timings.stableAfterMs) slot.failures = 0;
      const delay = restartDelay(slot);
      slot.failures += 1;
      slot.restarts += 1;
      logger.warn(
        {
          process: slot.index,
          shards: slot.shards,
          pid: run.pid,
          exitCode: code,
          signal,
          upMs,
          restartInMs: delay,
          restarts: slot.restarts,
        },
        'bot process exited unexpectedly: restarting it',
      );
      slot.restartTimer = setTimeout(() => {
        slot.restartTimer = undefined;
        if (!stopping) spawnSlot(slot);
      }, delay);
    });
    logger.info({ process: slot.index, shards: slot.shards, pid: run.pid }, 'bot process starting');
    return run;
  }

  /** True once `run` logged "bot ready"; false when it exited first or `timeoutMs` passed. */
  async function waitReady(run: Run, timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([run.becameReady, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Asks the slot's child to go (SIGTERM, SIGKILL after the grace) and waits until it has. */
  async function terminate(slot: Slot): Promise<void> {
    if (slot.restartTimer !== undefined) {
      clearTimeout(slot.restartTimer);
      slot.restartTimer = undefined;
    }
    const run = slot.run;
    if (run === undefined || run.done) return;
    run.expected = true;
    logger.info({ process: slot.index, shards: slot.shards, pid: run.pid }, 'bot process stopping');
    run.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timings.stopGraceMs);
    });
    const outcome = await Promise.race([run.exited, late]);
    clearTimeout(timer);
    if (outcome === 'late') {
      logger.warn(
        { process: slot.index, shards: slot.shards, pid: run.pid, graceMs: timings.stopGraceMs },
        'bot process did not exit in time: killing it',
      );
      run.child.kill('SIGKILL');
    }
    const exit = await run.exited;
    logger.info(
      { process: slot.index, shards: slot.shards, pid: run.pid, exitCode: exit.code, signal: exit.signal },
      'bot process stopped',
    );
  }

  let stopped: Promise<void> | undefined;
  function shutdown(code: number): Promise<void> {
    stopped ??= (async () => {
      stopping = true;
      logger.info({ processes: slots.length }, 'stopping bot processes');
      await Promise.all(slots.map((slot) => terminate(slot)));
      process.off('exit', onLauncherExit);
      logger.info('every bot process stopped');
      resolveDone(code);
    })();
    return stopped;
  }

  const started = (async () => {
    logger.info(
      { processes: slots.length, shardCount, shards: slots.map((slot) => slot.shards) },
      'starting bot processes',
    );
    for (const slot of slots) {
      if (stopping) return;
      const run = spawnSlot(slot);
      const ready = await waitReady(run, readyTimeoutOf(slot));
      if (!ready && !stopping && !run.done) {
        logger.warn(
          { process: slot.index, shards: slot.shards, pid: run.pid, timeoutMs: readyTimeoutOf(slot) },
          'bot process not ready in time: starting the next one anyway',
        );
      }
    }
    if (!stopping) logger.info({ processes: slots.length, shardCount }, 'every bot process started');
  })();

  async function roll(): Promise<void> {
    await started;
    logger.info({ processes: slots.length }, 'rolling restart');
    for (const slot of slots) {
      if (stopping) return;
      await terminate(slot);
      if (stopping) return;
      const run = spawnSlot(slot);
      const ready = await waitReady(run, readyTimeoutOf(slot));
      if (stopping) return;
      if (!ready) {
        const why = run.done ? 'exited before it was ready' : 'was not ready in time';
        logger.error(
          { process: slot.index, shards: slot.shards, pid: run.pid },
          `rolling restart stopped: the new bot process ${why}`,
        );
        throw new Error(
          `rolling restart stopped at process ${slot.index} (shards ${shardIdsText(slot.shards)}): the new process ${why}; the processes after it were left running`,
        );
      }
    }
    logger.info({ processes: slots.length }, 'rolling restart complete');
  }

  let rollChain: Promise<void> = Promise.resolve();
  let queuedRoll: Promise<void> | undefined;

  return {
    shardCount,
    started,
    done,
    children: () =>
      slots.map((slot) => {
        const run = slot.run;
        let state: ChildState;
        if (slot.restartTimer !== undefined) state = 'waiting';
        else if (run === undefined || run.done) state = 'stopped';
        else if (run.expected) state = 'stopping';
        else state = run.ready ? 'ready' : 'starting';
        return {
          index: slot.index,
          shards: slot.shards,
          pid: slot.lastPid,
          state,
          restarts: slot.restarts,
        };
      }),
    stop: () => shutdown(0),
    rollingRestart() {
      if (stopping) return Promise.resolve();
      // One at a time; calls made while one runs share the one run after it.
      queuedRoll ??= rollChain
        .catch(() => undefined)
        .then(() => {
          queuedRoll = undefined;
          return roll();
        });
      rollChain = queuedRoll;
      return queuedRoll;
    },
  };
}
