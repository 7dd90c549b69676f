/**
 * Requests made with a member's own key draw on the site's one budget in a class of their own (issue 22
 * §3): after every interactive waiter, before unfurls and feeds (request-context.ts `account`).
 */
import Keyv from 'keyv';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { useFakeBoard } from '../support/board.js';
import { FAKE_KEY, IDS, type FakePhilomena } from '../fakes/philomena/index.js';
import { createRequestBudget, type BudgetSlot } from '../../src/philomena/budget/index.js';
import {
  createFairQueue,
  dequeue,
  enqueue,
  nextToServe,
  type Queued,
} from '../../src/philomena/budget/fair-queue.js';
import { createClientRegistry } from '../../src/philomena/registry.js';
import type { RequestContext } from '../../src/philomena/request-context.js';
import type { Site } from '../../src/philomena/sites.js';
import { fakeClock, flush } from './timer-clock.js';

let booru: FakePhilomena;
let site: Site;
useFakeBoard((started, startedSite) => {
  booru = started;
  site = startedSite;
});

/** Lets the real I/O under way (sockets, the local board) move on, until `done` or a bound of turns. */
async function until(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 2_000 && !done(); turn += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (!done()) throw new Error('the condition never held');
}

describe('the account class in the queue', () => {
  it('GIVEN one waiter of each class THEN they are served interactive, account, unfurl, feed', () => {
    const queue = createFairQueue<Queued & { readonly name: string }>();
    for (const [priority, name] of [
      ['feed', 'f'],
      ['unfurl', 'u'],
      ['account', 'a'],
      ['interactive', 'i'],
    ] as const) {
      enqueue(queue, { priority, server: 's1', member: name, name });
    }
    const served: string[] = [];
    for (let next = nextToServe(queue, () => true); next; next = nextToServe(queue, () => true)) {
      dequeue(queue, next, true);
      served.push(next.name);
    }
    expect(served).toEqual(['i', 'a', 'u', 'f']);
  });

  it("GIVEN the site's one slot taken THEN a queued member request waits behind an interactive one and goes before unfurl and feed ones", async () => {
    const clock = fakeClock();
    const registry = createClientRegistry({
      defaultSite: site,
      apiKey: FAKE_KEY,
      cache: new Keyv(),
      logger: pino({ level: 'silent' }),
      budget: { overall: { limit: 1, windowMs: 1_000 }, maxWaitMs: 60_000, ...clock },
      sleep: async () => undefined,
    });
    const alice = booru.addAccount({ name: 'Alice', faves: [IDS.safe] });
    const shared = registry.client(site);
    const member = registry.memberClient(site, { id: 'alice', key: alice.key });
    const as = (priority: RequestContext['priority']): { requester: RequestContext } => ({
      requester: { priority, server: 'g1', member: priority },
    });
    // Takes the one slot: it stays occupied for a window after the answer.
    await shared.image(IDS.safe, as('interactive'));
    const mark = booru.requests.length;
    const queued = () => registry.clients()[0]?.stats().budget.queued ?? 0;
    const calls = [
      shared.searchImages({ q: 'pony', ...as('feed') }),
      shared.image(IDS.questionable, as('unfurl')),
      member.searchImages({ q: 'my:faves', ...as('interactive') }),
    ];
    await until(() => queued() === 3);
    calls.push(shared.image(IDS.suggestive, as('interactive')));
    await until(() => queued() === 4);
    for (let served = 1; served <= 4; served += 1) {
      await clock.advance(1_000);
      await until(() => booru.requests.length - mark === served && queued() === 4 - served);
      // Its answer read, the slot is released: the next window starts from here.
      await until(() => registry.clients()[0]?.stats().budget.inFlight === 0);
    }
    await Promise.all(calls);
    expect(booru.requests.slice(mark).map((r) => `${r.path} ${r.key === alice.key ? 'alice' : '-'}`)).toEqual(
      [
        `/api/v1/json/images/${IDS.suggestive} -`,
        '/api/v1/json/search/images alice',
        `/api/v1/json/images/${IDS.questionable} -`,
        '/api/v1/json/search/images -',
      ],
    );
  });
});

/** Releases each of `held` once granted, window after window, until every one was granted. */
async function drainAll(held: readonly Promise<BudgetSlot>[], clock: ReturnType<typeof fakeClock>) {
  let done = 0;
  for (const wait of held) {
    void wait.then((slot) => {
      slot.release();
      done += 1;
    });
  }
  for (let window = 0; window < 20 && done < held.length; window += 1) await clock.advance(1_000);
  expect(done).toBe(held.length);
}

describe("the account class's share of each window", () => {
  const IMAGE = '/api/v1/json/images/1';
  const SEARCH = '/api/v1/json/search/images?q=my:faves';
  const who = (priority: RequestContext['priority'], member: string): { requester: RequestContext } => ({
    requester: { priority, server: 'g1', member },
  });

  it('GIVEN members flooding requests with their own keys THEN they hold at most a third of the window, and a link card and a feed poll still go at once', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 't', overall: { limit: 6, windowMs: 1_000 }, ...clock });
    const granted: string[] = [];
    const take = (priority: RequestContext['priority'], member: string): Promise<BudgetSlot> =>
      budget.acquire(IMAGE, who(priority, member)).then((slot) => {
        granted.push(priority);
        return slot;
      });
    // Held in flight, the worst case: nothing frees while the flood waits.
    const flood = ['a', 'b', 'c', 'a', 'b', 'c'].map((member) => take('account', member));
    await flush();
    expect(granted).toEqual(['account', 'account']);
    const card = take('unfurl', 'u');
    const poll = take('feed', 'feed');
    await flush();
    expect(granted).toEqual(['account', 'account', 'unfurl', 'feed']);
    expect(budget.stats()).toMatchObject({ inWindow: 4, accountInWindow: 2, queued: 4 });
    for (const slot of await Promise.all([card, poll])) slot.release();
    await drainAll(flood, clock);
  });

  it('GIVEN the search window and a flood of my: searches THEN the flood holds at most a third of the search window too, and another member searches at once', async () => {
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 't',
      overall: { limit: 20, windowMs: 1_000 },
      search: { limit: 6, windowMs: 1_000 },
      ...clock,
    });
    const flood = Array.from({ length: 5 }, (_, i) => budget.acquire(SEARCH, who('account', `m${i}`)));
    await flush();
    expect(budget.stats()).toMatchObject({ searchInWindow: 2, accountSearchInWindow: 2, queued: 3 });
    const other = await budget.acquire(SEARCH, who('interactive', 'other'));
    expect(budget.stats()).toMatchObject({ searchInWindow: 3 });
    other.release();
    await drainAll(flood, clock);
  });

  it('GIVEN a share outside 0..1 THEN the budget is refused at creation', () => {
    expect(() => createRequestBudget({ site: 't', accountShare: 1.5 })).toThrow(/accountShare/);
    expect(() => createRequestBudget({ site: 't', accountShare: Number.NaN })).toThrow(/accountShare/);
  });
});
