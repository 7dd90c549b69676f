/**
 * Opening the store: keyv over SQLite for `sqlite://path` (one process, or several on one machine's file),
 * over Redis for `redis://`/`rediss://` (any number of processes and hosts), or an in-memory keyv for
 * `memory://` (tests, throwaway runs). `openStore` is what start-up uses: it also proves the store works
 * before the bot relies on it. Both hand back a `StoreHandle`, which `closeStore` closes.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import KeyvRedis, { createClient } from '@keyv/redis';
import KeyvSqlite from '@keyv/sqlite';
import type Keyv from 'keyv';
import { StoreOpenError } from '../errors.js';
import type { Logger } from '../logger.js';
import { StoreHandle } from './handle.js';
import { isMemoryUrl, isRedisUrl, STORE_URL_FORMS, storeSecretsOf, storeUrlProblem } from './url.js';

/**
 * How long a statement waits for another connection's lock (a second process on the same file, or this
 * one's own sweeper) before SQLite gives up with SQLITE_BUSY. Without it a lock fails the statement at
 * once, and keyv turns that into a silent miss.
 */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * What Redis keys of this bot start with (`philomena-bot::settings:guild:1`), so one Redis (or one db of it)
 * can serve other programs too, and `keyv.clear()` touches only the bot's keys.
 */
export const REDIS_NAMESPACE = 'philomena-bot';
/** A connection attempt that gets no answer (a firewall that drops packets) gives up after this. */
const REDIS_CONNECT_TIMEOUT_MS = 5_000;
/**
 * A connection that hears nothing for this long is dropped, failing the commands waiting on it (a Redis that
 * hangs, a link that went dead without a reset), so a command waits on the store no longer than on a slow
 * board: at most this plus one `REDIS_PING_INTERVAL_MS` (a PING sent meanwhile counts as activity). The
 * PINGs also keep a healthy idle connection from ever being that quiet. (node-redis's own command `timeout`
 * only bounds the wait before a command is sent, not for its answer.)
 */
export const REDIS_SOCKET_TIMEOUT_MS = 4_000;
const REDIS_PING_INTERVAL_MS = 1_000;
/** The longest pause between reconnection attempts once Redis was reachable and went away. */
const REDIS_RECONNECT_MAX_MS = 2_000;

/**
 * A Redis client that fails a command at once while Redis is away (`disableOfflineQueue`: no command waits
 * for a reconnection that may never come, so a command tells the member the settings are unavailable
 * instead of hanging) and after `REDIS_SOCKET_TIMEOUT_MS` when Redis does not answer. A first connection
 * that fails is not retried (the attempt fails, and the next use tries again): at start that is the probe's
 * one clear line. Once connected, it reconnects for ever, backing off up to 2 s.
 */
function createRedisStore(url: string): StoreHandle {
  let connected = false;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    pingInterval: REDIS_PING_INTERVAL_MS,
    socket: {
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      socketTimeout: REDIS_SOCKET_TIMEOUT_MS,
      reconnectStrategy: (retries: number, cause: Error) =>
        connected ? Math.min(2 ** retries * 100, REDIS_RECONNECT_MAX_MS) : cause,
    },
  });
  client.on('ready', () => {
    connected = true;
  });
  const adapter = new KeyvRedis(client, { namespace: REDIS_NAMESPACE });
  // The adapter prefixes the namespace itself (`philomena-bot::key`); keyv adding its own `keyv:` would only
  // lengthen every key.
  return new StoreHandle({ store: adapter, namespace: REDIS_NAMESPACE, useKeyPrefix: false });
}

/**
 * `sqlite://data/bot.sqlite` (relative to the working directory), `sqlite:///abs/path.sqlite`,
 * `redis://[user:password@]host[:port][/db]` or `rediss://...` (connected on first use), or `memory://`.
 * The SQLite file's directory is created. Anything else throws, naming the accepted forms.
 */
export function createStore(url: string): StoreHandle {
  const trimmed = url.trim();
  const problem = storeUrlProblem(trimmed);
  if (problem !== undefined)
    throw new Error(
      problem.startsWith('must be')
        ? `the store URL ${problem}`
        : `the store URL ${problem}: use ${STORE_URL_FORMS}`,
    );
  if (isMemoryUrl(trimmed)) return new StoreHandle();
  if (isRedisUrl(trimmed)) return createRedisStore(trimmed);
  const file = trimmed.slice('sqlite://'.length);
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return new StoreHandle({
    store: new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: SQLITE_BUSY_TIMEOUT_MS }),
  });
}

const PROBE_KEY = 'store:probe';

/**
 * keyv reports storage failures as 'error' events and returns false/undefined rather than throwing, and
 * SQLite opens lazily: a write and a read back is the only way to know at start that settings will stick.
 */
async function probe(store: Keyv): Promise<void> {
  let failure: unknown;
  const onError = (error: unknown): void => {
    failure ??= error;
  };
  store.on('error', onError);
  try {
    // A key of its own: processes starting together on one Redis must not read or delete each other's.
    const key = `${PROBE_KEY}:${randomUUID()}`;
    const value = Date.now();
    const written = await store.set(key, value, 60_000);
    const read: unknown = written === false ? undefined : await store.get(key);
    if (read !== value) {
      if (failure instanceof Error) throw failure;
      throw new Error(failure === undefined ? 'a value written could not be read back' : String(failure));
    }
    await store.delete(key);
  } finally {
    store.off('error', onError);
  }
}

/** What a person can do about a store that would not open, by kind of store. */
function howToFixOpen(url: string): string {
  if (isRedisUrl(url))
    return `check that Redis runs and is reachable at that host and port, and that the user, password and db are right: redis://[user:password@]host[:port][/db] (rediss:// for TLS), or sqlite://data/bot.sqlite for one process`;
  return 'use a path whose folder exists or can be created and is writable, e.g. sqlite://data/bot.sqlite, or memory:// to keep nothing';
}

/**
 * Creates the store of `url` and proves it works (write, read back, delete), so a bad STORE_URL stops the
 * bot at start instead of silently losing every setting later. Throws a `StoreOpenError` whose message is
 * one line a person can act on, and never holds the URL's password.
 */
export async function openStore(url: string): Promise<StoreHandle> {
  const problem = storeUrlProblem(url);
  if (problem !== undefined) {
    const reason = problem.startsWith('must be') ? 'a scheme the bot does not know' : problem;
    throw new StoreOpenError(`could not open the store at STORE_URL (${reason}): use ${STORE_URL_FORMS}`);
  }
  let store: StoreHandle | undefined;
  try {
    store = createStore(url);
    await probe(store);
    return store;
  } catch (error) {
    if (store !== undefined) await store.disconnect().catch(() => undefined);
    let reason = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
    for (const secret of storeSecretsOf(url)) reason = reason.split(secret).join('[redacted]');
    throw new StoreOpenError(`could not open the store at STORE_URL (${reason}): ${howToFixOpen(url)}`, {
      cause: error,
    });
  }
}

/**
 * Logs the store's errors. A Redis outage makes every cache and settings call fail until it is back, so
 * for Redis the first failure is one warning and the rest go to debug, until the client is ready again
 * (one more line). SQLite and memory errors are rare and each is worth its own line.
 */
export function logStoreErrors(store: Keyv, logger: Logger): void {
  const adapter: unknown = store.store;
  if (!(adapter instanceof KeyvRedis)) {
    store.on('error', (error: unknown) => logger.error({ err: error }, 'store error'));
    return;
  }
  let down = false;
  store.on('error', (error: unknown) => {
    if (down) {
      logger.debug({ err: error }, 'store error');
      return;
    }
    down = true;
    logger.warn(
      { err: error },
      'store: Redis unreachable; the board cache is memory-only, servers go on with their last confirmed settings and settings changes are refused, until it answers again',
    );
  });
  void adapter.getClient().then(
    (client) => {
      client.on('ready', () => {
        if (!down) return;
        down = false;
        logger.info('store: Redis answers again');
      });
    },
    () => undefined,
  );
}
