/**
 * The upload caps (commands/upload/upload-caps.ts): one upload at a time per member, a per-member and a
 * per-site cap in any hour, held in the shared store so that two processes (two feature instances, each
 * with its own connection to one Redis) see one cap; only a request actually sent stays counted.
 */
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUploadCaps, type UploadCaps } from '../../../commands/upload/upload-caps.js';
import { closeStore, openStore } from '../../../src/store/index.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

const HOUR = 3_600_000;

function clock(start = 1_000_000_000) {
  let at = start;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

function capsOn(store: Keyv, now: () => number, perMemberHour = 3, perSiteHour = 60): UploadCaps {
  return createUploadCaps({ store, perMemberHour, perSiteHour, now });
}

/** Reserves and finishes one sent upload; the refusal when the caps say no. */
async function uploadOnce(caps: UploadCaps, user: string, site = 'derpibooru') {
  const reserved = await caps.reserve(user, site);
  if (!reserved.ok) return reserved.refusal;
  await caps.finish(reserved.ticket, true);
  return undefined;
}

describe('upload caps in one store', () => {
  it('GIVEN a member with an upload under way THEN a second one is refused as busy until the first finishes', async () => {
    const time = clock();
    const caps = capsOn(new Keyv(), time.now);
    const first = await caps.reserve('1', 'derpibooru');
    if (!first.ok) throw new Error('refused');
    expect(await caps.reserve('1', 'derpibooru')).toEqual({ ok: false, refusal: { reason: 'busy' } });
    expect(await caps.check('1', 'furbooru')).toEqual({ reason: 'busy' });
    // Someone else is not held up.
    expect((await caps.reserve('2', 'derpibooru')).ok).toBe(true);
    await caps.finish(first.ticket, true);
    expect(await caps.check('1', 'derpibooru')).toBeUndefined();
  });

  it('GIVEN the member cap reached THEN refused with the wait until the oldest upload leaves the hour', async () => {
    const time = clock();
    const caps = capsOn(new Keyv(), time.now, 2);
    expect(await uploadOnce(caps, '1')).toBeUndefined();
    time.advance(10 * 60_000);
    expect(await uploadOnce(caps, '1')).toBeUndefined();
    expect(await uploadOnce(caps, '1')).toEqual({ reason: 'member', waitMs: 50 * 60_000 });
    time.advance(50 * 60_000 + 1);
    expect(await uploadOnce(caps, '1')).toBeUndefined();
  });

  it('GIVEN the site cap reached THEN every member is refused on that site, and another site is free', async () => {
    const time = clock();
    const caps = capsOn(new Keyv(), time.now, 3, 2);
    expect(await uploadOnce(caps, '1')).toBeUndefined();
    expect(await uploadOnce(caps, '2')).toBeUndefined();
    expect(await uploadOnce(caps, '3')).toEqual({ reason: 'site', waitMs: HOUR });
    expect(await uploadOnce(caps, '3', 'furbooru')).toBeUndefined();
  });

  it('GIVEN a request that was never sent THEN its place is given back', async () => {
    const time = clock();
    const caps = capsOn(new Keyv(), time.now, 1);
    const reserved = await caps.reserve('1', 'derpibooru');
    if (!reserved.ok) throw new Error('refused');
    await caps.finish(reserved.ticket, false);
    expect(await caps.check('1', 'derpibooru')).toBeUndefined();
    expect(await uploadOnce(caps, '1')).toBeUndefined();
    expect(await uploadOnce(caps, '1')).toMatchObject({ reason: 'member' });
  });

  it('GIVEN a mark left by a process that stopped mid-upload THEN it stops blocking after a while', async () => {
    const time = clock();
    const caps = capsOn(new Keyv(), time.now);
    expect((await caps.reserve('1', 'derpibooru')).ok).toBe(true);
    expect(await caps.check('1', 'derpibooru')).toEqual({ reason: 'busy' });
    time.advance(11 * 60_000);
    expect(await caps.check('1', 'derpibooru')).toBeUndefined();
  });

  it('GIVEN forget THEN the member’s record is gone; the store holds timestamps only, never a key', async () => {
    const time = clock();
    const map = new Map<string, unknown>();
    const store = new Keyv({ store: map });
    const caps = capsOn(store, time.now, 1);
    expect(await uploadOnce(caps, '42')).toBeUndefined();
    expect(JSON.stringify([...map.entries()])).toMatch(/upload-caps:member:42/);
    await caps.forget('42');
    expect(JSON.stringify([...map.keys()])).not.toMatch(/member:42/);
    expect(await caps.check('42', 'derpibooru')).toBeUndefined();
  });
});

describe('upload caps across processes (one Redis)', () => {
  let redis: TestRedis;
  const stores: Keyv[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => closeStore(store)));
    await redis.stop();
  });

  it('GIVEN two processes THEN they share one member cap, one site cap and one upload at a time', async () => {
    const time = clock();
    const a = await openStore(`${redis.url}/2`);
    const b = await openStore(`${redis.url}/2`);
    stores.push(a, b);
    const one = capsOn(a, time.now, 2, 3);
    const two = capsOn(b, time.now, 2, 3);
    // Both at once for the same member: exactly one gets the place.
    const both = await Promise.all([one.reserve('1', 'derpibooru'), two.reserve('1', 'derpibooru')]);
    expect(both.filter((r) => r.ok)).toHaveLength(1);
    expect(both.filter((r) => !r.ok)).toEqual([{ ok: false, refusal: { reason: 'busy' } }]);
    const won = both.find((r) => r.ok);
    if (won === undefined || !won.ok) throw new Error('nobody won');
    await (won === both[0] ? one : two).finish(won.ticket, true);
    expect(await uploadOnce(two, '1')).toBeUndefined();
    expect(await uploadOnce(one, '1')).toMatchObject({ reason: 'member' });
    // The site's third place goes to whichever process asks first.
    expect(await uploadOnce(one, '2')).toBeUndefined();
    expect(await uploadOnce(two, '3')).toMatchObject({ reason: 'site' });
  });
});
