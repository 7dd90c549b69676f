/**
 * Per-site request budget. The edge proxy in front of Philomena allows about 30 requests per 5 s per IP,
 * and about 20 per 10 s on the search paths (docs/board-behaviour.md, "Limits and politeness").
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
 * Who waits is served fairly, because one site's budget is shared by every server and member of the bot
 * (one member's typing must not use up the search window for everyone):
 *
 * - By priority class first (`QUEUED_PRIORITIES`): every `interactive` waiter that fits goes before any
 *   `account` waiter (a member's own key), every `account` waiter before any `unfurl` waiter, and every
 *   `unfurl` waiter before any `feed` waiter (background polls, which give up and try again at their next
 *   interval rather than wait long).
 * - `account` requests also count in a share of each window (`accountShare`, a third by default) and wait
 *   for room in it: a member's own lists are their business, and a few members paging through them as
 *   fast as they can must not hold every slot, which would make everyone else's commands wait a window
 *   for each freed slot and starve link cards and feeds (bench/member-requests.bench.ts showed both).
 * - Within a class, round-robin over the servers that have waiters, and within a server over its members:
 *   a server or member that was just served goes to the back of the line. Within one member, FIFO.
 *   Requests without a server or member share one anonymous group (a program using the library alone).
 * - Whenever a slot frees, the first waiter in that order whose windows all have room takes it, so a plain
 *   image fetch does not wait behind a search that only waits for the search window.
 * - `autocomplete` never waits: it has a small fixed share of each window (slots it uses count in the
 *   window too, so the site's limits hold) and is refused at once when its share or the window is full.
 *   A suggestion that comes late is useless, and a burst of keystrokes must not crowd out commands.
 *
 * The queue is bounded in total, per server and per member, and every wait has a deadline, so neither a
 * stuck site nor one busy server or member can pile up callers without end or hold most of the queue.
 *
 * With `shared` (shared-state.ts `SharedSlots`), every process of the program draws on one budget per site:
 * the queue above still picks WHICH waiter goes next, and the shared slots decide WHETHER this process may
 * send now (one ask at a time, in queue order; a refusal holds the full window's waiters back a short
 * while, then the queue asks again). Its own windows still count too. When the backend fails or does not
 * answer within `sharedTimeoutMs`, the process keeps to `SHARED_FALLBACK_SHARE` of each window on its own
 * (and still asks the backend with each grant), and keeps to it until the slots it granted alone have left
 * their windows, so a few processes together stay within the site's limits while it is away.
 * Autocomplete's share is shared too: one share for every process together, not one each.
 *
 * Fairness across processes: a server's requests all come from the process holding its shard, so the
 * turns between servers above hold across processes too; between processes, each has at most one ask
 * under way, so they take turns at freed slots. A member's waiter cap counts per process.
 *
 * The parts: windows.ts (what each window counts and when it has room), fair-queue.ts (who waits and in
 * what order), shared.ts (the shared slots and the fallback share). This file puts them together: who may
 * go now, the wake-up timer, the deadlines and what the observer is told.
 */
import { SiteUnavailableError } from '../errors.js';
import type { BudgetWaitEvent } from '../client/types.js';
import type { RequestPriority } from '../request-context.js';
import {
  createFairQueue,
  dequeue,
  enqueue,
  nextToServe,
  refusal,
  waiters,
  type Queued,
} from './fair-queue.js';
import { createSharedBudget, type SharedBudget } from './shared.js';
import {
  ACCOUNT_SHARE,
  DEFAULT_AUTOCOMPLETE_LIMIT,
  DEFAULT_AUTOCOMPLETE_SEARCH_LIMIT,
  DEFAULT_OVERALL,
  DEFAULT_SEARCH,
  type BudgetOptions,
  type BudgetSlot,
  type RequestBudget,
} from './types.js';
import {
  checkShare,
  checkSpec,
  hasRoom,
  inFlight,
  isSearchPath,
  nextExpiry,
  occupy,
  prune,
  retryAfter,
  type Occupant,
  type Window,
} from './windows.js';

interface Waiter extends Queued {
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
    options.clearTimer ??
    // The handle is one the default setTimer above made (the seams come in pairs): not outside data.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    ((handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  const maxQueue = options.maxQueue ?? 100;
  const caps = {
    maxQueue,
    maxQueuePerServer: options.maxQueuePerServer ?? Math.max(1, Math.floor(maxQueue / 2)),
    maxQueuePerMember: options.maxQueuePerMember ?? 5,
  };
  const maxWaitMs = options.maxWaitMs ?? 15_000;
  const overall: Window = {
    spec: checkSpec(options.overall ?? DEFAULT_OVERALL),
    name: 'overall',
    occupants: [],
  };
  const search: Window = { spec: checkSpec(options.search ?? DEFAULT_SEARCH), name: 'search', occupants: [] };
  // Named, so with `shared` the small share is one share for every process together, not one each.
  const autocompleteOverall: Window = {
    name: 'autocomplete',
    spec: {
      limit: checkShare('autocompleteLimit', options.autocompleteLimit ?? DEFAULT_AUTOCOMPLETE_LIMIT),
      windowMs: overall.spec.windowMs,
    },
    occupants: [],
  };
  const autocompleteSearch: Window = {
    name: 'autocomplete-search',
    spec: {
      limit: checkShare(
        'autocompleteSearchLimit',
        options.autocompleteSearchLimit ?? DEFAULT_AUTOCOMPLETE_SEARCH_LIMIT,
      ),
      windowMs: search.spec.windowMs,
    },
    occupants: [],
  };
  const accountShare = options.accountShare ?? ACCOUNT_SHARE;
  if (!(accountShare >= 0 && accountShare <= 1)) {
    throw new RangeError(`accountShare must be between 0 and 1, got ${String(accountShare)}`);
  }
  /** Members' own keys' share of `window`: named, so with `shared` it is one share for every process. */
  const accountShareOf = (window: Window, name: 'account' | 'account-search'): Window => ({
    name,
    spec: {
      limit: Math.max(1, Math.floor(window.spec.limit * accountShare)),
      windowMs: window.spec.windowMs,
    },
    occupants: [],
  });
  const accountOverall = accountShareOf(overall, 'account');
  const accountSearch = accountShareOf(search, 'account-search');
  const allWindows = [
    overall,
    search,
    autocompleteOverall,
    autocompleteSearch,
    accountOverall,
    accountSearch,
  ];
  const queue = createFairQueue<Waiter>();
  let timer: { handle: unknown; at: number } | undefined;
  const shared: SharedBudget | undefined =
    options.shared === undefined
      ? undefined
      : createSharedBudget({
          site: options.site,
          backend: options.shared,
          timeoutMs: options.sharedTimeoutMs ?? 250,
          pollMs: options.sharedPollMs ?? 100,
          now,
          setTimer,
          clearTimer,
          counted: [overall, search],
          prune: pruneAll,
          retryAfter: retryAfterNow,
        });

  function pruneAll(at: number): void {
    for (const window of allWindows) prune(window, at);
  }

  /** Full for this process: no room, or (shared) at its own share while that applies. */
  function isFull(window: Window): boolean {
    return shared === undefined ? !hasRoom(window) : shared.isFull(window);
  }

  /** Whether a request counting in `windows` may be granted (or, shared, asked for) now. */
  function fits(windows: readonly Window[]): boolean {
    return shared === undefined ? windows.every(hasRoom) : shared.fits(windows);
  }

  function blockedAt(window: Window): number {
    return shared === undefined ? 0 : shared.blockedAt(window);
  }

  function* queuedWindows(): Generator<readonly Window[]> {
    for (const waiter of waiters(queue)) yield waiter.windows;
  }

  /** How long a refused caller should wait before asking again (windows.ts `retryAfter`). */
  function retryAfterNow(windows: readonly Window[]): number {
    const at = now();
    pruneAll(at);
    return retryAfter(windows, queuedWindows(), at, blockedAt);
  }

  function take(windows: readonly Window[]): BudgetSlot {
    return slotOf(occupy(windows, false), windows, undefined);
  }

  function slotOf(occupant: Occupant, windows: readonly Window[], sharedId: string | undefined): BudgetSlot {
    return {
      release() {
        if (occupant.endedAt !== undefined) return;
        occupant.endedAt = now();
        // Not given back: it stays occupied until its generous in-flight lifetime ends, which is safe.
        if (shared !== undefined && sharedId !== undefined) shared.release(windows, sharedId);
        // Nothing frees yet, but the expiry timer may now have something to wait for.
        drain();
      },
    };
  }

  /** Hands `waiter` its slot: it leaves the queue, its member and server going to the back of their lines. */
  function grant(waiter: Waiter, occupant: Occupant, sharedId: string | undefined): void {
    dequeue(queue, waiter, true);
    waiter.settled = true;
    waiter.cleanup();
    waiter.resolve(slotOf(occupant, waiter.windows, sharedId));
  }

  function next(): Waiter | undefined {
    return nextToServe(queue, (waiter) => fits(waiter.windows));
  }

  function windowsFor(path: string, priority: RequestPriority): readonly Window[] {
    const isSearch = isSearchPath(path);
    if (priority === 'autocomplete') {
      return isSearch
        ? [overall, search, autocompleteOverall, autocompleteSearch]
        : [overall, autocompleteOverall];
    }
    if (priority === 'account') {
      return isSearch ? [overall, search, accountOverall, accountSearch] : [overall, accountOverall];
    }
    return isSearch ? [overall, search] : [overall];
  }

  /**
   * Grants every waiter that fits, one at a time in fair order, so the next in line always gets the first
   * pick of a freed slot. A waiter held back by the search window does not hold back plain fetches while
   * the overall window has room. Shared, it asks for the next one instead (one ask at a time).
   */
  function drain(): void {
    pruneAll(now());
    if (shared !== undefined) {
      shared.drain(next, grant, drain);
      schedule();
      return;
    }
    for (let waiter = next(); waiter; waiter = next())
      grant(waiter, occupy(waiter.windows, false), undefined);
    schedule();
  }

  /** Wakes the queue when the next released occupant of a full window expires (a release wakes it too). */
  function schedule(): void {
    const at0 = now();
    const expiries = allWindows
      .filter(isFull)
      .map(nextExpiry)
      .filter((at): at is number => at !== undefined)
      .concat((shared?.blockedTimes() ?? []).filter((at) => at > at0));
    if (queue.size === 0 || expiries.length === 0) {
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

  /** Tells the observer how a wait ended; an observer that throws is not the caller's problem. */
  function observe(priority: RequestPriority, outcome: BudgetWaitEvent['outcome'], waitedMs: number): void {
    const observer = options.observer;
    if (observer?.budgetWait === undefined) return;
    try {
      observer.budgetWait({ site: options.site, priority, outcome, waitedMs });
    } catch {
      // Figures only.
    }
  }

  /** Shared autocomplete: one ask if its share and windows have room, never a wait. */
  async function acquireSharedAutocomplete(
    side: SharedBudget,
    windows: readonly Window[],
  ): Promise<BudgetSlot> {
    const refused = (retryAfterMs: number): SiteUnavailableError => {
      observe('autocomplete', 'refused', 0);
      return exhausted(`request budget of ${options.site}: no autocomplete slot free now`, retryAfterMs);
    };
    if (!side.fits(windows)) throw refused(retryAfterNow(windows));
    const askedAt = now();
    const ask = await side.askFor(windows);
    if (!ask.granted) throw refused(ask.retryAfterMs);
    observe('autocomplete', 'granted', now() - askedAt);
    return slotOf(ask.occupant, windows, ask.sharedId);
  }
  return {
    acquire(path, acquireOptions = {}) {
      const { signal, requester } = acquireOptions;
      const priority = requester?.priority ?? 'interactive';
      if (signal?.aborted) {
        observe(priority, 'aborted', 0);
        return Promise.reject(signal.reason);
      }
      const windows = windowsFor(path, priority);
      // Serve the queue first, so a newcomer never takes a slot an earlier waiter could use.
      drain();
      if (shared !== undefined && priority === 'autocomplete') {
        return acquireSharedAutocomplete(shared, windows);
      }
      // Shared, every other request queues: the queue asks the backend in fair order.
      if (shared === undefined && windows.every(hasRoom)) {
        observe(priority, 'granted', 0);
        return Promise.resolve(take(windows));
      }
      if (priority === 'autocomplete') {
        observe(priority, 'refused', 0);
        return Promise.reject(
          exhausted(
            `request budget of ${options.site}: no autocomplete slot free now`,
            retryAfterNow(windows),
          ),
        );
      }
      const server = requester?.server;
      const member = requester?.member;
      const refused = refusal(queue, caps, server, member);
      if (refused !== undefined) {
        observe(priority, 'refused', 0);
        return Promise.reject(
          exhausted(`request budget of ${options.site} exhausted: ${refused}`, retryAfterNow(windows)),
        );
      }
      const waitMs = Math.min(acquireOptions.timeoutMs ?? maxWaitMs, maxWaitMs);
      const queuedAt = now();
      return new Promise<BudgetSlot>((resolve, reject) => {
        const waiter: Waiter = {
          windows,
          priority,
          server,
          member,
          resolve: (slot) => {
            observe(priority, 'granted', now() - queuedAt);
            resolve(slot);
          },
          reject,
          settled: false,
          cleanup: () => undefined,
        };
        const leave = (error: unknown, outcome: 'refused' | 'aborted'): void => {
          if (waiter.settled) return;
          observe(priority, outcome, now() - queuedAt);
          waiter.settled = true;
          waiter.cleanup();
          dequeue(queue, waiter, false);
          reject(error);
          // A waiter leaving may unblock the ones behind it.
          drain();
        };
        const deadline = setTimer(
          () =>
            leave(
              exhausted(
                `request budget of ${options.site}: no slot within ${Math.round(waitMs)} ms`,
                retryAfterNow(windows),
              ),
              'refused',
            ),
          waitMs,
        );
        const onAbort = (): void => leave(signal?.reason, 'aborted');
        signal?.addEventListener('abort', onAbort, { once: true });
        waiter.cleanup = () => {
          clearTimer(deadline);
          signal?.removeEventListener('abort', onAbort);
        };
        enqueue(queue, waiter);
        // Shared, the queue asks the backend now (when no ask is under way).
        if (shared === undefined) schedule();
        else drain();
      });
    },
    stats() {
      pruneAll(now());
      return {
        queued: queue.size,
        inWindow: overall.occupants.length,
        searchInWindow: search.occupants.length,
        autocompleteInWindow: autocompleteOverall.occupants.length,
        autocompleteSearchInWindow: autocompleteSearch.occupants.length,
        accountInWindow: accountOverall.occupants.length,
        accountSearchInWindow: accountSearch.occupants.length,
        inFlight: inFlight(overall),
      };
    },
  };
}
