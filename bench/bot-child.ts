/**
 * Starts bench/bot-process.ts (the real bot in its own Node process, with --expose-gc) and talks to it
 * over IPC. Every wait is bounded; `stop()` ends the child, killing it by its pid if it does not go.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BotProcessInput, BotProcessReply, BotProcessRequest, MemoryFigures } from './bot-process.js';

const here = path.dirname(fileURLToPath(import.meta.url));

type ReplyOf<T extends BotProcessReply['type']> = Extract<BotProcessReply, { type: T }>;

export interface BotChild {
  readonly startMs: number;
  /** RSS and heap of the bot after GC, before it logged in. */
  readonly idle: MemoryFigures;
  readonly limits: ReplyOf<'ready'>['limits'];
  request<T extends Exclude<BotProcessRequest['type'], 'stop'>>(
    type: T,
    timeoutMs?: number,
  ): Promise<ReplyOf<T>>;
  stop(): Promise<void>;
}

/** `maxOldSpaceMiB`: V8's heap limit of the bot's process, for sizes whose heap passes Node's default. */
export async function startBotChild(
  input: BotProcessInput,
  readyTimeoutMs: number,
  maxOldSpaceMiB?: number,
): Promise<BotChild> {
  const heap = maxOldSpaceMiB === undefined ? [] : [`--max-old-space-size=${maxOldSpaceMiB}`];
  const child: ChildProcess = fork(path.join(here, 'bot-process.ts'), [JSON.stringify(input)], {
    cwd: path.join(here, '..'),
    execArgv: ['--expose-gc', ...heap, '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });

  function next<T extends BotProcessReply['type']>(type: T, timeoutMs: number): Promise<ReplyOf<T>> {
    return new Promise((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      const onMessage = (message: BotProcessReply): void => {
        if (message.type === type) {
          cleanup();
          resolve(message as ReplyOf<T>);
        } else if (message.type === 'failed') {
          cleanup();
          reject(new Error(`the bot process failed: ${message.message}`));
        }
      };
      const onExit = (code: number | null): void => {
        cleanup();
        reject(new Error(`the bot process exited (code ${String(code)}) while waiting for "${type}"`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`the bot process did not answer "${type}" within ${timeoutMs} ms`));
      }, timeoutMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  }

  function kill(): void {
    if (!exited && child.pid !== undefined) child.kill('SIGKILL');
  }

  let ready: ReplyOf<'ready'>;
  try {
    ready = await next('ready', readyTimeoutMs);
  } catch (error) {
    kill();
    throw error;
  }

  return {
    startMs: ready.startMs,
    idle: ready.idle,
    limits: ready.limits,
    request(type, timeoutMs = 60_000) {
      const answer = next(type, timeoutMs);
      child.send({ type } satisfies BotProcessRequest);
      return answer;
    },
    async stop() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' } satisfies BotProcessRequest);
      const timer = setTimeout(kill, 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
