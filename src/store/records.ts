/**
 * Records that must not lose an update (server settings, feeds): reads that throw on a store failure, and
 * an atomic read-modify-write, over the same keyv store and in keyv's own stored form. Each backend brings
 * its own compare-and-set: one conditional statement on the SQLite row, one Lua script on Redis, one
 * synchronous step on keyv's Map.
 */
import KeyvRedis from '@keyv/redis';
import KeyvSqlite from '@keyv/sqlite';
import type Keyv from 'keyv';
import { StoreAccessError, type StoreOperation } from '../errors.js';

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
  /**
   * `update` over several records at once: `change` gets their current values (in the order of `keys`) and
   * returns their next ones, an undefined one deleting its record; all are written as ONE atomic step
   * against every other writer, or none is (a server's settings, feeds and the feeds index in one import).
   * Same contract as `update` otherwise: `change` may run more than once, StoreAccessError on failure.
   */
  updateMany(
    keys: readonly string[],
    change: (currents: readonly unknown[]) => readonly unknown[],
  ): Promise<readonly unknown[]>;
}

/** One record of a multi-record compare-and-set: what was read (undefined: no row), and what to leave (undefined: no row). */
interface RecordSwap {
  readonly key: string;
  readonly expected: unknown;
  readonly next: unknown;
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
  /** Every swap, or none when any record no longer holds its `expected`; true when they were written. */
  compareAndSetMany(swaps: readonly RecordSwap[]): Promise<boolean>;
}

/** Tries of one update that lost to another writer, before giving up with a StoreAccessError. */
const UPDATE_ATTEMPTS = 10;

/**
 * One statement each: SQLite runs a statement atomically, so `UPDATE ... WHERE value IS <what was read>`
 * writes only if nobody wrote in between, across connections and processes; `IS` also matches a NULL.
 * RETURNING says whether a row was written (`changes()` could belong to another query on the connection).
 */
function sqliteRecords(adapter: KeyvSqlite, tombstone: () => Promise<unknown>): RawRecords {
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
    async compareAndSetMany(swaps) {
      // ONE statement, so it cannot interleave with the other queries keyv sends on its shared connection
      // (a BEGIN ... COMMIT there would take them into the transaction, and a rollback would undo them). A
      // statement cannot both upsert and delete, so a record to delete is left as keyv's own expired entry:
      // keyv and `read` see nothing there, and the sweeper removes the row.
      const rows = await Promise.all(
        swaps.map(async ({ key, next }) => [key, next === undefined ? await tombstone() : next] as const),
      );
      const input = swaps.map(() => '(?, ?)').join(', ');
      const expected = swaps.map(() => '(?, ?, ?)').join(', ');
      const sql = `WITH input(k, v) AS (VALUES ${input}), expected(k, v, present) AS (VALUES ${expected})
        INSERT INTO ${table} (key, value) SELECT k, v FROM input
        WHERE NOT EXISTS (SELECT 1 FROM expected e WHERE
          (e.present = 1 AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.key = e.k AND t.value IS e.v))
          OR (e.present = 0 AND EXISTS (SELECT 1 FROM ${table} t WHERE t.key = e.k)))
        ON CONFLICT(key) DO UPDATE SET value = excluded.value RETURNING key`;
      const args = [
        ...rows.flat(),
        ...swaps.flatMap(({ key, expected: value }) =>
          value === undefined ? [key, null, 0] : [key, value, 1],
        ),
      ];
      return written(await adapter.query(sql, ...args));
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
    async compareAndSetMany(swaps) {
      if (swaps.some(({ key, expected }) => map.get(key) !== expected)) return false;
      for (const { key, next } of swaps) {
        if (next === undefined) map.delete(key);
        else map.set(key, next);
      }
      return true;
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
 * The same over every key of KEYS in one script, so all are written or none: ARGV holds four values per
 * key, in the order of KEYS (whether a record is expected, the expected form, 'set' or 'del', the next form).
 */
const REDIS_COMPARE_AND_SET_MANY = `
for i, key in ipairs(KEYS) do
  local base = (i - 1) * 4
  local current = redis.call('GET', key)
  if ARGV[base + 1] == 'none' then
    if current then return 0 end
  elseif current ~= ARGV[base + 2] then
    return 0
  end
end
for i, key in ipairs(KEYS) do
  local base = (i - 1) * 4
  if ARGV[base + 3] == 'del' then
    redis.call('DEL', key)
  else
    redis.call('SET', key, ARGV[base + 4])
  end
end
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
    async compareAndSetMany(swaps) {
      const client = await adapter.getClient();
      const args = swaps.flatMap(({ expected, next }) => [
        ...(expected === undefined ? ['none', ''] : ['some', text(expected)]),
        ...(next === undefined ? ['del', ''] : ['set', text(next)]),
      ]);
      const keys = swaps.map(({ key }) => keyOf(key));
      const written = await client.eval(REDIS_COMPARE_AND_SET_MANY, { keys, arguments: args });
      return written === 1;
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
    // Only as good as this process's queue (see above): every record is checked, then each is written.
    async compareAndSetMany(swaps) {
      for (const { key, expected } of swaps) {
        const current = await adapter.get(key);
        if (current !== expected && (typeof current === 'string' || typeof expected === 'string'))
          return false;
      }
      const put = async (key: string, value: unknown): Promise<void> => {
        if (value === undefined) await adapter.delete(key);
        else if ((await adapter.set(key, value)) === false) throw new Error('the store refused the write');
      };
      const done: RecordSwap[] = [];
      try {
        for (const swap of swaps) {
          done.push(swap);
          await put(swap.key, swap.next);
        }
      } catch (error) {
        // Put back what was already written, so a failure halfway leaves every record as it was read.
        for (const { key, expected } of done.reverse()) await put(key, expected).catch(() => undefined);
        throw error;
      }
      return true;
    },
  };
}

/**
 * The tail of the queue of operations on each record: one process never races itself, so a compare-and-set
 * fails only against another process. An entry lives while an operation on that record is queued or
 * running, and the queue lives as long as its record store.
 */
function createRecordQueue(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const queues = new Map<string, Promise<void>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const result = (queues.get(key) ?? Promise.resolve()).then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return result;
  };
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
 * compare-and-set; any other keyv adapter is serialised within this process only, by this record store's
 * queue: callers share one record store per keyv (`recordStoreOf`, the store handle's `records`).
 */
export function createRecordStore(store: Keyv): RecordStore {
  const serially = createRecordQueue();
  const adapter: unknown = store.store;
  const raw: RawRecords =
    adapter instanceof KeyvSqlite
      ? sqliteRecords(adapter, () => encodeExpired())
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
  // keyv's own form of an entry that expired long ago: what a delete leaves where a backend cannot delete.
  async function encodeExpired(): Promise<unknown> {
    const data = { value: null, expires: 1 };
    return store.serialize === undefined ? data : store.serialize(data);
  }
  // Every record's queue at once, taken in one order (sorted), so two multi-record writers never wait on
  // each other crosswise.
  const seriallyAll = <T>(keys: readonly string[], work: () => Promise<T>): Promise<T> =>
    [...new Set(keys)]
      .sort()
      .reduceRight<() => Promise<T>>((inner, key) => () => serially(key, inner), work)();
  return {
    read(key) {
      const stored = storedKey(key);
      return guarded('read', key, () => raw.get(stored)).then(decode);
    },
    update(key, change) {
      const stored = storedKey(key);
      return serially(stored, async () => {
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
      return serially(stored, () => guarded('delete', key, () => raw.delete(stored)));
    },
    updateMany(keys, change) {
      const stored = keys.map(storedKey);
      const named = keys.join(', ');
      if (new Set(stored).size !== stored.length) {
        return Promise.reject(new TypeError(`updateMany was given one key twice: ${named}`));
      }
      return seriallyAll(stored, async () => {
        for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt += 1) {
          const currents = await guarded('read', named, () => Promise.all(stored.map((key) => raw.get(key))));
          const nexts = change(await Promise.all(currents.map(decode)));
          if (nexts.length !== keys.length) {
            throw new TypeError(`updateMany: ${nexts.length} values for ${keys.length} keys`);
          }
          const swaps = await Promise.all(
            stored.map(async (key, i) => ({
              key,
              expected: currents[i],
              next: nexts[i] === undefined ? undefined : await encode(nexts[i]),
            })),
          );
          if (await guarded('write', named, () => raw.compareAndSetMany(swaps))) return nexts;
          await conflictPause(attempt);
        }
        throw new StoreAccessError(
          `the store could not write ${named}: they changed under every one of ${UPDATE_ATTEMPTS} tries`,
          'write',
        );
      });
    },
  };
}
