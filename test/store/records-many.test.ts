/**
 * `RecordStore.updateMany`: several records written as one atomic step, on memory, on SQLite (two
 * connections on one file stand for two processes) and on a real redis-server (test/support/redis.ts),
 * and a keyv adapter that fails halfway leaves every record as it was.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Keyv from 'keyv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StoreAccessError } from '../../src/errors.js';
import { closeStore, createStore, recordStoreOf } from '../../src/store/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';

const dirs: string[] = [];
const stores: Keyv[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await closeStore(store).catch(() => undefined);
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

function open(url: string): Keyv {
  const store = createStore(url);
  stores.push(store);
  return store;
}

async function sqliteUrl(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'records-many-'));
  dirs.push(dir);
  return `sqlite://${path.join(dir, 'bot.sqlite')}`;
}

const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** Each backend, by the URL of a fresh store, and the URL a second process would open on the same data. */
const backends: readonly [string, () => Promise<string>][] = [
  ['memory', async () => 'memory://'],
  ['SQLite', sqliteUrl],
  ['Redis', async () => redis.url],
];

describe.each(backends)('updateMany on %s', (_name, makeUrl) => {
  it('GIVEN three records THEN they are written together, undefined deletes, and keyv reads the result', async () => {
    const store = open(await makeUrl());
    await store.clear();
    const records = recordStoreOf(store);
    await store.set('many:a', { n: 1 });
    await store.set('many:gone', 'bye');
    const seen: unknown[][] = [];
    const result = await records.updateMany(['many:a', 'many:b', 'many:gone'], (currents) => {
      seen.push([...currents]);
      return [{ n: 2 }, ['new'], undefined];
    });
    expect(seen).toEqual([[{ n: 1 }, undefined, 'bye']]);
    expect(result).toEqual([{ n: 2 }, ['new'], undefined]);
    expect(await store.get('many:a')).toEqual({ n: 2 });
    expect(await store.get('many:b')).toEqual(['new']);
    expect(await store.get('many:gone')).toBeUndefined();
    expect(await records.read('many:gone')).toBeUndefined();
    // A record deleted this way can be written again, by either way of access.
    await records.update('many:gone', () => 'back');
    expect(await store.get('many:gone')).toBe('back');
  });

  it('GIVEN a change that throws THEN nothing is written', async () => {
    const store = open(await makeUrl());
    await store.clear();
    const records = recordStoreOf(store);
    await store.set('many:x', 1);
    await expect(
      records.updateMany(['many:x', 'many:y'], () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await store.get('many:x')).toBe(1);
    expect(await store.get('many:y')).toBeUndefined();
  });

  it('GIVEN one key twice THEN it refuses before reading anything', async () => {
    const records = recordStoreOf(open(await makeUrl()));
    await expect(records.updateMany(['many:x', 'many:x'], (c) => c)).rejects.toThrow(/one key twice/);
  });

  it('GIVEN two processes moving counts between two records while single updates hit each THEN no change is lost', async () => {
    const url = await makeUrl();
    const first = open(url);
    await first.clear();
    // memory:// is one process's own; two "processes" share it by sharing the store.
    const second = url === 'memory://' ? first : open(url);
    // Connected before the race, as a running bot's store is.
    await second.get('many:warm-up');
    const one = recordStoreOf(first);
    const two = url === 'memory://' ? createSharedQueueless(first) : recordStoreOf(second);
    const rounds = 20;
    const writes = Array.from({ length: rounds }, () => [
      // Moves one from a to b: the sum a + b stays 0 only if every move is whole.
      one.updateMany(['many:a', 'many:b'], ([a, b]) => [count(a) - 1, count(b) + 1]),
      two.updateMany(['many:b', 'many:a'], ([b, a]) => [count(b) + 1, count(a) - 1]),
      one.update('many:c', (c) => count(c) + 1),
      two.update('many:a', (a) => count(a) + 10),
    ]).flat();
    const results = await Promise.allSettled(writes);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const read = url === 'memory://' ? one : recordStoreOf(open(url));
    expect(await read.read('many:a')).toBe(-2 * rounds + 10 * rounds);
    expect(await read.read('many:b')).toBe(2 * rounds);
    expect(await read.read('many:c')).toBe(rounds);
  });
});

/** A second record store over the same keyv (its own queue): only the backend's compare-and-set keeps them apart. */
function createSharedQueueless(store: Keyv) {
  const shared: unknown = store.store;
  if (!(shared instanceof Map)) throw new Error('not a memory store');
  return recordStoreOf(
    new Keyv({ store: shared, ...(store.namespace ? { namespace: store.namespace } : {}) }),
  );
}

describe('updateMany on a store that fails', () => {
  /**
   * A keyv adapter over a Map whose write (set or delete) fails once, after `failing.after` more writes
   * went through: a write that breaks once, as a full disk or a dropped connection does.
   */
  function failingAdapter() {
    const map = new Map<string, unknown>();
    const failing = { after: Number.POSITIVE_INFINITY };
    const write = (apply: () => void): void => {
      if (failing.after === 0) {
        failing.after = Number.POSITIVE_INFINITY;
        throw new Error('SQLITE_FULL: database or disk is full');
      }
      failing.after -= 1;
      apply();
    };
    const adapter = {
      async get(key: string) {
        return map.get(key);
      },
      async set(key: string, value: unknown) {
        write(() => map.set(key, value));
        return true;
      },
      async delete(key: string) {
        let had = false;
        write(() => (had = map.delete(key)));
        return had;
      },
      async clear() {
        map.clear();
      },
    };
    return { adapter, map, failing };
  }

  it.each([0, 1, 2])(
    'GIVEN the write failing after %i records THEN every record is as it was and a StoreAccessError says so',
    async (after) => {
      const { adapter, map, failing } = failingAdapter();
      const store = new Keyv({ store: adapter });
      await store.set('a', 'old a');
      await store.set('b', 'old b');
      const before = new Map(map);
      failing.after = after;
      const error = await recordStoreOf(store)
        .updateMany(['a', 'b', 'c'], () => ['new a', undefined, 'new c'])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreAccessError);
      expect(map).toEqual(before);
    },
  );
});
