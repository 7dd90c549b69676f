/**
 * The supervisor: runs the planned processes, each with its own shards, and keeps them running.
 *
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
import type { Logger } from '../logger.js';
import { eachLine, isReadyLine, levelOf } from './child-lines.js';
import { planShards, shardIdsText } from './plan.js';

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

/** What the supervisor runs: decided and checked by startLauncher (launcher.ts). */
export interface SupervisorOptions {
  /** How many bot processes (at most one per shard). */
  readonly processes: number;
  /** The total shard count the children run with. */
  readonly shardCount: number;
  /** Every child's environment but SHARD_COUNT and SHARD_IDS, which are set per child. */
  readonly env: Readonly<Record<string, string>>;
  /** Which children's stdout lines pass: with `filter`, only pino lines at `wanted` or above (and non-pino lines). */
  readonly levels: { readonly filter: boolean; readonly wanted: number };
  readonly command: { readonly execPath: string; readonly args: readonly string[] };
  readonly logger: Logger;
  readonly cwd?: string;
  readonly timings?: Partial<LauncherTimings>;
  readonly output?: { readonly stdout: LineSink; readonly stderr: LineSink };
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

/** Starts the processes one after another and supervises them until `stop()`. */
export function createSupervisor(options: SupervisorOptions): Launcher {
  const { logger, shardCount } = options;
  const timings: LauncherTimings = { ...DEFAULT_TIMINGS, ...options.timings };
  const baseEnv = options.env;
  const { filter: filterLevels, wanted: wantedLevel } = options.levels;

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
