/**
 * The member cache space alone (src/philomena/member-caches.ts) and the member lifetimes
 * (client/member.ts): one space per member, bounded, dropped at once by `forget`, answers kept briefly.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LIFETIMES } from '../../src/philomena/cache.js';
import { MEMBER_LIFETIME_MS, memberLifetimes } from '../../src/philomena/client/member.js';
import { createMemberCaches } from '../../src/philomena/member-caches.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A loader that counts its calls and answers `value`. */
function loader(value: string): { load: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    load: () => {
      calls += 1;
      return Promise.resolve(value);
    },
    calls: () => calls,
  };
}

describe('member cache space', () => {
  it('GIVEN two members and one key THEN each has their own answer; the same member twice asks once', async () => {
    const caches = createMemberCaches();
    const a = loader('alice');
    const b = loader('bob');
    const ttl = { ttlMs: 60_000 };
    expect((await caches.cacheOf('alice').fetch('k', a.load, ttl)).value).toBe('alice');
    expect((await caches.cacheOf('bob').fetch('k', b.load, ttl)).value).toBe('bob');
    expect((await caches.cacheOf('alice').fetch('k', a.load, ttl)).value).toBe('alice');
    expect([a.calls(), b.calls()]).toEqual([1, 1]);
  });

  it('GIVEN more members than the bound THEN the least recently used member is dropped first', async () => {
    const caches = createMemberCaches({ members: 2 });
    const ttl = { ttlMs: 60_000 };
    const first = loader('1');
    await caches.cacheOf('m1').fetch('k', first.load, ttl);
    await caches.cacheOf('m2').fetch('k', loader('2').load, ttl);
    await caches.cacheOf('m1').fetch('k', first.load, ttl); // m1 used: m2 is now the oldest
    await caches.cacheOf('m3').fetch('k', loader('3').load, ttl);
    expect(caches.size()).toBe(2);
    // m1 is still kept; m2 (a fresh loader: 0 calls had it been kept) was dropped.
    await caches.cacheOf('m1').fetch('k', first.load, ttl);
    const second = loader('2');
    await caches.cacheOf('m2').fetch('k', second.load, ttl);
    expect([first.calls(), second.calls()]).toEqual([1, 1]);
  });

  it('GIVEN forget THEN a cache handed out before it finds nothing of the old answers', async () => {
    const caches = createMemberCaches();
    const held = caches.cacheOf('alice');
    const a = loader('alice');
    await held.fetch('k', a.load, { ttlMs: 60_000 });
    caches.forget('alice');
    expect(caches.size()).toBe(0);
    await held.fetch('k', a.load, { ttlMs: 60_000 });
    expect(a.calls()).toBe(2);
  });

  it('GIVEN the member lifetimes THEN none is longer than the cap, and the answer is asked again once it has passed', async () => {
    const lifetimes = memberLifetimes(LIFETIMES, MEMBER_LIFETIME_MS);
    expect(Math.max(...Object.values(lifetimes))).toBe(MEMBER_LIFETIME_MS);
    expect(lifetimes.recentImage).toBe(Math.min(LIFETIMES.recentImage, MEMBER_LIFETIME_MS));
    expect(Object.keys(lifetimes).sort()).toEqual(Object.keys(LIFETIMES).sort());
    vi.useFakeTimers({ toFake: ['Date'] });
    const caches = createMemberCaches();
    const a = loader('alice');
    await caches.cacheOf('alice').fetch('k', a.load, { ttlMs: lifetimes.imageSearch });
    vi.setSystemTime(Date.now() + lifetimes.imageSearch - 1);
    await caches.cacheOf('alice').fetch('k', a.load, { ttlMs: lifetimes.imageSearch });
    expect(a.calls()).toBe(1);
    vi.setSystemTime(Date.now() + 1);
    await caches.cacheOf('alice').fetch('k', a.load, { ttlMs: lifetimes.imageSearch });
    expect(a.calls()).toBe(2);
  });
});
