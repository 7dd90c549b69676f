/**
 * The budget's windows: what each counts, when it has room, and when it will. Plain functions over the
 * windows they are given, so they can be tested with a table and no clock.
 *
 * A window counts a request from its grant until `windowMs` after its release (budget.ts says why), so an
 * occupant in flight (`endedAt` undefined) holds its slot until it is released, and one released leaves
 * the window `windowMs` later (`prune`).
 */
import type { SharedWindowName } from '../shared-state.js';

export interface WindowSpec {
  /** Requests allowed in any span of `windowMs`. */
  readonly limit: number;
  readonly windowMs: number;
}

/** One granted request, shared by every window it counts in. */
export interface Occupant {
  /** When it was released; undefined while in flight. */
  endedAt: number | undefined;
  /** Granted while the shared backend was away, so no other process knows of it. */
  readonly alone: boolean;
}

export interface Window {
  readonly spec: WindowSpec;
  /** The shared window it stands for, when the budget is shared. */
  readonly name?: SharedWindowName;
  /** Never longer than `spec.limit`. */
  readonly occupants: Occupant[];
}

/** Until when a window may not be used whatever its room (a shared window that refused); 0 when free. */
export type BlockedAt = (window: Window) => number;

const NEVER_BLOCKED: BlockedAt = () => 0;

/** The paths the proxy counts in its search bucket. */
export function isSearchPath(path: string): boolean {
  return path.startsWith('/api/v1/json/search');
}

/** Drops the occupants whose window has passed since their release. */
export function prune(window: Window, at: number): void {
  const { occupants, spec } = window;
  for (let i = occupants.length - 1; i >= 0; i -= 1) {
    const endedAt = occupants[i]?.endedAt;
    if (endedAt !== undefined && endedAt <= at - spec.windowMs) occupants.splice(i, 1);
  }
}

export function hasRoom(window: Window): boolean {
  return window.occupants.length < window.spec.limit;
}

/** Occupants not yet released. */
export function inFlight(window: Window): number {
  return window.occupants.filter((o) => o.endedAt === undefined).length;
}

/** When the first released occupant of `window` leaves it; undefined while every one is in flight. */
export function nextExpiry(window: Window): number | undefined {
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
export function soonestRoom(window: Window, at: number): number {
  if (hasRoom(window)) return at;
  return Math.min(nextExpiry(window) ?? Infinity, at + window.spec.windowMs);
}

/** The soonest a request counting in every one of `windows` could be granted. */
export function readyAt(
  windows: readonly Window[],
  at: number,
  blockedAt: BlockedAt = NEVER_BLOCKED,
): number {
  return Math.max(at, ...windows.map((w) => soonestRoom(w, at)), ...windows.map(blockedAt));
}

/**
 * How long a refused caller should wait before asking again: until the queue moves (its first waiter
 * that can go, goes: `queued` holds each waiter's windows) and the caller's own windows have room. Both
 * come from the windows; a request still in flight counts as ending now, so the figure is never longer
 * than the real wait. The windows must be pruned at `at`.
 */
export function retryAfter(
  windows: readonly Window[],
  queued: Iterable<readonly Window[]>,
  at: number,
  blockedAt: BlockedAt = NEVER_BLOCKED,
): number {
  let queueMovesAt = at;
  let first = true;
  for (const waiting of queued) {
    const ready = readyAt(waiting, at, blockedAt);
    queueMovesAt = first ? ready : Math.min(queueMovesAt, ready);
    first = false;
  }
  return Math.max(readyAt(windows, at, blockedAt), queueMovesAt) - at;
}

/** Takes a slot in each of `windows` for one request, in flight until its `endedAt` is set. */
export function occupy(windows: readonly Window[], alone: boolean): Occupant {
  const occupant: Occupant = { endedAt: undefined, alone };
  for (const window of windows) window.occupants.push(occupant);
  return occupant;
}

/** Takes back an occupant nothing was sent for: its slots free at once. */
export function vacate(occupant: Occupant, windows: readonly Window[]): void {
  for (const window of windows) {
    const index = window.occupants.indexOf(occupant);
    if (index >= 0) window.occupants.splice(index, 1);
  }
}

export function checkSpec(spec: WindowSpec): WindowSpec {
  if (!Number.isInteger(spec.limit) || spec.limit < 1 || !(spec.windowMs > 0)) {
    throw new RangeError(
      `a budget window needs a limit >= 1 and a window > 0 ms, got ${JSON.stringify(spec)}`,
    );
  }
  return spec;
}

/** A share may be 0: autocomplete is then always refused. */
export function checkShare(name: string, limit: number): number {
  if (!Number.isInteger(limit) || limit < 0) {
    throw new RangeError(`${name} must be an integer >= 0, got ${String(limit)}`);
  }
  return limit;
}
