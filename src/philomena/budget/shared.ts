/**
 * The budget shared with the program's other processes (shared-state.ts `SharedSlots`): the fair queue
 * picks WHICH waiter goes next, and the shared slots decide WHETHER this process may send now. One ask is
 * under way at a time, in queue order; a refusal holds the full windows' waiters back a short while
 * (`pollMs` at most, since a release elsewhere is not told), then the queue asks again. The process's own
 * windows still count too.
 *
 * The fallback share: when the backend fails or does not answer within `timeoutMs`, the process keeps to
 * `SHARED_FALLBACK_SHARE` of each window on its own (and still asks the backend with each grant), and
 * keeps to it until the slots it granted alone have left their windows, so a few processes together stay
 * within the site's limits while it is away. It grants nothing alone for one window after the backend was
 * lost: the slots other processes were granted just before are unknown to it, and one process alone could
 * otherwise add its share to a window the others had filled (seen: 37 requests in 5 s against 30).
 */
import type { SharedSlots, SharedTake, SharedWindow, SharedWindowName } from '../shared-state.js';
import { hasRoom, occupy, vacate, type Occupant, type Window } from './windows.js';

/** With `shared` away, the share of each window (at least one slot) a process keeps to on its own. */
export const SHARED_FALLBACK_SHARE = 0.25;

/** Beyond one window after the backend was lost, before a process grants alone: requests still on their way. */
const LOST_BACKEND_MARGIN_MS = 500;

/** The slots of `window` a process may hold while it serves on its own. */
function ownShare(window: Window): number {
  return Math.max(1, Math.floor(window.spec.limit * SHARED_FALLBACK_SHARE));
}

/** The shared windows `windows` stand for (a window without a name is the process's own). */
function sharedWindowsOf(windows: readonly Window[]): SharedWindow[] {
  const list: SharedWindow[] = [];
  for (const { name, spec } of windows) {
    if (name !== undefined) list.push({ name, limit: spec.limit, windowMs: spec.windowMs });
  }
  return list;
}

export interface SharedBudgetOptions {
  /** Site id, as the backend knows it. */
  readonly site: string;
  readonly backend: SharedSlots;
  /** Longest wait for the backend's answer; past it the process goes on alone. */
  readonly timeoutMs: number;
  /** After a refusal, how soon at most to ask again. */
  readonly pollMs: number;
  readonly now: () => number;
  readonly setTimer: (callback: () => void, ms: number) => unknown;
  readonly clearTimer: (handle: unknown) => void;
  /** The windows whose slots granted alone keep the fallback share on (overall and search). */
  readonly counted: readonly Window[];
  /** Drops from every window of the budget what has left it. */
  readonly prune: (at: number) => void;
  /** How long a caller refused for `windows` should wait before asking again. */
  readonly retryAfter: (windows: readonly Window[]) => number;
}

/** The answer to one ask: a slot held in this process's windows (and the backend's id for it), or a wait. */
export type Ask =
  | { readonly granted: true; readonly occupant: Occupant; readonly sharedId: string | undefined }
  | { readonly granted: false; readonly retryAfterMs: number };

/** A waiter as the shared side sees it: what it counts in, and whether it has left. */
export interface SharedWaiter {
  readonly windows: readonly Window[];
  readonly settled: boolean;
}

export interface SharedBudget {
  /** Full for this process: no room, or at its own share while that applies. */
  isFull(window: Window): boolean;
  /** Whether a request counting in `windows` may be asked for now. */
  fits(windows: readonly Window[]): boolean;
  /** Until when `window` is not asked again after a refusal; 0 when it may be. */
  blockedAt(window: Window): number;
  /** Every time a refused window may be asked again (some may have passed). */
  blockedTimes(): number[];
  /** One ask for a request counting in `windows`, which fit this process's own windows. */
  askFor(windows: readonly Window[]): Promise<Ask>;
  /**
   * Asks for the waiter `next` gives (the next in fair order that fits), unless an ask is under way.
   * A granted waiter that is still waiting goes to `grant`; then `after` runs (the budget drains again).
   */
  drain<W extends SharedWaiter>(
    next: () => W | undefined,
    grant: (waiter: W, occupant: Occupant, sharedId: string | undefined) => void,
    after: () => void,
  ): void;
  /** Tells the backend a granted request is over (`unused`: nothing was sent). */
  release(windows: readonly Window[], sharedId: string, unused?: boolean): void;
}

/** `backend.take`, bounded by `timeoutMs`; undefined when it failed or was late (a late slot is given back). */
async function askShared(
  options: Pick<SharedBudgetOptions, 'site' | 'backend' | 'timeoutMs' | 'setTimer' | 'clearTimer'>,
  list: readonly SharedWindow[],
): Promise<SharedTake | undefined> {
  const { backend, site } = options;
  let late = false;
  let handle: unknown;
  const asked = backend.take(site, list);
  const timeout = new Promise<undefined>((resolve) => {
    handle = options.setTimer(() => {
      late = true;
      resolve(undefined);
    }, options.timeoutMs);
  });
  try {
    return await Promise.race([asked.catch(() => undefined), timeout]);
  } finally {
    options.clearTimer(handle);
    asked.then(
      (result) => {
        if (late && result.ok) {
          backend.release(site, list, result.id, { unused: true }).catch(() => undefined);
        }
      },
      () => undefined,
    );
  }
}

export function createSharedBudget(options: SharedBudgetOptions): SharedBudget {
  const { backend, site, now } = options;
  /** A queued waiter's ask is under way: the next waits for its answer. */
  let asking = false;
  /** The last ask failed: the process keeps to its own share. */
  let alone = false;
  /** When the backend was lost (the first failed ask since it last answered). */
  let lostAt = 0;
  /** Until when a shared window that refused is not asked again. */
  const blockedUntil = new Map<SharedWindowName, number>();

  /** The own share holds while the backend is away and while slots granted without it are in a window. */
  function ownShareApplies(): boolean {
    return alone || options.counted.some((window) => window.occupants.some((o) => o.alone));
  }

  function isFull(window: Window): boolean {
    if (!hasRoom(window)) return true;
    return window.name !== undefined && ownShareApplies() && window.occupants.length >= ownShare(window);
  }

  function blockedAt(window: Window): number {
    return window.name === undefined ? 0 : (blockedUntil.get(window.name) ?? 0);
  }

  function fits(windows: readonly Window[]): boolean {
    const at = now();
    return windows.every((w) => !isFull(w) && blockedAt(w) <= at);
  }

  function release(windows: readonly Window[], sharedId: string, unused = false): void {
    const list = sharedWindowsOf(windows);
    const done = unused
      ? backend.release(site, list, sharedId, { unused })
      : backend.release(site, list, sharedId);
    done.catch(() => undefined);
  }

  /**
   * Its own slot is held meanwhile, so nothing else takes it; a refusal gives it back and holds the full
   * shared windows back until the backend's answer says one frees, at most `pollMs`.
   */
  async function askFor(windows: readonly Window[]): Promise<Ask> {
    const occupant = occupy(windows, false);
    const list = sharedWindowsOf(windows);
    const result = await askShared(options, list);
    if (result?.ok === true) {
      alone = false;
      return { granted: true, occupant, sharedId: result.id };
    }
    vacate(occupant, windows);
    if (result !== undefined) {
      alone = false;
      const at = now();
      const full = list.filter((w) => result.full.length === 0 || result.full.includes(w.name));
      const wait = Math.max(1, Math.min(result.retryAfterMs, options.pollMs));
      for (const { name } of full) blockedUntil.set(name, Math.max(blockedUntil.get(name) ?? 0, at + wait));
      // A slot still in flight elsewhere counts as ending now, so the figure is never too long.
      const longest = Math.max(...full.map((w) => w.windowMs));
      return { granted: false, retryAfterMs: Math.max(0, Math.min(result.retryAfterMs, longest)) };
    }
    // The backend is away: this process goes on with its own share of each window, once the slots the
    // others were granted before it went away have left their windows.
    const at = now();
    if (!alone) lostAt = at;
    alone = true;
    const clearAt = lostAt + Math.max(0, ...list.map((w) => w.windowMs)) + LOST_BACKEND_MARGIN_MS;
    if (at < clearAt) {
      for (const { name } of list) blockedUntil.set(name, Math.max(blockedUntil.get(name) ?? 0, clearAt));
      return { granted: false, retryAfterMs: clearAt - at };
    }
    options.prune(at);
    if (fits(windows)) return { granted: true, occupant: occupy(windows, true), sharedId: undefined };
    return { granted: false, retryAfterMs: options.retryAfter(windows) };
  }

  return {
    isFull,
    fits,
    blockedAt,
    blockedTimes: () => [...blockedUntil.values()],
    askFor,
    release,
    drain(next, grant, after) {
      if (asking) return;
      const waiter = next();
      if (!waiter) return;
      asking = true;
      void askFor(waiter.windows).then((ask) => {
        asking = false;
        if (ask.granted && waiter.settled) {
          // It left (deadline, abort) while we asked: nothing was sent.
          vacate(ask.occupant, waiter.windows);
          if (ask.sharedId !== undefined) release(waiter.windows, ask.sharedId, true);
        } else if (ask.granted) {
          grant(waiter, ask.occupant, ask.sharedId);
        }
        after();
      });
    },
  };
}
