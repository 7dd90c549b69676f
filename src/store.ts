/**
 * The persistent key-value store behind the response cache (and anything else that wants one): keyv over
 * SQLite for `sqlite://path`, or an in-memory keyv for `memory://` (tests, throwaway runs). `openStore` is
 * what start-up uses: it also proves the store works before the bot relies on it. `startStoreSweeper`
 * deletes expired entries, which neither keyv nor its adapters ever do for a key nobody reads again.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import { StoreOpenError } from './errors.js';
import type { Logger } from './logger.js';

// Kept importable from here, where it is thrown; it lives in the one error hierarchy (errors.ts).
export { StoreOpenError } from './errors.js';

/**
 * `sqlite://data/bot.sqlite` (relative to the working directory), `sqlite:///abs/path.sqlite`, or
 * `memory://`. The SQLite file's directory is created. Anything else throws, naming the accepted forms.
 */
export function createStore(url: string): Keyv {
  const trimmed = url.trim();
  if (trimmed === 'memory://' || trimmed === 'memory:') return new Keyv();
  if (trimmed.startsWith('sqlite://')) {
    const file = trimmed.slice('sqlite://'.length);
    if (file === '')
      throw new Error('the store URL sqlite:// needs a file path, e.g. sqlite://data/bot.sqlite');
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    return new Keyv({ store: new KeyvSqlite(`sqlite://${file}`) });
  }
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(trimmed)?.[0] ?? '(none)';
  throw new Error(
    `unsupported store URL scheme ${scheme}: use sqlite://<path> (e.g. sqlite://data/bot.sqlite) or memory://`,
  );
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
    const value = Date.now();
    const written = await store.set(PROBE_KEY, value);
    const read: unknown = written === false ? undefined : await store.get(PROBE_KEY);
    if (read !== value) {
      if (failure instanceof Error) throw failure;
      throw new Error(failure === undefined ? 'a value written could not be read back' : String(failure));
    }
    await store.delete(PROBE_KEY);
  } finally {
    store.off('error', onError);
  }
}

/**
 * Creates the store of `url` and proves it works (write, read back, delete), so a bad STORE_URL stops the
 * bot at start instead of silently losing every setting later. Throws a `StoreOpenError` whose message is
 * one line a person can act on.
 */
export async function openStore(url: string): Promise<Keyv> {
  let store: Keyv | undefined;
  try {
    store = createStore(url);
    await probe(store);
    return store;
  } catch (error) {
    if (store !== undefined) await store.disconnect().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreOpenError(
      `could not open the store at STORE_URL (${reason}): use a path whose folder exists or can be created and is writable, e.g. sqlite://data/bot.sqlite, or memory:// to keep nothing`,
      { cause: error },
    );
  }
}

export interface StoreSweeperOptions {
  readonly logger: Logger;
  /** Time between sweeps; default 10 minutes. One sweep also runs at once. */
  readonly intervalMs?: number;
  /** Entries deleted (SQLite) or looked at (memory) per step; default 500. */
  readonly batchSize?: number;
  /** Steps per sweep, so one sweep does bounded work and a backlog is worked off over several; default 20. */
  readonly maxBatches?: number;
  /** The clock keyv stamps `expires` with; a test seam. Default `Date.now`. */
  readonly now?: () => number;
}

export interface StoreSweeper {
  /**
   * One sweep now (joining one in progress): deletes up to `batchSize × maxBatches` expired entries and
   * resolves to how many went. Never rejects: a failure is logged and counts as 0. After `stop`, does nothing.
   */
  sweep(): Promise<number>;
  /** Stops the timer and waits for a sweep in progress. Idempotent. */
  stop(): Promise<void>;
}

export const DEFAULT_SWEEP_INTERVAL_MS = 10 * 60_000;
const DEFAULT_SWEEP_BATCH = 500;
const DEFAULT_SWEEP_BATCHES = 20;

/**
 * The running sweeper of each store, so `closeStore` can stop it without every caller having to. A WeakMap
 * holds no store alive: it never outgrows the stores that are open.
 */
const sweepers = new WeakMap<Keyv, StoreSweeper>();

/** One bounded step: deletes (or, for memory, looks at) up to `limit` entries; resolves to how many it deleted. */
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
 * process alive), in bounded steps. Entries without a lifetime (settings) are never touched. Works on the
 * stores `createStore` makes (SQLite, memory); for any other keyv store it logs that and does nothing.
 * `closeStore` stops it; so does `stop()`. Starting another sweeper on the same store stops the first.
 */
export function startStoreSweeper(store: Keyv, options: StoreSweeperOptions): StoreSweeper {
  const { logger } = options;
  const intervalMs = Math.max(1_000, options.intervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_SWEEP_BATCH));
  const maxBatches = Math.max(1, Math.floor(options.maxBatches ?? DEFAULT_SWEEP_BATCHES));
  const now = options.now ?? Date.now;
  const adapter: unknown = store.store;
  const step: SweepStep | undefined =
    adapter instanceof KeyvSqlite
      ? sqliteStep(adapter)
      : adapter instanceof Map
        ? memoryStep(store, adapter)
        : undefined;
  if (step === undefined)
    logger.debug('store sweeper: this keyv store is neither SQLite nor memory; nothing to sweep');

  let stopped = false;
  let running: Promise<number> | undefined;

  const run = async (sweepStep: SweepStep): Promise<number> => {
    let total = 0;
    try {
      const at = now();
      for (let batch = 0; batch < maxBatches && !stopped; batch += 1) {
        const { deleted, more } = await sweepStep(batchSize, at);
        total += deleted;
        if (!more) break;
      }
      if (total > 0) logger.debug({ deleted: total }, 'store sweep: expired entries deleted');
    } catch (error) {
      logger.warn({ err: error }, 'store sweep failed; the next one tries again');
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
      await running;
    },
  };
  const previous = sweepers.get(store);
  sweepers.set(store, sweeper);
  void previous?.stop();
  void sweep();
  return sweeper;
}
