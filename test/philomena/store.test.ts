import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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

  it('GIVEN memory:// THEN an in-memory store works and closes', async () => {
    const store = createStore('memory://');
    await store.set('a', 1);
    expect(await store.get('a')).toBe(1);
    await expect(closeStore(store)).resolves.toBeUndefined();
  });

  it.each(['redis://localhost', 'data/cache.sqlite', '', 'sqlite://'])(
    'GIVEN %j THEN a clear error names the accepted forms',
    (url) => {
      expect(() => createStore(url)).toThrow(/sqlite:\/\/|memory:\/\//);
    },
  );
});
