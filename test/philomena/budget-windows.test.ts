/**
 * The budget's windows alone (src/philomena/budget/windows.ts): plain functions over windows built in the
 * test, no clock and no budget around them.
 */
import { describe, expect, it } from 'vitest';
import {
  checkShare,
  checkSpec,
  hasRoom,
  inFlight,
  isSearchPath,
  nextExpiry,
  occupy,
  prune,
  readyAt,
  retryAfter,
  soonestRoom,
  vacate,
  type Window,
} from '../../src/philomena/budget/windows.js';

/** A window of `limit` per `windowMs` holding one occupant per entry of `ended` (undefined: in flight). */
function windowOf(limit: number, windowMs: number, ended: readonly (number | undefined)[] = []): Window {
  return { spec: { limit, windowMs }, occupants: ended.map((endedAt) => ({ endedAt, alone: false })) };
}

const endedAts = (window: Window): (number | undefined)[] => window.occupants.map((o) => o.endedAt);

describe('budget windows: prune', () => {
  it.each([
    { ended: [0, 500, undefined], at: 999, left: [0, 500, undefined] },
    { ended: [0, 500, undefined], at: 1000, left: [500, undefined] },
    { ended: [0, 500, undefined], at: 1500, left: [undefined] },
    { ended: [undefined, undefined], at: 1_000_000, left: [undefined, undefined] },
    { ended: [], at: 0, left: [] },
  ])('GIVEN occupants ended at $ended THEN at $at those left are $left', ({ ended, at, left }) => {
    const window = windowOf(5, 1000, ended);
    prune(window, at);
    expect(endedAts(window)).toEqual(left);
  });
});

describe('budget windows: room and expiry', () => {
  it.each([
    { limit: 2, ended: [], room: true, expiry: undefined, flying: 0 },
    { limit: 2, ended: [100], room: true, expiry: 1100, flying: 0 },
    { limit: 2, ended: [300, 100], room: false, expiry: 1100, flying: 0 },
    { limit: 2, ended: [undefined, 100], room: false, expiry: 1100, flying: 1 },
    { limit: 2, ended: [undefined, undefined], room: false, expiry: undefined, flying: 2 },
  ])(
    'GIVEN $limit slots and occupants ended at $ended THEN room is $room, the first expiry $expiry, $flying in flight',
    ({ limit, ended, room, expiry, flying }) => {
      const window = windowOf(limit, 1000, ended);
      expect(hasRoom(window)).toBe(room);
      expect(nextExpiry(window)).toBe(expiry);
      expect(inFlight(window)).toBe(flying);
    },
  );

  it.each([
    { ended: [undefined], at: 50, soonest: 50 },
    { ended: [undefined, 200], at: 50, soonest: 1050 },
    { ended: [undefined, 10], at: 50, soonest: 1010 },
    { ended: [undefined, undefined], at: 50, soonest: 1050 },
  ])(
    'GIVEN 2 slots with occupants ended at $ended THEN at $at the soonest room is at $soonest',
    ({ ended, at, soonest }) => {
      expect(soonestRoom(windowOf(2, 1000, ended), at)).toBe(soonest);
    },
  );

  it('GIVEN several windows and a block THEN a request is ready when the last of them is', () => {
    const overall = windowOf(1, 1000, [-400]);
    const search = windowOf(1, 2000, [-400]);
    expect(readyAt([overall], 0)).toBe(600);
    expect(readyAt([overall, search], 0)).toBe(1600);
    // Every occupant in flight: one released now would free its slot a window from now.
    expect(readyAt([windowOf(1, 1000, [undefined])], 0)).toBe(1000);
    expect(readyAt([windowOf(1, 1000)], 0, () => 300)).toBe(300);
    expect(readyAt([windowOf(1, 1000)], 500, () => 300)).toBe(500);
  });
});

describe('budget windows: retryAfter', () => {
  it.each([
    { name: 'an empty window and no queue', own: [], queued: [], retry: 0 },
    { name: 'a full window and no queue', own: [-400], queued: [], retry: 600 },
    { name: 'room but a queue that moves at 700', own: [], queued: [[-300]], retry: 700 },
    {
      name: 'room and two queued, the first to move at 600',
      own: [],
      queued: [[-300], [undefined, -400]],
      retry: 600,
    },
  ])(
    'GIVEN $name THEN a refused caller (1 slot of 1000 ms, at 0) retries after $retry ms',
    ({ own, queued, retry }) => {
      const queuedWindows = queued.map((ended) => [windowOf(1, 1000, ended)]);
      expect(retryAfter([windowOf(1, 1000, own)], queuedWindows, 0)).toBe(retry);
    },
  );
});

describe('budget windows: occupy and vacate', () => {
  it('GIVEN a request counting in two windows THEN one occupant holds a slot in each until vacated', () => {
    const overall = windowOf(3, 1000, [0]);
    const search = windowOf(1, 1000);
    const occupant = occupy([overall, search], true);
    expect(occupant).toEqual({ endedAt: undefined, alone: true });
    expect(overall.occupants).toContain(occupant);
    expect(search.occupants).toEqual([occupant]);
    expect([inFlight(overall), hasRoom(search)]).toEqual([1, false]);
    vacate(occupant, [overall, search]);
    expect(endedAts(overall)).toEqual([0]);
    expect(search.occupants).toEqual([]);
  });
});

describe('budget windows: checks and paths', () => {
  it.each([
    { spec: { limit: 1, windowMs: 1 }, ok: true },
    { spec: { limit: 0, windowMs: 1000 }, ok: false },
    { spec: { limit: 1.5, windowMs: 1000 }, ok: false },
    { spec: { limit: 3, windowMs: 0 }, ok: false },
    { spec: { limit: 3, windowMs: Number.NaN }, ok: false },
  ])('GIVEN the window $spec THEN it is accepted: $ok', ({ spec, ok }) => {
    if (ok) expect(checkSpec(spec)).toBe(spec);
    else expect(() => checkSpec(spec)).toThrow(RangeError);
  });

  it.each([
    { limit: 0, ok: true },
    { limit: 4, ok: true },
    { limit: -1, ok: false },
    { limit: 0.5, ok: false },
  ])('GIVEN a share of $limit THEN it is accepted: $ok', ({ limit, ok }) => {
    if (ok) expect(checkShare('share', limit)).toBe(limit);
    else expect(() => checkShare('share', limit)).toThrow(RangeError);
  });

  it.each([
    { path: '/api/v1/json/search/images?q=safe', search: true },
    { path: '/api/v1/json/search/tags', search: true },
    { path: '/api/v1/json/images/1', search: false },
    { path: '/api/v1/json/oembed', search: false },
  ])('GIVEN $path THEN it counts in the search window: $search', ({ path, search }) => {
    expect(isSearchPath(path)).toBe(search);
  });
});
