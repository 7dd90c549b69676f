import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createRequestBudget,
  DEFAULT_OVERALL,
  DEFAULT_SEARCH,
  isSearchPath,
} from '../../src/philomena/budget.js';
import { userErrorText } from '../../src/bot/user-error.js';
import { SiteUnavailableError } from '../../src/errors.js';

/** A clock with timers that run only when the test advances time. */
function fakeClock() {
  let time = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => time,
    setTimer: (fn: () => void, ms: number): unknown => {
      seq += 1;
      timers.set(seq, { at: time + ms, fn });
      return seq;
    },
    clearTimer: (handle: unknown) => {
      timers.delete(handle as number);
    },
    async advance(ms: number) {
      await flush(); // let what is due now see the current time
      const end = time + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        time = due[1].at;
        due[1].fn();
        await flush();
      }
      time = end;
      await flush();
    },
  };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

const IMAGE = '/api/v1/json/images/1';
const SEARCH = '/api/v1/json/search/images?q=safe';

describe('request budget', () => {
  it('GIVEN 3 requests per 1 s and 10 callers THEN no 1 s span ever holds more than 3 starts, in FIFO order', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', overall: { limit: 3, windowMs: 1000 }, ...clock });
    const starts: { i: number; at: number }[] = [];
    const all = Array.from({ length: 10 }, (_, i) =>
      budget.acquire(IMAGE).then(() => starts.push({ i, at: clock.now() })),
    );
    await flush();
    expect(starts).toHaveLength(3);
    expect(budget.stats()).toMatchObject({ queued: 7, inWindow: 3 });
    await clock.advance(5000);
    await Promise.all(all);
    expect(starts.map((s) => s.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const s of starts) {
      const inSpan = starts.filter((o) => o.at > s.at - 1000 && o.at <= s.at).length;
      expect(inSpan).toBeLessThanOrEqual(3);
    }
    expect(starts.map((s) => s.at)).toEqual([0, 0, 0, 1000, 1000, 1000, 2000, 2000, 2000, 3000]);
  });

  it('GIVEN the search window is full THEN a search waits while a plain image fetch still goes', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 't',
      overall: { limit: 10, windowMs: 1000 },
      search: { limit: 1, windowMs: 1000 },
      ...clock,
    });
    await budget.acquire(SEARCH);
    let searched = false;
    const second = budget.acquire(SEARCH).then(() => (searched = true));
    await budget.acquire(IMAGE);
    await flush();
    expect(searched).toBe(false);
    expect(budget.stats()).toMatchObject({ queued: 1, inWindow: 2, searchInWindow: 1 });
    await clock.advance(1000);
    await second;
    expect(searched).toBe(true);
  });

  it('GIVEN the queue is full THEN the next caller is refused at once with budget-exhausted', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 't',
      overall: { limit: 1, windowMs: 1000 },
      maxQueue: 2,
      ...clock,
    });
    await budget.acquire(IMAGE);
    await clock.advance(400);
    const waiting = [budget.acquire(IMAGE), budget.acquire(IMAGE)];
    const refused = await budget.acquire(IMAGE).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SiteUnavailableError);
    // The real wait: the slot taken at 0 frees at 1000, 600 ms from now; the queue moves then.
    expect(refused).toMatchObject({ reason: 'budget-exhausted', retryAfterMs: 600 });
    expect(userErrorText(refused).text).toBe('The site is busy. Try again in 1 s.');
    await clock.advance(3000);
    await Promise.all(waiting);
  });

  it('GIVEN a full queue of searches behind a 10 s search window THEN a refused search is told the search window, a refused fetch is not refused at all', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 't',
      overall: { limit: 5, windowMs: 1000 },
      search: { limit: 1, windowMs: 10_000 },
      maxQueue: 1,
      ...clock,
    });
    await budget.acquire(SEARCH);
    await clock.advance(2500);
    const waiting = budget.acquire(SEARCH);
    const refused = await budget.acquire(SEARCH).catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: 'budget-exhausted', retryAfterMs: 7500 });
    await expect(budget.acquire(IMAGE)).resolves.toBeUndefined();
    await clock.advance(7500);
    await waiting;
  });

  it('GIVEN a full queue of fetches that moves in 200 ms but a search window that frees in 4 s THEN a refused search waits for its own window', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 't',
      overall: { limit: 2, windowMs: 1000 },
      search: { limit: 1, windowMs: 5000 },
      maxQueue: 1,
      ...clock,
    });
    await budget.acquire(SEARCH);
    await budget.acquire(IMAGE);
    await clock.advance(800);
    const waiting = budget.acquire(IMAGE);
    const refusedSearch = await budget.acquire(SEARCH).catch((e: unknown) => e);
    expect(refusedSearch).toMatchObject({ reason: 'budget-exhausted', retryAfterMs: 4200 });
    // A fetch is refused too (overall full, queue full), and told when the queue moves: 200 ms.
    const refusedFetch = await budget.acquire(IMAGE).catch((e: unknown) => e);
    expect(refusedFetch).toMatchObject({ reason: 'budget-exhausted', retryAfterMs: 200 });
    await clock.advance(200);
    await waiting;
  });

  it('GIVEN a wait longer than its deadline THEN it fails with budget-exhausted and leaves the queue', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', overall: { limit: 1, windowMs: 10_000 }, ...clock });
    await budget.acquire(IMAGE);
    const late = budget.acquire(IMAGE, { timeoutMs: 500 }).catch((e: unknown) => e);
    await clock.advance(499);
    expect(budget.stats().queued).toBe(1);
    await clock.advance(1);
    const error = await late;
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(error).toMatchObject({ reason: 'budget-exhausted', retryAfterMs: 9500 });
    expect(budget.stats().queued).toBe(0);
  });

  it('GIVEN a caller aborts its wait THEN it rejects with the abort reason and the next waiter moves up', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', overall: { limit: 1, windowMs: 1000 }, ...clock });
    await budget.acquire(IMAGE);
    const controller = new AbortController();
    const first = budget.acquire(IMAGE, { signal: controller.signal }).catch((e: unknown) => e);
    let secondDone = false;
    const second = budget.acquire(IMAGE).then(() => (secondDone = true));
    controller.abort(new Error('gone'));
    expect(await first).toMatchObject({ message: 'gone' });
    await clock.advance(1000);
    await second;
    expect(secondDone).toBe(true);
    expect(budget.stats()).toMatchObject({ queued: 0, inWindow: 1 });
  });

  it('GIVEN the default budget THEN 30 requests go at once and the 31st waits 5 s', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', ...clock });
    for (let i = 0; i < 30; i += 1) await budget.acquire(IMAGE);
    let done = false;
    const next = budget.acquire(IMAGE).then(() => (done = true));
    await clock.advance(4999);
    expect(done).toBe(false);
    await clock.advance(1);
    await next;
    expect(done).toBe(true);
  });

  it('GIVEN the default budget THEN 20 searches go at once, the 21st waits 10 s, and a plain fetch still goes', async () => {
    expect(DEFAULT_OVERALL).toEqual({ limit: 30, windowMs: 5_000 });
    expect(DEFAULT_SEARCH).toEqual({ limit: 20, windowMs: 10_000 });
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', ...clock });
    for (let i = 0; i < 20; i += 1) await budget.acquire(SEARCH);
    let searched = false;
    const next = budget.acquire(SEARCH).then(() => (searched = true));
    await budget.acquire(IMAGE);
    await clock.advance(9_999);
    expect(searched).toBe(false);
    expect(budget.stats()).toMatchObject({ queued: 1, searchInWindow: 20 });
    await clock.advance(1);
    await next;
    expect(searched).toBe(true);
    expect(isSearchPath('/api/v1/json/search/images?q=safe')).toBe(true);
    expect(isSearchPath('/api/v1/json/search?q=safe')).toBe(true);
    expect(isSearchPath('/api/v1/json/images/1')).toBe(false);
  });

  it('GIVEN random arrivals of searches and fetches THEN neither window is ever exceeded and every call starts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 400 }), search: fc.boolean() }), {
          maxLength: 60,
        }),
        async (arrivals) => {
          const clock = fakeClock();
          const budget = createRequestBudget({
            site: 't',
            overall: { limit: 4, windowMs: 1000 },
            search: { limit: 2, windowMs: 2000 },
            maxWaitMs: 1_000_000,
            ...clock,
          });
          const starts: { at: number; search: boolean }[] = [];
          const calls: Promise<unknown>[] = [];
          for (const { gap, search } of arrivals) {
            await clock.advance(gap);
            calls.push(
              budget.acquire(search ? SEARCH : IMAGE).then(() => starts.push({ at: clock.now(), search })),
            );
          }
          await clock.advance(1_000_000);
          await Promise.all(calls);
          expect(starts).toHaveLength(arrivals.length);
          for (const s of starts) {
            expect(starts.filter((o) => o.at > s.at - 1000 && o.at <= s.at).length).toBeLessThanOrEqual(4);
            expect(
              starts.filter((o) => o.search && o.at > s.at - 2000 && o.at <= s.at).length,
            ).toBeLessThanOrEqual(2);
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
