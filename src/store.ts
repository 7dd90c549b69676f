/**
 * The persistent key-value store behind the response cache, server settings and paging state: keyv over
 * SQLite for `sqlite://path` (one process, or several on one machine's file), over Redis for
 * `redis://`/`rediss://` (any number of processes and hosts), or an in-memory keyv for `memory://` (tests,
 * throwaway runs). `openStore` is what start-up uses: it also proves the store works before the bot relies
 * on it. `startStoreSweeper` deletes expired entries, which neither keyv nor its SQLite adapter ever does
 * for a key nobody reads again; Redis expires them itself.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import KeyvRedis, { createClient } from '@keyv/redis';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import { StoreAccessError, StoreOpenError, type StoreOperation } from './errors.js';
import type { Logger } from './logger.js';

// Kept importable from here, where they are thrown; they live in the one error hierarchy (errors.ts).
export { StoreAccessError, StoreOpenError } from './errors.js';

/**
 * How long a statement waits for another connection's lock (a second process on the same file, or this
 * one's own sweeper) before SQLite gives up with SQLITE_BUSY. Without it a lock fails the statement at
 * once, and keyv turns that into a silent miss.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * What Redis keys of this bot start with (`philomena-bot::settings:guild:1`), so one Redis (or one db of it)
 * can serve other programs too, and `keyv.clear()` touches only the bot's keys.
 */
export const REDIS_NAMESPACE = 'philomena-bot';
/** A connection attempt that gets no answer (a firewall that drops packets) gives up after this. */
export const REDIS_CONNECT_TIMEOUT_MS = 5_000;
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

/** The accepted forms, as every message about a bad store URL names them. */
export const STORE_URL_FORMS =
  'sqlite://<path>, redis://[user:password@]host[:port][/db] (rediss:// for TLS) or memory://';

/**
 * What is wrong with a store URL, as a phrase that follows "STORE_URL" or "the store URL" and never repeats
 * the value (it may hold a password); undefined when `createStore` takes it. The config check and
 * `createStore` share it, so they cannot disagree.
 */
export function storeUrlProblem(url: string): string | undefined {
  const trimmed = url.trim();
  if (trimmed === 'memory://' || trimmed === 'memory:') return undefined;
  if (trimmed.startsWith('sqlite://'))
    return trimmed === 'sqlite://' ? 'needs a file path after sqlite://' : undefined;
  if (!isRedisUrl(trimmed)) return `must be ${STORE_URL_FORMS}`;
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return 'is not a valid Redis URL (percent-encode special characters in the user and password)';
  }
  if (!/^rediss?:\/\//i.test(trimmed) || parsed.hostname === '') return 'names no Redis host';
  if (!/^\/?(?:\d{1,5})?$/.test(parsed.pathname)) return 'names a Redis db that is not a number';
  if (parsed.search !== '' || parsed.hash !== '')
    return 'has a ?query or #fragment, which a Redis URL does not take';
  return undefined;
}

function isRedisUrl(url: string): boolean {
  return /^rediss?:/i.test(url.trim());
}

/**
 * The secrets in a store URL (a Redis password, as written and decoded), for the logger to scrub: Redis
 * and its client never echo it, but an error that quotes the URL must not carry it into the logs.
 */
export function storeSecretsOf(url: string): string[] {
  if (!isRedisUrl(url)) return [];
  try {
    const { password } = new URL(url.trim());
    if (password === '') return [];
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {
      // Not valid percent-encoding: the client sends it as written.
    }
    return [...new Set([password, decoded])];
  } catch {
    return [];
  }
}

/**
 * A Redis client that fails a command at once while Redis is away (`disableOfflineQueue`: no command waits
 * for a reconnection that may never come, so a command tells the member the settings are unavailable
 * instead of hanging) and after `REDIS_SOCKET_TIMEOUT_MS` when Redis does not answer. A first connection
 * that fails is not retried (the attempt fails, and the next use tries again): at start that is the probe's
 * one clear line. Once connected, it reconnects for ever, backing off up to 2 s.
 */
function createRedisStore(url: string): Keyv {
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
  return new Keyv({ store: adapter, namespace: REDIS_NAMESPACE, useKeyPrefix: false });
}

/**
 * `sqlite://data/bot.sqlite` (relative to the working directory), `sqlite:///abs/path.sqlite`,
 * `redis://[user:password@]host[:port][/db]` or `rediss://...` (connected on first use), or `memory://`.
 * The SQLite file's directory is created. Anything else throws, naming the accepted forms.
 */
export function createStore(url: string): Keyv {
  const trimmed = url.trim();
  const problem = storeUrlProblem(trimmed);
  if (problem !== undefined)
    throw new Error(
      problem.startsWith('must be')
        ? `the store URL ${problem}`
        : `the store URL ${problem}: use ${STORE_URL_FORMS}`,
    );
  if (trimmed === 'memory://' || trimmed === 'memory:') return new Keyv();
  if (isRedisUrl(trimmed)) return createRedisStore(trimmed);
  const file = trimmed.slice('sqlite://'.length);
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return new Keyv({
    store: new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: SQLITE_BUSY_TIMEOUT_MS }),
  });
}

/** Stops the store's sweeper (waiting for a sweep in progress), then closes its connection (a no-op for memory). */
export async function closeStore(store: Keyv): Promise<void> {
  const sweeper = sweepers.get(store);
  sweepers.delete(store);
  await sweeper?.stop();
  await store.disconnect();
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
export async function openStore(url: string): Promise<Keyv> {
  const problem = storeUrlProblem(url);
  if (problem !== undefined) {
    const reason = problem.startsWith('must be') ? 'a scheme the bot does not know' : problem;
    throw new StoreOpenError(`could not open the store at STORE_URL (${reason}): use ${STORE_URL_FORMS}`);
  }
  let store: Keyv | undefined;
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

// ---- records that must not lose an update ---------------------------------------------------------

/**
 * Atomic operations on single records (server settings), over the same keyv store and in keyv's own stored
 * form (`{"value":...}`), so records written by `store.set` read back and the other way round.
 *
 * keyv cannot be used for these as it is: its `get` turns a failed read into `undefined` (so a failure
 * looks like "nothing stored"), and `get` then `set` lets two writers each confirm an update of which only
 * the last survives.
 */
export interface RecordStore {
  /** The value stored under `key`; undefined when there is none (or it expired). Rejects with a `StoreAccessError` when the store fails. */
  read(key: string): Promise<unknown>;
  /**
   * Replaces the value under `key` with `change(current)` (current: undefined when none), as one atomic
   * step against every other writer of the record (this process and, for SQLite and Redis, any other process
   * sharing the store), and resolves with what was stored. `change` may run more than once (a writer that got there first
   * makes it start over on the new value), so it must only compute. Rejects with a `StoreAccessError` when
   * the store fails or the record kept changing; nothing is written then.
   */
  update<T>(key: string, change: (current: unknown) => T): Promise<T>;
  /** Deletes `key` (also fine when nothing is stored). Rejects with a `StoreAccessError` when the store fails. */
  remove(key: string): Promise<void>;
}

/**
 * What a backend must offer for `RecordStore`: a read that throws on failure, and a compare-and-set on the
 * stored (serialised) form. SQLite does the compare-and-set in one conditional statement, Redis in one Lua
 * script comparing GET with `expected` before SET.
 */
interface RawRecords {
  /** The stored form; undefined when there is no row. */
  get(key: string): Promise<unknown>;
  /** Writes `next` only if the stored form is still `expected` (undefined: no row yet); true when it did. */
  compareAndSet(key: string, expected: unknown, next: unknown): Promise<boolean>;
  delete(key: string): Promise<void>;
}

/** Tries of one update that lost to another writer, before giving up with a StoreAccessError. */
const UPDATE_ATTEMPTS = 10;

/**
 * One statement each: SQLite runs a statement atomically, so `UPDATE ... WHERE value IS <what was read>`
 * writes only if nobody wrote in between, across connections and processes; `IS` also matches a NULL.
 * RETURNING says whether a row was written (`changes()` could belong to another query on the connection).
 */
function sqliteRecords(adapter: KeyvSqlite): RawRecords {
  const table = String(adapter.opts.table ?? 'keyv');
  const written = (rows: unknown): boolean => Array.isArray(rows) && rows.length > 0;
  return {
    async get(key) {
      const rows: unknown = await adapter.query(`SELECT value FROM ${table} WHERE key = ?`, key);
      const row: unknown = Array.isArray(rows) ? rows[0] : undefined;
      if (typeof row !== 'object' || row === null) return undefined;
      return 'value' in row ? row.value : null;
    },
    async compareAndSet(key, expected, next) {
      if (expected === undefined) {
        return written(
          await adapter.query(
            `INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING RETURNING key`,
            key,
            next,
          ),
        );
      }
      return written(
        await adapter.query(
          `UPDATE ${table} SET value = ? WHERE key = ? AND value IS ? RETURNING key`,
          next,
          key,
          expected,
        ),
      );
    },
    async delete(key) {
      await adapter.query(`DELETE FROM ${table} WHERE key = ?`, key);
    },
  };
}

/** keyv's Map (memory://): the comparison and the write are one synchronous step, so nothing runs between. */
function mapRecords(map: Map<unknown, unknown>): RawRecords {
  return {
    get: async (key) => map.get(key),
    async compareAndSet(key, expected, next) {
      if (map.get(key) !== expected) return false;
      map.set(key, next);
      return true;
    },
    async delete(key) {
      map.delete(key);
    },
  };
}

/**
 * GET, compare and SET in one Lua script: Redis runs a script alone, so nothing written by another process
 * (or connection) can come between the comparison and the write. ARGV[1] says whether a record is expected
 * at all (a missing key reads as `false` in Lua, never equal to a string).
 */
const REDIS_COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == 'none' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3])
return 1
`;

/**
 * Redis through the adapter's own client and key prefix, so records meet keyv's entries on one key. Every
 * failure (Redis away, a time-out, a refused command) rejects; keyv's adapter would turn it into a miss.
 */
function redisRecords(adapter: KeyvRedis<unknown>): RawRecords {
  const keyOf = (key: string): string => adapter.createKeyPrefix(key, adapter.namespace);
  const text = (value: unknown): string => {
    if (typeof value !== 'string') throw new TypeError('a Redis record must be stored as a string');
    return value;
  };
  return {
    async get(key) {
      const client = await adapter.getClient();
      const value = await client.get(keyOf(key));
      return value ?? undefined;
    },
    async compareAndSet(key, expected, next) {
      const client = await adapter.getClient();
      const args = expected === undefined ? ['none', '', text(next)] : ['some', text(expected), text(next)];
      const written = await client.eval(REDIS_COMPARE_AND_SET, { keys: [keyOf(key)], arguments: args });
      return written === 1;
    },
    async delete(key) {
      const client = await adapter.getClient();
      await client.del(keyOf(key));
    },
  };
}

interface AdapterLike {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}

function isAdapterLike(value: unknown): value is AdapterLike {
  if (typeof value !== 'object' || value === null) return false;
  return ['get', 'set', 'delete'].every((name) => typeof Reflect.get(value, name) === 'function');
}

/**
 * Any other keyv adapter, called directly so that its failures reach the caller. It offers no atomic
 * compare-and-set, so the check below is only as good as the per-record lock of this process: fine for
 * one process, and for tests; a backend shared by processes needs a `RawRecords` of its own (as Redis has).
 */
function adapterRecords(adapter: AdapterLike): RawRecords {
  return {
    get: (key) => adapter.get(key),
    async compareAndSet(key, expected, next) {
      // Serialised forms (strings) are compared; an adapter that hands back objects is left to the lock.
      const current = await adapter.get(key);
      if (current !== expected && (typeof current === 'string' || typeof expected === 'string')) return false;
      if ((await adapter.set(key, next)) === false) throw new Error('the store refused the write');
      return true;
    },
    async delete(key) {
      await adapter.delete(key);
    },
  };
}

/**
 * The tail of the queue of operations on each record of each store: one process never races itself, so a
 * compare-and-set fails only against another process. An entry lives while an operation on that record is
 * queued or running; a WeakMap holds no store alive.
 */
const recordQueues = new WeakMap<Keyv, Map<string, Promise<void>>>();

function serially<T>(store: Keyv, key: string, work: () => Promise<T>): Promise<T> {
  let queues = recordQueues.get(store);
  if (queues === undefined) {
    queues = new Map();
    recordQueues.set(store, queues);
  }
  const own = queues;
  const result = (own.get(key) ?? Promise.resolve()).then(work);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  own.set(key, tail);
  void tail.then(() => {
    if (own.get(key) === tail) own.delete(key);
  });
  return result;
}

const VERB: Readonly<Record<StoreOperation, string>> = { read: 'read', write: 'write', delete: 'delete' };

async function guarded<T>(operation: StoreOperation, key: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreAccessError(`the store could not ${VERB[operation]} ${key}: ${reason}`, operation, {
      cause: error,
    });
  }
}

/** A short random pause before trying again after losing to another writer, so two losers do not collide again. */
function conflictPause(attempt: number): Promise<void> {
  const ms = Math.floor(Math.random() * 10 * attempt) + 1;
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The atomic record operations of `store` (see `RecordStore`). SQLite, Redis and memory stores get a real
 * compare-and-set; any other keyv adapter is serialised within this process only.
 */
export function recordStoreOf(store: Keyv): RecordStore {
  const adapter: unknown = store.store;
  const raw: RawRecords =
    adapter instanceof KeyvSqlite
      ? sqliteRecords(adapter)
      : adapter instanceof KeyvRedis
        ? redisRecords(adapter)
        : adapter instanceof Map
          ? mapRecords(adapter)
          : isAdapterLike(adapter)
            ? adapterRecords(adapter)
            : mapRecords(new Map()); // keyv refuses anything else at construction; never reached
  // The key as keyv stores it (`keyv:settings:...`), so both ways of access meet on one row.
  const storedKey = (key: string): string => {
    const namespace = store.namespace;
    if (!store.useKeyPrefix || namespace === undefined || namespace === '') return key;
    return key.startsWith(`${namespace}:`) ? key : `${namespace}:${key}`;
  };
  // What keyv's own get would return for a stored form, but a form it cannot decode is handed over as it is,
  // for the caller's schema to refuse (a damaged record is not a failed read).
  const decode = async (stored: unknown): Promise<unknown> => {
    if (stored === undefined || stored === null) return undefined;
    let data: unknown = stored;
    if (typeof stored === 'string' && store.deserialize !== undefined) {
      try {
        data = await store.deserialize(stored);
      } catch {
        return stored;
      }
    }
    if (typeof data !== 'object' || data === null || !('value' in data)) return data ?? undefined;
    const expires = 'expires' in data ? data.expires : undefined;
    if (typeof expires === 'number' && expires < Date.now()) return undefined;
    return data.value ?? undefined;
  };
  const encode = async (value: unknown): Promise<unknown> => {
    const data = { value, expires: undefined };
    return store.serialize === undefined ? data : store.serialize(data);
  };
  return {
    read(key) {
      const stored = storedKey(key);
      return guarded('read', key, () => raw.get(stored)).then(decode);
    },
    update(key, change) {
      const stored = storedKey(key);
      return serially(store, stored, async () => {
        for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt += 1) {
          const current = await guarded('read', key, () => raw.get(stored));
          const next = change(await decode(current));
          const encoded = await encode(next);
          if (await guarded('write', key, () => raw.compareAndSet(stored, current, encoded))) return next;
          await conflictPause(attempt);
        }
        throw new StoreAccessError(
          `the store could not write ${key}: it changed under every one of ${UPDATE_ATTEMPTS} tries`,
          'write',
        );
      });
    },
    remove(key) {
      const stored = storedKey(key);
      return serially(store, stored, () => guarded('delete', key, () => raw.delete(stored)));
    },
  };
}

export interface StoreSweeperOptions {
  readonly logger: Logger;
  /** Time between sweeps; default 10 minutes. One sweep also runs at once. */
  readonly intervalMs?: number;
  /** Entries deleted (SQLite) or looked at (memory) per step; default 500. */
  readonly batchSize?: number;
  /** Steps per sweep at most; default no limit (the time cap bounds a sweep). */
  readonly maxBatches?: number;
  /**
   * A sweep stops starting steps after this long (default 2 s), so it never holds the database for long;
   * a backlog left over is taken up again `catchUpMs` later instead of at the next interval.
   */
  readonly maxSweepMs?: number;
  /** The pause before the next sweep when the last one stopped with expired entries left; default 10 s. */
  readonly catchUpMs?: number;
  /** The clock keyv stamps `expires` with; a test seam. Default `Date.now`. */
  readonly now?: () => number;
}

export interface StoreSweeper {
  /**
   * One sweep now (joining one in progress): deletes expired entries in steps of `batchSize` while steps
   * come back full, up to `maxSweepMs` (and `maxBatches`), and resolves to how many went. Never rejects: a
   * failure is logged and counts as 0. After `stop`, does nothing.
   */
  sweep(): Promise<number>;
  /** Stops the timers and waits for a sweep in progress. Idempotent. */
  stop(): Promise<void>;
}

export const DEFAULT_SWEEP_INTERVAL_MS = 10 * 60_000;
const DEFAULT_SWEEP_BATCH = 500;
/**
 * SQLite deletes some 20,000 expired rows a second here (a 500-row step takes about 25 ms), so one capped
 * sweep clears about 40,000 rows, and sweeps 10 s apart while a backlog lasts clear over 3,000 rows a
 * second: far more than a bot can write, since every cache row costs a board call (a few a second per
 * site) and every paging row a command. The old fixed 10,000 rows per 10 minutes (17 a second) was not.
 */
const DEFAULT_SWEEP_MAX_MS = 2_000;
const DEFAULT_CATCH_UP_MS = 10_000;

/**
 * The running sweeper of each store, so `closeStore` can stop it without every caller having to. A WeakMap
 * holds no store alive: it never outgrows the stores that are open.
 */
const sweepers = new WeakMap<Keyv, StoreSweeper>();

/**
 * One bounded step: deletes (or, for memory, looks at) up to `limit` entries; resolves to how many it
 * deleted, and whether there may be more to do (a full step, or a memory pass not over yet).
 */
type SweepStep = (limit: number, now: number) => Promise<{ deleted: number; more: boolean }>;

/**
 * keyv writes every value as `{"value":...,"expires":<ms>}` JSON (`expires` left out when there is no
 * lifetime, as for settings), so one statement finds the expired rows. The CASE keeps `json_extract` off a
 * row that is not JSON (it would fail the whole statement); such a row, like one without `expires`, stays.
 * `rowid ... LIMIT` bounds each statement; RETURNING counts what went (one connection, so `changes()` could
 * belong to another query).
 */
function sqliteStep(adapter: KeyvSqlite): SweepStep {
  const table = String(adapter.opts.table ?? 'keyv');
  const sql = `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE CASE WHEN json_valid(value) THEN json_extract(value, '$.expires') END < ? LIMIT ?) RETURNING key`;
  return async (limit, now) => {
    const rows: unknown = await adapter.query(sql, now, limit);
    const deleted = Array.isArray(rows) ? rows.length : 0;
    return { deleted, more: deleted >= limit };
  };
}

/**
 * keyv's Map store keeps an expired entry until its key is read again, like SQLite. A Map iterator stays
 * valid while entries are added and deleted, so each step goes on where the last one stopped, and a full
 * pass over a large map is spread across sweeps.
 */
function memoryStep(store: Keyv, map: Map<unknown, unknown>): SweepStep {
  let cursor: Iterator<[unknown, unknown]> | undefined;
  const expiresOf = async (raw: unknown): Promise<number | undefined> => {
    let data: unknown = raw;
    if (typeof raw === 'string') {
      try {
        data = store.deserialize ? await store.deserialize(raw) : JSON.parse(raw);
      } catch {
        return undefined; // not keyv's: not ours to judge
      }
    }
    if (typeof data !== 'object' || data === null || !('expires' in data)) return undefined;
    return typeof data.expires === 'number' ? data.expires : undefined;
  };
  return async (limit, now) => {
    cursor ??= map.entries();
    let deleted = 0;
    for (let seen = 0; seen < limit; seen += 1) {
      const next = cursor.next();
      if (next.done === true) {
        cursor = undefined; // the pass is over; the next step starts a new one
        return { deleted, more: false };
      }
      const [key, raw] = next.value;
      const expires = await expiresOf(raw);
      if (expires !== undefined && expires < now && map.get(key) === raw) {
        map.delete(key);
        deleted += 1;
      }
    }
    return { deleted, more: true };
  };
}

/**
 * Deletes expired entries from the store now and every `intervalMs` (an unref'd timer: it never keeps the
 * process alive), in bounded steps, sooner again while a backlog lasts. Entries without a lifetime (settings)
 * are never touched. Works on the SQLite and memory stores `createStore` makes. Redis needs none (keyv hands
 * each lifetime to Redis as PX, and Redis deletes the key itself): for Redis, as for any other keyv store,
 * it logs that at debug and does nothing, with no timer.
 * `closeStore` stops it; so does `stop()`. Starting another sweeper on the same store stops the first.
 */
export function startStoreSweeper(store: Keyv, options: StoreSweeperOptions): StoreSweeper {
  const { logger } = options;
  const intervalMs = Math.max(1_000, options.intervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_SWEEP_BATCH));
  const maxBatches = Math.max(1, Math.floor(options.maxBatches ?? Number.POSITIVE_INFINITY));
  const maxSweepMs = Math.max(0, options.maxSweepMs ?? DEFAULT_SWEEP_MAX_MS);
  const catchUpMs = Math.max(0, options.catchUpMs ?? DEFAULT_CATCH_UP_MS);
  const now = options.now ?? Date.now;
  const adapter: unknown = store.store;
  const step: SweepStep | undefined =
    adapter instanceof KeyvSqlite
      ? sqliteStep(adapter)
      : adapter instanceof Map
        ? memoryStep(store, adapter)
        : undefined;
  if (step === undefined) {
    logger.debug(
      adapter instanceof KeyvRedis
        ? 'store sweeper: not needed, Redis expires cache and paging entries itself'
        : 'store sweeper: this keyv store is neither SQLite nor memory; nothing to sweep',
    );
    const idle: StoreSweeper = { sweep: () => Promise.resolve(0), stop: () => Promise.resolve() };
    const previous = sweepers.get(store);
    sweepers.set(store, idle);
    void previous?.stop();
    return idle;
  }

  let stopped = false;
  let running: Promise<number> | undefined;
  let catchUp: NodeJS.Timeout | undefined;

  const run = async (sweepStep: SweepStep): Promise<number> => {
    let total = 0;
    let left = false;
    try {
      const at = now();
      const started = performance.now();
      for (let batch = 1; !stopped; batch += 1) {
        const { deleted, more } = await sweepStep(batchSize, at);
        total += deleted;
        left = more;
        if (!more || batch >= maxBatches || performance.now() - started >= maxSweepMs) break;
        // Other work (commands, cache writes on the same connection) gets its turn between steps.
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (total > 0) logger.debug({ deleted: total, left }, 'store sweep: expired entries deleted');
    } catch (error) {
      left = false; // a failing database is not hammered: the next interval tries again
      logger.warn({ err: error }, 'store sweep failed; the next one tries again');
    }
    if (left && !stopped && catchUp === undefined) {
      catchUp = setTimeout(() => {
        catchUp = undefined;
        void sweep();
      }, catchUpMs);
      catchUp.unref();
    }
    return total;
  };

  const sweep = (): Promise<number> => {
    if (stopped || step === undefined) return Promise.resolve(0);
    running ??= run(step).finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();

  const sweeper: StoreSweeper = {
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(catchUp);
      catchUp = undefined;
      await running;
    },
  };
  const previous = sweepers.get(store);
  sweepers.set(store, sweeper);
  void previous?.stop();
  void sweep();
  return sweeper;
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
