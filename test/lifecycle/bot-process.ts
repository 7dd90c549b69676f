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
import { watchChild, type Exit } from '../support/child-output.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'src/main.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const NETWORK_GUARD = pathToFileURL(path.join(ROOT, 'test/setup.ts')).href;

export type { Exit };

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
  const watched = watchChild(child);

  return {
    pid: child.pid ?? -1,
    stdout: watched.stdout,
    stderr: watched.stderr,
    logLines: watched.logLines,
    exited: watched.exited,
    waitForLog: watched.waitForLog,
    kill(signal) {
      child.kill(signal);
    },
    async dispose() {
      if (!watched.done()) {
        child.kill('SIGKILL');
        await watched.exited;
      }
      await rm(cwd, { recursive: true, force: true });
    },
  };
}
