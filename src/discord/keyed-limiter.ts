/**
 * Keyed sliding-window limiter: the per-member command cooldown and the per-server unfurl budget.
 * Memory is bounded: at most `maxKeys` keys are tracked (least recently used dropped first), each with at
 * most `limit` timestamps, so a raid of new members cannot grow it without bound.
 */

export interface KeyedLimiterOptions {
  /** Actions allowed per key within `windowMs`. */
  readonly limit: number;
  readonly windowMs: number;
  /** Most keys tracked at once; default 50,000. */
  readonly maxKeys?: number;
  readonly now?: () => number;
}

export type TakeResult = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

export interface KeyedLimiter {
  /** Records one action for `key` if allowed. */
  take(key: string): TakeResult;
  /** Keys currently tracked (for tests and metrics). */
  readonly size: number;
}

export function createKeyedLimiter(options: KeyedLimiterOptions): KeyedLimiter {
  const { limit, windowMs } = options;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  if (!(windowMs > 0)) throw new RangeError('windowMs must be positive');
  const maxKeys = options.maxKeys ?? 50_000;
  const now = options.now ?? Date.now;
  // Map iteration order is insertion order: re-inserting on use makes the first key the least recently used.
  const windows = new Map<string, number[]>();

  return {
    take(key) {
      const at = now();
      const stamps = (windows.get(key) ?? []).filter((t) => at - t < windowMs);
      windows.delete(key);
      if (stamps.length >= limit) {
        windows.set(key, stamps);
        const oldest = stamps[0] ?? at;
        return { ok: false, retryAfterMs: Math.max(1, oldest + windowMs - at) };
      }
      stamps.push(at);
      windows.set(key, stamps);
      while (windows.size > maxKeys) {
        const lru = windows.keys().next();
        if (lru.done) break;
        windows.delete(lru.value);
      }
      return { ok: true };
    },
    get size() {
      return windows.size;
    },
  };
}
