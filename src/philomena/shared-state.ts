/**
 * What several processes of one program share about a site, so that they are as polite together as one
 * process is alone: a `Retry-After` pause seen by one pauses the site for all, a circuit breaker opened
 * by one stops the others calling the site until its cool-down ends, and the board's anti-bot block met by
 * one stops them all for its whole length (one request from any of them would restart it: the block is
 * per IP, docs/board-behaviour.md). The library only defines the shape;
 * a program that runs several processes implements it over something they all reach (the bot: Redis,
 * src/redis/redis-site-state.ts) and hands it to the registry (`shared`).
 *
 * Times are durations from now, never instants: each process measures time with its own monotonic clock,
 * and two hosts' wall clocks need not agree, so only "how long from now" means the same to all of them (a
 * Redis keeps it as a key's PX lifetime, on its own clock).
 *
 * Every method may reject (the shared backend is away): the breaker then goes on with what this process
 * knows by itself, and reads the shared state again on its next refresh.
 */
export interface SiteHold {
  /** Milliseconds left of the site's shared pause (`Retry-After`, the anti-bot floor); 0 when none. */
  readonly pausedMs: number;
  /** Milliseconds left of the cool-down of a breaker some process opened; 0 when none. */
  readonly openMs: number;
  /** Milliseconds left of the board's anti-bot block some process met (nothing may go); 0 when none. */
  readonly blockedMs: number;
  /**
   * Milliseconds left during which an empty 500 is taken for the block: some process met the anti-bot
   * 501, or a block, lately (docs/board-behaviour.md); 0 when none.
   */
  readonly challengedMs: number;
}

export interface SharedSiteState {
  /** Pauses `site` for every process for `ms` from now (a longer pause already in force is kept). */
  pause(site: string, ms: number): Promise<void>;
  /** Marks `site`'s breaker open for every process for `ms` from now (a longer one is kept). */
  open(site: string, ms: number): Promise<void>;
  /** The board blocked us: no process sends anything to `site` for `ms` from now (a longer one is kept). */
  block(site: string, ms: number): Promise<void>;
  /** The board challenged us (501): an empty 500 within `ms` from now is the block (a longer one is kept). */
  challenge(site: string, ms: number): Promise<void>;
  /** What is in force for `site` now. */
  read(site: string): Promise<SiteHold>;
}

/**
 * One site's request budget shared by every process (budget.ts `shared`): the budget's own queue still
 * decides WHICH local waiter goes next, this decides WHETHER the process may send one more request now.
 * A slot taken here counts in each of the windows given at once (a search in the overall and the search
 * window), from its take until `windowMs` after its release, as budget.ts's own slots do. The app's
 * implementation is src/redis/redis-budget-slots.ts.
 *
 * Every method may reject (the backend is away): the budget then keeps to a small share of each window on
 * its own (`SHARED_FALLBACK_SHARE`), and asks the backend again with its next grant.
 */
export type SharedWindowName =
  'overall' | 'search' | 'autocomplete' | 'autocomplete-search' | 'account' | 'account-search';

export interface SharedWindow {
  readonly name: SharedWindowName;
  /** Requests allowed in any span of `windowMs`, by every process together. */
  readonly limit: number;
  readonly windowMs: number;
}

export type SharedTake =
  | { readonly ok: true; readonly id: string }
  /** Some window is full: `retryAfterMs` until its first slot frees (long while they are all in flight). */
  | { readonly ok: false; readonly retryAfterMs: number; readonly full: readonly SharedWindowName[] };

export interface SharedSlots {
  /** Atomically, a slot in every one of `windows` of `site`, or in none. */
  take(site: string, windows: readonly SharedWindow[]): Promise<SharedTake>;
  /**
   * The request holding `id` is over: its slots free each window's `windowMs` from now. `unused`: nothing
   * of it was sent, so they free at once.
   */
  release(
    site: string,
    windows: readonly SharedWindow[],
    id: string,
    options?: { readonly unused?: boolean },
  ): Promise<void>;
}

/**
 * One upstream request for identical concurrent requests across processes (cache.ts `flights`): the
 * process that claims a cache key asks the board and writes the answer to the shared store; the others
 * see the claim, wait for the answer to appear in the store, and read it. A claim lives at most its `ms`,
 * so a process that dies while loading holds nobody up for longer. The app's implementation is
 * src/redis/redis-flights.ts.
 *
 * Every method may reject (the backend is away): the cache then asks the board itself, as a process alone.
 */
export interface SharedFlights {
  /** Claims `key` for `ms`: a token when this process is to load it, undefined when another holds it. */
  claim(key: string, ms: number): Promise<string | undefined>;
  /** Whether some process still holds a claim on `key`. */
  held(key: string): Promise<boolean>;
  /** Gives the claim of `token` back (the answer is written, or the load failed). */
  release(key: string, token: string): Promise<void>;
}
