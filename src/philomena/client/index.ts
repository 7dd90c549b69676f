/**
 * `createPhilomenaClient`: one typed method per endpoint of a Philomena site, over the transport (retries,
 * timeouts), the budget and breaker (politeness), and the response cache. This module wires them together;
 * the engine under every endpoint is client/engine.ts (call, parse, failure mapping, cache key), the
 * parameter checks client/params.ts, and the endpoints client/endpoints/*.ts. Every answer is parsed with
 * the zod schemas at this boundary and every URL in it made absolute https (urls.ts).
 *
 * Parameters are checked before anything is sent; a bad value throws a `RangeError` naming the parameter.
 *
 * The key lends the owner's account rights (`my:` fields, private filters, and a staff account's `ip:`,
 * `fingerprint:`, `true_uploader:` and deleted images) to whatever request carries it. So it goes only with
 * the two calls that act for the owner and take nothing from anyone else: `userFilters` (the owner's own
 * filter list) and `submitImage`. Every read, search, reverse search and filter lookup goes anonymously,
 * with an explicit `filter_id` where the caller has one: a query or URL a member typed never runs with the
 * owner's rights. Cache keys of keyed calls carry a short hash of the key, never the key. Errors and log
 * lines carry the path with the key redacted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Dispatcher } from 'undici';
import type Keyv from 'keyv';
import type { Logger } from 'pino';
import { createCircuitBreaker, type BreakerOptions, type CircuitBreaker } from '../breaker.js';
import {
  createRequestBudget,
  type BudgetOptions,
  type BudgetStats,
  type RequestBudget,
} from '../budget/index.js';
import { createResponseCache, LIFETIMES, type CacheSource, type ResponseCache } from '../cache.js';
import { API, createEngine, type Engine } from './engine.js';
import { commentEndpoints } from './endpoints/comments.js';
import { filterEndpoints } from './endpoints/filters.js';
import { forumEndpoints } from './endpoints/forums.js';
import { imageEndpoints } from './endpoints/images.js';
import { oembedEndpoints } from './endpoints/oembed.js';
import { profileEndpoints } from './endpoints/profiles.js';
import { tagEndpoints } from './endpoints/tags.js';
import { memberEngine, type MemberKeyOptions } from './member.js';
import type { PhilomenaClient, PhilomenaObserver } from './types.js';
import {
  InvalidResponseError,
  isPhilomenaError,
  NotFoundError,
  RateLimitedError,
  SiteBlockedError,
  SiteUnavailableError,
} from '../errors.js';
import { createRedactor } from '../redact.js';
import type { SharedSiteState } from '../shared-state.js';
import type { Site } from '../sites.js';
import { createTransport, type Transport, type TransportOptions } from '../transport.js';

export type TransportTuning = Pick<
  TransportOptions,
  | 'attemptTimeoutMs'
  | 'deadlineMs'
  | 'maxAttempts'
  | 'baseDelayMs'
  | 'maxDelayMs'
  | 'antiBotDelayMs'
  | 'pauseWaitMs'
  | 'maxBodyBytes'
> & {
  /**
   * The one attempt of a reverse search by URL (and at least its deadline). The board downloads the
   * member's URL before it answers, so this is longer than a plain attempt. Default 20 s.
   */
  readonly reverseUrlTimeoutMs?: number;
  /**
   * The one attempt of a reverse search by file (and at least its deadline). The board analyses the
   * member's picture before it answers (decoding all of it; ffmpeg for GIF and WebM), so a large or heavy
   * file takes long, and that time is the member's choice. Default 60 s.
   */
  readonly reverseFileTimeoutMs?: number;
  /**
   * The one attempt of an upload (and at least its deadline). The board downloads the member's URL inside
   * the request (docs/board-behaviour.md "Uploads"), so a large picture on a slow host takes long, and an
   * upload cut short may still land. Default 60 s.
   */
  readonly uploadTimeoutMs?: number;
};

/**
 * The largest file a Philomena board accepts: 131,072,000 bytes (125 MiB), the `image_size` bound of
 * `Philomena.Images.Image`'s upload changeset (lib/philomena/images/image.ex), the same in
 * philomena-dev/philomena and derpibooru/philomena (2026). The whole multipart request body is capped a
 * little higher, at 136,314,880 bytes (130 MiB, `Plug.Parsers` in lib/philomena_web/endpoint.ex), so a
 * file within this limit always fits in a reverse-search upload. A bot should cap its own downloads at
 * the smaller of this and its platform's attachment limit.
 */
export const BOARD_UPLOAD_MAX_BYTES = 131_072_000;

export interface PhilomenaClientOptions {
  readonly site: Site;
  /** The board API key of this site's account. */
  readonly apiKey?: string;
  /** A shared response cache (the registry passes one); else one is made over `store`. */
  readonly cache?: ResponseCache;
  /** The keyv store for a cache made here; without it the cache is in memory only. */
  readonly store?: Keyv;
  readonly logger?: Logger;
  /** Default: a keep-alive undici Agent owned (and closed) by this client. */
  readonly dispatcher?: Dispatcher;
  /** Names the caller to the site's operators; an application passes its own. Default `DEFAULT_USER_AGENT`. */
  readonly userAgent?: string;
  readonly transport?: TransportTuning;
  /** A budget object, or settings for this client's own (defaults 30/5 s overall, 20/10 s search). */
  readonly budget?: RequestBudget | Omit<BudgetOptions, 'site'>;
  /** A breaker object, or settings for this client's own. */
  readonly breaker?: CircuitBreaker | Omit<BreakerOptions, 'site'>;
  /**
   * The site's pauses and breaker openings shared with other processes (shared-state.ts), for the breaker
   * this client makes (a breaker object passed in brings its own).
   */
  readonly shared?: SharedSiteState;
  /** Overrides of the cache lifetimes (ms). */
  readonly lifetimes?: Partial<Record<keyof typeof LIFETIMES, number>>;
  /**
   * Cache each image an image search returns as `image(id)` with the search's filter would (its key, its
   * lifetime), so opening a result costs no board call. Default true; false for a before/after figure.
   */
  readonly seedImagesFromSearches?: boolean;
  /**
   * Told of board calls, cache layers and budget waits (the budget's only when the client makes its own).
   * Breaker state and queue depth are read from `stats()` instead, when someone asks.
   */
  readonly observer?: PhilomenaObserver;
  // Test seams.
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Monotonic clock in ms for transport, budget and breaker. */
  readonly now?: () => number;
  /** Wall clock in ms, to tell a new upload (its rating may still change) from an old one. */
  readonly wallNow?: () => number;
  /**
   * `apiKey` is this member's own (client/member.ts): every call carries it and is the member's in the
   * budget. registry.ts `memberClient` sets it and uses only the methods that should carry the key.
   */
  readonly member?: MemberKeyOptions;
}

export interface ClientStats {
  readonly budget: BudgetStats;
  readonly breaker: ReturnType<CircuitBreaker['state']>;
  readonly cache: ReturnType<ResponseCache['stats']>;
}

/** The client plus what its owner needs: figures for observability and a way to release sockets. */
export interface ManagedPhilomenaClient extends PhilomenaClient {
  stats(): ClientStats;
  close(): Promise<void>;
}

/**
 * A board call's status for figures: the HTTP status when the board answered, else what ended the call (a
 * short fixed word, never a message, so a label made of it stays low-cardinality).
 */
function callStatusOf(error: unknown): string {
  if (error instanceof InvalidResponseError) return 'invalid';
  if (error instanceof SiteUnavailableError && error.status === undefined) return error.reason;
  if (error instanceof SiteBlockedError) return 'blocked';
  if (error instanceof RateLimitedError && error.status === undefined) return 'rate-limited';
  if (isPhilomenaError(error) && error.status !== undefined) return String(error.status);
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))
    return 'aborted';
  return 'error';
}

/** The first segment of an API path (`images` of `/api/v1/json/images/1?x`): a name, never an id. */
function resourceOfPath(path: string): string {
  const rest = path.startsWith(`${API}/`) ? path.slice(API.length + 1) : path;
  return /^[a-z_]+/.exec(rest)?.[0] ?? 'other';
}

/** Figures only: an observer that throws must not fail or change a call. */
function tell(report: () => void): void {
  try {
    report();
  } catch {
    // Ignored on purpose.
  }
}

interface Observed {
  readonly transport: Transport;
  readonly cache: ResponseCache;
  /** Runs the engine's calls inside the endpoint they are for, so the two above can name it. */
  wrap(engine: Engine): Engine;
}

/**
 * The observer's hooks, kept outside the engine and the cache (whose code is fingerprinted with the cache
 * version, client/cache-version.ts): the engine runs each call inside its endpoint's name (async context),
 * the transport reports each request under that name, and the cache reports the layer an answer came from.
 * An answer the cache gives as an error tells its layer less directly: a request started by this call
 * failed (`miss`), another call's request failed (`shared`), or a remembered 404 (`memory`, the layer that
 * usually holds it).
 */
function observe(
  site: Site,
  observer: PhilomenaObserver,
  transport: Transport,
  cache: ResponseCache,
): Observed {
  const endpointOf = new AsyncLocalStorage<string>();
  const loadErrors = new WeakSet<object>();
  const cacheLookup = (endpoint: string, layer: CacheSource): void =>
    tell(() => observer.cacheLookup?.({ site: site.id, endpoint, layer }));
  return {
    transport: {
      close: () => transport.close(),
      async send(request) {
        if (observer.boardCall === undefined) return transport.send(request);
        const endpoint = endpointOf.getStore() ?? resourceOfPath(request.path);
        const started = performance.now();
        const report = (status: string): void =>
          tell(() =>
            observer.boardCall?.({
              site: site.id,
              endpoint,
              status,
              durationMs: performance.now() - started,
            }),
          );
        try {
          const response = await transport.send(request);
          report(String(response.status));
          return response;
        } catch (error) {
          report(callStatusOf(error));
          throw error;
        }
      },
    },
    cache: {
      stats: () => cache.stats(),
      idle: () => cache.idle(),
      async fetch(key, load, fetchOptions) {
        if (observer.cacheLookup === undefined) return cache.fetch(key, load, fetchOptions);
        const endpoint = endpointOf.getStore() ?? 'other';
        let loaded = false;
        const counted = async (signal: AbortSignal) => {
          loaded = true;
          try {
            return await load(signal);
          } catch (error) {
            if (typeof error === 'object' && error !== null) loadErrors.add(error);
            throw error;
          }
        };
        try {
          const result = await cache.fetch(key, counted, fetchOptions);
          cacheLookup(endpoint, result.source);
          return result;
        } catch (error) {
          if (loaded) cacheLookup(endpoint, 'miss');
          else if (typeof error === 'object' && error !== null && loadErrors.has(error))
            cacheLookup(endpoint, 'shared');
          else if (error instanceof NotFoundError) cacheLookup(endpoint, 'memory');
          throw error;
        }
      },
    },
    wrap(engine) {
      return {
        ...engine,
        call: (endpoint, callOptions) =>
          endpointOf.run(endpoint.resource, () => engine.call(endpoint, callOptions)),
        send: (request, callOptions) =>
          endpointOf.run(resourceOfPath(request.path), () => engine.send(request, callOptions)),
      };
    },
  };
}

/**
 * What the breaker adds around the transport (whose code stays the same either way): an attempt that
 * waited for its budget slot checks the site once more before it goes out (another call, or another
 * process, may have met a pause or the block meanwhile; the slot is then given back unused), and a call
 * that failed returns only once its pause or opening has reached the other processes.
 */
function sharedHolds(
  budget: RequestBudget,
  breaker: CircuitBreaker,
): { budget: RequestBudget; transport: (inner: Transport) => Transport } | undefined {
  const { admit, flush } = breaker;
  if (admit === undefined || flush === undefined) return undefined;
  return {
    budget: {
      stats: () => budget.stats(),
      async acquire(path, acquireOptions) {
        const slot = await budget.acquire(path, acquireOptions);
        try {
          await admit.call(breaker);
        } catch (error) {
          slot.release();
          throw error;
        }
        return slot;
      },
    },
    transport: (inner) => ({
      close: () => inner.close(),
      async send(request) {
        try {
          return await inner.send(request);
        } catch (error) {
          await flush.call(breaker);
          throw error;
        }
      },
    }),
  };
}

export function createPhilomenaClient(options: PhilomenaClientOptions): ManagedPhilomenaClient {
  const { site, logger } = options;
  const apiKey = options.apiKey?.trim() === '' ? undefined : options.apiKey;
  // A member client without a key would send the member's requests anonymously, under their name.
  if (options.member !== undefined && apiKey === undefined) {
    throw new RangeError('a member client needs a key');
  }
  const redact = createRedactor([apiKey]);
  const lifetimes = { ...LIFETIMES, ...options.lifetimes };
  const clock = options.now === undefined ? {} : { now: options.now };

  const budget: RequestBudget =
    options.budget && 'acquire' in options.budget
      ? options.budget
      : createRequestBudget({
          ...options.budget,
          ...clock,
          site: site.id,
          ...(options.observer ? { observer: options.observer } : {}),
        });
  const breaker: CircuitBreaker =
    options.breaker && 'enter' in options.breaker
      ? options.breaker
      : createCircuitBreaker({
          ...options.breaker,
          ...clock,
          ...(options.shared === undefined ? {} : { shared: options.shared }),
          site: site.id,
          siteName: site.name,
        });
  const cache =
    options.cache ??
    createResponseCache({
      ...(options.store ? { store: options.store } : {}),
      ...(logger ? { logger } : {}),
    });
  const {
    reverseUrlTimeoutMs = 20_000,
    reverseFileTimeoutMs = 60_000,
    uploadTimeoutMs = 60_000,
    ...transportTuning
  } = options.transport ?? {};
  const shared = sharedHolds(budget, breaker);
  const ownTransport: Transport = createTransport({
    ...transportTuning,
    site: site.id,
    baseUrl: site.baseUrl,
    budget: shared?.budget ?? budget,
    breaker,
    redact,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.userAgent ? { userAgent: options.userAgent } : {}),
    ...(logger ? { logger } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...clock,
  });
  const transport = shared?.transport(ownTransport) ?? ownTransport;
  const observed = options.observer && observe(site, options.observer, transport, cache);
  const rawEngine = createEngine({
    site,
    apiKey,
    redact,
    transport: observed?.transport ?? transport,
    cache: observed?.cache ?? cache,
    lifetimes,
    wallNow: options.wallNow ?? Date.now,
    ...(logger ? { logger } : {}),
  });
  const observedEngine = observed?.wrap(rawEngine) ?? rawEngine;
  const engine = options.member ? memberEngine(observedEngine, options.member) : observedEngine;

  const client: PhilomenaClient = {
    site,
    ...imageEndpoints(engine, {
      reverseUrlTimeoutMs,
      reverseFileTimeoutMs,
      uploadTimeoutMs,
      seedImagesFromSearches: options.seedImagesFromSearches ?? true,
    }),
    ...oembedEndpoints(engine),
    ...tagEndpoints(engine),
    ...commentEndpoints(engine),
    ...profileEndpoints(engine),
    ...filterEndpoints(engine),
    ...forumEndpoints(engine),
  };
  return {
    ...client,
    stats() {
      return { budget: budget.stats(), breaker: breaker.state(), cache: cache.stats() };
    },
    close() {
      return transport.close();
    },
  };
}
