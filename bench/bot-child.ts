/**
 * Starts bench/bot-process.ts (the real bot in its own Node process, with --expose-gc) and talks to it
 * over IPC. Every wait is bounded; `stop()` ends the child, killing it by its pid if it does not go.
 */
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
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

/**
 * How the bot's process runs: under tsx (TypeScript compiled as it loads, as the tests run it), or
 * compiled first with tsc (tsconfig.bench.json, into dist/bench) and run by plain Node, as `npm start`
 * runs the bot. tsx's own loader and caches take about 35 MiB of the process's RSS: memory figures meant
 * for operators come from the compiled bot.
 */
export type BotBuild = 'tsx' | 'compiled';

const root = path.join(here, '..');
let compiling: Promise<string> | undefined;

/** Compiles bench/bot-process.ts and what it imports once per run; resolves with the script to run. */
function compiledBot(): Promise<string> {
  compiling ??= (async () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    await promisify(execFile)(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.bench.json')], {
      cwd: root,
    });
    return path.join(root, 'dist', 'bench', 'bench', 'bot-process.js');
  })();
  return compiling;
}

/** `maxOldSpaceMiB`: V8's heap limit of the bot's process, for sizes whose heap passes Node's default. */
export async function startBotChild(
  input: BotProcessInput,
  readyTimeoutMs: number,
  maxOldSpaceMiB?: number,
  build: BotBuild = 'tsx',
): Promise<BotChild> {
  const heap = maxOldSpaceMiB === undefined ? [] : [`--max-old-space-size=${maxOldSpaceMiB}`];
  const script = build === 'compiled' ? await compiledBot() : path.join(here, 'bot-process.ts');
  const child: ChildProcess = fork(script, [JSON.stringify(input)], {
    cwd: root,
    execArgv: ['--expose-gc', ...heap, ...(build === 'compiled' ? [] : ['--import', 'tsx'])],
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
