/**
 * A clock a test moves forward instead of waiting: breaker cool-downs, Retry-After pauses, Discord's
 * interaction token lifetime, paging buttons that age out. It only moves forward, so every deadline,
 * window and snowflake read from it stays monotonic.
 */
export interface MovableClock {
  now(): number;
  /** Moves the clock forward by `ms` (never back). */
  advance(ms: number): void;
}

/** `base` plus whatever the test has moved it forward by (0 until `advance` is called). */
export function createMovableClock(base: () => number): MovableClock {
  let offset = 0;
  return {
    now: () => base() + offset,
    advance(ms) {
      if (!(ms >= 0)) throw new RangeError('the clock only moves forward');
      offset += ms;
    },
  };
}
