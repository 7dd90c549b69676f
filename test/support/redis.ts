/**
 * A real redis-server for tests (Debian's `redis-server` package): on a free port of 127.0.0.1, in a
 * temporary directory, with no RDB snapshots (`--save ''`) and AOF on or off. Nothing is skipped when Redis
 * is missing or cannot start: `startRedis` rejects with a message that says why and how to install it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Keyv from 'keyv';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { closeStore } from '../../src/store/index.js';

const DEFAULT_BINARY = process.env['REDIS_SERVER'] ?? 'redis-server';
const INSTALL_HINT = 'install it with `apt-get install redis-server` (.ci/run does this in CI)';
/** How long a start may take before the test fails, and a stop before the process is killed. */
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export interface RedisOptions {
  /** Append-only file on (`--appendonly yes`), so data survives a restart; default off. */
  readonly appendOnly?: boolean;
  /** `--requirepass`: clients must authenticate (as the `default` user) with it. */
  readonly password?: string;
  /** The server program; default `REDIS_SERVER` (env) or `redis-server` on PATH. */
  readonly binary?: string;
}

export interface TestRedis {
  readonly port: number;
  readonly dir: string;
  /** `redis://127.0.0.1:<port>`, with `:password@` when one was set. */
  readonly url: string;
  /** Whether the server is running now. */
  running(): boolean;
  /** SHUTDOWN (the AOF is flushed and fsynced when on), then waits for the process to exit. */
  shutdown(): Promise<void>;
  /** Starts it again on the same port and directory (after `shutdown` or `kill`). */
  start(): Promise<void>;
  /** SIGKILL: gone at once, as a crash. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: the connection stays up but nothing answers, as a hung server or a dead link. */
  freeze(): void;
  thaw(): void;
  /** SHUTDOWN NOSAVE (or SIGKILL if it does not go) and removes the directory. Idempotent. */
  stop(): Promise<void>;
}

/** A port that was free a moment ago on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('could not find a free port');
  return address.port;
}

/** Sends inline commands on a fresh connection; resolves with what came back (empty when the server closed). */
function send(port: number, lines: readonly string[], timeoutMs = 1_000): Promise<string> {
  return new Promise((resolve) => {
    let reply = '';
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(lines.map((line) => `${line}\r\n`).join('')));
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (reply.split('\r\n').length > lines.length) done();
    });
    socket.on('error', done);
    socket.on('close', done);
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a redis-server; rejects (never skips) when it cannot, saying why. */
export async function startRedis(options: RedisOptions = {}): Promise<TestRedis> {
  const binary = options.binary ?? DEFAULT_BINARY;
  const dir = await mkdtemp(path.join(tmpdir(), 'philomena-redis-'));
  const port = await freePort();
  const auth = options.password === undefined ? [] : [`AUTH ${options.password}`];
  let child: ChildProcess | undefined;
  const killOnExit = (): void => {
    child?.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const start = async (): Promise<void> => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      options.appendOnly === true ? 'yes' : 'no',
      '--daemonize',
      'no',
      ...(options.password === undefined ? [] : ['--requirepass', options.password]),
    ];
    const spawned = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = spawned;
    let output = '';
    const collect = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-2_000);
    };
    spawned.stdout.on('data', collect);
    spawned.stderr.on('data', collect);
    const failure = new Promise<string>((resolve) => {
      spawned.once('error', (error: NodeJS.ErrnoException) =>
        resolve(
          error.code === 'ENOENT'
            ? `${binary} is not installed (or not on PATH)`
            : `${binary} could not be run: ${error.message}`,
        ),
      );
      spawned.once('exit', (code, signal) =>
        resolve(`${binary} exited at start (${signal ?? `code ${String(code)}`}): ${output.trim()}`),
      );
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    let why: string | undefined;
    void failure.then((reason) => {
      why = reason;
    });
    while (why === undefined) {
      const reply = await send(port, [...auth, 'PING'], 500);
      if (reply.includes('+PONG')) return;
      if (Date.now() > deadline) {
        why = `${binary} did not answer PING on 127.0.0.1:${port} within ${START_TIMEOUT_MS} ms: ${output.trim()}`;
        spawned.kill('SIGKILL');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the tests need a real Redis: ${why}; ${INSTALL_HINT}`);
  };

  const shutdown = async (mode: 'SHUTDOWN' | 'SHUTDOWN NOSAVE'): Promise<void> => {
    const current = child;
    if (current === undefined || current.exitCode !== null || current.signalCode !== null) return;
    await send(port, [...auth, mode], STOP_TIMEOUT_MS);
    const timer = setTimeout(() => current.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited(current);
    clearTimeout(timer);
  };

  try {
    await start();
  } catch (error) {
    process.off('exit', killOnExit);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  const password = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  return {
    port,
    dir,
    url: `redis://${password}127.0.0.1:${port}`,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    shutdown: () => shutdown('SHUTDOWN'),
    start,
    async kill() {
      const current = child;
      if (current === undefined) return;
      current.kill('SIGKILL');
      await exited(current);
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
    async stop() {
      child?.kill('SIGCONT');
      await shutdown('SHUTDOWN NOSAVE');
      process.off('exit', killOnExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A registry and its store, as one bot process holds them, closed after each test. */
export interface ProcessParts {
  readonly registry: { close(options?: { force?: boolean }): Promise<void> };
  readonly store: Keyv;
}

/**
 * One real Redis for a test file (started before its tests, stopped after) and the "processes" a test
 * opens on it, closed after each test: `redis` is the server, `track` hands a process's parts over.
 */
export function useRedisProcesses(): { readonly redis: TestRedis; track(parts: ProcessParts): void } {
  let redis: TestRedis | undefined;
  const opened: ProcessParts[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    for (const { registry, store } of opened.splice(0)) {
      await registry.close({ force: true });
      await closeStore(store).catch(() => undefined);
    }
  });
  return {
    get redis() {
      if (redis === undefined) throw new Error('the test Redis is not started yet (use it inside a test)');
      return redis;
    },
    track: (parts) => opened.push(parts),
  };
}
