/**
 * The budget shared fairly (one member must not use up what every server shares): autocomplete's small
 * share that never queues, round-robin between servers and members, priority classes, and the caps on
 * what one server or member may hold in the queue.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRequestBudget, type BudgetSlot } from '../../src/philomena/budget/index.js';
import type { RequestContext } from '../../src/philomena/request-context.js';
import { SiteUnavailableError } from '../../src/philomena/errors.js';
import { fakeClock, flush } from './timer-clock.js';

const IMAGE = '/api/v1/json/images/1';
const TAG = '/api/v1/json/tags/safe';
const SEARCH = '/api/v1/json/search/images?q=safe';
const TAG_SEARCH = '/api/v1/json/search/tags?q=tw*';

const member = (server: string, id: string): RequestContext => ({
  priority: 'interactive',
  server,
  member: id,
});
const typing = (server: string, id: string): RequestContext => ({
  priority: 'autocomplete',
  server,
  member: id,
});

type Settled = { ok: true; slot: BudgetSlot } | { ok: false; error: unknown };
const settle = (p: Promise<BudgetSlot>): Promise<Settled> =>
  p.then(
    (slot) => ({ ok: true as const, slot }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe('request budget: autocomplete', () => {
  it("GIVEN one member's 40 autocomplete searches THEN 4 go, 36 are refused at once, and another member's search is granted at once", async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', ...clock });
    // Held in flight, the worst case: nothing of the share frees.
    const results = await Promise.all(
      Array.from({ length: 40 }, () => settle(budget.acquire(TAG_SEARCH, { requester: typing('g1', 'm1') }))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(4);
    const refused = results.filter((r) => !r.ok).map((r) => (r.ok ? undefined : r.error));
    expect(refused).toHaveLength(36);
    for (const error of refused) {
      expect(error).toBeInstanceOf(SiteUnavailableError);
      expect(error).toMatchObject({ reason: 'budget-exhausted' });
      expect((error as SiteUnavailableError).retryAfterMs).toBeGreaterThan(0);
    }
    expect(budget.stats()).toMatchObject({ queued: 0, searchInWindow: 4, autocompleteSearchInWindow: 4 });

    let granted = false;
    const other = budget.acquire(SEARCH, { requester: member('g2', 'm2') }).then((slot) => {
      granted = true;
      return slot;
    });
    await flush();
    expect(granted).toBe(true);
    expect(clock.now()).toBe(0);
    (await other).release();
  });

  it('GIVEN the autocomplete share was used and released THEN it frees one search window later', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', ...clock });
    for (let i = 0; i < 4; i += 1) {
      (await budget.acquire(TAG_SEARCH, { requester: typing('g1', 'm1') })).release();
    }
    const refused = await budget
      .acquire(TAG_SEARCH, { requester: typing('g1', 'm1') })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: 'budget-exhausted', retryAfterMs: 10_000 });
    await clock.advance(10_000);
    await expect(budget.acquire(TAG_SEARCH, { requester: typing('g1', 'm1') })).resolves.toBeDefined();
  });

  it('GIVEN autocomplete on plain paths THEN at most 6 per overall window, and they count in the overall window', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', ...clock });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => settle(budget.acquire(TAG, { requester: typing('g1', 'm1') }))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(6);
    // The overall share also bounds autocomplete searches.
    const search = await settle(budget.acquire(TAG_SEARCH, { requester: typing('g1', 'm1') }));
    expect(search.ok).toBe(false);
    expect(budget.stats()).toMatchObject({ inWindow: 6, autocompleteInWindow: 6, searchInWindow: 0 });
  });

  it('GIVEN the search window is full of commands THEN autocomplete is refused at once and never waits', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', ...clock });
    for (let i = 0; i < 20; i += 1) (await budget.acquire(SEARCH)).release();
    const refused = await budget
      .acquire(TAG_SEARCH, { requester: typing('g1', 'm1') })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: 'budget-exhausted', retryAfterMs: 10_000 });
    expect(budget.stats()).toMatchObject({ queued: 0, searchInWindow: 20, autocompleteSearchInWindow: 0 });
  });

  it('GIVEN 18 searches in the window THEN only 2 autocompletes fit: the share never lets the window overflow', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', ...clock });
    for (let i = 0; i < 18; i += 1) (await budget.acquire(SEARCH)).release();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => settle(budget.acquire(TAG_SEARCH, { requester: typing('g1', 'm1') }))),
    );
    expect(results.map((r) => r.ok)).toEqual([true, true, false, false]);
    expect(budget.stats().searchInWindow).toBe(20);
  });

  it('GIVEN shares of 0 THEN every autocomplete is refused, and bad shares are refused at creation', async () => {
    const budget = createRequestBudget({ site: 't', autocompleteLimit: 0, ...fakeClock() });
    await expect(budget.acquire(TAG, { requester: typing('g', 'm') })).rejects.toMatchObject({
      reason: 'budget-exhausted',
    });
    await expect(budget.acquire(TAG, { requester: member('g', 'm') })).resolves.toBeDefined();
    expect(() => createRequestBudget({ site: 't', autocompleteSearchLimit: -1 })).toThrow(RangeError);
    expect(() => createRequestBudget({ site: 't', autocompleteLimit: 1.5 })).toThrow(RangeError);
  });
});

/** Like settle, and a granted request ends at once (it took no time). */
const settleReleased = (p: Promise<BudgetSlot>): Promise<Settled> =>
  settle(
    p.then((slot) => {
      slot.release();
      return slot;
    }),
  );

describe('request budget: fair queue', () => {
  /** A budget of one request per second, its slot taken, so every next acquire waits its turn. */
  async function oneAtATime(extra: Parameters<typeof createRequestBudget>[0] | object = {}) {
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 't',
      overall: { limit: 1, windowMs: 1000 },
      maxWaitMs: 1_000_000,
      ...extra,
      ...clock,
    });
    (await budget.acquire(IMAGE)).release();
    const order: string[] = [];
    const calls: Promise<unknown>[] = [];
    const enqueue = (label: string, requester?: RequestContext, path = IMAGE): void => {
      calls.push(
        budget.acquire(path, requester ? { requester } : {}).then((slot) => {
          slot.release();
          order.push(label);
        }),
      );
    };
    const drainAll = async (): Promise<void> => {
      await clock.advance(1_000_000);
      await Promise.all(calls);
    };
    return { clock, budget, order, enqueue, drainAll };
  }

  it('GIVEN two servers with many waiters, all of the first queued first THEN they are served alternately', async () => {
    const { order, enqueue, drainAll } = await oneAtATime();
    for (let i = 1; i <= 6; i += 1) enqueue(`A${i}`, member('A', `a${i % 3}`));
    for (let i = 1; i <= 6; i += 1) enqueue(`B${i}`, member('B', `b${i % 3}`));
    await drainAll();
    expect(order).toEqual(['A1', 'B1', 'A2', 'B2', 'A3', 'B3', 'A4', 'B4', 'A5', 'B5', 'A6', 'B6']);
  });

  it('GIVEN one member queued many and another member of the same server queued later THEN the two take turns', async () => {
    const { order, enqueue, drainAll } = await oneAtATime();
    for (let i = 1; i <= 4; i += 1) enqueue(`x${i}`, member('A', 'x'));
    enqueue('y1', member('A', 'y'));
    enqueue('y2', member('A', 'y'));
    await drainAll();
    expect(order).toEqual(['x1', 'y1', 'x2', 'y2', 'x3', 'x4']);
  });

  it('GIVEN a server that queued 8 and a server that comes later with 1 THEN the newcomer waits for one turn, not eight', async () => {
    const { clock, order, enqueue, drainAll } = await oneAtATime();
    for (let i = 1; i <= 8; i += 1) enqueue(`A${i}`, member('A', `a${i % 4}`));
    await clock.advance(1500);
    enqueue('B1', member('B', 'b'));
    await drainAll();
    expect(order.indexOf('B1')).toBe(2);
  });

  it('GIVEN unfurls queued before commands THEN every command is served first', async () => {
    const { order, enqueue, drainAll } = await oneAtATime();
    for (let i = 1; i <= 3; i += 1) enqueue(`u${i}`, { priority: 'unfurl', server: 'A', member: `u${i}` });
    for (let i = 1; i <= 3; i += 1) enqueue(`c${i}`, member('B', `c${i}`));
    await drainAll();
    expect(order).toEqual(['c1', 'c2', 'c3', 'u1', 'u2', 'u3']);
  });

  it('GIVEN commands waiting only for the search window THEN an unfurl fetch still goes when the overall window has room', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 't',
      overall: { limit: 10, windowMs: 1000 },
      search: { limit: 1, windowMs: 5000 },
      ...clock,
    });
    (await budget.acquire(SEARCH)).release();
    let searched = false;
    const waiting = budget.acquire(SEARCH, { requester: member('A', 'm') }).then((slot) => {
      searched = true;
      slot.release();
    });
    let unfurled = false;
    void budget.acquire(IMAGE, { requester: { priority: 'unfurl', server: 'B' } }).then((slot) => {
      unfurled = true;
      slot.release();
    });
    await flush();
    expect({ searched, unfurled }).toEqual({ searched: false, unfurled: true });
    await clock.advance(5000);
    await waiting;
    expect(searched).toBe(true);
  });

  it('GIVEN requests without a server or member THEN they share one group, FIFO, in turn with named servers', async () => {
    const { order, enqueue, drainAll } = await oneAtATime();
    enqueue('n1');
    enqueue('n2');
    enqueue('n3');
    enqueue('A1', member('A', 'a'));
    await drainAll();
    expect(order).toEqual(['n1', 'A1', 'n2', 'n3']);
  });
});

describe('request budget: caps', () => {
  async function fullBudget(extra: object = {}) {
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 't',
      overall: { limit: 1, windowMs: 1000 },
      maxWaitMs: 1_000_000,
      ...extra,
      ...clock,
    });
    (await budget.acquire(IMAGE)).release();
    return { clock, budget };
  }

  it('GIVEN a member with 5 waiting THEN the 6th is refused at once, in any server, and another member still queues', async () => {
    const { clock, budget } = await fullBudget();
    const waiting = Array.from({ length: 5 }, (_, i) =>
      settleReleased(budget.acquire(IMAGE, { requester: member(i % 2 === 0 ? 'A' : 'B', 'm') })),
    );
    const sixth = await budget.acquire(IMAGE, { requester: member('C', 'm') }).catch((e: unknown) => e);
    expect(sixth).toBeInstanceOf(SiteUnavailableError);
    expect(sixth).toMatchObject({ reason: 'budget-exhausted', retryAfterMs: 1000 });
    expect((sixth as Error).message).toMatch(/5 requests of this member already waiting/);
    const other = settleReleased(budget.acquire(IMAGE, { requester: member('A', 'other') }));
    expect(budget.stats().queued).toBe(6);
    await clock.advance(10_000);
    expect((await Promise.all([...waiting, other])).every((r) => r.ok)).toBe(true);
  });

  it('GIVEN a server holding half of the queue THEN its next waiter is refused, another server still queues', async () => {
    const { clock, budget } = await fullBudget({ maxQueue: 12 });
    const waiting = Array.from({ length: 6 }, (_, i) =>
      settleReleased(budget.acquire(IMAGE, { requester: member('A', `m${i}`) })),
    );
    const refused = await budget.acquire(IMAGE, { requester: member('A', 'm9') }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: 'budget-exhausted' });
    expect((refused as Error).message).toMatch(/6 requests of this server already waiting/);
    const other = settleReleased(budget.acquire(IMAGE, { requester: member('B', 'm0') }));
    expect(budget.stats().queued).toBe(7);
    await clock.advance(10_000);
    expect((await Promise.all([...waiting, other])).every((r) => r.ok)).toBe(true);
  });

  it('GIVEN explicit caps THEN they apply, and a capped member is granted at once when a slot is free', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 't',
      overall: { limit: 2, windowMs: 1000 },
      maxQueuePerMember: 1,
      maxQueuePerServer: 2,
      ...clock,
    });
    // Caps bound waiting, not going: with room, a member takes slots beyond its queue cap.
    const first = await budget.acquire(IMAGE, { requester: member('A', 'm') });
    const second = await budget.acquire(IMAGE, { requester: member('A', 'm') });
    const queuedOne = settleReleased(budget.acquire(IMAGE, { requester: member('A', 'm') }));
    await expect(budget.acquire(IMAGE, { requester: member('A', 'm') })).rejects.toMatchObject({
      reason: 'budget-exhausted',
    });
    const queuedTwo = settleReleased(budget.acquire(IMAGE, { requester: member('A', 'n') }));
    await expect(budget.acquire(IMAGE, { requester: member('A', 'o') })).rejects.toMatchObject({
      reason: 'budget-exhausted',
    });
    first.release();
    second.release();
    await clock.advance(1000);
    expect((await Promise.all([queuedOne, queuedTwo])).every((r) => r.ok)).toBe(true);
  });

  it('GIVEN a member whose waits ended by deadline and abort THEN its count is back to 0 and it may queue 5 again', async () => {
    const { clock, budget } = await fullBudget({ overall: { limit: 1, windowMs: 60_000 } });
    const controller = new AbortController();
    const gone = [
      settleReleased(budget.acquire(IMAGE, { requester: member('A', 'm'), timeoutMs: 100 })),
      settleReleased(budget.acquire(IMAGE, { requester: member('A', 'm'), signal: controller.signal })),
    ];
    controller.abort(new Error('left'));
    await clock.advance(100);
    expect((await Promise.all(gone)).every((r) => !r.ok)).toBe(true);
    expect(budget.stats().queued).toBe(0);
    const again = Array.from({ length: 5 }, () =>
      settleReleased(budget.acquire(IMAGE, { requester: member('A', 'm'), timeoutMs: 10 })),
    );
    expect(budget.stats().queued).toBe(5);
    await clock.advance(10);
    await Promise.all(again);
  });
});

describe('request budget: fairness keeps the limits', () => {
  it('GIVEN random arrivals from servers, members and classes THEN no window or share is exceeded, no server or member holds more than its cap, and every queued call ends', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 300 }),
            search: fc.boolean(),
            priority: fc.constantFrom('interactive', 'unfurl', 'feed', 'autocomplete') as fc.Arbitrary<
              RequestContext['priority']
            >,
            server: fc.option(fc.constantFrom('A', 'B', 'C'), { nil: undefined }),
            member: fc.option(fc.constantFrom('1', '2', '3', '4'), { nil: undefined }),
            serviceMs: fc.integer({ min: 1, max: 800 }),
          }),
          { maxLength: 60 },
        ),
        async (arrivals) => {
          const clock = fakeClock();
          const budget = createRequestBudget({
            site: 't',
            overall: { limit: 5, windowMs: 1000 },
            search: { limit: 3, windowMs: 2000 },
            autocompleteLimit: 2,
            autocompleteSearchLimit: 1,
            maxQueue: 12,
            maxQueuePerMember: 3,
            maxWaitMs: 5000,
            ...clock,
          });
          const starts: { at: number; search: boolean; autocomplete: boolean }[] = [];
          const queuedBy = new Map<string, number>();
          let most = { server: 0, member: 0 };
          const calls: Promise<unknown>[] = [];
          for (const a of arrivals) {
            await clock.advance(a.gap);
            const requester: RequestContext = {
              priority: a.priority,
              ...(a.server === undefined ? {} : { server: a.server }),
              ...(a.member === undefined ? {} : { member: a.member }),
            };
            const keys = [a.server && `s:${a.server}`, a.member && `m:${a.member}`].filter(
              (k): k is string => typeof k === 'string',
            );
            let waiting = true;
            for (const k of keys) queuedBy.set(k, (queuedBy.get(k) ?? 0) + 1);
            const done = (): void => {
              if (!waiting) return;
              waiting = false;
              for (const k of keys) queuedBy.set(k, (queuedBy.get(k) ?? 0) - 1);
            };
            calls.push(
              budget.acquire(a.search ? SEARCH : IMAGE, { requester }).then(
                (slot) => {
                  done();
                  starts.push({
                    at: clock.now(),
                    search: a.search,
                    autocomplete: a.priority === 'autocomplete',
                  });
                  clock.setTimer(() => slot.release(), a.serviceMs);
                },
                (error: unknown) => {
                  done();
                  expect(error).toMatchObject({ reason: 'budget-exhausted' });
                },
              ),
            );
            await flush();
            for (const [k, n] of queuedBy) {
              if (k.startsWith('s:')) most = { ...most, server: Math.max(most.server, n) };
              else most = { ...most, member: Math.max(most.member, n) };
            }
          }
          await clock.advance(1_000_000);
          await Promise.all(calls);
          // Counted at grant, the earliest a request could reach the site.
          const maxIn = (list: typeof starts, span: number): number =>
            Math.max(0, ...list.map((s) => list.filter((o) => o.at > s.at - span && o.at <= s.at).length));
          expect(maxIn(starts, 1000)).toBeLessThanOrEqual(5);
          expect(
            maxIn(
              starts.filter((s) => s.search),
              2000,
            ),
          ).toBeLessThanOrEqual(3);
          expect(
            maxIn(
              starts.filter((s) => s.autocomplete),
              1000,
            ),
          ).toBeLessThanOrEqual(2);
          expect(
            maxIn(
              starts.filter((s) => s.autocomplete && s.search),
              2000,
            ),
          ).toBeLessThanOrEqual(1);
          // Measured after each arrival has settled (granted, refused or queued): what was waiting then.
          expect(most.member).toBeLessThanOrEqual(3);
          expect(most.server).toBeLessThanOrEqual(6); // half of maxQueue

          expect(budget.stats()).toMatchObject({ queued: 0, inFlight: 0 });
        },
      ),
      { numRuns: 50 },
    );
  });
});
