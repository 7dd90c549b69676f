import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installProcessGuards, SHUTDOWN_COMPLETE } from '../../src/bot/process-guards.js';
import { createLogger } from '../../src/logger.js';

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
  return { target, events, exits, messages };
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

  it('GIVEN a stray rejection or exception THEN it is logged and the process runs on', () => {
    const g = setup(async () => undefined);
    g.target.emit('unhandledRejection', new Error('stray'));
    g.target.emit('uncaughtException', new Error('thrown'));
    expect(g.exits).toEqual([]);
    expect(g.messages()).toEqual(['unhandled promise rejection', 'uncaught exception']);
  });
});
