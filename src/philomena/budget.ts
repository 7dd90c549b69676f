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
 * (review M2: one member's typing used up the search window for everyone):
 *
 * - By priority class first (`QUEUED_PRIORITIES`): every `interactive` waiter that fits goes before any
 *   `unfurl` waiter, and every `unfurl` waiter before any `feed` waiter (background polls, which give up
 *   and try again at their next interval rather than wait long).
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
 */
import { SiteUnavailableError } from './errors.js';
import type { BudgetWaitEvent, PhilomenaObserver } from './client-types.js';
import type { RequestContext, RequestPriority } from './request-context.js';
import type { SharedSlots, SharedWindow, SharedWindowName } from './shared-state.js';

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
  /** Autocomplete's share of the search window (same span): at most this many of its slots. Default 4. */
  readonly autocompleteSearchLimit?: number;
  /** Autocomplete's share of the overall window (same span). Default 6. */
  readonly autocompleteLimit?: number;
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
/** With `shared` away, the share of each window (at least one slot) a process keeps to on its own. */
export const SHARED_FALLBACK_SHARE = 0.25;

/**
 * The classes that wait for a slot, in the order they are served. `autocomplete` is not here: it never
 * waits. A new class takes its place in this list and nothing else changes.
 */
export const QUEUED_PRIORITIES = [
  'interactive',
  'unfurl',
  'feed',
] as const satisfies readonly RequestPriority[];
type QueuedPriority = (typeof QUEUED_PRIORITIES)[number];

/** The paths the proxy counts in its search bucket. */
export function isSearchPath(path: string): boolean {
  return path.startsWith('/api/v1/json/search');
}

/** One granted request, shared by every window it counts in. */
interface Occupant {
  /** When it was released; undefined while in flight. */
  endedAt: number | undefined;
  /** Granted while the shared backend was away, so no other process knows of it. */
  readonly alone: boolean;
}

interface Window {
  readonly spec: WindowSpec;
  /** The shared window it stands for, when the budget is shared. */
  readonly name?: SharedWindowName;
  /** Never longer than `spec.limit`. */
  readonly occupants: Occupant[];
}

interface Waiter {
  readonly windows: readonly Window[];
  readonly priority: QueuedPriority;
  readonly server: string | undefined;
  readonly member: string | undefined;
  readonly resolve: (slot: BudgetSlot) => void;
  readonly reject: (error: unknown) => void;
  settled: boolean;
  cleanup: () => void;
}

/**
 * One class's waiters: servers in turn order, each with its members in turn order, each member's waiters
 * FIFO. A Map keeps insertion order, so "to the back of the line" is delete-and-set. The anonymous server
 * and member are the `undefined` keys. Empty groups are dropped at once, so the maps never outgrow the
 * queue.
 */
type ClassQueue = Map<string | undefined, Map<string | undefined, Waiter[]>>;

export function createRequestBudget(options: BudgetOptions): RequestBudget {
  const now = options.now ?? (() => performance.now());
  const setTimer = options.setTimer ?? ((cb: () => void, ms: number) => setTimeout(cb, ms));
  const clearTimer =
    options.clearTimer ?? ((handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  const maxQueue = options.maxQueue ?? 100;
  const maxQueuePerServer = options.maxQueuePerServer ?? Math.max(1, Math.floor(maxQueue / 2));
  const maxQueuePerMember = options.maxQueuePerMember ?? 5;
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
  const allWindows = [overall, search, autocompleteOverall, autocompleteSearch];
  const classes = new Map<QueuedPriority, ClassQueue>(QUEUED_PRIORITIES.map((p) => [p, new Map()]));
  /** Waiters per named server and per named member, for the caps; entries leave at zero. */
  const serverQueued = new Map<string, number>();
  const memberQueued = new Map<string, number>();
  let queued = 0;
  let inFlight = 0;
  let timer: { handle: unknown; at: number } | undefined;
  const shared = options.shared;
  const sharedTimeoutMs = options.sharedTimeoutMs ?? 250;
  const sharedPollMs = options.sharedPollMs ?? 100;
  /** A queued waiter's ask of `shared` is under way: the next waits for its answer. */
  let asking = false;
  /** The last ask of `shared` failed: the process keeps to its own share. */
  let alone = false;
  /** Until when a shared window that refused is not asked again. */
  const blockedUntil = new Map<SharedWindowName, number>();

  /** Drops the occupants whose window has passed since their release. */
  function prune(window: Window, at: number): void {
    const { occupants, spec } = window;
    for (let i = occupants.length - 1; i >= 0; i -= 1) {
      const endedAt = occupants[i]?.endedAt;
      if (endedAt !== undefined && endedAt <= at - spec.windowMs) occupants.splice(i, 1);
    }
  }

  function pruneAll(at: number): void {
    for (const window of allWindows) prune(window, at);
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
    return Math.max(at, ...windows.map((w) => soonestRoom(w, at)), ...windows.map(blockedAt));
  }

  function blockedAt(window: Window): number {
    return window.name === undefined ? 0 : (blockedUntil.get(window.name) ?? 0);
  }

  /** The slots of `window` a process may hold while it serves on its own. */
  function ownShare(window: Window): number {
    return Math.max(1, Math.floor(window.spec.limit * SHARED_FALLBACK_SHARE));
  }

  /** The own share holds while the backend is away and while slots granted without it are in a window. */
  function ownShareApplies(): boolean {
    return alone || overall.occupants.some((o) => o.alone) || search.occupants.some((o) => o.alone);
  }

  /** Full for this process: no room, or (shared) at its own share while that applies. */
  function isFull(window: Window): boolean {
    if (!hasRoom(window)) return true;
    return (
      shared !== undefined &&
      window.name !== undefined &&
      ownShareApplies() &&
      window.occupants.length >= ownShare(window)
    );
  }

  /** Whether a request counting in `windows` may be granted (or, shared, asked for) now. */
  function fits(windows: readonly Window[]): boolean {
    if (shared === undefined) return windows.every(hasRoom);
    const at = now();
    return windows.every((w) => !isFull(w) && blockedAt(w) <= at);
  }

  function* waiters(): Generator<Waiter> {
    for (const servers of classes.values()) {
      for (const members of servers.values()) {
        for (const list of members.values()) yield* list;
      }
    }
  }

  /**
   * How long a refused caller should wait before asking again: until the queue moves (its first waiter
   * that can go, goes) and the caller's own windows have room. Both come from the windows; a request still
   * in flight counts as ending now, so the figure is never longer than the real wait.
   */
  function retryAfter(windows: readonly Window[]): number {
    const at = now();
    pruneAll(at);
    let queueMovesAt = at;
    let first = true;
    for (const waiter of waiters()) {
      const ready = readyAt(waiter.windows, at);
      queueMovesAt = first ? ready : Math.min(queueMovesAt, ready);
      first = false;
    }
    return Math.max(readyAt(windows, at), queueMovesAt) - at;
  }

  function take(windows: readonly Window[]): BudgetSlot {
    return slotOf(occupy(windows, false), windows, undefined);
  }

  function occupy(windows: readonly Window[], byItself: boolean): Occupant {
    const occupant: Occupant = { endedAt: undefined, alone: byItself };
    for (const window of windows) window.occupants.push(occupant);
    inFlight += 1;
    return occupant;
  }

  /** Takes back an occupant nothing was sent for: its slots free at once. */
  function vacate(occupant: Occupant, windows: readonly Window[]): void {
    for (const window of windows) {
      const index = window.occupants.indexOf(occupant);
      if (index >= 0) window.occupants.splice(index, 1);
    }
    inFlight -= 1;
  }

  function slotOf(occupant: Occupant, windows: readonly Window[], sharedId: string | undefined): BudgetSlot {
    return {
      release() {
        if (occupant.endedAt !== undefined) return;
        occupant.endedAt = now();
        inFlight -= 1;
        if (shared !== undefined && sharedId !== undefined) {
          // Not given back: it stays occupied until its generous in-flight lifetime ends, which is safe.
          shared.release(options.site, sharedWindowsOf(windows), sharedId).catch(() => undefined);
        }
        // Nothing frees yet, but the expiry timer may now have something to wait for.
        drain();
      },
    };
  }

  function sharedWindowsOf(windows: readonly Window[]): SharedWindow[] {
    const list: SharedWindow[] = [];
    for (const { name, spec } of windows) {
      if (name !== undefined) list.push({ name, limit: spec.limit, windowMs: spec.windowMs });
    }
    return list;
  }

  /** `shared.take`, bounded by `sharedTimeoutMs`; undefined when it failed or was late (a late slot is given back). */
  async function askShared(
    backend: SharedSlots,
    list: readonly SharedWindow[],
  ): Promise<Awaited<ReturnType<SharedSlots['take']>> | undefined> {
    let late = false;
    let handle: unknown;
    const asked = backend.take(options.site, list);
    const timeout = new Promise<undefined>((resolve) => {
      handle = setTimer(() => {
        late = true;
        resolve(undefined);
      }, sharedTimeoutMs);
    });
    try {
      return await Promise.race([asked.catch(() => undefined), timeout]);
    } finally {
      clearTimer(handle);
      asked.then(
        (result) => {
          if (late && result.ok) {
            backend.release(options.site, list, result.id, { unused: true }).catch(() => undefined);
          }
        },
        () => undefined,
      );
    }
  }

  type Ask =
    | { readonly granted: true; readonly occupant: Occupant; readonly sharedId: string | undefined }
    | { readonly granted: false; readonly retryAfterMs: number };

  /**
   * Asks `shared` for a request counting in `windows` (which fit this process's own windows). Its own
   * slot is held meanwhile, so nothing else takes it; a refusal gives it back and holds the full shared
   * windows back until the backend's answer says one frees, at most `sharedPollMs`.
   */
  async function askFor(backend: SharedSlots, windows: readonly Window[]): Promise<Ask> {
    const occupant = occupy(windows, false);
    const list = sharedWindowsOf(windows);
    const result = await askShared(backend, list);
    if (result?.ok === true) {
      alone = false;
      return { granted: true, occupant, sharedId: result.id };
    }
    vacate(occupant, windows);
    if (result !== undefined) {
      alone = false;
      const at = now();
      const full = list.filter((w) => result.full.length === 0 || result.full.includes(w.name));
      const wait = Math.max(1, Math.min(result.retryAfterMs, sharedPollMs));
      for (const { name } of full) blockedUntil.set(name, Math.max(blockedUntil.get(name) ?? 0, at + wait));
      // A slot still in flight elsewhere counts as ending now, so the figure is never too long.
      const longest = Math.max(...full.map((w) => w.windowMs));
      return { granted: false, retryAfterMs: Math.max(0, Math.min(result.retryAfterMs, longest)) };
    }
    // The backend is away: this process goes on with its own share of each window.
    alone = true;
    pruneAll(now());
    if (fits(windows)) return { granted: true, occupant: occupy(windows, true), sharedId: undefined };
    return { granted: false, retryAfterMs: retryAfter(windows) };
  }

  /** Shared: asks for the next waiter in fair order that fits, one ask at a time. */
  function drainShared(backend: SharedSlots): void {
    if (asking) return;
    const waiter = nextToServe();
    if (!waiter) return;
    asking = true;
    void askFor(backend, waiter.windows).then((ask) => {
      asking = false;
      if (ask.granted && waiter.settled) {
        // It left (deadline, abort) while we asked: nothing was sent.
        vacate(ask.occupant, waiter.windows);
        if (ask.sharedId !== undefined) {
          backend
            .release(options.site, sharedWindowsOf(waiter.windows), ask.sharedId, { unused: true })
            .catch(() => undefined);
        }
      } else if (ask.granted) {
        dequeue(waiter, true);
        waiter.settled = true;
        waiter.cleanup();
        waiter.resolve(slotOf(ask.occupant, waiter.windows, ask.sharedId));
      }
      drain();
    });
  }

  function windowsFor(path: string, priority: RequestPriority): readonly Window[] {
    const isSearch = isSearchPath(path);
    if (priority === 'autocomplete') {
      return isSearch
        ? [overall, search, autocompleteOverall, autocompleteSearch]
        : [overall, autocompleteOverall];
    }
    return isSearch ? [overall, search] : [overall];
  }

  function count(map: Map<string, number>, key: string | undefined, delta: number): void {
    if (key === undefined) return;
    const next = (map.get(key) ?? 0) + delta;
    if (next <= 0) map.delete(key);
    else map.set(key, next);
  }

  function enqueue(waiter: Waiter): void {
    const servers = classes.get(waiter.priority);
    if (!servers) throw new Error(`unreachable: no queue for ${waiter.priority}`);
    let members = servers.get(waiter.server);
    if (!members) {
      members = new Map();
      servers.set(waiter.server, members);
    }
    let list = members.get(waiter.member);
    if (!list) {
      list = [];
      members.set(waiter.member, list);
    }
    list.push(waiter);
    queued += 1;
    count(serverQueued, waiter.server, 1);
    count(memberQueued, waiter.member, 1);
  }

  /**
   * Takes `waiter` out of the queue. A waiter that was `served` sends its member and server to the back of
   * their lines (round-robin); one that left (deadline, abort) keeps their places. Empty groups go.
   */
  function dequeue(waiter: Waiter, served: boolean): void {
    const servers = classes.get(waiter.priority);
    const members = servers?.get(waiter.server);
    const list = members?.get(waiter.member);
    const index = list?.indexOf(waiter) ?? -1;
    if (!servers || !members || !list || index < 0) return;
    list.splice(index, 1);
    queued -= 1;
    count(serverQueued, waiter.server, -1);
    count(memberQueued, waiter.member, -1);
    if (list.length === 0 || served) members.delete(waiter.member);
    if (list.length > 0 && served) members.set(waiter.member, list);
    if (members.size === 0 || served) servers.delete(waiter.server);
    if (members.size > 0 && served) servers.set(waiter.server, members);
  }

  /** The waiter to serve next: the first, in class, server turn, member turn and FIFO order, that fits. */
  function nextToServe(): Waiter | undefined {
    for (const servers of classes.values()) {
      for (const members of servers.values()) {
        for (const list of members.values()) {
          const waiter = list.find((w) => fits(w.windows));
          if (waiter) return waiter;
        }
      }
    }
    return undefined;
  }

  /**
   * Grants every waiter that fits, one at a time in fair order, so the next in line always gets the first
   * pick of a freed slot. A waiter held back by the search window does not hold back plain fetches while
   * the overall window has room.
   */
  function drain(): void {
    pruneAll(now());
    if (shared !== undefined) {
      drainShared(shared);
      schedule();
      return;
    }
    for (let waiter = nextToServe(); waiter; waiter = nextToServe()) {
      dequeue(waiter, true);
      waiter.settled = true;
      waiter.cleanup();
      waiter.resolve(take(waiter.windows));
    }
    schedule();
  }

  /** Wakes the queue when the next released occupant of a full window expires (a release wakes it too). */
  function schedule(): void {
    const at0 = now();
    const expiries = allWindows
      .filter(isFull)
      .map(nextExpiry)
      .filter((at): at is number => at !== undefined)
      .concat([...blockedUntil.values()].filter((at) => at > at0));
    if (queued === 0 || expiries.length === 0) {
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

  /** Why `requester` may not join the queue now; undefined when it may. */
  function refusal(server: string | undefined, member: string | undefined): string | undefined {
    if (queued >= maxQueue) return `${queued} requests already waiting`;
    if (server !== undefined && (serverQueued.get(server) ?? 0) >= maxQueuePerServer) {
      return `${maxQueuePerServer} requests of this server already waiting`;
    }
    if (member !== undefined && (memberQueued.get(member) ?? 0) >= maxQueuePerMember) {
      return `${maxQueuePerMember} requests of this member already waiting`;
    }
    return undefined;
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
    backend: SharedSlots,
    windows: readonly Window[],
  ): Promise<BudgetSlot> {
    const refused = (retryAfterMs: number): SiteUnavailableError => {
      observe('autocomplete', 'refused', 0);
      return exhausted(`request budget of ${options.site}: no autocomplete slot free now`, retryAfterMs);
    };
    if (!fits(windows)) throw refused(retryAfter(windows));
    const askedAt = now();
    const ask = await askFor(backend, windows);
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
          exhausted(`request budget of ${options.site}: no autocomplete slot free now`, retryAfter(windows)),
        );
      }
      const server = requester?.server;
      const member = requester?.member;
      const refused = refusal(server, member);
      if (refused !== undefined) {
        observe(priority, 'refused', 0);
        return Promise.reject(
          exhausted(`request budget of ${options.site} exhausted: ${refused}`, retryAfter(windows)),
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
          dequeue(waiter, false);
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
        enqueue(waiter);
        // Shared, the queue asks the backend now (when no ask is under way).
        if (shared === undefined) schedule();
        else drain();
      });
    },
    stats() {
      pruneAll(now());
      return {
        queued,
        inWindow: overall.occupants.length,
        searchInWindow: search.occupants.length,
        autocompleteInWindow: autocompleteOverall.occupants.length,
        autocompleteSearchInWindow: autocompleteSearch.occupants.length,
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

/** A share may be 0: autocomplete is then always refused. */
function checkShare(name: string, limit: number): number {
  if (!Number.isInteger(limit) || limit < 0) {
    throw new RangeError(`${name} must be an integer >= 0, got ${String(limit)}`);
  }
  return limit;
}
