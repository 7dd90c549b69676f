/** The request budget's options and public types (budget.ts explains the budget). */
import type { PhilomenaObserver } from '../client/types.js';
import type { RequestContext } from '../request-context.js';
import type { SharedSlots } from '../shared-state.js';
import type { WindowSpec } from './windows.js';

export interface BudgetOptions {
  /** Site id, for errors. */
  readonly site: string;
  /** Every request. Default 30 per 5 s. */
  readonly overall?: WindowSpec;
  /** Requests on the search paths (`/api/v1/json/search...`). Default 20 per 10 s. */
  readonly search?: WindowSpec;
  /** Autocomplete's share of the search window (same span): at most this many of its slots. Default 4. */
  readonly autocompleteSearchLimit?: number;
  /** Autocomplete's share of the overall window (same span). Default 6. */
  readonly autocompleteLimit?: number;
  /**
   * The share of each window (overall and search, same spans) that requests made with members' own keys
   * (class `account`) may hold together, from 0 (none) to 1 (all): they wait for room in it as in the
   * window itself, so a few members flooding their own lists cannot take every slot from the others'
   * commands, link cards and feeds. At least one slot of each window. Default ACCOUNT_SHARE (a third).
   */
  readonly accountShare?: number;
  /** Waiters beyond this are refused at once. Default 100. */
  readonly maxQueue?: number;
  /** Waiters one server may have queued (every class). Default half of `maxQueue` (no server holds most of it), at least 1. */
  readonly maxQueuePerServer?: number;
  /** Waiters one member may have queued (every server and class). Default 5. */
  readonly maxQueuePerMember?: number;
  /** Longest wait for a slot when the caller gives no deadline. Default 15 s. */
  readonly maxWaitMs?: number;
  /** Monotonic clock in ms (tests inject a fake). */
  readonly now?: () => number;
  readonly setTimer?: (callback: () => void, ms: number) => unknown;
  readonly clearTimer?: (handle: unknown) => void;
  /** Told how each request's wait ended (granted, refused, aborted) and how long it took. */
  readonly observer?: Pick<PhilomenaObserver, 'budgetWait'>;
  /** The site's budget shared with the program's other processes; without it the process's own. */
  readonly shared?: SharedSlots;
  /** Longest wait for an answer of `shared`; past it the process goes on alone. Default 250 ms. */
  readonly sharedTimeoutMs?: number;
  /** After `shared` refused, how soon at most to ask again (a release elsewhere is not told). Default 100 ms. */
  readonly sharedPollMs?: number;
}

export interface BudgetStats {
  readonly queued: number;
  /** Overall slots occupied: requests in flight, and requests that ended within the last overall window. */
  readonly inWindow: number;
  /** The same for the search window. */
  readonly searchInWindow: number;
  /** The same for autocomplete's shares of the overall and search windows. */
  readonly autocompleteInWindow: number;
  readonly autocompleteSearchInWindow: number;
  /** The same for the share of members' own keys (class `account`) of the overall and search windows. */
  readonly accountInWindow: number;
  readonly accountSearchInWindow: number;
  /** Requests granted and not yet released. */
  readonly inFlight: number;
}

export interface AcquireOptions {
  readonly signal?: AbortSignal;
  /** Give up waiting after this long (capped by `maxWaitMs`). */
  readonly timeoutMs?: number;
  /** Who the request is for; without one it is `interactive` and anonymous. */
  readonly requester?: RequestContext;
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
  /**
   * Resolves when a request on `path` may start; the slot is then held until `release()`. Rejects with
   * `SiteUnavailableError('budget-exhausted')` (with `retryAfterMs`) when the queue or the requester's
   * share of it is full, when the wait passes its deadline, and for autocomplete whenever no slot of its
   * share is free right now.
   */
  acquire(path: string, options?: AcquireOptions): Promise<BudgetSlot>;
  stats(): BudgetStats;
}

export const DEFAULT_OVERALL: WindowSpec = { limit: 30, windowMs: 5_000 };
export const DEFAULT_SEARCH: WindowSpec = { limit: 20, windowMs: 10_000 };
export const DEFAULT_AUTOCOMPLETE_LIMIT = 6;
export const DEFAULT_AUTOCOMPLETE_SEARCH_LIMIT = 4;
/** Members' own keys' share of each window (`BudgetOptions.accountShare`). */
export const ACCOUNT_SHARE = 1 / 3;
