import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { createResponseCache, NOT_FOUND_LIFETIME_MS } from '../../src/philomena/cache.js';
import { NotFoundError, SiteUnavailableError } from '../../src/philomena/errors.js';

function setup(memoryEntries = 500) {
  let time = 1_000_000;
  const store = new Keyv();
  const cache = createResponseCache({ store, memoryEntries, now: () => time });
  let calls = 0;
  const load =
    <T>(value: T) =>
    async (): Promise<T> => {
      calls += 1;
      return value;
    };
  return {
    cache,
    store,
    now: () => time,
    load,
    calls: () => calls,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('response cache', () => {
  it('GIVEN a cached answer within its lifetime THEN it is served without a load, from memory', async () => {
    const { cache, load, calls } = setup();
    await expect(cache.fetch('k', load({ a: 1 }), { ttlMs: 1000 })).resolves.toEqual({
      value: { a: 1 },
      source: 'miss',
    });
    await expect(cache.fetch('k', load({ a: 2 }), { ttlMs: 1000 })).resolves.toEqual({
      value: { a: 1 },
      source: 'memory',
    });
    expect(calls()).toBe(1);
  });

  it('GIVEN the lifetime has passed THEN the next fetch loads again', async () => {
    const { cache, load, calls, advance } = setup();
    await cache.fetch('k', load(1), { ttlMs: 1000 });
    advance(999);
    expect((await cache.fetch('k', load(2), { ttlMs: 1000 })).value).toBe(1);
    advance(1);
    expect(await cache.fetch('k', load(2), { ttlMs: 1000 })).toEqual({ value: 2, source: 'miss' });
    expect(calls()).toBe(2);
  });

  it('GIVEN a new cache over the same store (a restart) THEN the stored answer is served from the store', async () => {
    const { cache, store, load, now } = setup();
    await cache.fetch('k', load('kept'), { ttlMs: 60_000 });
    const restarted = createResponseCache({ store, now });
    await expect(restarted.fetch('k', load('new'), { ttlMs: 60_000 })).resolves.toEqual({
      value: 'kept',
      source: 'store',
    });
  });

  it('GIVEN fresh THEN the cached answer is skipped and the new one replaces it', async () => {
    const { cache, load } = setup();
    await cache.fetch('k', load(1), { ttlMs: 60_000 });
    expect((await cache.fetch('k', load(2), { ttlMs: 60_000, fresh: true })).value).toBe(2);
    expect((await cache.fetch('k', load(3), { ttlMs: 60_000 })).value).toBe(2);
  });

  it('GIVEN a 404 THEN it is remembered for 60 s and thrown again without a load', async () => {
    const { cache, calls, advance } = setup();
    let loads = 0;
    const missing = async () => {
      loads += 1;
      throw new NotFoundError('image 9 not found on Derpibooru', {
        site: 'derpibooru',
        path: '/x',
        status: 404,
      });
    };
    await expect(cache.fetch('k', missing, { ttlMs: 600_000 })).rejects.toBeInstanceOf(NotFoundError);
    const again = await cache.fetch('k', missing, { ttlMs: 600_000 }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(NotFoundError);
    expect(again).toMatchObject({
      message: 'image 9 not found on Derpibooru',
      site: 'derpibooru',
      path: '/x',
    });
    expect(loads).toBe(1);
    advance(NOT_FOUND_LIFETIME_MS);
    await expect(cache.fetch('k', missing, { ttlMs: 600_000 })).rejects.toBeInstanceOf(NotFoundError);
    expect(loads).toBe(2);
    expect(calls()).toBe(0);
  });

  it('GIVEN any other error THEN it is never cached', async () => {
    const { cache, load } = setup();
    const failing = async () => {
      throw new SiteUnavailableError('down', 'server-error', { site: 's' });
    };
    await expect(cache.fetch('k', failing, { ttlMs: 60_000 })).rejects.toBeInstanceOf(SiteUnavailableError);
    expect((await cache.fetch('k', load('up'), { ttlMs: 60_000 })).value).toBe('up');
  });

  it('GIVEN 100 concurrent identical fetches THEN one load serves them all and the in-flight entry is cleared', async () => {
    const { cache } = setup();
    let loads = 0;
    let release: (v: string) => void = () => undefined;
    const slow = () =>
      new Promise<string>((resolve) => {
        loads += 1;
        release = resolve;
      });
    const all = Array.from({ length: 100 }, () => cache.fetch('k', slow, { ttlMs: 1000 }));
    await new Promise((r) => setTimeout(r, 5));
    expect(cache.stats().inFlight).toBe(1);
    release('v');
    const results = await Promise.all(all);
    expect(loads).toBe(1);
    expect(results.every((r) => r.value === 'v')).toBe(true);
    expect(results.filter((r) => r.source === 'miss')).toHaveLength(1);
    expect(cache.stats().inFlight).toBe(0);
  });

  it('GIVEN one of two joined callers aborts THEN the other still gets the answer; when all abort the load is aborted', async () => {
    const { cache } = setup();
    let loadSignal: AbortSignal | undefined;
    let release: (v: string) => void = () => undefined;
    const slow = (signal: AbortSignal) =>
      new Promise<string>((resolve, reject) => {
        loadSignal = signal;
        release = resolve;
        signal.addEventListener('abort', () => reject(signal.reason));
      });
    const a = new AbortController();
    const b = new AbortController();
    const first = cache.fetch('k', slow, { ttlMs: 1000, signal: a.signal }).catch((e: unknown) => e);
    const second = cache.fetch('k', slow, { ttlMs: 1000, signal: b.signal });
    await new Promise((r) => setTimeout(r, 5));
    a.abort(new Error('first left'));
    expect(await first).toMatchObject({ message: 'first left' });
    expect(loadSignal?.aborted).toBe(false);
    release('v');
    expect((await second).value).toBe('v');

    const c = new AbortController();
    const third = cache.fetch('other', slow, { ttlMs: 1000, signal: c.signal }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 5));
    c.abort(new Error('all left'));
    await third;
    expect(loadSignal?.aborted).toBe(true);
  });

  it('GIVEN more keys than the memory holds THEN the least recently used leave memory but stay in the store', async () => {
    const { cache, load } = setup(2);
    await cache.fetch('a', load('A'), { ttlMs: 60_000 });
    await cache.fetch('b', load('B'), { ttlMs: 60_000 });
    await cache.fetch('a', load('x'), { ttlMs: 60_000 }); // a is now most recent
    await cache.fetch('c', load('C'), { ttlMs: 60_000 }); // evicts b
    expect(cache.stats().memoryEntries).toBe(2);
    expect(await cache.fetch('a', load('x'), { ttlMs: 60_000 })).toEqual({ value: 'A', source: 'memory' });
    expect(await cache.fetch('b', load('x'), { ttlMs: 60_000 })).toEqual({ value: 'B', source: 'store' });
  });

  it('GIVEN a lifetime taken from the answer THEN it is used', async () => {
    const { cache, load, advance } = setup();
    await cache.fetch('k', load({ cache_age: 2 }), {
      ttlMs: (v: { cache_age: number }) => v.cache_age * 1000,
    });
    advance(1999);
    expect((await cache.fetch('k', load({ cache_age: 9 }), { ttlMs: 1 })).source).toBe('memory');
    advance(1);
    expect((await cache.fetch('k', load({ cache_age: 9 }), { ttlMs: 1 })).source).toBe('miss');
  });

  it('GIVEN a store that throws THEN the fetch still succeeds from the load', async () => {
    const broken = new Keyv({
      store: {
        get: async () => {
          throw new Error('disk gone');
        },
        set: async () => {
          throw new Error('disk gone');
        },
        delete: async () => false,
        clear: async () => undefined,
      } as unknown as Map<string, unknown>,
    });
    const cache = createResponseCache({ store: broken, memoryEntries: 0 });
    await expect(cache.fetch('k', async () => 'ok', { ttlMs: 1000 })).resolves.toEqual({
      value: 'ok',
      source: 'miss',
    });
  });
});
