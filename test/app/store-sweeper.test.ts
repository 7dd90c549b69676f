import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import type { DeserializedData, default as Keyv } from 'keyv';
import sqlite3 from 'sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, type Logger } from '../../src/logger.js';
import { createResponseCache } from '../../src/philomena/cache.js';
import {
  closeStore,
  createStore,
  DEFAULT_SWEEP_INTERVAL_MS,
  startStoreSweeper,
} from '../../src/store/index.js';

const dirs: string[] = [];
const stores: Keyv[] = [];
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const store of stores.splice(0)) await closeStore(store).catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sqliteFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'philomena-sweep-'));
  dirs.push(dir);
  return path.join(dir, 'bot.sqlite');
}

function open(url: string): Keyv {
  const store = createStore(url);
  stores.push(store);
  return store;
}

function capture(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  return { lines, logger };
}

/** Every row of the file, read with a connection of its own (not the store's). */
async function rowsInFile(file: string): Promise<{ key: string; value: string }[]> {
  const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
  try {
    return await new Promise((resolve, reject) => {
      db.all('SELECT key, value FROM keyv ORDER BY key', (error, rows: { key: string; value: string }[]) =>
        error ? reject(error) : resolve(rows),
      );
    });
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

async function keysInFile(file: string): Promise<string[]> {
  return (await rowsInFile(file)).map((row) => row.key);
}

function sqliteAdapter(store: Keyv): KeyvSqlite {
  const adapter: unknown = store.store;
  if (!(adapter instanceof KeyvSqlite)) throw new Error('not a SQLite store');
  return adapter;
}

const MINUTE = 60_000;

describe('startStoreSweeper over SQLite', () => {
  it('GIVEN expired cache, paging and 404 entries next to live ones and settings THEN a sweep deletes exactly the expired rows from the file', async () => {
    const file = sqliteFile();
    const store = open(`sqlite://${file}`);
    const cache = createResponseCache({ store, memoryEntries: 0 });
    await cache.fetch('philomena:derpibooru:search:random-seed-1', async () => ({ total: 1 }), {
      ttlMs: MINUTE,
    });
    await store.set('state:page:abc', { query: 'safe', page: 2 }, MINUTE);
    await store.set('philomena:derpibooru:image:404', { notFound: true }, MINUTE);
    await store.set('state:page:live', { query: 'pony', page: 1 }, 60 * MINUTE);
    await store.set('settings:123', { filterId: 56027, expires: 1 }); // an `expires` inside the value is data
    await store.set('settings:456', { siteId: 'furbooru' }, 0); // 0 means no lifetime in keyv
    const before = await keysInFile(file);
    expect(before).toHaveLength(6);

    const { logger, lines } = capture();
    const sweeper = startStoreSweeper(store, { logger, now: () => Date.now() + 2 * MINUTE });
    await sweeper.sweep(); // joins the sweep that started with it
    expect(await sweeper.sweep()).toBe(0); // nothing left to do

    expect(await keysInFile(file)).toEqual([
      'keyv:settings:123',
      'keyv:settings:456',
      'keyv:state:page:live',
    ]);
    expect(await store.get('settings:123')).toEqual({ filterId: 56027, expires: 1 });
    expect(await store.get('state:page:live')).toEqual({ query: 'pony', page: 1 });
    expect(lines.join('')).toContain('"deleted":3');
  });

  it('GIVEN nothing has expired yet THEN the sweep deletes nothing', async () => {
    const file = sqliteFile();
    const store = open(`sqlite://${file}`);
    await store.set('a', 1, MINUTE);
    await store.set('b', 2);
    const sweeper = startStoreSweeper(store, { logger: capture().logger });
    expect(await sweeper.sweep()).toBe(0);
    expect(await keysInFile(file)).toEqual(['keyv:a', 'keyv:b']);
  });

  it('GIVEN more expired rows than one sweep may delete THEN each sweep deletes at most batchSize × maxBatches, and later sweeps the rest', async () => {
    const file = sqliteFile();
    const store = open(`sqlite://${file}`);
    await Promise.all(Array.from({ length: 25 }, (_, i) => store.set(`old:${i}`, i, MINUTE)));
    await store.set('settings:1', { filterId: 1 });
    const adapter = sqliteAdapter(store);
    const query = vi.spyOn(adapter, 'query');
    const sweeper = startStoreSweeper(store, {
      logger: capture().logger,
      batchSize: 4,
      maxBatches: 3,
      now: () => Date.now() + 2 * MINUTE,
    });
    expect(await sweeper.sweep()).toBe(12);
    expect(query).toHaveBeenCalledTimes(3);
    expect(await keysInFile(file)).toHaveLength(26 - 12);
    expect(await sweeper.sweep()).toBe(12);
    expect(await sweeper.sweep()).toBe(1);
    expect(await keysInFile(file)).toEqual(['keyv:settings:1']);
  });

  it('GIVEN a row that is not keyv JSON THEN the sweep still deletes the expired rows and leaves that one alone', async () => {
    const file = sqliteFile();
    const store = open(`sqlite://${file}`);
    await store.set('old', 1, MINUTE);
    const adapter = sqliteAdapter(store);
    await adapter.query('INSERT INTO keyv (key, value) VALUES (?, ?)', 'foreign', 'not { json');
    await adapter.query('INSERT INTO keyv (key, value) VALUES (?, ?)', 'text-expiry', '{"expires":"soon"}');
    const sweeper = startStoreSweeper(store, {
      logger: capture().logger,
      now: () => Date.now() + 2 * MINUTE,
    });
    expect(await sweeper.sweep()).toBe(1);
    expect(await keysInFile(file)).toEqual(['foreign', 'text-expiry']);
  });

  it('GIVEN the database fails THEN the sweep logs it, resolves 0 and the next sweep works', async () => {
    const file = sqliteFile();
    const store = open(`sqlite://${file}`);
    await store.set('old', 1, MINUTE);
    const adapter = sqliteAdapter(store);
    const { logger, lines } = capture();
    const sweeper = startStoreSweeper(store, { logger, now: () => Date.now() + 2 * MINUTE });
    await sweeper.sweep();
    await store.set('old-again', 1, MINUTE);
    vi.spyOn(adapter, 'query').mockRejectedValueOnce(new Error('SQLITE_BUSY: database is locked'));
    await expect(sweeper.sweep()).resolves.toBe(0);
    expect(lines.some((line) => line.includes('store sweep failed') && line.includes('SQLITE_BUSY'))).toBe(
      true,
    );
    expect(await sweeper.sweep()).toBe(1);
    expect(await keysInFile(file)).toEqual([]);
  });
});

/** `count` expired rows in keyv's own form, written in one statement (as a busy day of cache writes would leave them). */
async function writeExpiredRows(store: Keyv, count: number, prefix = 'cache'): Promise<void> {
  await sqliteAdapter(store).query(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO keyv (key, value) SELECT 'keyv:${prefix}:' || i, '{"value":{"id":' || i || '},"expires":' || (1000 + i) || '}' FROM n`,
    count,
  );
}

describe('a sweeper that keeps up (review L9)', () => {
  it('GIVEN 30,000 expired rows, three times what a sweep used to delete (10,000 per 10 minutes) THEN one sweep deletes them all and keeps the live rows', async () => {
    const file = sqliteFile();
    const store = open(`sqlite://${file}`);
    await store.set('settings:guild:1', { filters: { derpibooru: 1 } });
    await store.set('state:page:live', { query: 'pony' }, 60 * MINUTE);
    await writeExpiredRows(store, 30_000);
    expect(await keysInFile(file)).toHaveLength(30_002);
    const sweeper = startStoreSweeper(store, { logger: capture().logger });
    await sweeper.sweep(); // the sweep at start
    expect(await keysInFile(file)).toEqual(['keyv:settings:guild:1', 'keyv:state:page:live']);
  }, 30_000);

  it('GIVEN a backlog bigger than one sweep may take THEN sweeps come back after catchUpMs until it is gone, not after the 10-minute interval', async () => {
    const file = sqliteFile();
    const store = open(`sqlite://${file}`);
    await store.set('settings:guild:1', { filters: { derpibooru: 1 } });
    await writeExpiredRows(store, 1_000);
    startStoreSweeper(store, { logger: capture().logger, batchSize: 100, maxBatches: 1, catchUpMs: 5 });
    await vi.waitFor(async () => expect(await keysInFile(file)).toEqual(['keyv:settings:guild:1']), {
      timeout: 10_000,
      interval: 50,
    });
  }, 20_000);

  it('GIVEN 15,000 rows expiring every interval, more than the old 10,000 per sweep THEN each interval\u2019s sweep leaves only the live rows (no backlog builds up)', async () => {
    const file = sqliteFile();
    const store = open(`sqlite://${file}`);
    await store.set('settings:guild:1', { filters: { derpibooru: 1 } });
    const sweeper = startStoreSweeper(store, { logger: capture().logger });
    await sweeper.sweep();
    for (let interval = 0; interval < 3; interval += 1) {
      await writeExpiredRows(store, 15_000, `interval${interval}`);
      await sweeper.sweep(); // what the interval timer runs
      expect(await keysInFile(file)).toEqual(['keyv:settings:guild:1']);
    }
  }, 30_000);

  it('GIVEN a sweep that stopped with a backlog left THEN one catch-up sweep is scheduled, and closeStore cancels it', async () => {
    const store = open(`sqlite://${sqliteFile()}`);
    await writeExpiredRows(store, 50);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const sweeper = startStoreSweeper(store, { logger: capture().logger, batchSize: 10, maxBatches: 1 });
    await sweeper.sweep();
    await sweeper.sweep(); // a second capped sweep does not add a second catch-up
    expect(vi.getTimerCount()).toBe(1);
    await closeStore(store);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the sweeper timer', () => {
  it('GIVEN a sweeper THEN it sweeps at once and every interval, and closeStore stops it (no timer left, no more queries)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const store = open(`sqlite://${sqliteFile()}`);
    await store.set('warm-up', 1); // the connection is open before counting
    const query = vi.spyOn(sqliteAdapter(store), 'query');
    const sweeper = startStoreSweeper(store, { logger: capture().logger, intervalMs: 5 * MINUTE });
    expect(vi.getTimerCount()).toBe(1);
    await sweeper.sweep();
    expect(query).toHaveBeenCalledTimes(1); // the sweep at start (the call above joined it)

    vi.advanceTimersByTime(5 * MINUTE);
    await sweeper.sweep();
    expect(query).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5 * MINUTE - 1);
    await sweeper.sweep(); // a sweep of its own: 3 queries so far
    vi.advanceTimersByTime(1);
    await sweeper.sweep();
    expect(query).toHaveBeenCalledTimes(4);

    await closeStore(store);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60 * MINUTE);
    expect(await sweeper.sweep()).toBe(0);
    expect(query).toHaveBeenCalledTimes(4);
  });

  it('GIVEN a sweeper THEN its timer does not keep the process alive', async () => {
    const store = open(`sqlite://${sqliteFile()}`);
    const timeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timeouts();
    const sweeper = startStoreSweeper(store, { logger: capture().logger });
    expect(timeouts()).toBe(before);
    await sweeper.stop();
  });

  it('GIVEN the default interval THEN it is ten minutes', () => {
    expect(DEFAULT_SWEEP_INTERVAL_MS).toBe(10 * MINUTE);
  });

  it('GIVEN stop while a sweep runs THEN stop waits for it, and stopping twice is harmless', async () => {
    const store = open('memory://');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A deserialiser that waits holds the sweep in its first step.
    await store.set('old', 1, 1);
    store.deserialize = async <Value>(data: string): Promise<DeserializedData<Value>> => {
      await held;
      return JSON.parse(data) as DeserializedData<Value>;
    };
    const sweeper = startStoreSweeper(store, { logger: capture().logger, now: () => Date.now() + MINUTE });
    let stopped = false;
    const stopping = sweeper.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
    await expect(sweeper.stop()).resolves.toBeUndefined();
  });

  it('GIVEN a second sweeper on the same store THEN the first one stops', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const store = open('memory://');
    const first = startStoreSweeper(store, { logger: capture().logger });
    startStoreSweeper(store, { logger: capture().logger });
    await first.sweep();
    expect(vi.getTimerCount()).toBe(1);
    await closeStore(store);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('GIVEN a keyv store that is neither SQLite nor memory THEN the sweeper does nothing and does not fail', async () => {
    const { default: Keyv } = await import('keyv');
    const adapter = {
      get: async () => undefined,
      set: async () => true,
      delete: async () => true,
      clear: async () => undefined,
    };
    const store = new Keyv({ store: adapter });
    const sweeper = startStoreSweeper(store, { logger: capture().logger });
    expect(await sweeper.sweep()).toBe(0);
    await sweeper.stop();
  });
});

describe('startStoreSweeper over memory://', () => {
  function mapOf(store: Keyv): Map<unknown, unknown> {
    const map: unknown = store.store;
    if (!(map instanceof Map)) throw new Error('not a memory store');
    return map;
  }

  it('GIVEN expired entries in the Map (keyv keeps them until read) THEN a sweep deletes them and keeps settings and live entries', async () => {
    const store = open('memory://');
    await store.set('old:1', 'a', MINUTE);
    await store.set('old:2', 'b', MINUTE);
    await store.set('live', 'c', 60 * MINUTE);
    await store.set('settings:1', { filterId: 1 });
    const map = mapOf(store);
    expect(map.size).toBe(4);
    const sweeper = startStoreSweeper(store, {
      logger: capture().logger,
      now: () => Date.now() + 2 * MINUTE,
    });
    await sweeper.sweep();
    expect([...map.keys()].sort()).toEqual(['keyv:live', 'keyv:settings:1']);
  });

  it('GIVEN a large Map THEN each sweep looks at a bounded number of entries and the next goes on from there', async () => {
    const store = open('memory://');
    for (let i = 0; i < 10; i += 1) await store.set(`old:${i}`, i, MINUTE);
    const map = mapOf(store);
    const sweeper = startStoreSweeper(store, {
      logger: capture().logger,
      batchSize: 2,
      maxBatches: 2,
      now: () => Date.now() + 2 * MINUTE,
    });
    expect(await sweeper.sweep()).toBe(4); // the sweep at start
    expect(map.size).toBe(6);
    expect(await sweeper.sweep()).toBe(4);
    expect(await sweeper.sweep()).toBe(2);
    expect(map.size).toBe(0);
    await store.set('old:again', 1, MINUTE); // a new pass finds entries written since
    expect(await sweeper.sweep()).toBe(1);
    expect(map.size).toBe(0);
  });
});
