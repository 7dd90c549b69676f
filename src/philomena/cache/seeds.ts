/**
 * Seeds: an answer that holds other resources whole (an image search holds each image exactly as GET
 * images/:id would answer it) fills their keys too, after a load only (`CacheFetchOptions.seeds`).
 *
 * A seed is written unless its key already holds an entry that lives as long or longer. The store part
 * runs after the answer has gone; until it settles a seed is served from a side map (`fromSeeding`), so
 * this process never asks the board for what it has just been told. Bounded like the cache's in-flight
 * map: by what is loaded while the store answers.
 */
import type Keyv from 'keyv';
import type { Logger } from 'pino';
import { isEntry, type Entry } from './entry.js';

/** An entry another answer holds: its key, its value and its lifetime (what its own endpoint would give). */
export interface CacheSeed {
  readonly key: string;
  readonly value: unknown;
  readonly ttlMs: number;
}

export interface SeederOptions {
  readonly store?: Keyv | undefined;
  /** The cache's in-memory LRU (most recently used last): seeds refresh only keys it already holds. */
  readonly memory: Map<string, Entry>;
  /** Puts an entry in the LRU as a use (without a store, seeds go there). */
  readonly remember: (key: string, entry: Entry) => void;
  /** Wall clock in ms. */
  readonly now: () => number;
  readonly logger?: Logger | undefined;
}

export interface Seeder {
  /** Writes each seed whose key holds nothing that lives as long; the store writes run in the background. */
  seed(seeds: readonly CacheSeed[]): void;
  /** The seeds of a loaded answer; a seeds function that throws seeds nothing. */
  seedsOf<T>(seeds: ((value: T) => readonly CacheSeed[]) | undefined, value: T): readonly CacheSeed[];
  /** A seed whose store write is still under way. */
  fromSeeding(key: string): Entry | undefined;
  /** The key's own answer supersedes a seed of it still on its way to the store: reads get the answer. */
  supersede(key: string): void;
  /** Resolves once the seed writes started so far have settled. */
  idle(): Promise<void>;
}

export function createSeeder(options: SeederOptions): Seeder {
  const { store, memory, now } = options;
  /**
   * Seeds whose store write is under way: bounded like the in-flight map, by what is loaded while the
   * store answers (a store that hangs holds every flight's own write too).
   */
  const seeding = new Map<string, Entry>();
  const seedWrites = new Set<Promise<void>>();

  /**
   * One getMany and one setMany, but a store without a batched write (@keyv/sqlite) makes that one
   * transaction per seed, about 1 ms each, which a search of 50 must not wait for. Read and write are not
   * atomic: a fresher entry another process writes between them can be replaced by this one, itself a
   * valid answer for its lifetime.
   */
  async function writeSeeds(target: Keyv, wanted: Map<string, Entry>): Promise<void> {
    const keys = [...wanted.keys()];
    try {
      const held: readonly unknown[] = await target.getMany(keys);
      keys.forEach((key, index) => {
        const stored = held[index];
        const entry = wanted.get(key);
        if (entry === undefined || !isEntry(stored) || stored.until < entry.until) return;
        wanted.delete(key);
        if (memory.get(key) === entry) memory.set(key, stored);
      });
    } catch (error) {
      // Unknown: write them all (at worst an entry as good as the one it replaces).
      options.logger?.debug({ err: error, keys: keys.length }, 'cache seed read failed');
    }
    if (wanted.size === 0) return;
    try {
      const written = await target.setMany(
        [...wanted].map(([key, entry]) => ({ key, value: entry, ttl: Math.max(1, entry.until - now()) })),
      );
      const failed = written.filter((ok) => !ok).length;
      if (failed > 0) options.logger?.debug({ failed, keys: wanted.size }, 'cache seed write failed');
    } catch (error) {
      options.logger?.debug({ err: error, keys: wanted.size }, 'cache seed write failed');
    }
  }

  return {
    seed(seeds) {
      const at = now();
      const wanted = new Map<string, Entry>();
      for (const { key, value, ttlMs } of seeds) {
        if (!(ttlMs > 0)) continue;
        const entry: Entry = { until: at + ttlMs, value };
        const held = memory.get(key) ?? seeding.get(key);
        if (held !== undefined && held.until >= entry.until) continue;
        wanted.set(key, entry);
      }
      if (wanted.size === 0) return;
      if (!store) {
        for (const [key, entry] of wanted) options.remember(key, entry);
        return;
      }
      for (const [key, entry] of wanted) {
        // Set in place: a seed is not a use, so a key the LRU holds keeps its place there.
        if (memory.has(key)) memory.set(key, entry);
        seeding.set(key, entry);
      }
      // writeSeeds drops from `wanted` what the store holds fresher: those leave `seeding` too.
      const started = [...wanted];
      const task = writeSeeds(store, wanted).finally(() => {
        for (const [key, entry] of started) if (seeding.get(key) === entry) seeding.delete(key);
        seedWrites.delete(task);
      });
      seedWrites.add(task);
    },
    seedsOf(seeds, value) {
      if (seeds === undefined) return [];
      try {
        return seeds(value);
      } catch (error) {
        options.logger?.debug({ err: error }, 'cache seeds unavailable');
        return [];
      }
    },
    fromSeeding(key) {
      const entry = seeding.get(key);
      return entry !== undefined && entry.until > now() ? entry : undefined;
    },
    supersede(key) {
      seeding.delete(key);
    },
    async idle() {
      await Promise.all([...seedWrites]);
    },
  };
}
