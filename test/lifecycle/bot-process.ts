/**
 * The real entry point (src/main.ts through tsx) as a child process, for what only a process can show:
 * signals, exit codes, `kill -9`, a store that cannot open. It runs in an empty temporary directory (so
 * no developer's `.env` leaks in) with only the environment given, and with test/setup.ts preloaded, so
 * the child too refuses every non-loopback connection.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'src/main.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const NETWORK_GUARD = pathToFileURL(path.join(ROOT, 'test/setup.ts')).href;

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface BotProcess {
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** stdout's JSON log lines (pino), parsed. */
  logLines(): Record<string, unknown>[];
  /** Resolves with the first log line `match` accepts; rejects on timeout or if the process exits first. */
  waitForLog(
    match: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  readonly exited: Promise<Exit>;
  kill(signal: NodeJS.Signals): void;
  /** Kills it (SIGKILL) if still running and removes its working directory. */
  dispose(): Promise<void>;
}

export async function startBotProcess(env: Readonly<Record<string, string>>): Promise<BotProcess> {
  const cwd = await mkdtemp(path.join(tmpdir(), 'philomena-bot-proc-'));
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(
    process.execPath,
    ['--import', TSX, '--import', NETWORK_GUARD, MAIN],
    {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: cwd, TMPDIR: tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
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
  let done = false;
  const exited = new Promise<Exit>((resolve) => {
    // 'close' (not 'exit') comes once stdout and stderr have ended too, so no output is missed.
    child.on('close', (code, signal) => {
      done = true;
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

  return {
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    logLines,
    exited,
    waitForLog(match, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = logLines().find(match);
          if (found) {
            finish();
            resolve(found);
          } else if (done) {
            finish();
            reject(new Error(`the bot exited before the log line came\nstdout:\n${out}\nstderr:\n${err}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`no such log line within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    kill(signal) {
      child.kill(signal);
    },
    async dispose() {
      if (!done) {
        child.kill('SIGKILL');
        await exited;
      }
      await rm(cwd, { recursive: true, force: true });
    },
  };
}
