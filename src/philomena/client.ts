/**
 * `createPhilomenaClient`: one typed method per endpoint of a Philomena site, over the transport (retries,
 * timeouts), the budget and breaker (politeness), and the response cache. Every answer is parsed with the
 * zod schemas at this boundary and every URL in it made absolute https (urls.ts).
 *
 * Parameters are checked before anything is sent: ids must be positive integers, `page` >= 1,
 * `perPage` 1..50, `distance` 0..1, `limit` 1..50, `sf`/`sd` one of the server's values. A bad value throws
 * a `RangeError` naming the parameter (a programming error: the commands bound user input already), rather
 * than being clamped silently.
 *
 * The key lends the owner's account rights (`my:` fields, private filters, and a staff account's `ip:`,
 * `fingerprint:`, `true_uploader:` and deleted images) to whatever request carries it. So it goes only with
 * the two calls that act for the owner and take nothing from anyone else: `userFilters` (the owner's own
 * filter list) and `submitImage`. Every read, search, reverse search and filter lookup goes anonymously,
 * with an explicit `filter_id` where the caller has one: a query or URL a member typed never runs with the
 * owner's rights. Cache keys of keyed calls carry a short hash of the key, never the key. Errors and log
 * lines carry the path with the key redacted.
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type Keyv from 'keyv';
import type { Logger } from 'pino';
import type { z } from 'zod';
import {
  BadQueryError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  type PhilomenaErrorContext,
} from './errors.js';
import { createRedactor, scrubError } from './redact.js';
import { createCircuitBreaker, type BreakerOptions, type CircuitBreaker } from './breaker.js';
import { createRequestBudget, type BudgetOptions, type BudgetStats, type RequestBudget } from './budget.js';
import { createResponseCache, LIFETIMES, NEW_UPLOAD_MS, type ResponseCache } from './cache.js';
import type {
  FilterOption,
  Page,
  PageOptions,
  PhilomenaClient,
  ReverseSearchInput,
  ReverseSearchOptions,
  SortField,
  SubmitImageInput,
  SubmitImageResult,
  CallOptions,
} from './client-types.js';
import { currentRequestContext } from './request-context.js';
import {
  commentResponseSchema,
  commentsResponseSchema,
  errorBodySchema,
  filterResponseSchema,
  filtersResponseSchema,
  forumResponseSchema,
  forumsResponseSchema,
  galleriesResponseSchema,
  imageResponseSchema,
  imagesResponseSchema,
  issuePath,
  oembedSchema,
  postResponseSchema,
  postsResponseSchema,
  submitImageResponseSchema,
  tagResponseSchema,
  tagsResponseSchema,
  topicResponseSchema,
  topicsResponseSchema,
  userResponseSchema,
  type Image,
  type OEmbed,
  type Tag,
  type VisibleImage,
} from './schemas.js';
import type { Site } from './sites.js';
import { tagPath, tagSlug } from './tags.js';
import {
  createTransport,
  multipartFileBody,
  type StreamedBody,
  type Transport,
  type TransportOptions,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';
import {
  absolutiseAvatar,
  absolutiseImage,
  absolutiseTag,
  absolutiseUser,
  httpsUrl,
  sourceLink,
} from './urls.js';

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

/** Chunks the `{ file }` form is sent in: views of the caller's bytes, never copies. */
const FILE_CHUNK_BYTES = 64 * 1024;

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

const API = '/api/v1/json';

const SORT_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'updated_at',
  'first_seen_at',
  'aspect_ratio',
  'faves',
  'downvotes',
  'upvotes',
  'width',
  'height',
  'score',
  'comment_count',
  'tag_count',
  'wilson_score',
  'pixels',
  'size',
  'duration',
  '_score',
  'random',
]);

function isSortField(value: string): value is SortField {
  return SORT_FIELDS.has(value) || /^(?:random|gallery_id):\d+$/.test(value);
}

/** Image ids start at 0 (Derpibooru's first upload is image 0); every other id starts at 1. */
function imageId(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`image id must be a whole number from 0, got ${String(value)}`);
  }
  return value;
}

function positiveInt(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function inRange(name: string, value: number, min: number, max: number, integer: boolean): number {
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new RangeError(
      `${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${String(value)}`,
    );
  }
  return value;
}

function text(name: string, value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  return value;
}

function segment(name: string, value: string): string {
  if (text(name, value).trim() === '') throw new RangeError(`${name} must not be empty`);
  return encodeURIComponent(value.toWellFormed());
}

type Query = Record<string, string | number | undefined>;

function pageQuery(options: PageOptions | undefined): Query {
  return {
    page: options?.page === undefined ? undefined : positiveInt('page', options.page),
    per_page: options?.perPage === undefined ? undefined : inRange('perPage', options.perPage, 1, 50, true),
  };
}

function shortHash(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 16);
}

async function* fileChunks(file: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < file.byteLength; at += FILE_CHUNK_BYTES) {
    yield file.subarray(at, at + FILE_CHUNK_BYTES);
  }
}

function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.append(name, String(value));
  }
  return params.toString();
}

interface Endpoint<S extends z.ZodType, R> {
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
}

export function createPhilomenaClient(options: PhilomenaClientOptions): ManagedPhilomenaClient {
  const { site, logger } = options;
  const apiKey = options.apiKey?.trim() === '' ? undefined : options.apiKey;
  const redact = createRedactor([apiKey]);
  const authMarker = apiKey === undefined ? 'anon' : `a=${shortHash(apiKey).slice(0, 8)}`;
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

  function context(path: string, status?: number): PhilomenaErrorContext {
    return { site: site.id, path: redact(path), ...(status === undefined ? {} : { status }) };
  }

  function fullPath(endpoint: { path: string; query?: Query; auth: boolean }): string {
    const query: Query = { ...endpoint.query, key: endpoint.auth ? apiKey : undefined };
    const qs = queryString(query);
    return qs === '' ? endpoint.path : `${endpoint.path}?${qs}`;
  }

  function cacheKey(endpoint: Endpoint<z.ZodType, unknown>): string {
    const { filter_id: filterId, ...rest } = endpoint.query ?? {};
    let params = queryString(rest);
    if (endpoint.bodyKey) params = params === '' ? endpoint.bodyKey : `${params}&${endpoint.bodyKey}`;
    const id = endpoint.path.slice(API.length + 1);
    const described = params === '' ? id : `${id}?${params}`;
    // Long queries are hashed so keys stay short; short ones stay readable for whoever inspects the store.
    const part = described.length > 200 ? `h=${shortHash(described)}` : described;
    const filter = filterId === undefined ? 'default' : String(filterId);
    return `philomena:${site.id}:${endpoint.resource}:${part}:f=${filter}:${endpoint.auth ? authMarker : 'anon'}`;
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

  /** Maps a non-2xx answer below 500 (the transport throws for 429 and 5xx). */
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

  function parse<S extends z.ZodType>(
    schema: S,
    body: unknown,
    path: string,
    status: number,
    what: string,
  ): z.output<S> {
    const result = schema.safeParse(body);
    if (!result.success) {
      const field = issuePath(result.error);
      throw new InvalidResponseError(
        `${site.name} sent ${what} that does not fit the API at ${field}`,
        field,
        context(path, status),
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
      const body = parseJson(response, path);
      return endpoint.map(parse(endpoint.schema, body, path, response.status, endpoint.what));
    };
    const started = performance.now();
    const { signal } = callOptions;
    const key = cacheKey(endpoint as Endpoint<z.ZodType, unknown>);
    const result = await cache.fetch(key, load, {
      ttlMs: endpoint.ttlMs,
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

  const page = <T>(items: readonly T[], total: number | undefined): Page<T> => ({
    items,
    total: total ?? items.length,
  });

  const imageQuery = (filter: FilterOption | undefined): Query => ({
    filter_id: filter?.filterId === undefined ? undefined : positiveInt('filterId', filter.filterId),
  });

  const fixImage = <T extends Image>(image: T): T => absolutiseImage(image, site);

  const wallNow = options.wallNow ?? Date.now;
  /**
   * The lifetime of an answer holding `images`: `base`, or `lifetimes.recentImage` when one of them was
   * uploaded within NEW_UPLOAD_MS. The rating (tags) is what lets a picture into a plain channel, and a new
   * upload's rating is often corrected within minutes; an old image keeps the normal lifetime. An unreadable
   * date counts as new (the short lifetime is the safe side); a deleted or merged stub shows no picture.
   */
  function ratingLifetime(base: number, images: readonly Image[]): number {
    const cutoff = wallNow() - NEW_UPLOAD_MS;
    const recent = images.some((image) => {
      if (image.kind !== 'image') return false;
      const uploaded = Date.parse(image.first_seen_at ?? image.created_at ?? '');
      return !(uploaded < cutoff);
    });
    return recent ? Math.min(base, lifetimes.recentImage) : base;
  }

  function requireKey(what: string): string {
    if (apiKey === undefined) {
      throw new ForbiddenError(`${what} needs an API key for ${site.name}, and none is configured`, {
        site: site.id,
      });
    }
    return apiKey;
  }

  async function tagBySlugPath(encoded: string, options: CallOptions): Promise<Tag> {
    return call(
      {
        resource: 'tag',
        what: `tag ${decodeURIComponent(encoded)}`,
        path: `${API}/tags/${encoded}`,
        auth: false,
        schema: tagResponseSchema,
        map: (body) => absolutiseTag(body.tag, site),
        ttlMs: lifetimes.tag,
      },
      options,
    );
  }

  const client: ManagedPhilomenaClient = {
    site,

    async image(id, options = {}) {
      imageId(id);
      return call(
        {
          resource: 'image',
          what: `image ${id}`,
          path: `${API}/images/${id}`,
          query: imageQuery(options),
          auth: false,
          schema: imageResponseSchema,
          map: (body) => fixImage(body.image),
          ttlMs: (image) => ratingLifetime(lifetimes.image, [image]),
        },
        options,
      );
    },

    async featuredImage(options = {}) {
      return call(
        {
          resource: 'featured',
          what: 'the featured image',
          path: `${API}/images/featured`,
          query: imageQuery(options),
          auth: false,
          schema: imageResponseSchema,
          map: (body) => fixImage(body.image),
          ttlMs: (image) => ratingLifetime(lifetimes.featured, [image]),
        },
        options,
      );
    },

    async searchImages(options) {
      const q = text('q', options.q);
      if (options.sf !== undefined && !isSortField(options.sf)) {
        throw new RangeError(`sf must be a sort field of the server, got ${String(options.sf)}`);
      }
      if (options.sd !== undefined && options.sd !== 'asc' && options.sd !== 'desc') {
        throw new RangeError(`sd must be asc or desc, got ${String(options.sd)}`);
      }
      return call(
        {
          resource: 'images',
          what: 'the image search',
          path: `${API}/search/images`,
          query: { q, ...pageQuery(options), sf: options.sf, sd: options.sd, ...imageQuery(options) },
          auth: false,
          schema: imagesResponseSchema,
          // Search never lists deleted images; a stub that slips through has nothing to show.
          map: (body): Page<VisibleImage> =>
            page(
              body.images.filter((image): image is VisibleImage => image.kind === 'image').map(fixImage),
              body.total,
            ),
          ttlMs: (result) => ratingLifetime(lifetimes.imageSearch, result.items),
        },
        options,
      );
    },

    async reverseSearch(input: ReverseSearchInput, options: ReverseSearchOptions = {}) {
      const query: Query = {
        distance:
          options.distance === undefined ? undefined : inRange('distance', options.distance, 0, 1, false),
        limit: options.limit === undefined ? undefined : inRange('limit', options.limit, 1, 50, true),
      };
      const common = {
        resource: 'reverse',
        what: 'the reverse search',
        path: `${API}/search/reverse`,
        auth: false,
        method: 'POST' as const,
        schema: imagesResponseSchema,
        map: (body: z.output<typeof imagesResponseSchema>): Page<Image> =>
          page(body.images.map(fixImage), body.total),
        ttlMs: (result: Page<Image>) => ratingLifetime(lifetimes.reverseSearch, result.items),
      };
      if ('url' in input) {
        const url = text('url', input.url);
        if (!/^https?:\/\//i.test(url.trim())) throw new RangeError('the image URL must be http(s)');
        return call(
          {
            ...common,
            query: { url: url.trim(), ...query },
            // The board downloads the member's URL before it answers, and a member can make that as slow
            // as they like: one attempt, with its own timeout, and no timeout or network error of it
            // counted against the site (a 5xx still is). Otherwise two slow URLs open the breaker for
            // every server (review M3).
            transport: { retry: false, countTimeouts: false, timeoutMs: reverseUrlTimeoutMs },
          },
          options,
        );
      }
      if ('upload' in input) {
        const { upload } = input;
        const key = text('upload.key', upload.key);
        if (key === '') throw new RangeError('upload.key must not be empty');
        const maxBytes = positiveInt('upload.maxBytes', upload.maxBytes);
        const size = upload.size === undefined ? undefined : positiveInt('upload.size', upload.size);
        if (size !== undefined && size > maxBytes) {
          throw new RangeError(`the file has ${size} bytes, over upload.maxBytes (${maxBytes})`);
        }
        if (typeof upload.open !== 'function') throw new TypeError('upload.open must be a function');
        return call(
          {
            ...common,
            query,
            bodyKey: `upload=${shortHash(key)}`,
            body: multipartFileBody({
              field: 'image[image]',
              filename: text('upload.filename', upload.filename),
              contentType: upload.contentType ?? 'application/octet-stream',
              maxBytes,
              ...(size === undefined ? {} : { size }),
              open: (signal) => upload.open(signal),
            }),
          },
          options,
        );
      }
      if (!(input.file instanceof Uint8Array) || input.file.byteLength === 0) {
        throw new RangeError('the image file must be a non-empty Uint8Array');
      }
      const { file } = input;
      return call(
        {
          ...common,
          query,
          bodyKey: `file=${shortHash(file)}`,
          body: multipartFileBody({
            field: 'image[image]',
            filename: text('filename', input.filename),
            contentType: input.contentType ?? 'application/octet-stream',
            size: file.byteLength,
            // Views of the caller's bytes: nothing is copied, whatever the attempts.
            open: () => Promise.resolve(fileChunks(file)),
          }),
        },
        options,
      );
    },

    async submitImage(input: SubmitImageInput, options: CallOptions = {}): Promise<SubmitImageResult> {
      const key = requireKey('submitting an image');
      const url = text('url', input.url).trim();
      if (!/^https?:\/\//i.test(url)) throw new RangeError('the image URL must be http(s)');
      const path = `${API}/images?${queryString({ key })}`;
      const body = JSON.stringify({
        url,
        image: {
          ...(input.description === undefined ? {} : { description: input.description }),
          ...(input.tagInput === undefined ? {} : { tag_input: input.tagInput }),
          ...(input.sourceUrl === undefined ? {} : { source_url: input.sourceUrl }),
        },
      });
      const requester = options.requester ?? currentRequestContext();
      // Never retried: a second POST could upload twice.
      const response = await transport.send({
        method: 'POST',
        path,
        body,
        idempotent: false,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(requester ? { requester } : {}),
      });
      const what = 'the image submission';
      const isJson = response.body.trim().startsWith('{');
      if (
        (response.status >= 200 && response.status < 300) ||
        (response.status === 400 && isJson && /"errors"/.test(response.body))
      ) {
        const parsed = parse(
          submitImageResponseSchema,
          parseJson(response, path),
          path,
          response.status,
          what,
        );
        if ('image' in parsed) return { ok: true, image: fixImage(parsed.image) };
        const duplicate = (parsed.errors.image_orig_sha512_hash ?? []).some((m) =>
          m.includes('has already been taken'),
        );
        return { ok: false, errors: parsed.errors, duplicate };
      }
      throw failure(response, path, what);
    },

    async oembed(url, options = {}) {
      const target = text('url', url).trim();
      if (target === '') throw new RangeError('url must not be empty');
      return call(
        {
          resource: 'oembed',
          what: 'the oEmbed of that URL',
          path: `${API}/oembed`,
          query: { url: target },
          auth: false,
          schema: oembedSchema,
          map: (body): OEmbed => ({
            ...body,
            author_url: sourceLink(body.author_url),
            thumbnail_url: httpsUrl(body.thumbnail_url, site),
            url: httpsUrl(body.url, site),
            provider_url: httpsUrl(body.provider_url, site) ?? site.baseUrl,
          }),
          ttlMs: (value) => value.cache_age * 1000,
        },
        options,
      );
    },

    async tag(nameOrSlug, options = {}) {
      const input = text('tag', nameOrSlug).trim();
      if (input === '') throw new RangeError('the tag name must not be empty');
      const primary = tagPath(input);
      let tag: Tag;
      try {
        tag = await tagBySlugPath(primary, options);
      } catch (error) {
        // A name that happens to look like a slug (`c++`) was read as one: try it as a name.
        const alternate = tagPath(tagSlug(input));
        if (!(error instanceof NotFoundError) || alternate === primary) throw error;
        tag = await tagBySlugPath(alternate, options);
      }
      if (options.followAlias === false) return tag;
      const seen = new Set<string>([tag.slug]);
      while (tag.aliased_tag !== null && tag.aliased_tag !== '') {
        if (seen.has(tag.aliased_tag) || seen.size > 5) {
          throw new InvalidResponseError(
            `${site.name} has an alias loop at tag ${tag.name}`,
            'tag.aliased_tag',
            context(`${API}/tags/${tagPath(tag.aliased_tag)}`),
          );
        }
        seen.add(tag.aliased_tag);
        tag = await tagBySlugPath(tagPath(tag.aliased_tag), options);
      }
      return tag;
    },

    async searchTags(options) {
      return call(
        {
          resource: 'tags',
          what: 'the tag search',
          path: `${API}/search/tags`,
          query: { q: text('q', options.q), ...pageQuery(options) },
          auth: false,
          schema: tagsResponseSchema,
          map: (body) =>
            page(
              body.tags.map((tag) => absolutiseTag(tag, site)),
              body.total,
            ),
          ttlMs: lifetimes.tagSearch,
        },
        options,
      );
    },

    async comment(id, options = {}) {
      positiveInt('comment id', id);
      return call(
        {
          resource: 'comment',
          what: `comment ${id}`,
          path: `${API}/comments/${id}`,
          auth: false,
          schema: commentResponseSchema,
          map: (body) => absolutiseAvatar(body.comment, site),
          ttlMs: lifetimes.comment,
        },
        options,
      );
    },

    async searchComments(options) {
      return call(
        {
          resource: 'comments',
          what: 'the comment search',
          path: `${API}/search/comments`,
          query: { q: text('q', options.q), ...pageQuery(options) },
          auth: false,
          schema: commentsResponseSchema,
          map: (body) =>
            page(
              body.comments.map((c) => absolutiseAvatar(c, site)),
              body.total,
            ),
          ttlMs: lifetimes.commentSearch,
        },
        options,
      );
    },

    async post(id, options = {}) {
      positiveInt('post id', id);
      return call(
        {
          resource: 'post',
          what: `post ${id}`,
          path: `${API}/posts/${id}`,
          auth: false,
          schema: postResponseSchema,
          map: (body) => absolutiseAvatar(body.post, site),
          ttlMs: lifetimes.post,
        },
        options,
      );
    },

    async searchPosts(options) {
      return call(
        {
          resource: 'posts',
          what: 'the post search',
          path: `${API}/search/posts`,
          query: { q: text('q', options.q), ...pageQuery(options) },
          auth: false,
          schema: postsResponseSchema,
          map: (body) =>
            page(
              body.posts.map((p) => absolutiseAvatar(p, site)),
              body.total,
            ),
          ttlMs: lifetimes.postSearch,
        },
        options,
      );
    },

    async searchGalleries(options) {
      return call(
        {
          resource: 'galleries',
          what: 'the gallery search',
          path: `${API}/search/galleries`,
          query: { q: text('q', options.q), ...pageQuery(options) },
          auth: false,
          schema: galleriesResponseSchema,
          map: (body) => page(body.galleries, body.total),
          ttlMs: lifetimes.gallerySearch,
        },
        options,
      );
    },

    async profile(id, options = {}) {
      positiveInt('profile id', id);
      return call(
        {
          resource: 'profile',
          what: `profile ${id}`,
          path: `${API}/profiles/${id}`,
          auth: false,
          schema: userResponseSchema,
          map: (body) => absolutiseUser(body.user, site),
          ttlMs: lifetimes.profile,
        },
        options,
      );
    },

    async filter(id, options = {}) {
      positiveInt('filter id', id);
      return call(
        {
          resource: 'filter',
          what: `filter ${id}`,
          path: `${API}/filters/${id}`,
          auth: false,
          schema: filterResponseSchema,
          map: (body) => body.filter,
          ttlMs: lifetimes.filter,
        },
        options,
      );
    },

    async systemFilters(options = {}) {
      return call(
        {
          resource: 'system-filters',
          what: 'the system filters',
          path: `${API}/filters/system`,
          query: pageQuery(options),
          auth: false,
          schema: filtersResponseSchema,
          map: (body) => page(body.filters, body.total),
          ttlMs: lifetimes.systemFilters,
        },
        options,
      );
    },

    async userFilters(options = {}) {
      requireKey("listing the key owner's filters");
      return call(
        {
          resource: 'user-filters',
          what: 'your filters',
          path: `${API}/filters/user`,
          query: pageQuery(options),
          auth: true,
          schema: filtersResponseSchema,
          map: (body) => page(body.filters, body.total),
          ttlMs: lifetimes.userFilters,
        },
        options,
      );
    },

    async searchFilters(options) {
      return call(
        {
          resource: 'filters',
          what: 'the filter search',
          path: `${API}/search/filters`,
          query: { q: text('q', options.q), ...pageQuery(options) },
          auth: false,
          schema: filtersResponseSchema,
          map: (body) => page(body.filters, body.total),
          ttlMs: lifetimes.filterSearch,
        },
        options,
      );
    },

    async forums(options = {}) {
      return call(
        {
          resource: 'forums',
          what: 'the forums',
          path: `${API}/forums`,
          auth: false,
          schema: forumsResponseSchema,
          map: (body) => page(body.forums, body.total),
          ttlMs: lifetimes.forums,
        },
        options,
      );
    },

    async forum(shortName, options = {}) {
      const forum = segment('forum', shortName);
      return call(
        {
          resource: 'forum',
          what: `forum ${shortName}`,
          path: `${API}/forums/${forum}`,
          auth: false,
          schema: forumResponseSchema,
          map: (body) => body.forum,
          ttlMs: lifetimes.forum,
        },
        options,
      );
    },

    async topics(forumName, options = {}) {
      const forum = segment('forum', forumName);
      return call(
        {
          resource: 'topics',
          what: `the topics of forum ${forumName}`,
          path: `${API}/forums/${forum}/topics`,
          query: pageQuery(options),
          auth: false,
          schema: topicsResponseSchema,
          map: (body) => page(body.topics, body.total),
          ttlMs: lifetimes.topics,
        },
        options,
      );
    },

    async topic(forumName, topicSlug, options = {}) {
      const forum = segment('forum', forumName);
      const topic = segment('topic', topicSlug);
      return call(
        {
          resource: 'topic',
          what: `topic ${topicSlug}`,
          path: `${API}/forums/${forum}/topics/${topic}`,
          auth: false,
          schema: topicResponseSchema,
          map: (body) => body.topic,
          ttlMs: lifetimes.topic,
        },
        options,
      );
    },

    async topicPosts(forumName, topicSlug, options = {}) {
      const forum = segment('forum', forumName);
      const topic = segment('topic', topicSlug);
      return call(
        {
          resource: 'topic-posts',
          what: `the posts of topic ${topicSlug}`,
          path: `${API}/forums/${forum}/topics/${topic}/posts`,
          query: pageQuery(options),
          auth: false,
          schema: postsResponseSchema,
          map: (body) =>
            page(
              body.posts.map((p) => absolutiseAvatar(p, site)),
              body.total,
            ),
          ttlMs: lifetimes.topicPosts,
        },
        options,
      );
    },

    async topicPost(forumName, topicSlug, postId, options = {}) {
      const forum = segment('forum', forumName);
      const topic = segment('topic', topicSlug);
      positiveInt('post id', postId);
      return call(
        {
          resource: 'topic-post',
          what: `post ${postId}`,
          path: `${API}/forums/${forum}/topics/${topic}/posts/${postId}`,
          auth: false,
          schema: postResponseSchema,
          map: (body) => absolutiseAvatar(body.post, site),
          ttlMs: lifetimes.post,
        },
        options,
      );
    },

    stats() {
      return { budget: budget.stats(), breaker: breaker.state(), cache: cache.stats() };
    },

    close() {
      return transport.close();
    },
  };
  return client;
}
