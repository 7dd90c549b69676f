/**
 * The board's anti-bot block (docs/board-behaviour.md, "Limits and politeness"): after its 501 a client
 * that does not keep quiet is answered with empty 500s for at least 15 minutes, and every request restarts
 * them. The client takes an empty 500 after a 501 (or two in a row) for that block: the request that met it
 * is not retried, nothing more goes to the site, from this process or another sharing the site state, for
 * 16 minutes, and then one probe. The local board blocks like the real one (test/fakes/philomena/anti-bot.ts).
 */
import { describe, expect, it } from 'vitest';
import { IDS, type FakePhilomena } from '../fakes/philomena/index.js';
import { BLOCK_MS } from '../../src/philomena/breaker.js';
import { createPhilomenaClient, type PhilomenaClientOptions } from '../../src/philomena/client/index.js';
import { RateLimitedError, SiteBlockedError } from '../../src/philomena/errors.js';
import type { SharedSiteState } from '../../src/philomena/shared-state.js';
import type { Site } from '../../src/philomena/sites.js';
import { API, useFakeBoard } from '../support/board.js';

let booru: FakePhilomena;
let site: Site;
useFakeBoard((started, startedSite) => {
  booru = started;
  site = startedSite;
});

/** A clock the client's sleeps move (no real waiting): the board meanwhile sees requests come at once. */
function clockOf() {
  const clock = { time: 1_000 };
  const seams: Partial<PhilomenaClientOptions> = {
    now: () => clock.time,
    sleep: async (ms) => {
      clock.time += ms;
    },
  };
  return { clock, seams };
}

function client(options: Partial<PhilomenaClientOptions> = {}) {
  return createPhilomenaClient({ site, transport: { baseDelayMs: 1 }, random: () => 0.5, ...options });
}

const apiCalls = () => booru.requests.filter((r) => r.path.startsWith(`${API}/`)).length;

/** Pauses, openings, blocks and challenges held in memory on one clock, as Redis would for processes. */
function sharedOn(clock: { time: number }): SharedSiteState {
  const until = new Map<string, number>();
  const left = (key: string): number => Math.max(0, (until.get(key) ?? 0) - clock.time);
  const extend = async (key: string, ms: number): Promise<void> => {
    until.set(key, Math.max(until.get(key) ?? 0, clock.time + ms));
  };
  return {
    pause: (id, ms) => extend(`${id}:paused`, ms),
    open: (id, ms) => extend(`${id}:open`, ms),
    block: (id, ms) => extend(`${id}:blocked`, ms),
    challenge: (id, ms) => extend(`${id}:challenged`, ms),
    read: async (id) => ({
      pausedMs: left(`${id}:paused`),
      openMs: left(`${id}:open`),
      blockedMs: left(`${id}:blocked`),
      challengedMs: left(`${id}:challenged`),
    }),
  };
}

describe('the anti-bot block', () => {
  it('GIVEN the 501 and then an empty 500 THEN that request is not retried, every call fails at once for 16 min without a request, then one probe', async () => {
    const { clock, seams } = clockOf();
    const c = client(seams);
    booru.inject({ fault: { kind: 'anti-bot' }, path: `${API}/images/${IDS.safe}`, times: 1 });
    const error = await c.image(IDS.safe).catch((e: unknown) => e);
    // The 501, the wait (5 s on the client's clock, none on the board's), the retry met by the block.
    expect(error).toBeInstanceOf(SiteBlockedError);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterMs: BLOCK_MS, siteName: site.name });
    expect(apiCalls()).toBe(2);
    expect(booru.antiBot.blockedRequests()).toBe(1);

    // Every other call, of any kind, is refused at once: not one request restarts the board's block.
    for (const call of [
      () => c.image(IDS.suggestive),
      () => c.searchImages({ q: 'pony' }),
      () => c.tag('safe'),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(SiteBlockedError);
    }
    clock.time += BLOCK_MS - 60_000;
    const later = await c.image(IDS.suggestive).catch((e: unknown) => e);
    expect(later).toBeInstanceOf(SiteBlockedError);
    expect((later as SiteBlockedError).retryAfterMs).toBe(60_000);
    expect(apiCalls()).toBe(2);
    expect(booru.antiBot.blockedRequests()).toBe(1);
    expect(c.stats().breaker).toBe('open');

    // The board's 15 minutes since our last request are over, and so are our 16: one probe, and it works.
    booru.antiBot.advance(15 * 60_000 + 1);
    clock.time += 60_000;
    expect(c.stats().breaker).toBe('half-open');
    await expect(c.image(IDS.suggestive)).resolves.toMatchObject({ id: IDS.suggestive });
    expect(apiCalls()).toBe(3);
    expect(c.stats().breaker).toBe('closed');
  });

  it('GIVEN the probe after a block meets an empty 500 again THEN the 16 minutes start again at once, with no retry', async () => {
    const { clock, seams } = clockOf();
    const c = client(seams);
    booru.inject({ fault: { kind: 'anti-bot' }, path: `${API}/images/${IDS.safe}`, times: 1 });
    await expect(c.image(IDS.safe)).rejects.toBeInstanceOf(SiteBlockedError);
    // Our 16 minutes pass, but the board's block is still on (someone else restarted it).
    clock.time += BLOCK_MS;
    const calls = apiCalls();
    const probe = await c.image(IDS.suggestive).catch((e: unknown) => e);
    expect(probe).toBeInstanceOf(SiteBlockedError);
    expect(probe).toMatchObject({ retryAfterMs: BLOCK_MS });
    expect(apiCalls()).toBe(calls + 1);
    await expect(c.image(IDS.questionable)).rejects.toBeInstanceOf(SiteBlockedError);
    expect(apiCalls()).toBe(calls + 1);
  });

  it('GIVEN two empty 500s in a row, without a 501 THEN the second is taken for the block: no third attempt', async () => {
    const { seams } = clockOf();
    const c = client(seams);
    booru.inject({ fault: { kind: 'empty-500' } });
    await expect(c.image(IDS.safe)).rejects.toBeInstanceOf(SiteBlockedError);
    expect(apiCalls()).toBe(2);
    await expect(c.image(IDS.suggestive)).rejects.toBeInstanceOf(SiteBlockedError);
    expect(apiCalls()).toBe(2);
  });

  it("GIVEN one empty 500 alone, or the board's own 500s THEN no block: retried as any failure", async () => {
    const { seams } = clockOf();
    const c = client(seams);
    booru.inject({ fault: { kind: 'empty-500' }, times: 1 });
    await expect(c.image(IDS.safe)).resolves.toMatchObject({ id: IDS.safe });
    booru.inject({ fault: { kind: 'status', status: 500 } });
    await expect(c.image(IDS.suggestive)).rejects.toMatchObject({ reason: 'server-error', status: 500 });
    expect(apiCalls()).toBe(2 + 3);
    expect(booru.antiBot.blockedRequests()).toBe(0);
  });

  it('GIVEN one process met the 501 and another then meets an empty 500 THEN that one is the block for both: no further request from either', async () => {
    const { clock, seams } = clockOf();
    const shared = sharedOn(clock);
    // Two processes on one shared site state; `a` has too little deadline to wait out the 501 itself.
    const a = client({ ...seams, shared, transport: { baseDelayMs: 1, deadlineMs: 1_000 } });
    const b = client({ ...seams, shared });
    booru.inject({ fault: { kind: 'anti-bot' }, path: `${API}/images/${IDS.safe}`, times: 1 });
    const challenged = await a.image(IDS.safe).catch((e: unknown) => e);
    expect(challenged).toBeInstanceOf(RateLimitedError);
    expect(challenged).not.toBeInstanceOf(SiteBlockedError);
    clock.time += 5_000; // the 501's pause, over for both

    // b's request reaches the board within its 5 s (the board's clock did not move): the block.
    const blocked = await b.image(IDS.suggestive).catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(SiteBlockedError);
    expect(apiCalls()).toBe(2);
    // a learns it from the shared state: refused before its request leaves.
    await expect(a.image(IDS.questionable)).rejects.toBeInstanceOf(SiteBlockedError);
    await expect(b.image(IDS.questionable)).rejects.toBeInstanceOf(SiteBlockedError);
    expect(apiCalls()).toBe(2);
    expect(booru.antiBot.blockedRequests()).toBe(1);
  });

  it('GIVEN a timeout or a 503 after a 501 THEN that is no block (only an empty 500 is its signature)', async () => {
    const { seams } = clockOf();
    const c = client(seams);
    booru.inject({ fault: { kind: 'anti-bot' }, path: `${API}/images/${IDS.safe}`, times: 1 });
    booru.inject({ fault: { kind: 'status', status: 503 }, path: `${API}/images/${IDS.safe}`, times: 1 });
    // The board's own layer would block the retry; this test is about what the client makes of a 503.
    booru.antiBot.configure({ graceMs: 0 });
    await expect(c.image(IDS.safe)).resolves.toMatchObject({ id: IDS.safe });
    await expect(c.image(IDS.suggestive)).resolves.toMatchObject({ id: IDS.suggestive });
    expect(apiCalls()).toBe(4);
    expect(c.stats().breaker).toBe('closed');
  });
});

describe('calls that waited for a budget slot, in one process without a shared state', () => {
  it('GIVEN calls queued behind the one that met the 501 THEN none reaches the board during its 5 s', async () => {
    // Real time: one slot per 300 ms, so the other calls wait in the budget while the first meets the 501.
    const c = client({ budget: { overall: { limit: 1, windowMs: 300 } } });
    booru.inject({ fault: { kind: 'anti-bot' }, path: `${API}/images/${IDS.safe}`, times: 1 });
    const first = new AbortController();
    // All three at once: the first takes the slot, the others pass the breaker (nothing is wrong yet) and
    // wait for theirs.
    const challenged = c.image(IDS.safe, { signal: first.signal }).catch((e: unknown) => e);
    const queued = await Promise.all([
      c.image(IDS.suggestive).catch((e: unknown) => e),
      c.searchImages({ q: 'pony' }).catch((e: unknown) => e),
    ]);
    // Each was granted its slot after the 501 and then held back: the board saw the 501's request only.
    for (const error of queued) expect(error).toBeInstanceOf(RateLimitedError);
    expect(apiCalls()).toBe(1);
    expect(booru.antiBot.blockedRequests()).toBe(0);
    first.abort(new Error('test over'));
    await challenged;
    expect(apiCalls()).toBe(1);
  });
});
