/**
 * The response cache. Philomena sends `Cache-Control: no-store` on every API response and asks clients to
 * cache anyway, so the lifetimes are ours (table below). Three layers:
 *
 * 1. in-flight: identical concurrent calls share one upstream request (an entry lives only while its
 *    request runs, so the map is bounded by the number of distinct requests in flight); with `flights`
 *    (shared-state.ts), identical requests of other processes too: one claims the key and asks the board,
 *    the others wait for its answer in the shared store (bounded by `flightWaitMs`, then they ask);
 * 2. a small bounded in-memory LRU for hot keys;
 * 3. keyv (SQLite in production), shared by every site's client; keys carry the site id.
 *
 * Values come back as they were stored, unparsed: the client's keys carry CACHE_SCHEMA_VERSION
 * (client/cache-version.ts), so an entry another deploy wrote in another shape is never read. That is why
 * a value read back keeps its `as T` (memory, store or another caller's flight; one key is only ever
 * written by one endpoint), each with an eslint-disable naming CACHE_SCHEMA_VERSION. The casts stay as
 * they are: test/philomena/cache-version.test.ts fingerprints this file's code, and a refactor here would
 * cost every deploy a cold cache.
 *
 * Only successes are cached, plus a short negative entry for 404 (a link to a deleted id is posted again
 * and again). Any other error is never cached. A store failure never fails a request: it is logged and the
 * call goes upstream.
 *
 * An answer that holds other resources whole (an image search holds each image exactly as GET images/:id
 * would answer it) may `seed` their keys too, after a load only: see `CacheFetchOptions.seeds` and
 * cache/seeds.ts. The wait for other processes' identical requests is cache/flights.ts; what an entry
 * looks like, cache/entry.ts.
 *
 * | resource                               | lifetime                 |
 * | -------------------------------------- | ------------------------ |
 * | image by id                            | 10 min                   |
 * | featured image                         | 5 min                    |
 * | image search                           | 2 min                    |
 * | reverse search (URL or file)           | 10 min                   |
 * | any of those four holding an image     | 1 min                    |
 * | uploaded in the last 24 h              |                          |
 * | tag                                    | 1 h                      |
 * | tag search (autocomplete)              | 1 h                      |
 * | comment, forum post                    | 10 min                   |
 * | comment / post / gallery search        | 5 min                    |
 * | profile                                | 30 min                   |
 * | filter by id                           | 1 h                      |
 * | system filters                         | 6 h                      |
 * | the key owner's filters, filter search | 10 min                   |
 * | forums, forum                          | 1 h                      |
 * | topics, topic, topic posts             | 5 min                    |
 * | oEmbed                                 | its `cache_age` (7200 s) |
 * | any 404 (negative entry)               | 60 s                     |
 * | every other error                      | never cached             |
 */
import type Keyv from 'keyv';
import type { Logger } from 'pino';
import { isEntry, type Entry } from './cache/entry.js';
import { awaitOthers } from './cache/flights.js';
import { createSeeder, type CacheSeed } from './cache/seeds.js';
import { NotFoundError } from './errors.js';
import type { SharedFlights } from './shared-state.js';

export type { CacheSeed } from './cache/seeds.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const LIFETIMES = {
  image: 10 * MINUTE,
  featured: 5 * MINUTE,
  imageSearch: 2 * MINUTE,
  reverseSearch: 10 * MINUTE,
  /**
   * An image uploaded less than NEW_UPLOAD_MS ago (and any answer holding one): new uploads are often
   * mis-rated and corrected within minutes, and the rating decides what a plain channel may show.
   */
  recentImage: MINUTE,
  tag: HOUR,
  tagSearch: HOUR,
  comment: 10 * MINUTE,
  post: 10 * MINUTE,
  commentSearch: 5 * MINUTE,
  postSearch: 5 * MINUTE,
  gallerySearch: 5 * MINUTE,
  profile: 30 * MINUTE,
  filter: HOUR,
  systemFilters: 6 * HOUR,
  userFilters: 10 * MINUTE,
  filterSearch: 10 * MINUTE,
  forums: HOUR,
  forum: HOUR,
  topics: 5 * MINUTE,
  topic: 5 * MINUTE,
  topicPosts: 5 * MINUTE,
} as const;

/** How long after its upload an image's rating is treated as still settling. */
export const NEW_UPLOAD_MS = 24 * HOUR;

/** How long a 404 is remembered. */
export const NOT_FOUND_LIFETIME_MS = 60_000;

export type CacheSource = 'memory' | 'store' | 'shared' | 'miss';

export interface CacheFetchOptions<T> {
  /** Lifetime of a success; a function for answers that carry their own (oEmbed `cache_age`). */
  readonly ttlMs: number | ((value: T) => number);
  /** Skip the reads (a shared in-flight request is still joined; the answer is written). */
  readonly fresh?: boolean;
  /** Stops this caller's wait; the shared request is aborted only when every caller has gone. */
  readonly signal?: AbortSignal;
  /**
   * Other keys a loaded answer fills (never an answer read from the cache: it seeded when it was loaded).
   * Each is written unless its key already holds an entry that lives as long or longer. The answer does
   * not wait for the store writes (`idle()` does); a failed one is logged at debug and never fails the
   * fetch. With a store, seeds refresh only keys the in-memory LRU already holds (a page of 50 images
   * must not push the hot keys out of it) and are served from a side map until their write settles.
   */
  readonly seeds?: (value: T) => readonly CacheSeed[];
}

export interface CacheResult<T> {
  readonly value: T;
  readonly source: CacheSource;
}

export interface ResponseCache {
  fetch<T>(
    key: string,
    load: (signal: AbortSignal) => Promise<T>,
    options: CacheFetchOptions<T>,
  ): Promise<CacheResult<T>>;
  stats(): { readonly inFlight: number; readonly memoryEntries: number };
  /** Resolves once the seed writes started so far have settled (tests, benchmarks, a shutdown). */
  idle(): Promise<void>;
}

export interface ResponseCacheOptions {
  /** The persistent store; without one only the in-memory layer is used. */
  readonly store?: Keyv;
  /** Entries of the in-memory LRU. Default 500; 0 turns it off. */
  readonly memoryEntries?: number;
  readonly logger?: Logger;
  /** Wall clock in ms (entries outlive the process in SQLite). */
  readonly now?: () => number;
  /** Identical requests of the program's other processes share one upstream request (needs `store`). */
  readonly flights?: SharedFlights;
  /** Longest wait for another process's answer before asking the board anyway. Default 20 s. */
  readonly flightWaitMs?: number;
  /** How long a claim holds the key at most (a loader that died). Default 45 s (budget wait + a request). */
  readonly flightClaimMs?: number;
}

interface Flight {
  readonly promise: Promise<unknown>;
  readonly controller: AbortController;
  waiters: number;
  /** The answer came from another process's request (read from the shared store). */
  readonly remote: boolean;
}

export function createResponseCache(options: ResponseCacheOptions = {}): ResponseCache {
  const now = options.now ?? Date.now;
  const maxMemory = Math.max(0, options.memoryEntries ?? 500);
  const memory = new Map<string, Entry>();
  const inFlight = new Map<string, Flight>();
  const store = options.store;
  const flights = store === undefined ? undefined : options.flights;
  const flightWaitMs = options.flightWaitMs ?? 20_000;
  const flightClaimMs = options.flightClaimMs ?? 45_000;
  const seeder = createSeeder({ store, memory, remember, now, logger: options.logger });

  function remember(key: string, entry: Entry): void {
    if (maxMemory === 0) return;
    memory.delete(key);
    memory.set(key, entry);
    while (memory.size > maxMemory) {
      const oldest = memory.keys().next();
      if (oldest.done) break;
      memory.delete(oldest.value);
    }
  }

  function fromMemory(key: string): Entry | undefined {
    const entry = memory.get(key);
    if (!entry) return undefined;
    memory.delete(key);
    if (entry.until <= now()) return undefined;
    memory.set(key, entry); // most recently used goes last
    return entry;
  }

  async function fromStore(key: string): Promise<Entry | undefined> {
    if (!store) return undefined;
    try {
      const raw: unknown = await store.get(key);
      if (!isEntry(raw) || raw.until <= now()) return undefined;
      return raw;
    } catch (error) {
      options.logger?.warn({ err: error, key }, 'cache read failed; asking the site');
      return undefined;
    }
  }

  async function write(key: string, entry: Entry): Promise<void> {
    remember(key, entry);
    // The key's own answer supersedes a seed of it still on its way to the store: reads get the answer.
    seeder.supersede(key);
    if (!store) return;
    try {
      await store.set(key, entry, Math.max(1, entry.until - now()));
    } catch (error) {
      options.logger?.warn({ err: error, key }, 'cache write failed');
    }
  }

  function unwrap<T>(entry: Entry): T {
    if ('notFound' in entry) {
      const { site, message, path } = entry.notFound;
      throw new NotFoundError(message, { site, status: 404, ...(path === undefined ? {} : { path }) });
    }
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- CACHE_SCHEMA_VERSION: see the header
    return entry.value as T;
  }

  function join<T>(flight: Flight, signal: AbortSignal | undefined): Promise<T> {
    flight.waiters += 1;
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- CACHE_SCHEMA_VERSION: see the header
    if (!signal) return flight.promise as Promise<T>;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        flight.waiters -= 1;
        if (flight.waiters === 0) flight.controller.abort(signal.reason);
        reject(signal.reason);
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- CACHE_SCHEMA_VERSION: see the header
          resolve(value as T);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  function start<T>(
    key: string,
    load: (signal: AbortSignal) => Promise<T>,
    ttl: CacheFetchOptions<T>['ttlMs'],
    fresh: boolean,
    seeds: CacheFetchOptions<T>['seeds'],
  ): Flight {
    const controller = new AbortController();
    let remote = false;
    const promise = (async () => {
      // Yield once so the flight is registered before `load` can settle, even synchronously.
      await Promise.resolve();
      let token: string | undefined;
      if (flights !== undefined && !fresh) {
        try {
          const other = await awaitOthers(
            {
              backend: flights,
              read: fromStore,
              waitMs: flightWaitMs,
              claimMs: flightClaimMs,
              logger: options.logger,
            },
            key,
            controller.signal,
          );
          if (other.kind === 'entry') {
            remote = true;
            remember(key, other.entry);
            return unwrap<T>(other.entry);
          }
          if (other.kind === 'claimed') token = other.token;
        } catch (error) {
          inFlight.delete(key);
          throw error;
        } finally {
          if (remote) inFlight.delete(key);
        }
      }
      try {
        const value = await load(controller.signal);
        const ttlMs = typeof ttl === 'function' ? ttl(value) : ttl;
        if (ttlMs > 0) await write(key, { until: now() + ttlMs, value });
        // After the answer's own write, so the seeds' store work never queues in front of it.
        seeder.seed(seeder.seedsOf(seeds, value));
        return value;
      } catch (error) {
        if (error instanceof NotFoundError) {
          await write(key, {
            until: now() + NOT_FOUND_LIFETIME_MS,
            notFound: {
              site: error.site,
              message: error.message,
              ...(error.path === undefined ? {} : { path: error.path }),
            },
          });
        }
        throw error;
      } finally {
        inFlight.delete(key);
        // After the write: a process waiting on the claim reads the answer as soon as the claim is gone.
        if (token !== undefined) flights?.release(key, token).catch(() => undefined);
      }
    })();
    // Every caller may have left; the rejection is theirs to see, not an unhandled one.
    promise.catch(() => undefined);
    const flight: Flight = {
      promise,
      controller,
      waiters: 0,
      get remote() {
        return remote;
      },
    };
    inFlight.set(key, flight);
    return flight;
  }

  return {
    async fetch<T>(
      key: string,
      load: (signal: AbortSignal) => Promise<T>,
      fetchOptions: CacheFetchOptions<T>,
    ): Promise<CacheResult<T>> {
      const { signal } = fetchOptions;
      if (signal?.aborted) throw signal.reason;
      const shared = inFlight.get(key);
      if (shared) return { value: await join<T>(shared, signal), source: 'shared' };
      if (!fetchOptions.fresh) {
        const hot = fromMemory(key) ?? seeder.fromSeeding(key);
        if (hot) return { value: unwrap<T>(hot), source: 'memory' };
        const stored = await fromStore(key);
        if (stored) {
          remember(key, stored);
          return { value: unwrap<T>(stored), source: 'store' };
        }
        // Another caller may have started the request while we read the store.
        const late = inFlight.get(key);
        if (late) return { value: await join<T>(late, signal), source: 'shared' };
      }
      const flight = start(key, load, fetchOptions.ttlMs, fetchOptions.fresh === true, fetchOptions.seeds);
      const value = await join<T>(flight, signal);
      return { value, source: flight.remote ? 'shared' : 'miss' };
    },
    stats() {
      return { inFlight: inFlight.size, memoryEntries: memory.size };
    },
    idle: () => seeder.idle(),
  };
}
