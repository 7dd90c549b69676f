/**
 * Deletes expired entries, which neither keyv nor its SQLite adapter ever does for a key nobody reads again
 * (Redis expires them itself): in bounded steps, on an unref'd timer, sooner again while a backlog lasts.
 */
import KeyvRedis from '@keyv/redis';
import KeyvSqlite from '@keyv/sqlite';
import type Keyv from 'keyv';
import type { Logger } from '../logger.js';
import { StoreHandle } from './handle.js';

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
 * `closeStore` stops it; so does `stop()`. Starting another sweeper on the same store stops the first (both
 * for a store `createStore` made, which owns its sweeper).
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
    if (store instanceof StoreHandle) store.adoptSweeper(idle);
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
  // The store owns its sweeper, so `closeStore` stops it without every caller having to.
  if (store instanceof StoreHandle) store.adoptSweeper(sweeper);
  void sweep();
  return sweeper;
}
