import { describe, expect, it } from 'vitest';
import { BLOCK_MS, createCircuitBreaker } from '../../src/philomena/breaker.js';
import { RateLimitedError, SiteBlockedError, SiteUnavailableError } from '../../src/philomena/errors.js';

function setup(overrides: { threshold?: number; coolDownMs?: number; maxCoolDownMs?: number } = {}) {
  let time = 0;
  const breaker = createCircuitBreaker({
    site: 'derpibooru',
    failureThreshold: overrides.threshold ?? 3,
    coolDownMs: overrides.coolDownMs ?? 30_000,
    maxCoolDownMs: overrides.maxCoolDownMs ?? 120_000,
    now: () => time,
  });
  return {
    breaker,
    advance: (ms: number) => {
      time += ms;
    },
    fail: (n: number, retryAfterMs?: number) => {
      for (let i = 0; i < n; i += 1)
        breaker.enter().failure(retryAfterMs === undefined ? {} : { retryAfterMs });
    },
  };
}

function refusal(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('circuit breaker', () => {
  it('GIVEN fewer consecutive failures than the threshold THEN it stays closed, and a success resets the count', () => {
    const { breaker, fail } = setup();
    fail(2);
    breaker.enter().success();
    fail(2);
    expect(breaker.state()).toBe('closed');
    expect(() => breaker.enter().release()).not.toThrow();
  });

  it('GIVEN the threshold of failures THEN it opens and refuses every call with circuit-open and the wait', () => {
    const { breaker, fail, advance } = setup();
    fail(3);
    expect(breaker.state()).toBe('open');
    advance(10_000);
    const error = refusal(() => breaker.enter());
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(error).toMatchObject({ reason: 'circuit-open', retryAfterMs: 20_000, site: 'derpibooru' });
  });

  it('GIVEN the cool-down has passed THEN exactly one probe goes through and its success closes the breaker', () => {
    const { breaker, fail, advance } = setup();
    fail(3);
    advance(30_000);
    expect(breaker.state()).toBe('half-open');
    const probe = breaker.enter();
    expect(refusal(() => breaker.enter())).toMatchObject({ reason: 'circuit-open' });
    probe.success();
    expect(breaker.state()).toBe('closed');
    expect(() => breaker.enter().success()).not.toThrow();
  });

  it('GIVEN probes keep failing THEN the cool-down doubles up to its cap', () => {
    const { breaker, fail, advance } = setup();
    fail(3); // 30 s
    const coolDowns: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      advance(breaker.retryAfterMs());
      breaker.enter().failure();
      coolDowns.push(breaker.retryAfterMs());
    }
    expect(coolDowns).toEqual([60_000, 120_000, 120_000, 120_000]);
    advance(120_000);
    breaker.enter().success();
    fail(3);
    expect(breaker.retryAfterMs()).toBe(30_000);
  });

  it('GIVEN the probe is abandoned THEN the next caller may probe', () => {
    const { breaker, fail, advance } = setup();
    fail(3);
    advance(30_000);
    breaker.enter().release();
    expect(() => breaker.enter()).not.toThrow();
  });

  it('GIVEN the site asks for a wait longer than the cool-down THEN the breaker stays open that long', () => {
    const { breaker, fail } = setup();
    fail(2);
    fail(1, 90_000);
    expect(breaker.retryAfterMs()).toBe(90_000);
  });

  it('GIVEN a single 429 with Retry-After THEN the site is paused: calls fail fast with RateLimitedError until then', () => {
    const { breaker, fail, advance } = setup();
    fail(1, 5_000);
    expect(breaker.state()).toBe('closed');
    advance(1_000);
    const error = refusal(() => breaker.enter());
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterMs: 4_000 });
    advance(4_000);
    expect(() => breaker.enter().success()).not.toThrow();
  });

  it('GIVEN a ticket is reported twice THEN only the first report counts', () => {
    const { breaker } = setup({ threshold: 2 });
    const ticket = breaker.enter();
    ticket.failure();
    ticket.failure();
    expect(breaker.state()).toBe('closed');
  });
});

describe('circuit breaker: the anti-bot block (docs/board-behaviour.md)', () => {
  it('GIVEN an empty 500 after a 501 THEN blocked for 16 min: blocked() and enter() give SiteBlockedError, then one probe', () => {
    const { breaker, advance } = setup({ threshold: 5 });
    breaker.enter().failure({ retryAfterMs: 5_000, antiBot: 'challenge' });
    expect(breaker.blocked()).toBeUndefined();
    advance(5_000);
    breaker.enter().failure({ antiBot: 'empty-500' });
    const blocked = breaker.blocked();
    expect(blocked).toBeInstanceOf(SiteBlockedError);
    expect(blocked).toMatchObject({ retryAfterMs: BLOCK_MS, site: 'derpibooru', siteName: 'derpibooru' });
    expect(breaker.state()).toBe('open');
    advance(BLOCK_MS - 1_000);
    expect(refusal(() => breaker.enter())).toMatchObject({ name: 'SiteBlockedError', retryAfterMs: 1_000 });
    expect(breaker.retryAfterMs()).toBe(1_000);
    advance(1_000);
    expect(breaker.blocked()).toBeUndefined();
    expect(breaker.state()).toBe('half-open');
    const probe = breaker.enter();
    expect(refusal(() => breaker.enter())).toMatchObject({ reason: 'circuit-open' });
    probe.success();
    expect(breaker.state()).toBe('closed');
  });

  it('GIVEN the probe after a block meets an empty 500 THEN the block starts again at once', () => {
    const { breaker, advance } = setup();
    breaker.enter().failure({ antiBot: 'empty-500' });
    breaker.enter().failure({ antiBot: 'empty-500' });
    expect(breaker.blocked()).toBeInstanceOf(SiteBlockedError);
    advance(BLOCK_MS);
    breaker.enter().failure({ antiBot: 'empty-500' });
    expect(breaker.blocked()).toMatchObject({ retryAfterMs: BLOCK_MS });
  });

  it('GIVEN empty 500s with other outcomes between them THEN no run, no block', () => {
    const { breaker } = setup({ threshold: 10 });
    for (let i = 0; i < 3; i += 1) {
      breaker.enter().failure({ antiBot: 'empty-500' });
      breaker.enter().success();
      breaker.enter().failure({ antiBot: 'empty-500' });
      breaker.enter().failure();
    }
    expect(breaker.blocked()).toBeUndefined();
  });

  it('GIVEN a site name THEN the block error carries it for the member', () => {
    const breaker = createCircuitBreaker({ site: 'derpibooru', siteName: 'Derpibooru', now: () => 0 });
    breaker.enter().failure({ antiBot: 'empty-500' });
    breaker.enter().failure({ antiBot: 'empty-500' });
    expect(refusal(() => breaker.enter())).toMatchObject({ siteName: 'Derpibooru' });
  });
});
