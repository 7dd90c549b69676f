/**
 * Identical requests across processes (`SharedFlights`, shared-state.ts): before asking the board, a
 * process claims the key, or waits for the process that holds the claim to write its answer into the
 * shared store. Bounded by `waitMs`; the backend away or the wait too long, the process asks by itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { SharedFlights } from '../shared-state.js';
import type { Entry } from './entry.js';

/** What another process's flight left: its answer, or this process's claim to load it, or neither. */
export type Remote =
  | { readonly kind: 'entry'; readonly entry: Entry }
  | { readonly kind: 'claimed'; readonly token: string }
  | { readonly kind: 'alone' };

export interface RemoteWaitOptions {
  readonly backend: SharedFlights;
  /** Reads the key's live entry from the shared store; undefined when there is none (or the read failed). */
  readonly read: (key: string) => Promise<Entry | undefined>;
  /** Longest wait for another process's answer before asking the board anyway. */
  readonly waitMs: number;
  /** How long a claim holds the key at most (a loader that died). */
  readonly claimMs: number;
  readonly logger?: Logger | undefined;
}

/** Waits `ms`; an abort rejects with the signal's own reason, which is what the flight's callers see. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    // AbortSignal.reason is `any`: whatever the aborter gave, passed on as is (the cast only names it). Kept
    // as written: the cache's fingerprint (test/philomena/cache-version.test.ts) covers this file.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    throw signal.aborted ? (signal.reason as Error) : error;
  }
}

/**
 * Claims `key` across processes, or waits for the process that holds it to write its answer (polling the
 * store, 25 ms doubling to 200 ms). A claim given back with no answer (its request failed, not with a
 * 404) lets the next waiter claim. The backend away or the wait too long: this process asks by itself
 * ('alone'). Rejects only when `signal` aborts.
 */
export async function awaitOthers(
  options: RemoteWaitOptions,
  key: string,
  signal: AbortSignal,
): Promise<Remote> {
  const { backend, read } = options;
  const claim = async (): Promise<Remote | undefined> => {
    const token = await backend.claim(key, options.claimMs);
    return token === undefined ? undefined : { kind: 'claimed', token };
  };
  try {
    const first = await claim();
    if (first) return first;
    const deadline = performance.now() + options.waitMs;
    for (let poll = 25; performance.now() < deadline; poll = Math.min(poll * 2, 200)) {
      await pause(poll, signal);
      const entry = await read(key);
      if (entry) return { kind: 'entry', entry };
      if (await backend.held(key)) continue;
      // Given back: written just now, or failed. Read once more, then take the turn.
      const late = await read(key);
      if (late) return { kind: 'entry', entry: late };
      const next = await claim();
      if (next) return next;
    }
  } catch (error) {
    if (signal.aborted) throw error;
    options.logger?.debug({ err: error, key }, 'shared request coalescing unavailable; asking the site');
  }
  return { kind: 'alone' };
}
