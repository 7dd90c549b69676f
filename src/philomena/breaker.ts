/**
 * Per-site circuit breaker. Philomena's anti-bot layer blocks a client that keeps sending during a block
 * for 15 minutes or more and restarts the 15 minutes on every further request
 * (docs/board-behaviour.md, "Limits and politeness"), so once a site is failing the breaker must really
 * stop traffic:
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
 * The anti-bot block (docs/board-behaviour.md): the board answers a client that did not keep quiet for 5 s
 * after its 501 with empty 500s for at least 15 minutes, restarting them at every request. So an empty 500
 * within `blockMs` of a 501 (or of a block), or a second empty 500 in a row, is taken as that block: for
 * `blockMs` (16 min: the 15 and a margin) every request fails at once with `SiteBlockedError`, whatever the
 * breaker's state, and the breaker is opened as long, so that afterwards exactly one probe goes. An empty
 * 500 to that probe is the block again at once.
 *
 * Only the site's own failures count. An attempt whose outcome says nothing about the site is `release()`d
 * instead: the caller aborted; the body's source failed (a download from elsewhere); or the request waited
 * on something a member chose (a reverse search by URL, where the board downloads the member's URL) and
 * timed out or lost its connection. Otherwise any member could open the breaker for every server with a
 * couple of slow URLs.
 *
 * With a `shared` site state (several processes, shared-state.ts), a pause or an opening here is written
 * there too, and what the other processes wrote holds here: their pause pauses this process, and their open
 * breaker refuses this process's requests (`circuit-open`) until its cool-down ends. `enter()` stays
 * synchronous: it answers from a remembered copy and reads the shared state again in the background when the
 * copy is older than `sharedRefreshMs`; `admit()` reads it afresh once a request's budget slot is granted,
 * just before the request goes out, so a request that would reach a paused site never leaves. When the shared
 * state cannot be read or written, the breaker works on what this process knows (the copy last read still
 * holds until its times pass).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimitedError, SiteBlockedError, SiteUnavailableError } from './errors.js';
import type { SharedSiteState } from './shared-state.js';

const PAUSE_TOLERANCE_MS = 25;

/**
 * How long the client keeps away from a board that blocked it: the board's 15 minutes (restarted by each
 * request, docs/board-behaviour.md) and one minute's margin for clocks and the board's own rounding.
 */
export const BLOCK_MS = 16 * 60_000;

/** Empty 500s in a row that are the block even without a 501 seen first. */
const BLOCK_RUN = 2;

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  readonly site: string;
  /** Consecutive failures that open the breaker. Default 5. */
  readonly failureThreshold?: number;
  /** First cool-down. Default 30 s. */
  readonly coolDownMs?: number;
  /** Cap of the doubling cool-down. Default 15 min (the length of the anti-bot block). */
  readonly maxCoolDownMs?: number;
  /** How long nothing goes to a site that blocked us (see above). Default `BLOCK_MS` (16 min). */
  readonly blockMs?: number;
  /** The site's display name, for `SiteBlockedError` (what a person is told). Default: `site`. */
  readonly siteName?: string;
  readonly now?: () => number;
  /** Pauses and openings shared with other processes; without it the breaker is this process's alone. */
  readonly shared?: SharedSiteState;
  /** How long a read of the shared state is trusted. Default 250 ms. */
  readonly sharedRefreshMs?: number;
  /** A read of the shared state slower than this is not waited for (the remembered copy serves). Default 250 ms. */
  readonly sharedTimeoutMs?: number;
}

export interface FailureInfo {
  /** The wait the site asked for (Retry-After, or our 5 s floor after a 501). */
  readonly retryAfterMs?: number;
  /**
   * What the answer says of the anti-bot layer: `challenge`, its 501 page; `empty-500`, a 500 with an empty
   * body, the signature of its block (the board's own errors have a body).
   */
  readonly antiBot?: 'challenge' | 'empty-500';
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
  /**
   * The board's block in force (met here or by another process), as the error a call fails with; undefined
   * when there is none. The transport asks after a failure, so the request that met the block is not retried.
   */
  blocked(): SiteBlockedError | undefined;
  /**
   * For an attempt that passed `enter()` and then waited (for its budget slot): throws as `enter()` does
   * if a pause, a block or (with a shared state, read afresh) another process's open breaker began in the
   * meantime. Optional for other implementations of this interface.
   */
  admit?(): Promise<void>;
  /** Resolves when the pauses and openings written so far have reached the shared state (or failed). */
  flush?(): Promise<void>;
}

export function createCircuitBreaker(options: BreakerOptions): CircuitBreaker {
  const now = options.now ?? (() => performance.now());
  const threshold = options.failureThreshold ?? 5;
  const baseCoolDown = options.coolDownMs ?? 30_000;
  const maxCoolDown = Math.max(baseCoolDown, options.maxCoolDownMs ?? 15 * 60_000);
  const blockMs = options.blockMs ?? BLOCK_MS;
  const siteName = options.siteName ?? options.site;
  let failures = 0;
  let openUntil: number | undefined;
  let pausedUntil = 0;
  /** Nothing goes until then: the board blocked us. */
  let blockedUntil = 0;
  /** Until then an empty 500 is the block: a 501 or a block was met lately. */
  let challengedUntil = 0;
  /** Empty 500s in a row. */
  let emptyRun = 0;
  /** How many times in a row the breaker has opened without a success in between. */
  let openings = 0;
  let probing = false;

  const shared = options.shared;
  const refreshMs = options.sharedRefreshMs ?? 250;
  const sharedTimeoutMs = options.sharedTimeoutMs ?? 250;
  /** The other processes' pause and opening as last read, on this process's clock. */
  let sharedPausedUntil = 0;
  let sharedOpenUntil = 0;
  let sharedBlockedUntil = 0;
  let sharedChallengedUntil = 0;
  let readAt = -Infinity;
  let reading: Promise<void> | undefined;
  const writes = new Set<Promise<void>>();

  /** Reads the shared state into the copy; never rejects, never waits longer than the time-out. */
  function readShared(state: SharedSiteState): Promise<void> {
    readAt = now();
    const read = state.read(options.site).then(
      (hold) => {
        const at = now();
        sharedPausedUntil = at + Math.max(0, hold.pausedMs);
        sharedOpenUntil = at + Math.max(0, hold.openMs);
        sharedBlockedUntil = at + Math.max(0, hold.blockedMs);
        sharedChallengedUntil = at + Math.max(0, hold.challengedMs);
      },
      () => undefined, // The backend is away: the copy last read (and this process's own state) serve.
    );
    // The timer holds no process open, and is cleared once either side has won.
    const stop = new AbortController();
    const timedOut = sleep(sharedTimeoutMs, undefined, { ref: false, signal: stop.signal }).catch(
      () => undefined,
    );
    return Promise.race([read, timedOut]).finally(() => stop.abort());
  }

  /** A background read when the copy is stale (one at a time). */
  function refresh(): void {
    if (shared === undefined || reading || now() - readAt < refreshMs) return;
    reading = readShared(shared).finally(() => {
      reading = undefined;
    });
  }

  function write(send: (state: SharedSiteState) => Promise<void>): void {
    if (shared === undefined) return;
    const written: Promise<void> = send(shared)
      .catch(() => undefined) // Away: this process's own state holds, and the others find out by themselves.
      .finally(() => writes.delete(written));
    writes.add(written);
  }

  function sharedOpenFor(at: number): number {
    const wait = sharedOpenUntil - at;
    return wait > PAUSE_TOLERANCE_MS ? wait : 0;
  }

  function currentState(): BreakerState {
    if (blockedFor(now()) > 0) return 'open';
    if (openUntil === undefined) return sharedOpenFor(now()) > 0 ? 'open' : 'closed';
    if (now() < openUntil) return 'open';
    return sharedOpenFor(now()) > 0 ? 'open' : 'half-open';
  }

  function open(retryAfterMs: number | undefined): void {
    const coolDown = Math.min(maxCoolDown, baseCoolDown * 2 ** openings);
    openings += 1;
    const wait = Math.max(coolDown, retryAfterMs ?? 0);
    openUntil = now() + wait;
    probing = false;
    write((state) => state.open(options.site, wait));
  }

  function pause(ms: number): void {
    pausedUntil = Math.max(pausedUntil, now() + ms);
    write((state) => state.pause(options.site, ms));
  }

  /** Ms left of the block (this process's or another's); 0 when none. */
  function blockedFor(at: number): number {
    const wait = Math.max(blockedUntil, sharedBlockedUntil) - at;
    return wait > PAUSE_TOLERANCE_MS ? wait : 0;
  }

  function blockedError(wait: number): SiteBlockedError {
    return new SiteBlockedError(
      `${options.site} has blocked our requests (its anti-bot block): not sending any for ${Math.ceil(wait / 60_000)} min`,
      wait,
      { site: options.site, siteName },
    );
  }

  /** The 501 page: an empty 500 from now on, for a block's length, is the block. */
  function challenged(): void {
    challengedUntil = Math.max(challengedUntil, now() + blockMs);
    write((state) => state.challenge(options.site, blockMs));
  }

  /**
   * The board blocked us: nothing goes for `blockMs`, for any process; the breaker opens as long, so one
   * probe goes afterwards, and an empty 500 to it (within another `blockMs`) is the block again at once.
   */
  function block(): void {
    const at = now();
    blockedUntil = Math.max(blockedUntil, at + blockMs);
    challengedUntil = Math.max(challengedUntil, at + 2 * blockMs);
    emptyRun = 0;
    failures = 0;
    // Open exactly as long (not the doubling cool-down), so the probe goes as soon as the block is over.
    openings += 1;
    openUntil = blockedUntil;
    probing = false;
    write((state) => state.block(options.site, blockMs));
    write((state) => state.challenge(options.site, 2 * blockMs));
  }

  function circuitOpen(wait: number, retryAfterMs: number): SiteUnavailableError {
    return new SiteUnavailableError(
      `${options.site} is failing: not sending requests for ${Math.ceil(wait / 1000)} s`,
      'circuit-open',
      { site: options.site, retryAfterMs },
    );
  }

  /**
   * Throws when the site blocked us or is paused (here or by another process), or another process's
   * breaker is open.
   */
  function checkHolds(at: number): void {
    const blockWait = blockedFor(at);
    if (blockWait > 0) throw blockedError(blockWait);
    const openWait = sharedOpenFor(at);
    if (openWait > 0) throw circuitOpen(openWait, openWait);
    const paused = Math.max(pausedUntil, sharedPausedUntil);
    // A retry that slept exactly the asked wait may wake a hair early: do not refuse it for that.
    if (paused - at > PAUSE_TOLERANCE_MS) {
      const wait = paused - at;
      throw new RateLimitedError(`${options.site} asked us to wait ${Math.ceil(wait / 1000)} s`, wait, {
        site: options.site,
      });
    }
  }

  function fail(info: FailureInfo | undefined, probe: boolean): void {
    if (info?.retryAfterMs !== undefined) pause(info.retryAfterMs);
    if (info?.antiBot === 'challenge') challenged();
    emptyRun = info?.antiBot === 'empty-500' ? emptyRun + 1 : 0;
    if (
      info?.antiBot === 'empty-500' &&
      (emptyRun >= BLOCK_RUN || now() < Math.max(challengedUntil, sharedChallengedUntil))
    ) {
      block();
      return;
    }
    if (probe) {
      open(info?.retryAfterMs);
      return;
    }
    failures += 1;
    if (openUntil === undefined && failures >= threshold) open(info?.retryAfterMs);
  }

  function succeed(): void {
    failures = 0;
    emptyRun = 0;
    openings = 0;
    openUntil = undefined;
    probing = false;
  }

  return {
    enter() {
      // Stale copy: read again for the next caller (this one goes by the copy, to stay synchronous).
      refresh();
      const at = now();
      // The block first: it holds whatever the breaker's state, and says what a person should be told.
      const blockWait = blockedFor(at);
      if (blockWait > 0) throw blockedError(blockWait);
      const ownOpen = openUntil !== undefined && at < openUntil;
      if (ownOpen || (openUntil !== undefined && probing)) {
        const wait = Math.max(0, (openUntil ?? at) - at);
        throw circuitOpen(wait, ownOpen ? wait : 1_000);
      }
      checkHolds(at);
      const probe = currentState() === 'half-open';
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
      const paused = Math.max(pausedUntil, sharedPausedUntil, blockedUntil, sharedBlockedUntil) - at;
      if (currentState() === 'open') return Math.max(0, (openUntil ?? at) - at, sharedOpenUntil - at, paused);
      return Math.max(0, paused);
    },
    blocked() {
      const wait = blockedFor(now());
      return wait > 0 ? blockedError(wait) : undefined;
    },
    // Just before a request goes out, after it waited for its budget slot: a pause or block that began
    // meanwhile holds it back (another call of this process met the anti-bot page, or the block). With a
    // shared state the other processes' word is read afresh first (one small Redis call per attempt; the
    // budget keeps attempts few), so no request reaches a site another process was told to leave.
    async admit() {
      if (shared !== undefined) await readShared(shared);
      checkHolds(now());
    },
    async flush() {
      await Promise.all([...writes]);
    },
  };
}
