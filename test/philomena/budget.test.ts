import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createRequestBudget,
  type BudgetSlot,
  DEFAULT_OVERALL,
  DEFAULT_SEARCH,
  isSearchPath,
} from '../../src/philomena/budget/index.js';
import { userErrorText } from '../../commands/shared/error-texts.js';
import { SiteUnavailableError } from '../../src/philomena/errors.js';
import { fakeClock, flush, type TimerClock } from './timer-clock.js';
import { mostInAnySpan } from '../support/arrivals.js';

/** Releases a granted slot at once (a request that took no time), then runs `then`. */
function releaseAnd(then: () => unknown): (slot: BudgetSlot) => void {
  return (slot) => {
    slot.release();
    then();
  };
}

const IMAGE = '/api/v1/json/images/1';
const SEARCH = '/api/v1/json/search/images?q=safe';

describe('request budget', () => {
  it('GIVEN 3 requests per 1 s and 10 callers THEN no 1 s span ever holds more than 3 starts, in FIFO order', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', overall: { limit: 3, windowMs: 1000 }, ...clock });
    const starts: { i: number; at: number }[] = [];
    const all = Array.from({ length: 10 }, (_, i) =>
      budget.acquire(IMAGE).then((slot) => {
        slot.release();
        starts.push({ i, at: clock.now() });
      }),
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
    (await budget.acquire(SEARCH)).release();
    let searched = false;
    const second = budget.acquire(SEARCH).then(releaseAnd(() => (searched = true)));
    (await budget.acquire(IMAGE)).release();
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
    (await budget.acquire(IMAGE)).release();
    await clock.advance(400);
    const waiting = [budget.acquire(IMAGE), budget.acquire(IMAGE)].map((p) =>
      p.then(releaseAnd(() => undefined)),
    );
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
    (await budget.acquire(SEARCH)).release();
    await clock.advance(2500);
    const waiting = budget.acquire(SEARCH);
    const refused = await budget.acquire(SEARCH).catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: 'budget-exhausted', retryAfterMs: 7500 });
    (await budget.acquire(IMAGE)).release();
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
    (await budget.acquire(SEARCH)).release();
    (await budget.acquire(IMAGE)).release();
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
    (await budget.acquire(IMAGE)).release();
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
    (await budget.acquire(IMAGE)).release();
    const controller = new AbortController();
    const first = budget.acquire(IMAGE, { signal: controller.signal }).catch((e: unknown) => e);
    let secondDone = false;
    const second = budget.acquire(IMAGE).then(releaseAnd(() => (secondDone = true)));
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
    for (let i = 0; i < 30; i += 1) (await budget.acquire(IMAGE)).release();
    let done = false;
    const next = budget.acquire(IMAGE).then(releaseAnd(() => (done = true)));
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
    for (let i = 0; i < 20; i += 1) (await budget.acquire(SEARCH)).release();
    let searched = false;
    const next = budget.acquire(SEARCH).then(releaseAnd(() => (searched = true)));
    (await budget.acquire(IMAGE)).release();
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
              budget
                .acquire(search ? SEARCH : IMAGE)
                .then(releaseAnd(() => starts.push({ at: clock.now(), search }))),
            );
          }
          await clock.advance(1_000_000);
          await Promise.all(calls);
          expect(starts).toHaveLength(arrivals.length);
          expect(
            mostInAnySpan(
              starts.map((e) => e.at),
              1000,
            ),
          ).toBeLessThanOrEqual(4);
          expect(
            mostInAnySpan(
              starts.filter((s) => s.search).map((s) => s.at),
              2000,
            ),
          ).toBeLessThanOrEqual(2);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('GIVEN granted requests that wait in a small connection pool and take random times THEN the site never sees more arrivals in a window than the budget allows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 300 }),
            search: fc.boolean(),
            serviceMs: fc.integer({ min: 1, max: 1500 }),
            retries: fc.integer({ min: 0, max: 2 }),
          }),
          { maxLength: 50 },
        ),
        async (connections, requests) => {
          const clock = fakeClock();
          const budget = createRequestBudget({
            site: 't',
            overall: { limit: 5, windowMs: 1000 },
            search: { limit: 2, windowMs: 2000 },
            maxWaitMs: 10_000_000,
            ...clock,
          });
          // The site's log, and a pool like undici's: `connections` sockets, FIFO queue behind them.
          const seen: { at: number; search: boolean }[] = [];
          const pool = createPoolModel(clock, connections, (search) =>
            seen.push({ at: clock.now(), search }),
          );
          const calls: Promise<unknown>[] = [];
          for (const { gap, search, serviceMs, retries } of requests) {
            await clock.advance(gap);
            calls.push(
              (async () => {
                // Every attempt, retries included, takes its own slot and releases it once settled.
                for (let attempt = 0; attempt <= retries; attempt += 1) {
                  const slot = await budget.acquire(search ? SEARCH : IMAGE);
                  try {
                    await pool.send(search, serviceMs);
                  } finally {
                    slot.release();
                  }
                }
              })(),
            );
          }
          await clock.advance(10_000_000);
          await Promise.all(calls);
          expect(seen).toHaveLength(requests.reduce((sum, r) => sum + r.retries + 1, 0));
          expect(
            mostInAnySpan(
              seen.map((e) => e.at),
              1000,
            ),
          ).toBeLessThanOrEqual(5);
          expect(
            mostInAnySpan(
              seen.filter((s) => s.search).map((s) => s.at),
              2000,
            ),
          ).toBeLessThanOrEqual(2);
          expect(budget.stats()).toMatchObject({ queued: 0, inFlight: 0 });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('GIVEN two slow requests holding a 2-connection pool THEN the two queued behind them and the next grants do not reach the site in one window', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', overall: { limit: 4, windowMs: 200 }, ...clock });
    const seen: { at: number }[] = [];
    const pool = createPoolModel(clock, 2, () => seen.push({ at: clock.now() }));
    const services = [250, 250, 10, 10, 10, 10, 10, 10];
    const calls = services.map(async (serviceMs) => {
      const slot = await budget.acquire(IMAGE);
      try {
        await pool.send(false, serviceMs);
      } finally {
        slot.release();
      }
    });
    await clock.advance(200);
    // The first four slots were granted at 0, two are still on the wire and two wait in the pool: a slot
    // stamped at its grant would free now and let four more requests pile in behind them.
    expect(budget.stats()).toMatchObject({ queued: 4, inWindow: 4, inFlight: 4 });
    await clock.advance(10_000);
    await Promise.all(calls);
    expect(seen.map((s) => s.at)).toEqual([0, 0, 250, 250, 450, 450, 460, 460]);
    expect(
      mostInAnySpan(
        seen.map((e) => e.at),
        200,
      ),
    ).toBeLessThanOrEqual(4);
  });

  it('GIVEN every slot is in flight THEN time alone frees none, and a refusal says one window from now', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 't',
      overall: { limit: 2, windowMs: 1000 },
      maxQueue: 1,
      ...clock,
    });
    const slots = [await budget.acquire(IMAGE), await budget.acquire(IMAGE)];
    let granted = false;
    const waiting = budget.acquire(IMAGE).then(releaseAnd(() => (granted = true)));
    await clock.advance(5000);
    expect(granted).toBe(false);
    const refused = await budget.acquire(IMAGE).catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: 'budget-exhausted', retryAfterMs: 1000 });
    slots[0]?.release();
    slots[0]?.release(); // a second release changes nothing
    expect(budget.stats()).toMatchObject({ inFlight: 1, inWindow: 2, queued: 1 });
    await clock.advance(999);
    expect(granted).toBe(false);
    await clock.advance(1);
    await waiting;
    expect(granted).toBe(true);
    slots[1]?.release();
    expect(budget.stats()).toMatchObject({ inFlight: 0, inWindow: 2, queued: 0 });
  });
});

/**
 * A connection pool on the fake clock: `send` waits for a free connection (FIFO), reaches the site (calls
 * `arrive`), and settles `serviceMs` later.
 */
function createPoolModel(
  clock: TimerClock,
  connections: number,
  arrive: (search: boolean) => void,
): { send(search: boolean, serviceMs: number): Promise<void> } {
  let free = connections;
  const queued: (() => void)[] = [];
  const next = (): void => {
    while (free > 0 && queued.length > 0) {
      free -= 1;
      queued.shift()?.();
    }
  };
  return {
    send(search, serviceMs) {
      return new Promise<void>((resolve) => {
        queued.push(() => {
          arrive(search);
          clock.setTimer(() => {
            free += 1;
            resolve();
            next();
          }, serviceMs);
        });
        next();
      });
    },
  };
}
