import { mkdtempSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Keyv from 'keyv';
import { createResponseCache } from '../../src/philomena/cache.js';
import { StoreOpenError as HierarchyStoreOpenError } from '../../src/errors.js';
import { closeStore, createStore, openStore, StoreOpenError } from '../../src/store/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('store', () => {
  it('GIVEN sqlite:// in a directory that does not exist THEN it is created and values survive reopening', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'philomena-store-'));
    dirs.push(dir);
    const file = path.join(dir, 'nested', 'cache.sqlite');
    const store = createStore(`sqlite://${file}`);
    await store.set('philomena:derpibooru:image:1', { until: 5, value: { id: 1 } });
    await closeStore(store);
    expect(existsSync(file)).toBe(true);
    const reopened = createStore(`sqlite://${file}`);
    expect(await reopened.get('philomena:derpibooru:image:1')).toEqual({ until: 5, value: { id: 1 } });
    await closeStore(reopened);
  });

  it('GIVEN the response cache over a SQLite file THEN an answer outlives the process (a new cache on the reopened file serves it)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'philomena-store-'));
    dirs.push(dir);
    const url = `sqlite://${path.join(dir, 'bot.sqlite')}`;
    const first = createStore(url);
    const load = async () => ({ id: 1, tags: ['safe'] });
    await createResponseCache({ store: first }).fetch('philomena:derpibooru:image:1', load, {
      ttlMs: 60_000,
    });
    await closeStore(first);
    const second = createStore(url);
    const again = await createResponseCache({ store: second }).fetch(
      'philomena:derpibooru:image:1',
      async () => ({ id: 2, tags: [] }),
      { ttlMs: 60_000 },
    );
    expect(again).toEqual({ value: { id: 1, tags: ['safe'] }, source: 'store' });
    await closeStore(second);
  });

  it('GIVEN any other keyv store (a plain Map) THEN the response cache works over it', async () => {
    const map = new Map<string, unknown>();
    const cache = createResponseCache({ store: new Keyv({ store: map }), memoryEntries: 0 });
    await cache.fetch('k', async () => 'v', { ttlMs: 60_000 });
    expect([...map.keys()].some((k) => k.endsWith('k'))).toBe(true);
    expect(await cache.fetch('k', async () => 'other', { ttlMs: 60_000 })).toEqual({
      value: 'v',
      source: 'store',
    });
  });

  it('GIVEN memory:// THEN an in-memory store works and closes', async () => {
    const store = createStore('memory://');
    await store.set('a', 1);
    expect(await store.get('a')).toBe(1);
    await expect(closeStore(store)).resolves.toBeUndefined();
  });

  it.each(['postgres://localhost', 'redis://localhost/db', 'data/bot.sqlite', '', 'sqlite://'])(
    'GIVEN %j THEN a clear error names the accepted forms',
    (url) => {
      expect(() => createStore(url)).toThrow(/sqlite:\/\/|memory:\/\//);
    },
  );
});

describe('openStore', () => {
  function tempDir(): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'philomena-open-store-'));
    dirs.push(dir);
    return dir;
  }

  it('GIVEN a new SQLite file THEN it opens after the probe, leaves no probe key behind, and keeps values', async () => {
    const file = path.join(tempDir(), 'deeper', 'bot.sqlite');
    const store = await openStore(`sqlite://${file}`);
    expect(existsSync(file)).toBe(true);
    await store.set('settings:1', { filterId: 56027 });
    const keys: string[] = [];
    for await (const [key] of store.iterator?.(undefined) ?? []) keys.push(String(key));
    // The iterator sees the store's keys (settings:1), and no probe key among them.
    expect(keys).toEqual(['settings:1']);
    await closeStore(store);
    const reopened = await openStore(`sqlite://${file}`);
    expect(await reopened.get('settings:1')).toEqual({ filterId: 56027 });
    await closeStore(reopened);
  });

  it('GIVEN memory:// THEN it opens', async () => {
    const store = await openStore('memory://');
    await store.set('a', 1);
    expect(await store.get('a')).toBe(1);
    await closeStore(store);
  });

  it('GIVEN a path under a regular file THEN it fails with one line naming STORE_URL, the cause and the fix', async () => {
    const file = path.join(tempDir(), 'not-a-folder');
    writeFileSync(file, 'x');
    const error = await openStore(`sqlite://${path.join(file, 'bot.sqlite')}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreOpenError);
    const message = (error as StoreOpenError).message;
    expect(message).toMatch(/^could not open the store at STORE_URL \(.*not-a-folder.*\): use a path/);
    expect(message).toContain('sqlite://data/bot.sqlite');
    expect(message).toContain('memory://');
    expect(message).not.toContain('\n');
    expect((error as StoreOpenError).code).toBe('STORE_UNAVAILABLE');
    expect((error as StoreOpenError).name).toBe('StoreOpenError');
    expect(error).toBeInstanceOf(HierarchyStoreOpenError);
    expect((error as StoreOpenError).cause).toBeInstanceOf(Error);
  });

  it('GIVEN a directory as the SQLite file THEN the lazy open is caught by the write/read probe', async () => {
    // createStore alone accepts it: SQLite only fails on first use.
    const dir = tempDir();
    const lazy = createStore(`sqlite://${dir}`);
    lazy.on('error', () => undefined);
    await lazy.disconnect().catch(() => undefined);
    const error = await openStore(`sqlite://${dir}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as StoreOpenError).message).toMatch(
      /^could not open the store at STORE_URL \(SQLITE_CANTOPEN.*\): use a path/,
    );
  });

  it('GIVEN an unsupported scheme THEN it fails the same way, naming the accepted forms', async () => {
    const error = await openStore('postgres://127.0.0.1:5432').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as StoreOpenError).message).toMatch(
      /STORE_URL \(a scheme the bot does not know\): use sqlite:\/\/<path>, redis:\/\/.* or memory:\/\//,
    );
  });
});
