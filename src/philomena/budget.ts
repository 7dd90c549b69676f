/**
 * Per-site request budget. The edge proxy in front of Philomena allows about 30 requests per 5 s per IP,
 * and about 20 per 10 s on the search paths (../shared/philomena-behaviour.md, "Limits and politeness").
 * Going over earns a 429 and, repeated, a ban, so every attempt (retries included) takes a slot here first.
 *
 * Sliding-window logs: a window holds the start times of its last `limit` requests, so it can never let a
 * burst straddle a window boundary the way fixed windows do. Waiters are served in FIFO order: whenever a slot
 * frees, the earliest waiter that fits takes it; a plain image fetch does not wait behind a search that
 * only waits for the search window. The queue is bounded and every wait has a deadline, so a stuck
 * site cannot pile up callers without end.
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
  /** Requests started within the current overall window. */
  readonly inWindow: number;
  /** Requests started within the current search window. */
  readonly searchInWindow: number;
}

export interface AcquireOptions {
  readonly signal?: AbortSignal;
  /** Give up waiting after this long (capped by `maxWaitMs`). */
  readonly timeoutMs?: number;
}

export interface RequestBudget {
  /** Resolves when a request on `path` may start (the slot is then taken). */
  acquire(path: string, options?: AcquireOptions): Promise<void>;
  stats(): BudgetStats;
}

export const DEFAULT_OVERALL: WindowSpec = { limit: 30, windowMs: 5_000 };
export const DEFAULT_SEARCH: WindowSpec = { limit: 20, windowMs: 10_000 };

/** The paths the proxy counts in its search bucket. */
export function isSearchPath(path: string): boolean {
  return path.startsWith('/api/v1/json/search');
}

interface Window {
  readonly spec: WindowSpec;
  /** Start times, oldest first; never longer than `spec.limit`. */
  readonly starts: number[];
}

interface Waiter {
  readonly windows: readonly Window[];
  readonly resolve: () => void;
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
  const overall: Window = { spec: checkSpec(options.overall ?? DEFAULT_OVERALL), starts: [] };
  const search: Window = { spec: checkSpec(options.search ?? DEFAULT_SEARCH), starts: [] };
  const queue: Waiter[] = [];
  let timer: { handle: unknown; at: number } | undefined;

  function prune(window: Window, at: number): void {
    while (window.starts.length > 0 && (window.starts[0] ?? 0) <= at - window.spec.windowMs) {
      window.starts.shift();
    }
  }

  function hasRoom(window: Window): boolean {
    return window.starts.length < window.spec.limit;
  }

  /** When the oldest start of a full window leaves it. */
  function freesAt(window: Window): number {
    return (window.starts[0] ?? 0) + window.spec.windowMs;
  }

  /** When every one of `windows` has room again (now, if they all have room already). */
  function readyAt(windows: readonly Window[], at: number): number {
    return Math.max(at, ...windows.filter((w) => !hasRoom(w)).map(freesAt));
  }

  /**
   * How long a refused caller should wait before asking again: until the queue moves (its first waiter
   * that can go, goes) and the caller's own windows have room. Never a guess: both come from the windows.
   */
  function retryAfter(windows: readonly Window[]): number {
    const at = now();
    prune(overall, at);
    prune(search, at);
    const queueMovesAt = queue.length === 0 ? at : Math.min(...queue.map((w) => readyAt(w.windows, at)));
    return Math.max(readyAt(windows, at), queueMovesAt) - at;
  }

  function take(windows: readonly Window[], at: number): void {
    for (const window of windows) window.starts.push(at);
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
    const at = now();
    prune(overall, at);
    prune(search, at);
    for (let i = 0; i < queue.length;) {
      const waiter = queue[i];
      if (!waiter) break;
      if (waiter.windows.every(hasRoom)) {
        queue.splice(i, 1);
        take(waiter.windows, at);
        waiter.settled = true;
        waiter.cleanup();
        waiter.resolve();
      } else {
        i += 1;
      }
    }
    schedule();
  }

  function schedule(): void {
    if (queue.length === 0) {
      if (timer) clearTimer(timer.handle);
      timer = undefined;
      return;
    }
    const full = [overall, search].filter((w) => !hasRoom(w));
    if (full.length === 0) return;
    const at = Math.min(...full.map(freesAt));
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
      if (windows.every(hasRoom)) {
        take(windows, now());
        return Promise.resolve();
      }
      if (queue.length >= maxQueue) {
        return Promise.reject(
          exhausted(
            `request budget of ${options.site} exhausted: ${queue.length} requests already waiting`,
            retryAfter(windows),
          ),
        );
      }
      const waitMs = Math.min(acquireOptions.timeoutMs ?? maxWaitMs, maxWaitMs);
      return new Promise<void>((resolve, reject) => {
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
      const at = now();
      prune(overall, at);
      prune(search, at);
      return { queued: queue.length, inWindow: overall.starts.length, searchInWindow: search.starts.length };
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
