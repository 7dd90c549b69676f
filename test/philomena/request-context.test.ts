/**
 * The requester of a board call reaches the budget: from `CallOptions.requester`, else from the async
 * context of `runWithRequestContext`; a call that joins one already in flight goes with that one's.
 */
import { useFakeBoard } from '../support/board.js';
import { describe, expect, it } from 'vitest';
import { FAKE_KEY, IDS, type FakePhilomena } from '../fakes/philomena/index.js';
import { createPhilomenaClient } from '../../src/philomena/client/index.js';
import {
  createRequestBudget,
  type AcquireOptions,
  type RequestBudget,
} from '../../src/philomena/budget/index.js';
import {
  currentRequestContext,
  runWithRequestContext,
  type RequestContext,
} from '../../src/philomena/request-context.js';
import type { Site } from '../../src/philomena/sites.js';

let booru: FakePhilomena;
let site: Site;
useFakeBoard((started, startedSite) => {
  booru = started;
  site = startedSite;
});

/** A real budget that remembers who asked, per path. */
function recordingBudget(): { budget: RequestBudget; seen: { path: string; requester?: RequestContext }[] } {
  const real = createRequestBudget({ site: 'local' });
  const seen: { path: string; requester?: RequestContext }[] = [];
  return {
    seen,
    budget: {
      acquire(path: string, options?: AcquireOptions) {
        seen.push({ path, ...(options?.requester ? { requester: options.requester } : {}) });
        return real.acquire(path, options);
      },
      stats: () => real.stats(),
    },
  };
}

const alice: RequestContext = { priority: 'interactive', server: 'g1', member: 'alice' };
const bob: RequestContext = { priority: 'unfurl', server: 'g2', member: 'bob' };

describe('request context', () => {
  it('GIVEN runWithRequestContext THEN the context follows awaits and timers, nests, and is gone outside', async () => {
    expect(currentRequestContext()).toBeUndefined();
    const seen = await runWithRequestContext(alice, async () => {
      await Promise.resolve();
      const afterTimer = await new Promise<RequestContext | undefined>((resolve) =>
        setTimeout(() => resolve(currentRequestContext()), 1),
      );
      const inner = runWithRequestContext(bob, () => currentRequestContext());
      return { afterTimer, inner, after: currentRequestContext() };
    });
    expect(seen).toEqual({ afterTimer: alice, inner: bob, after: alice });
    expect(currentRequestContext()).toBeUndefined();
  });

  it('GIVEN a call inside a context THEN the budget sees its requester; an explicit requester wins; none is none', async () => {
    const { budget, seen } = recordingBudget();
    const c = createPhilomenaClient({ site, budget });
    await runWithRequestContext(alice, () => c.image(IDS.safe));
    await runWithRequestContext(alice, () => c.image(IDS.suggestive, { requester: bob }));
    await c.image(IDS.fixtureSecond);
    expect(seen.map((s) => s.requester)).toEqual([alice, bob, undefined]);
    await c.close();
  });

  it('GIVEN two identical calls at once from different members THEN one request, with the first caller’s requester', async () => {
    const { budget, seen } = recordingBudget();
    const c = createPhilomenaClient({ site, budget });
    await Promise.all([
      runWithRequestContext(bob, () => c.searchImages({ q: 'safe' })),
      runWithRequestContext(alice, () => c.searchImages({ q: 'safe' })),
    ]);
    expect(seen).toEqual([{ path: '/api/v1/json/search/images?q=safe', requester: bob }]);
    await c.close();
  });

  it('GIVEN a submission and a reverse search THEN they carry the requester too', async () => {
    const { budget, seen } = recordingBudget();
    const c = createPhilomenaClient({ site, budget, apiKey: FAKE_KEY });
    await runWithRequestContext(alice, () =>
      c.submitImage({ url: `${booru.url}/samples/context-${Date.now()}.png`, tagInput: 'safe, pony' }),
    );
    await c.reverseSearch({ url: `${booru.url}/samples/x.png` }, { requester: bob });
    expect(seen.map((s) => s.requester)).toEqual([alice, bob]);
    await c.close();
  });
});
