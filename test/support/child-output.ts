/**
 * What a child process the tests start (the bot, `npm start`, the REST proxy's script) writes, kept whole,
 * with ways to wait for a line: the one reader behind test/lifecycle/bot-process.ts, the quick-start test
 * and the REST proxy's script test.
 */
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface WatchedChild {
  stdout(): string;
  stderr(): string;
  /** stdout's JSON log lines (pino), parsed. */
  logLines(): Record<string, unknown>[];
  /** Whether the child has exited (and its output ended). */
  done(): boolean;
  /**
   * Resolves with what `check` finds in the output; rejects when the child exits first or after
   * `timeoutMs`, saying `what` was not seen, with the output.
   */
  until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T>;
  /** Resolves with the first log line `match` accepts. */
  waitForLog(
    match: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Resolves once stdout and stderr have ended and the child has exited ('close', not 'exit'). */
  readonly exited: Promise<Exit>;
}

export function watchChild(child: ChildProcessByStdio<null, Readable, Readable>): WatchedChild {
  let out = '';
  let err = '';
  let ended = false;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    changed();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    changed();
  });
  const exited = new Promise<Exit>((resolve) => {
    child.on('close', (code, signal) => {
      ended = true;
      changed();
      resolve({ code, signal });
    });
  });
  const logLines = () =>
    out.split('\n').flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  const output = () => `stdout:\n${out}\nstderr:\n${err}`;

  function until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        listeners.delete(test);
      };
      const test = () => {
        const found = check();
        if (found !== undefined) {
          finish();
          resolve(found);
        } else if (ended) {
          finish();
          reject(new Error(`the process exited before ${what}\n${output()}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`${what}: not within ${timeoutMs} ms\n${output()}`));
      }, timeoutMs);
      listeners.add(test);
      test();
    });
  }

  return {
    stdout: () => out,
    stderr: () => err,
    logLines,
    done: () => ended,
    until,
    waitForLog: (match, timeoutMs = 30_000) =>
      until(() => logLines().find(match), timeoutMs, 'the log line came'),
    exited,
  };
}
