/**
 * Per-site circuit breaker. Philomena's anti-bot layer blocks a client that keeps sending during a block
 * for 15 minutes or more and restarts the 15 minutes on every further request
 * (../shared/philomena-behaviour.md), so once a site is failing the breaker must really stop traffic:
 *
 * - closed: requests flow; `failureThreshold` consecutive failures (5xx, timeout, reset, 429, 501) open it.
 *   Answers that prove the site is up (2xx, 400, 403, 404) reset the count.
 * - open: every request fails fast with `SiteUnavailableError('circuit-open')` for the cool-down:
 *   `coolDownMs`, at least what the site asked for (Retry-After, >= 5 s after a 501), doubled each time a
 *   probe fails, capped at `maxCoolDownMs`.
 * - half-open: after the cool-down exactly one probe goes through; the rest still fail fast. The probe's
 *   success closes the breaker, its failure re-opens it with the longer cool-down.
 *
 * Independently of the count, a 429/501 that names a wait pauses the site for that wait: requests during
 * a pause fail fast with `RateLimitedError`, so concurrent callers do not spend the site's patience.
 *
 * Only the site's own failures count. An attempt whose outcome says nothing about the site is `release()`d
 * instead: the caller aborted; the body's source failed (a download from elsewhere); or the request waited
 * on something a member chose (a reverse search by URL, where the board downloads the member's URL) and
 * timed out or lost its connection. Otherwise any member could open the breaker for every server with a
 * couple of slow URLs (review M3).
 */
import { RateLimitedError, SiteUnavailableError } from './errors.js';

const PAUSE_TOLERANCE_MS = 25;

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  readonly site: string;
  /** Consecutive failures that open the breaker. Default 5. */
  readonly failureThreshold?: number;
  /** First cool-down. Default 30 s. */
  readonly coolDownMs?: number;
  /** Cap of the doubling cool-down. Default 15 min (the length of the anti-bot block). */
  readonly maxCoolDownMs?: number;
  readonly now?: () => number;
}

export interface FailureInfo {
  /** The wait the site asked for (Retry-After, or our 5 s floor after a 501). */
  readonly retryAfterMs?: number;
}

/** Permission for one attempt; report how it went exactly once. */
export interface BreakerTicket {
  /** The site answered (2xx or a client error such as 404). */
  success(): void;
  /** 5xx, timeout, reset, 429, 501. */
  failure(info?: FailureInfo): void;
  /**
   * The attempt ended without telling anything about the site: the caller aborted, the body's source
   * failed, or a request that waits on a member's URL timed out. A half-open probe lets the next one go.
   */
  release(): void;
}

export interface CircuitBreaker {
  /** Throws `SiteUnavailableError('circuit-open')` or `RateLimitedError` (paused) when no request may go. */
  enter(): BreakerTicket;
  state(): BreakerState;
  /** Milliseconds until requests may go again (0 when they may now). */
  retryAfterMs(): number;
}

export function createCircuitBreaker(options: BreakerOptions): CircuitBreaker {
  const now = options.now ?? (() => performance.now());
  const threshold = options.failureThreshold ?? 5;
  const baseCoolDown = options.coolDownMs ?? 30_000;
  const maxCoolDown = Math.max(baseCoolDown, options.maxCoolDownMs ?? 15 * 60_000);
  let failures = 0;
  let openUntil: number | undefined;
  let pausedUntil = 0;
  /** How many times in a row the breaker has opened without a success in between. */
  let openings = 0;
  let probing = false;

  function currentState(): BreakerState {
    if (openUntil === undefined) return 'closed';
    return now() < openUntil ? 'open' : 'half-open';
  }

  function open(retryAfterMs: number | undefined): void {
    const coolDown = Math.min(maxCoolDown, baseCoolDown * 2 ** openings);
    openings += 1;
    openUntil = now() + Math.max(coolDown, retryAfterMs ?? 0);
    probing = false;
  }

  function fail(info: FailureInfo | undefined, probe: boolean): void {
    if (info?.retryAfterMs !== undefined) pausedUntil = Math.max(pausedUntil, now() + info.retryAfterMs);
    if (probe) {
      open(info?.retryAfterMs);
      return;
    }
    failures += 1;
    if (openUntil === undefined && failures >= threshold) open(info?.retryAfterMs);
  }

  function succeed(): void {
    failures = 0;
    openings = 0;
    openUntil = undefined;
    probing = false;
  }

  return {
    enter() {
      const state = currentState();
      const at = now();
      if (state === 'open' || (state === 'half-open' && probing)) {
        const wait = Math.max(0, (openUntil ?? at) - at);
        throw new SiteUnavailableError(
          `${options.site} is failing: not sending requests for ${Math.ceil(wait / 1000)} s`,
          'circuit-open',
          { site: options.site, retryAfterMs: state === 'open' ? wait : 1_000 },
        );
      }
      // A retry that slept exactly the asked wait may wake a hair early: do not refuse it for that.
      if (pausedUntil - at > PAUSE_TOLERANCE_MS) {
        const wait = pausedUntil - at;
        throw new RateLimitedError(`${options.site} asked us to wait ${Math.ceil(wait / 1000)} s`, wait, {
          site: options.site,
        });
      }
      const probe = state === 'half-open';
      if (probe) probing = true;
      let done = false;
      const once = (fn: () => void) => () => {
        if (done) return;
        done = true;
        fn();
      };
      return {
        success: once(succeed),
        failure: (info?: FailureInfo) => once(() => fail(info, probe))(),
        release: once(() => {
          if (probe) probing = false;
        }),
      };
    },
    state: currentState,
    retryAfterMs() {
      const at = now();
      const state = currentState();
      if (state === 'open') return Math.max(0, (openUntil ?? at) - at, pausedUntil - at);
      return Math.max(0, pausedUntil - at);
    },
  };
}
