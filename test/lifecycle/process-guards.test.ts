import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installProcessGuards, SHUTDOWN_COMPLETE } from '../../src/discord/process-guards.js';
import { createLogger } from '../../src/logger.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const FIXTURE = fileURLToPath(new URL('fixtures/guarded-process.ts', import.meta.url));

function setup(shutdown: () => Promise<void>) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  const target = new EventEmitter();
  const events: string[] = [];
  const exits: number[] = [];
  installProcessGuards(logger, shutdown, {
    target,
    forceExitAfterMs: 1_000,
    flush: () => events.push('flush'),
    exit: (code) => {
      events.push(`exit ${code}`);
      exits.push(code);
    },
  });
  const messages = () => lines.map((line) => line['msg']);
  return { target, events, exits, messages, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('installProcessGuards', () => {
  it('GIVEN SIGTERM THEN shutdown runs once, the last line says it completed, logs are flushed, exit 0', async () => {
    const shutdown = vi.fn(async () => undefined);
    const g = setup(shutdown);
    g.target.emit('SIGTERM', 'SIGTERM');
    await vi.waitFor(() => expect(g.exits).toEqual([0]));
    expect(shutdown).toHaveBeenCalledTimes(1);
    expect(g.messages()).toEqual(['shutting down', SHUTDOWN_COMPLETE]);
    expect(g.events).toEqual(['flush', 'exit 0']);
  });

  it('GIVEN a shutdown that fails THEN the failure is logged and the exit code is 1', async () => {
    const g = setup(async () => {
      throw new Error('store would not close');
    });
    g.target.emit('SIGINT', 'SIGINT');
    await vi.waitFor(() => expect(g.exits).toEqual([1]));
    expect(g.messages()).toEqual(['shutting down', 'shutdown failed']);
  });

  it('GIVEN a shutdown that hangs THEN the process exits 1 once forceExitAfterMs passed, and only once', async () => {
    vi.useFakeTimers();
    const g = setup(() => new Promise<void>(() => undefined));
    g.target.emit('SIGTERM', 'SIGTERM');
    await vi.advanceTimersByTimeAsync(999);
    expect(g.exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(g.exits).toEqual([1]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(g.exits).toEqual([1]);
    expect(g.events).toEqual(['flush', 'exit 1']);
  });

  it('GIVEN a second signal while shutting down THEN the process exits 1 at once', async () => {
    const g = setup(() => new Promise<void>(() => undefined));
    g.target.emit('SIGTERM', 'SIGTERM');
    g.target.emit('SIGINT', 'SIGINT');
    expect(g.exits).toEqual([1]);
    expect(g.messages()).toEqual(['shutting down', 'second signal while shutting down: exiting now']);
  });

  it('GIVEN a stray rejection THEN it is logged and the process runs on', () => {
    const shutdown = vi.fn(async () => undefined);
    const g = setup(shutdown);
    g.target.emit('unhandledRejection', new Error('stray'));
    expect(g.exits).toEqual([]);
    expect(shutdown).not.toHaveBeenCalled();
    expect(g.messages()).toEqual(['unhandled promise rejection']);
  });

  it('GIVEN an uncaught exception THEN it is logged at fatal, the SIGTERM shutdown runs, and the exit code is 1', async () => {
    const shutdown = vi.fn(async () => undefined);
    const g = setup(shutdown);
    g.target.emit('uncaughtException', new Error('thrown'));
    await vi.waitFor(() => expect(g.exits).toEqual([1]));
    expect(shutdown).toHaveBeenCalledTimes(1);
    expect(g.lines[0]).toMatchObject({ level: 60, err: { message: 'thrown' } });
    expect(g.messages()).toEqual([
      'uncaught exception: stopping, the process state cannot be trusted',
      SHUTDOWN_COMPLETE,
    ]);
    expect(g.events).toEqual(['flush', 'exit 1']);
  });

  it('GIVEN an uncaught exception during a SIGTERM shutdown THEN that shutdown goes on once and ends in exit 1', async () => {
    let release: () => void = () => undefined;
    const shutdown = vi.fn(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    const g = setup(shutdown);
    g.target.emit('SIGTERM', 'SIGTERM');
    g.target.emit('uncaughtException', new Error('thrown while closing'));
    expect(g.exits).toEqual([]);
    release();
    await vi.waitFor(() => expect(g.exits).toEqual([1]));
    expect(shutdown).toHaveBeenCalledTimes(1);
  });

  it('GIVEN an uncaught exception and a shutdown that hangs THEN the process still exits 1 after forceExitAfterMs', async () => {
    vi.useFakeTimers();
    const g = setup(() => new Promise<void>(() => undefined));
    g.target.emit('uncaughtException', new Error('thrown'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(g.exits).toEqual([1]);
  });
});

/** The fixture process (test/lifecycle/fixtures/guarded-process.ts) run with `mode`, to its end. */
async function runGuarded(mode: 'throw' | 'reject', stopAfterMs?: number) {
  const child = spawn(process.execPath, ['--import', TSX, FIXTURE, mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stopping = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    // SIGTERM only once the child is ready (its guards installed): counted from the spawn, a slow start on
    // a loaded machine let the signal kill the process before it had a handler (exit code null).
    if (stopAfterMs !== undefined && !stopping && /"msg":"ready"/.test(out)) {
      stopping = true;
      setTimeout(() => child.kill('SIGTERM'), stopAfterMs);
    }
  });
  child.stderr.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  const lines = out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, lines, messages: lines.map((line) => line['msg']) };
}

describe('process guards in a real process', () => {
  it('GIVEN an exception thrown out of a timer THEN the process logs it at fatal, shuts down as on SIGTERM, and exits 1', async () => {
    const run = await runGuarded('throw');
    expect(run.code).toBe(1);
    expect(run.messages).toEqual([
      'ready',
      'uncaught exception: stopping, the process state cannot be trusted',
      'store closed',
      SHUTDOWN_COMPLETE,
    ]);
    expect(run.lines[1]).toMatchObject({ level: 60, err: { message: 'half-way through a callback' } });
  }, 30_000);

  it('GIVEN a promise rejected with nobody listening THEN it is logged at error and the process runs on until SIGTERM, exit 0', async () => {
    const run = await runGuarded('reject', 1_500);
    expect(run.code).toBe(0);
    expect(run.messages).toEqual([
      'ready',
      'unhandled promise rejection',
      'shutting down',
      'store closed',
      SHUTDOWN_COMPLETE,
    ]);
    expect(run.lines[1]).toMatchObject({ level: 50 });
  }, 30_000);
});
