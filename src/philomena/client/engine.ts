/**
 * The engine under every endpoint: the one `call` that builds the request, asks the response cache (which
 * coalesces and stores), sends through the transport (retries, budget, breaker), maps a non-2xx answer to
 * the library's errors and parses a 2xx body with the endpoint's zod schema. Endpoints (endpoints/*.ts) are
 * data for it: a path, a query, a schema, a `map` and a lifetime.
 *
 * The key goes only with an endpoint that says `auth`; the cache key of such a call carries a short hash of
 * the key, never the key. Errors and log lines carry the path with the key redacted.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { LIFETIMES, ResponseCache } from '../cache.js';
import { NEW_UPLOAD_MS } from '../cache.js';
import type { CallOptions, Page } from './types.js';
import {
  BadQueryError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  type PhilomenaErrorContext,
} from '../errors.js';
import { scrubError } from '../redact.js';
import { currentRequestContext } from '../request-context.js';
import { errorBodySchema, issuePath, type Image } from '../schemas.js';
import type { Site } from '../sites.js';
import type { StreamedBody, Transport, TransportRequest, TransportResponse } from '../transport.js';
import { CACHE_SCHEMA_VERSION } from './cache-version.js';
import { queryString, type Query } from './params.js';

export const API = '/api/v1/json';

export type Lifetimes = Record<keyof typeof LIFETIMES, number>;

/** One request of an endpoint, and what to make of its answer. */
export interface Endpoint<S extends z.ZodType, R> {
  /** Names the resource in cache keys and messages, e.g. `image`. */
  readonly resource: string;
  /** For messages: `image 123`. */
  readonly what: string;
  readonly path: string;
  readonly query?: Query;
  /** Whether the key goes along (the cache key then carries its hash). */
  readonly auth: boolean;
  readonly schema: S;
  readonly map: (body: z.output<S>) => R;
  /** Cache lifetime. */
  readonly ttlMs: number | ((value: R) => number);
  readonly method?: 'GET' | 'POST';
  readonly body?: StreamedBody;
  /** A stable description of the body for the cache key. */
  readonly bodyKey?: string;
  /** How the transport treats this request (one attempt, timeouts not the site's, its own timeout). */
  readonly transport?: Pick<TransportRequest, 'retry' | 'countTimeouts' | 'timeoutMs'>;
  /**
   * Answers of other endpoints this answer holds whole (`seedOf`), cached under their own keys when this
   * answer comes from the board. Only where the other endpoint answers exactly the same for the same
   * query, or a later call would be served something its own request would not have returned.
   */
  readonly seeds?: (value: R) => readonly Seed[];
}

/** The parts of an endpoint its cache key is made of. */
type Keyed = Pick<Endpoint<z.ZodType, unknown>, 'resource' | 'path' | 'query' | 'auth' | 'bodyKey'>;

/** Another endpoint's answer, with the lifetime that endpoint gives it. */
export interface Seed {
  readonly endpoint: Keyed;
  readonly value: unknown;
  readonly ttlMs: number;
}

/** `value` as `endpoint` would have answered it: cached under its key, for its lifetime. */
export function seedOf<S extends z.ZodType, R>(endpoint: Endpoint<S, R>, value: R): Seed {
  const ttlMs = typeof endpoint.ttlMs === 'function' ? endpoint.ttlMs(value) : endpoint.ttlMs;
  return { endpoint, value, ttlMs };
}

export interface EngineOptions {
  readonly site: Site;
  /** Already trimmed: undefined when there is none. */
  readonly apiKey: string | undefined;
  readonly redact: (text: string) => string;
  readonly transport: Transport;
  readonly cache: ResponseCache;
  readonly lifetimes: Lifetimes;
  readonly logger?: Logger;
  /** Wall clock in ms, to tell a new upload (its rating may still change) from an old one. */
  readonly wallNow: () => number;
}

export interface Engine {
  readonly site: Site;
  readonly lifetimes: Lifetimes;
  /** Through the cache: a success is stored for its lifetime, a 404 briefly, any other error never. */
  call<S extends z.ZodType, R>(endpoint: Endpoint<S, R>, options?: CallOptions): Promise<R>;
  /** Straight to the transport (nothing cached, nothing coalesced), with the caller's requester. */
  send(request: TransportRequest, options?: CallOptions): Promise<TransportResponse>;
  /** The body of a 2xx answer, as JSON, parsed with `schema`: an InvalidResponseError otherwise. */
  parseBody<S extends z.ZodType>(
    schema: S,
    response: TransportResponse,
    path: string,
    what: string,
  ): z.output<S>;
  /** The error for a non-2xx answer below 500 (the transport throws for 429 and 5xx). */
  failure(response: TransportResponse, path: string, what: string): Error;
  /** Error context for `path` (redacted). */
  context(path: string, status?: number): PhilomenaErrorContext;
  /** The key, or a ForbiddenError saying that `what` needs one. */
  requireKey(what: string): string;
  /**
   * The lifetime of an answer holding `images`: `base`, or `lifetimes.recentImage` when one of them was
   * uploaded within NEW_UPLOAD_MS. The rating (tags) is what lets a picture into a plain channel, and a new
   * upload's rating is often corrected within minutes; an old image keeps the normal lifetime. An
   * unreadable date counts as new (the short lifetime is the safe side); a deleted or merged stub shows no
   * picture.
   */
  ratingLifetime(base: number, images: readonly Image[]): number;
}

export function shortHash(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 16);
}

/** A page of `items` with the server's total (the count of items when an old server sends none). */
export function page<T>(items: readonly T[], total: number | undefined): Page<T> {
  return { items, total: total ?? items.length };
}

export function createEngine(options: EngineOptions): Engine {
  const { site, apiKey, redact, transport, cache, lifetimes, logger, wallNow } = options;
  const authMarker = apiKey === undefined ? 'anon' : `a=${shortHash(apiKey).slice(0, 8)}`;

  function context(path: string, status?: number): PhilomenaErrorContext {
    return { site: site.id, path: redact(path), ...(status === undefined ? {} : { status }) };
  }

  function fullPath(endpoint: { path: string; query?: Query; auth: boolean }): string {
    const query: Query = { ...endpoint.query, key: endpoint.auth ? apiKey : undefined };
    const qs = queryString(query);
    return qs === '' ? endpoint.path : `${endpoint.path}?${qs}`;
  }

  function cacheKey(endpoint: Keyed): string {
    const { filter_id: filterId, ...rest } = endpoint.query ?? {};
    let params = queryString(rest);
    if (endpoint.bodyKey) params = params === '' ? endpoint.bodyKey : `${params}&${endpoint.bodyKey}`;
    const id = endpoint.path.slice(API.length + 1);
    const described = params === '' ? id : `${id}?${params}`;
    // Long queries are hashed so keys stay short; short ones stay readable for whoever inspects the store.
    const part = described.length > 200 ? `h=${shortHash(described)}` : described;
    const filter = filterId === undefined ? 'default' : String(filterId);
    const auth = endpoint.auth ? authMarker : 'anon';
    return `philomena:${site.id}:v${CACHE_SCHEMA_VERSION}:${endpoint.resource}:${part}:f=${filter}:${auth}`;
  }

  function parseJson(response: TransportResponse, path: string): unknown {
    try {
      return JSON.parse(response.body) as unknown;
    } catch (error) {
      throw new InvalidResponseError(
        `${site.name} answered ${path.split('?')[0] ?? path} with something that is not JSON`,
        '(body)',
        // JSON.parse quotes the start of the body, which a hostile server could fill with the URL.
        { ...context(path, response.status), cause: scrubError(error, redact) },
      );
    }
  }

  function serverMessage(response: TransportResponse): string | undefined {
    if (response.body.trim() === '') return undefined;
    try {
      const parsed = errorBodySchema.safeParse(JSON.parse(response.body));
      if (parsed.success && 'error' in parsed.data) return redact(parsed.data.error);
    } catch {
      // An HTML or empty error page: the status says it all.
    }
    return undefined;
  }

  function failure(response: TransportResponse, path: string, what: string): Error {
    const { status } = response;
    const ctx = context(path, status);
    const message = serverMessage(response);
    if (status === 404) return new NotFoundError(`${what} not found on ${site.name}`, ctx);
    if (status === 401 || status === 403) {
      return new ForbiddenError(`${site.name} refused access to ${what} (HTTP ${status})`, ctx);
    }
    if (status >= 400) return new BadQueryError(message ?? `HTTP ${status}`, ctx);
    return new InvalidResponseError(`${site.name} answered ${what} with HTTP ${status}`, '(status)', ctx);
  }

  function parseBody<S extends z.ZodType>(
    schema: S,
    response: TransportResponse,
    path: string,
    what: string,
  ): z.output<S> {
    const result = schema.safeParse(parseJson(response, path));
    if (!result.success) {
      const field = issuePath(result.error);
      throw new InvalidResponseError(
        `${site.name} sent ${what} that does not fit the API at ${field}`,
        field,
        context(path, response.status),
      );
    }
    return result.data;
  }

  async function call<S extends z.ZodType, R>(
    endpoint: Endpoint<S, R>,
    callOptions: CallOptions = {},
  ): Promise<R> {
    const path = fullPath(endpoint);
    // Read now, in the caller's async context: a shared request runs with its first caller's.
    const requester = callOptions.requester ?? currentRequestContext();
    const load = async (signal: AbortSignal): Promise<R> => {
      const response = await transport.send({
        method: endpoint.method ?? 'GET',
        path,
        idempotent: true,
        signal,
        // Autocomplete is one attempt: its answer is due within 3 s, and a retry would only spend the
        // small share of the budget it has for the next keystroke.
        ...(requester?.priority === 'autocomplete' ? { retry: false } : {}),
        ...endpoint.transport,
        ...(endpoint.body ? { body: endpoint.body } : {}),
        ...(requester ? { requester } : {}),
      });
      if (response.status < 200 || response.status > 299) throw failure(response, path, endpoint.what);
      return endpoint.map(parseBody(endpoint.schema, response, path, endpoint.what));
    };
    const started = performance.now();
    const { signal } = callOptions;
    const key = cacheKey(endpoint);
    const { seeds } = endpoint;
    const result = await cache.fetch(key, load, {
      ttlMs: endpoint.ttlMs,
      ...(seeds
        ? {
            seeds: (value: R) =>
              seeds(value).map((s) => ({ key: cacheKey(s.endpoint), value: s.value, ttlMs: s.ttlMs })),
          }
        : {}),
      ...(callOptions.fresh ? { fresh: true } : {}),
      ...(signal ? { signal } : {}),
    });
    logger?.debug(
      {
        site: site.id,
        resource: endpoint.resource,
        path: redact(path),
        cache: result.source,
        ms: Math.round(performance.now() - started),
      },
      'philomena call',
    );
    return result.value;
  }

  function send(request: TransportRequest, callOptions: CallOptions = {}): Promise<TransportResponse> {
    const requester = callOptions.requester ?? currentRequestContext();
    return transport.send({
      ...request,
      ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      ...(requester ? { requester } : {}),
    });
  }

  function requireKey(what: string): string {
    if (apiKey === undefined) {
      throw new ForbiddenError(`${what} needs an API key for ${site.name}, and none is configured`, {
        site: site.id,
      });
    }
    return apiKey;
  }

  function ratingLifetime(base: number, images: readonly Image[]): number {
    const cutoff = wallNow() - NEW_UPLOAD_MS;
    const recent = images.some((image) => {
      if (image.kind !== 'image') return false;
      const uploaded = Date.parse(image.first_seen_at ?? image.created_at ?? '');
      return !(uploaded < cutoff);
    });
    return recent ? Math.min(base, lifetimes.recentImage) : base;
  }

  return { site, lifetimes, call, send, parseBody, failure, context, requireKey, ratingLifetime };
}
