/**
 * Per-site request budget. The edge proxy in front of Philomena allows about 30 requests per 5 s per IP,
 * and about 20 per 10 s on the search paths (../shared/philomena-behaviour.md, "Limits and politeness").
 * Going over earns a 429 and, repeated, a ban, so every attempt (retries included) takes a slot here first.
 *
 * The proxy counts requests as they ARRIVE, and a granted request can reach the site much later than its
 * grant: undici queues it while every connection of the pool is busy, and the caller may still be building
 * its body. So a slot is not stamped when it is granted. It stays occupied while the request is in flight
 * and frees `windowMs` after the caller `release()`s it (the answer was read, or the attempt failed or was
 * never sent). Everything a request puts on the wire happens between its grant and its release, so two
 * requests that use the same slot one after the other reach the site at least `windowMs` apart, and any
 * span of `windowMs` sees at most `limit` arrivals, whatever undici's queue or our retries do. The cost is
 * throughput: a slot serves one request per (request time + `windowMs`).
 *
 * Waiters are served in FIFO order: whenever a slot frees, the earliest waiter that fits takes it; a plain
 * image fetch does not wait behind a search that only waits for the search window. The queue is bounded
 * and every wait has a deadline, so a stuck site cannot pile up callers without end.
 */
import { SiteUnavailableError } from '../errors.js';

export interface WindowSpec {
  /** Requests allowed in any span of `windowMs`. */
  readonly limit: number;
  readonly windowMs: number;
}

export interface BudgetOptions {
  /** Site id, for errors. */
  readonly site: string;
  /** Every request. Default 30 per 5 s. */
  readonly overall?: WindowSpec;
  /** Requests on the search paths (`/api/v1/json/search...`). Default 20 per 10 s. */
  readonly search?: WindowSpec;
  /** Waiters beyond this are refused at once. Default 100. */
  readonly maxQueue?: number;
  /** Longest wait for a slot when the caller gives no deadline. Default 15 s. */
  readonly maxWaitMs?: number;
  /** Monotonic clock in ms (tests inject a fake). */
  readonly now?: () => number;
  readonly setTimer?: (callback: () => void, ms: number) => unknown;
  readonly clearTimer?: (handle: unknown) => void;
}

export interface BudgetStats {
  readonly queued: number;
  /** Overall slots occupied: requests in flight, and requests that ended within the last overall window. */
  readonly inWindow: number;
  /** The same for the search window. */
  readonly searchInWindow: number;
  /** Requests granted and not yet released. */
  readonly inFlight: number;
}

export interface AcquireOptions {
  readonly signal?: AbortSignal;
  /** Give up waiting after this long (capped by `maxWaitMs`). */
  readonly timeoutMs?: number;
}

/** A granted request. */
export interface BudgetSlot {
  /**
   * The request is over: its answer was read, or it failed, or it was never sent. The slot frees one window
   * from now. Call it exactly when nothing more of the request can reach the site (later calls are no-ops);
   * a slot never released stays occupied for good.
   */
  release(): void;
}

export interface RequestBudget {
  /** Resolves when a request on `path` may start; the slot is then held until `release()`. */
  acquire(path: string, options?: AcquireOptions): Promise<BudgetSlot>;
  stats(): BudgetStats;
}

export const DEFAULT_OVERALL: WindowSpec = { limit: 30, windowMs: 5_000 };
export const DEFAULT_SEARCH: WindowSpec = { limit: 20, windowMs: 10_000 };

/** The paths the proxy counts in its search bucket. */
export function isSearchPath(path: string): boolean {
  return path.startsWith('/api/v1/json/search');
}

/** One granted request, shared by every window it counts in. */
interface Occupant {
  /** When it was released; undefined while in flight. */
  endedAt: number | undefined;
}

interface Window {
  readonly spec: WindowSpec;
  /** Never longer than `spec.limit`. */
  readonly occupants: Occupant[];
}

interface Waiter {
  readonly windows: readonly Window[];
  readonly resolve: (slot: BudgetSlot) => void;
  readonly reject: (error: unknown) => void;
  settled: boolean;
  cleanup: () => void;
}

export function createRequestBudget(options: BudgetOptions): RequestBudget {
  const now = options.now ?? (() => performance.now());
  const setTimer = options.setTimer ?? ((cb: () => void, ms: number) => setTimeout(cb, ms));
  const clearTimer =
    options.clearTimer ?? ((handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  const maxQueue = options.maxQueue ?? 100;
  const maxWaitMs = options.maxWaitMs ?? 15_000;
  const overall: Window = { spec: checkSpec(options.overall ?? DEFAULT_OVERALL), occupants: [] };
  const search: Window = { spec: checkSpec(options.search ?? DEFAULT_SEARCH), occupants: [] };
  const queue: Waiter[] = [];
  let inFlight = 0;
  let timer: { handle: unknown; at: number } | undefined;

  /** Drops the occupants whose window has passed since their release. */
  function prune(window: Window, at: number): void {
    const { occupants, spec } = window;
    for (let i = occupants.length - 1; i >= 0; i -= 1) {
      const endedAt = occupants[i]?.endedAt;
      if (endedAt !== undefined && endedAt <= at - spec.windowMs) occupants.splice(i, 1);
    }
  }

  function pruneAll(at: number): void {
    prune(overall, at);
    prune(search, at);
  }

  function hasRoom(window: Window): boolean {
    return window.occupants.length < window.spec.limit;
  }

  /** When the first released occupant of `window` leaves it; undefined while every one is in flight. */
  function nextExpiry(window: Window): number | undefined {
    let first: number | undefined;
    for (const { endedAt } of window.occupants) {
      if (endedAt !== undefined && (first === undefined || endedAt < first)) first = endedAt;
    }
    return first === undefined ? undefined : first + window.spec.windowMs;
  }

  /**
   * The soonest `window` can have room: its first released occupant's expiry, or, when all are in flight,
   * a window from now (the earliest a request released right now would free its slot).
   */
  function soonestRoom(window: Window, at: number): number {
    if (hasRoom(window)) return at;
    return Math.min(nextExpiry(window) ?? Infinity, at + window.spec.windowMs);
  }

  function readyAt(windows: readonly Window[], at: number): number {
    return Math.max(at, ...windows.map((w) => soonestRoom(w, at)));
  }

  /**
   * How long a refused caller should wait before asking again: until the queue moves (its first waiter
   * that can go, goes) and the caller's own windows have room. Both come from the windows; a request still
   * in flight counts as ending now, so the figure is never longer than the real wait.
   */
  function retryAfter(windows: readonly Window[]): number {
    const at = now();
    pruneAll(at);
    const queueMovesAt = queue.length === 0 ? at : Math.min(...queue.map((w) => readyAt(w.windows, at)));
    return Math.max(readyAt(windows, at), queueMovesAt) - at;
  }

  function take(windows: readonly Window[]): BudgetSlot {
    const occupant: Occupant = { endedAt: undefined };
    for (const window of windows) window.occupants.push(occupant);
    inFlight += 1;
    return {
      release() {
        if (occupant.endedAt !== undefined) return;
        occupant.endedAt = now();
        inFlight -= 1;
        // Nothing frees yet, but the expiry timer may now have something to wait for.
        drain();
      },
    };
  }

  function windowsFor(path: string): readonly Window[] {
    return isSearchPath(path) ? [overall, search] : [overall];
  }

  /**
   * Grant every waiter whose windows all have room, in queue order, so an earlier waiter always gets the
   * first pick of a freed slot. A waiter held back by the search window does not hold back plain fetches
   * while the overall window has room.
   */
  function drain(): void {
    pruneAll(now());
    for (let i = 0; i < queue.length;) {
      const waiter = queue[i];
      if (!waiter) break;
      if (waiter.windows.every(hasRoom)) {
        queue.splice(i, 1);
        waiter.settled = true;
        waiter.cleanup();
        waiter.resolve(take(waiter.windows));
      } else {
        i += 1;
      }
    }
    schedule();
  }

  /** Wakes the queue when the next released occupant of a full window expires (a release wakes it too). */
  function schedule(): void {
    const expiries = [overall, search]
      .filter((w) => !hasRoom(w))
      .map(nextExpiry)
      .filter((at): at is number => at !== undefined);
    if (queue.length === 0 || expiries.length === 0) {
      if (timer) clearTimer(timer.handle);
      timer = undefined;
      return;
    }
    const at = Math.min(...expiries);
    if (timer && timer.at <= at) return;
    if (timer) clearTimer(timer.handle);
    const delay = Math.max(0, at - now());
    timer = {
      at,
      handle: setTimer(() => {
        timer = undefined;
        drain();
      }, delay),
    };
  }

  function exhausted(message: string, retryAfterMs?: number): SiteUnavailableError {
    return new SiteUnavailableError(message, 'budget-exhausted', {
      site: options.site,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }

  return {
    acquire(path, acquireOptions = {}) {
      const { signal } = acquireOptions;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const windows = windowsFor(path);
      // Serve the queue first, so a newcomer never takes a slot an earlier waiter could use.
      drain();
      if (windows.every(hasRoom)) return Promise.resolve(take(windows));
      if (queue.length >= maxQueue) {
        return Promise.reject(
          exhausted(
            `request budget of ${options.site} exhausted: ${queue.length} requests already waiting`,
            retryAfter(windows),
          ),
        );
      }
      const waitMs = Math.min(acquireOptions.timeoutMs ?? maxWaitMs, maxWaitMs);
      return new Promise<BudgetSlot>((resolve, reject) => {
        const waiter: Waiter = { windows, resolve, reject, settled: false, cleanup: () => undefined };
        const leave = (error: unknown): void => {
          if (waiter.settled) return;
          waiter.settled = true;
          waiter.cleanup();
          const index = queue.indexOf(waiter);
          if (index >= 0) queue.splice(index, 1);
          reject(error);
          // A waiter leaving may unblock the ones behind it.
          drain();
        };
        const deadline = setTimer(
          () =>
            leave(
              exhausted(
                `request budget of ${options.site}: no slot within ${Math.round(waitMs)} ms`,
                retryAfter(windows),
              ),
            ),
          waitMs,
        );
        const onAbort = (): void => leave(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        waiter.cleanup = () => {
          clearTimer(deadline);
          signal?.removeEventListener('abort', onAbort);
        };
        queue.push(waiter);
        schedule();
      });
    },
    stats() {
      pruneAll(now());
      return {
        queued: queue.length,
        inWindow: overall.occupants.length,
        searchInWindow: search.occupants.length,
        inFlight,
      };
    },
  };
}

function checkSpec(spec: WindowSpec): WindowSpec {
  if (!Number.isInteger(spec.limit) || spec.limit < 1 || !(spec.windowMs > 0)) {
    throw new RangeError(
      `a budget window needs a limit >= 1 and a window > 0 ms, got ${JSON.stringify(spec)}`,
    );
  }
  return spec;
}
