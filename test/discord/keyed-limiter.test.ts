import { describe, expect, it } from 'vitest';
import { createKeyedLimiter } from '../../src/discord/keyed-limiter.js';
import { tryAgainText } from '../../src/discord/router.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('createKeyedLimiter', () => {
  it('GIVEN a limit of 3 per 10 s THEN the 4th action in the window is refused with the time left', () => {
    const c = clock();
    const limiter = createKeyedLimiter({ limit: 3, windowMs: 10_000, now: c.now });
    expect(limiter.take('m1')).toEqual({ ok: true });
    c.advance(1_000);
    expect(limiter.take('m1')).toEqual({ ok: true });
    expect(limiter.take('m1')).toEqual({ ok: true });
    expect(limiter.take('m1')).toEqual({ ok: false, retryAfterMs: 9_000 });
  });

  it('GIVEN the window has passed THEN actions are allowed again', () => {
    const c = clock();
    const limiter = createKeyedLimiter({ limit: 1, windowMs: 5_000, now: c.now });
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(false);
    c.advance(5_000);
    expect(limiter.take('a').ok).toBe(true);
  });

  it('GIVEN two keys THEN each has its own budget', () => {
    const limiter = createKeyedLimiter({ limit: 1, windowMs: 5_000, now: () => 0 });
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('b').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(false);
  });

  it('GIVEN refused attempts THEN they do not extend the wait', () => {
    const c = clock();
    const limiter = createKeyedLimiter({ limit: 1, windowMs: 10_000, now: c.now });
    limiter.take('a');
    for (let i = 0; i < 5; i++) {
      c.advance(1_000);
      limiter.take('a');
    }
    c.advance(5_000);
    expect(limiter.take('a').ok).toBe(true);
  });

  it('GIVEN more keys than maxKeys THEN the least recently used are dropped and memory stays bounded', () => {
    const limiter = createKeyedLimiter({ limit: 1, windowMs: 60_000, maxKeys: 100, now: () => 0 });
    for (let i = 0; i < 10_000; i++) limiter.take(`member-${i}`);
    expect(limiter.size).toBe(100);
    expect(limiter.take('member-9999').ok).toBe(false);
    expect(limiter.take('member-0').ok).toBe(true);
  });

  it('GIVEN a nonsensical configuration THEN it is refused', () => {
    expect(() => createKeyedLimiter({ limit: 0, windowMs: 1 })).toThrow(RangeError);
    expect(() => createKeyedLimiter({ limit: 1, windowMs: 0 })).toThrow(RangeError);
  });
});

describe('tryAgainText', () => {
  it('GIVEN a wait THEN the answer is a Discord relative timestamp, rounded up to the next whole second', () => {
    expect(tryAgainText('using commands', 4_001, 1_700_000_000_500)).toBe(
      'You are using commands too quickly. Try again <t:1700000005:R>.',
    );
    expect(tryAgainText('clicking', 1_000, 1_700_000_000_000)).toBe(
      'You are clicking too quickly. Try again <t:1700000001:R>.',
    );
  });
});
