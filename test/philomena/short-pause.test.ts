/**
 * A call that finds the site paused (a 429's Retry-After or a 501 met by another call) for a second or two
 * waits the pause out instead of failing with "try again in 1 s": the member's interaction is deferred and
 * can wait. Past `pauseWaitMs` (2.5 s), past the call's deadline, or for autocomplete (3 s to answer, no
 * defer), it fails at once as before. Time is the test's: the client's sleeps move its clock.
 */
import { describe, expect, it } from 'vitest';
import { IDS, type FakePhilomena } from '../fakes/philomena/index.js';
import { createCircuitBreaker, type CircuitBreaker } from '../../src/philomena/breaker.js';
import { createPhilomenaClient, type PhilomenaClientOptions } from '../../src/philomena/client/index.js';
import { RateLimitedError } from '../../src/philomena/errors.js';
import type { Site } from '../../src/philomena/sites.js';
import { API, useFakeBoard } from '../support/board.js';

let booru: FakePhilomena;
let site: Site;
useFakeBoard((started, startedSite) => {
  booru = started;
  site = startedSite;
});

/** A client whose breaker the test pauses, on a clock its sleeps move; what it slept. */
function setup(options: Partial<PhilomenaClientOptions> = {}, onSleep: () => void = () => undefined) {
  const clock = { time: 1_000 };
  const slept: number[] = [];
  const breaker: CircuitBreaker = createCircuitBreaker({ site: site.id, now: () => clock.time });
  const c = createPhilomenaClient({
    site,
    breaker,
    now: () => clock.time,
    sleep: async (ms) => {
      slept.push(ms);
      clock.time += ms;
      onSleep();
    },
    ...options,
  });
  /** The site asked another call to wait `ms` (as a 429 with Retry-After does). */
  const pause = (ms: number): void => breaker.enter().failure({ retryAfterMs: ms });
  return { c, pause, slept };
}

const imageCalls = () => booru.requests.filter((r) => r.path.startsWith(`${API}/images/`)).length;

describe('a short pause is waited out', () => {
  it('GIVEN the site paused for 1.5 s THEN a call waits it out and succeeds with one request', async () => {
    const { c, pause, slept } = setup();
    pause(1_500);
    await expect(c.image(IDS.safe)).resolves.toMatchObject({ id: IDS.safe });
    expect(slept).toEqual([1_500]);
    expect(imageCalls()).toBe(1);
  });

  it('GIVEN the site paused for 10 s THEN the call fails at once with the wait, without a request', async () => {
    const { c, pause, slept } = setup();
    pause(10_000);
    const error = await c.image(IDS.safe).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterMs: 10_000 });
    expect(slept).toEqual([]);
    expect(imageCalls()).toBe(0);
  });

  it('GIVEN an autocomplete call and a 1.5 s pause THEN it never waits: it fails at once', async () => {
    const { c, pause, slept } = setup();
    pause(1_500);
    const error = await c
      .searchTags({ q: 'name:twi*', requester: { priority: 'autocomplete' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(slept).toEqual([]);
    expect(booru.requests).toHaveLength(0);
  });

  it('GIVEN a pause that would outlast the call deadline THEN the call fails at once', async () => {
    const { c, pause, slept } = setup({ transport: { deadlineMs: 1_000 } });
    pause(1_500);
    await expect(c.image(IDS.safe)).rejects.toBeInstanceOf(RateLimitedError);
    expect(slept).toEqual([]);
  });

  it('GIVEN the pause is renewed while the call waits THEN it waits no more than 2.5 s in all', async () => {
    let renew = (): void => undefined;
    const { c, pause, slept } = setup({}, () => renew());
    // Another 429 lands while the call sleeps: 2 s more, beyond what is left of its 2.5 s.
    renew = () => {
      renew = () => undefined;
      pause(2_000);
    };
    pause(1_500);
    await expect(c.image(IDS.safe)).rejects.toBeInstanceOf(RateLimitedError);
    expect(slept).toEqual([1_500]);
    expect(imageCalls()).toBe(0);
  });

  it('GIVEN the caller aborts during the wait THEN it rejects with the abort reason and sends nothing', async () => {
    const controller = new AbortController();
    const { c, pause } = setup({
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason));
          controller.abort(new Error('the member left'));
        }),
    });
    pause(1_500);
    await expect(c.image(IDS.safe, { signal: controller.signal })).rejects.toThrow('the member left');
    expect(imageCalls()).toBe(0);
  });
});
