import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Keyv from 'keyv';
import { createResponseCache } from '../../src/philomena/cache.js';
import { closeStore, createStore } from '../../src/store.js';

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

  it.each(['redis://localhost', 'data/bot.sqlite', '', 'sqlite://'])(
    'GIVEN %j THEN a clear error names the accepted forms',
    (url) => {
      expect(() => createStore(url)).toThrow(/sqlite:\/\/|memory:\/\//);
    },
  );
});
