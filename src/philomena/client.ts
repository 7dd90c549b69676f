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
import type { Dispatcher } from 'undici';
import type Keyv from 'keyv';
import type { Logger } from 'pino';
import { createCircuitBreaker, type BreakerOptions, type CircuitBreaker } from './breaker.js';
import { createRequestBudget, type BudgetOptions, type BudgetStats, type RequestBudget } from './budget.js';
import { createResponseCache, LIFETIMES, type ResponseCache } from './cache.js';
import { createEngine } from './client/engine.js';
import { commentEndpoints } from './client/endpoints/comments.js';
import { filterEndpoints } from './client/endpoints/filters.js';
import { forumEndpoints } from './client/endpoints/forums.js';
import { imageEndpoints } from './client/endpoints/images.js';
import { oembedEndpoints } from './client/endpoints/oembed.js';
import { profileEndpoints } from './client/endpoints/profiles.js';
import { tagEndpoints } from './client/endpoints/tags.js';
import type { PhilomenaClient } from './client-types.js';
import { createRedactor } from './redact.js';
import type { Site } from './sites.js';
import { createTransport, type Transport, type TransportOptions } from './transport.js';

export type TransportTuning = Pick<
  TransportOptions,
  | 'attemptTimeoutMs'
  | 'deadlineMs'
  | 'maxAttempts'
  | 'baseDelayMs'
  | 'maxDelayMs'
  | 'antiBotDelayMs'
  | 'maxBodyBytes'
> & {
  /**
   * The one attempt of a reverse search by URL (and at least its deadline). The board downloads the
   * member's URL before it answers, so this is longer than a plain attempt. Default 20 s.
   */
  readonly reverseUrlTimeoutMs?: number;
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
  /** Default `philomena-bot/<version> (Discord bot for Philomena image boards)`. */
  readonly userAgent?: string;
  readonly transport?: TransportTuning;
  /** A budget object, or settings for this client's own (defaults 30/5 s overall, 20/10 s search). */
  readonly budget?: RequestBudget | Omit<BudgetOptions, 'site'>;
  /** A breaker object, or settings for this client's own. */
  readonly breaker?: CircuitBreaker | Omit<BreakerOptions, 'site'>;
  /** Overrides of the cache lifetimes (ms). */
  readonly lifetimes?: Partial<Record<keyof typeof LIFETIMES, number>>;
  // Test seams.
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Monotonic clock in ms for transport, budget and breaker. */
  readonly now?: () => number;
  /** Wall clock in ms, to tell a new upload (its rating may still change) from an old one. */
  readonly wallNow?: () => number;
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

export function createPhilomenaClient(options: PhilomenaClientOptions): ManagedPhilomenaClient {
  const { site, logger } = options;
  const apiKey = options.apiKey?.trim() === '' ? undefined : options.apiKey;
  const redact = createRedactor([apiKey]);
  const lifetimes = { ...LIFETIMES, ...options.lifetimes };
  const clock = options.now === undefined ? {} : { now: options.now };

  const budget: RequestBudget =
    options.budget && 'acquire' in options.budget
      ? options.budget
      : createRequestBudget({ ...options.budget, ...clock, site: site.id });
  const breaker: CircuitBreaker =
    options.breaker && 'enter' in options.breaker
      ? options.breaker
      : createCircuitBreaker({ ...options.breaker, ...clock, site: site.id });
  const cache =
    options.cache ??
    createResponseCache({
      ...(options.store ? { store: options.store } : {}),
      ...(logger ? { logger } : {}),
    });
  const { reverseUrlTimeoutMs = 20_000, ...transportTuning } = options.transport ?? {};
  const transport: Transport = createTransport({
    ...transportTuning,
    site: site.id,
    baseUrl: site.baseUrl,
    budget,
    breaker,
    redact,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.userAgent ? { userAgent: options.userAgent } : {}),
    ...(logger ? { logger } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...clock,
  });
  const engine = createEngine({
    site,
    apiKey,
    redact,
    transport,
    cache,
    lifetimes,
    wallNow: options.wallNow ?? Date.now,
    ...(logger ? { logger } : {}),
  });

  const client: PhilomenaClient = {
    site,
    ...imageEndpoints(engine, { reverseUrlTimeoutMs }),
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
