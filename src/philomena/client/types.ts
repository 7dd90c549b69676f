/**
 * The contract of the Philomena client: what `createPhilomenaClient` (client/index.ts) returns. The bot and the
 * commands depend on this interface only, so tests can also hand them a client pointed at the local
 * Philomena.
 */
import type {
  Comment,
  Filter,
  Forum,
  Gallery,
  Image,
  ImageErrors,
  OEmbed,
  Post,
  Tag,
  Topic,
  User,
  VisibleImage,
} from '../schemas.js';
import type { CacheSource } from '../cache.js';
import type { RequestContext, RequestPriority } from '../request-context.js';
import type { Site } from '../sites.js';
import type { SortDirection, SortField } from './sort-fields.js';

/** The image search's sort fields and directions, from the one list the client checks them against. */
export type { SortDirection, SortField };

/** Per-call options every read accepts. */
export interface CallOptions {
  /** Aborts waiting (budget queue, retries, the request). */
  readonly signal?: AbortSignal;
  /** Skip the cache read (the fresh answer is still written). */
  readonly fresh?: boolean;
  /**
   * Who the call is for, so the site's budget is shared fairly (by priority, server and member). Wins
   * over the async context of `runWithRequestContext`; without either the call is anonymous and
   * `interactive`. A call that joins an identical one already in flight goes with that one's requester.
   */
  readonly requester?: RequestContext;
}

export interface FilterOption {
  /** The filter to apply; unset means the site's default (or the key owner's) filter. */
  readonly filterId?: number;
}

export interface PageOptions {
  /** 1-based. */
  readonly page?: number;
  /** 1..50. */
  readonly perPage?: number;
}

export interface SearchImagesOptions extends PageOptions, FilterOption, CallOptions {
  readonly q: string;
  readonly sf?: SortField;
  readonly sd?: SortDirection;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** The server's `total` (absent on very old servers: then the count of items). */
  readonly total: number;
}

/** A file streamed to the board as it is read, so memory per search stays a few chunks. */
export interface ReverseSearchUpload {
  /**
   * Opens the file's bytes; called only after the budget slot is granted, once per attempt. What it or the
   * stream throws (the download failed) reaches the caller as it was thrown: not retried, not counted
   * against the site, not cached. `signal` aborts when the attempt ends early.
   */
  open(signal: AbortSignal): Promise<AsyncIterable<Uint8Array>>;
  readonly filename: string;
  readonly contentType?: string;
  /** A stable identity of the file for the cache key and coalescing (e.g. the attachment URL without its query). */
  readonly key: string;
  /** Upper bound on bytes; the stream is cut and the call fails with a RangeError past it. */
  readonly maxBytes: number;
  /**
   * The exact size when known (a Discord attachment's `size`): the body is then sent with a Content-Length
   * instead of chunked, and a stream of another length fails the call with a RangeError.
   */
  readonly size?: number;
}

export type ReverseSearchInput =
  /** The board downloads the URL: one attempt, its own timeout, its slowness not counted against the site. */
  | { readonly url: string }
  | { readonly file: Uint8Array; readonly filename: string; readonly contentType?: string }
  | { readonly upload: ReverseSearchUpload };

export interface ReverseSearchOptions extends CallOptions {
  /** 0..1, default 0.25. */
  readonly distance?: number;
  /** 1..50, default 10. */
  readonly limit?: number;
}

export interface SubmitImageInput {
  readonly url: string;
  readonly description?: string;
  /** Comma-separated tags, a rating among them: required by the board (docs/board-behaviour.md). */
  readonly tagInput: string;
  readonly sourceUrl?: string;
}

export type SubmitImageResult =
  | { readonly ok: true; readonly image: Image }
  | {
      readonly ok: false;
      readonly errors: ImageErrors;
      /** The picture is on the site already (either wording: docs/board-behaviour.md, "Uploads"). */
      readonly duplicate: boolean;
      /** The image it already is, when the board names it (Philomena 1.1's wording); else undefined. */
      readonly duplicateOf: number | undefined;
    };

export interface PhilomenaClient {
  readonly site: Site;

  // images
  image(id: number, options?: FilterOption & CallOptions): Promise<Image>;
  featuredImage(options?: FilterOption & CallOptions): Promise<Image>;
  searchImages(options: SearchImagesOptions): Promise<Page<VisibleImage>>;
  reverseSearch(input: ReverseSearchInput, options?: ReverseSearchOptions): Promise<Page<Image>>;
  submitImage(input: SubmitImageInput, options?: CallOptions): Promise<SubmitImageResult>;
  oembed(url: string, options?: CallOptions): Promise<OEmbed>;

  // tags
  /** By name or slug; follows an alias to its target unless `followAlias: false`. */
  tag(nameOrSlug: string, options?: CallOptions & { readonly followAlias?: boolean }): Promise<Tag>;
  searchTags(options: PageOptions & CallOptions & { readonly q: string }): Promise<Page<Tag>>;

  // comments, posts, galleries
  comment(id: number, options?: CallOptions): Promise<Comment>;
  searchComments(options: PageOptions & CallOptions & { readonly q: string }): Promise<Page<Comment>>;
  post(id: number, options?: CallOptions): Promise<Post>;
  searchPosts(options: PageOptions & CallOptions & { readonly q: string }): Promise<Page<Post>>;
  searchGalleries(options: PageOptions & CallOptions & { readonly q: string }): Promise<Page<Gallery>>;

  // users
  profile(id: number, options?: CallOptions): Promise<User>;

  // filters
  filter(id: number, options?: CallOptions): Promise<Filter>;
  systemFilters(options?: PageOptions & CallOptions): Promise<Page<Filter>>;
  userFilters(options?: PageOptions & CallOptions): Promise<Page<Filter>>;
  searchFilters(options: PageOptions & CallOptions & { readonly q: string }): Promise<Page<Filter>>;

  // forums
  forums(options?: CallOptions): Promise<Page<Forum>>;
  forum(shortName: string, options?: CallOptions): Promise<Forum>;
  topics(forum: string, options?: PageOptions & CallOptions): Promise<Page<Topic>>;
  topic(forum: string, topicSlug: string, options?: CallOptions): Promise<Topic>;
  topicPosts(forum: string, topicSlug: string, options?: PageOptions & CallOptions): Promise<Page<Post>>;
  topicPost(forum: string, topicSlug: string, postId: number, options?: CallOptions): Promise<Post>;
}

/**
 * Events of the board clients, for whoever watches them (the bot's Prometheus metrics). Every field is
 * low-cardinality: a site id, a resource name such as `image` (never a path, query or id), a status. Each
 * method is optional and called synchronously; it must not throw (what it throws is ignored).
 */
export interface PhilomenaObserver {
  /** One request to the board (a cache miss that went upstream, or a write), once it settled. */
  boardCall?(event: BoardCallEvent): void;
  /**
   * Where a read's answer came from: the in-memory LRU, the store, an identical request already in flight
   * (`shared`: coalesced), or a miss (a request to the board).
   */
  cacheLookup?(event: CacheLookupEvent): void;
  /** A request asked the site's budget for a slot and got it, was refused, or gave up. */
  budgetWait?(event: BudgetWaitEvent): void;
}

export interface BoardCallEvent {
  readonly site: string;
  /** The endpoint's resource name: `image`, `images` (search), `tag`, `tags` (search), `reverse` ... */
  readonly endpoint: string;
  /**
   * The HTTP status (`200`, `404`, `429`, `503` ...), or what ended the call without an answer to count:
   * `timeout`, `network`, `circuit-open`, `budget-exhausted`, `rate-limited` (a pause we kept), `blocked`
   * (the board's anti-bot block, kept), `invalid` (a 2xx body that does not fit), `aborted`, `error`.
   */
  readonly status: string;
  readonly durationMs: number;
}

export interface CacheLookupEvent {
  readonly site: string;
  readonly endpoint: string;
  readonly layer: CacheSource;
}

export interface BudgetWaitEvent {
  readonly site: string;
  readonly priority: RequestPriority;
  /** `granted` (at once: 0 ms), `refused` (queue full, deadline passed, no autocomplete share), `aborted`. */
  readonly outcome: 'granted' | 'refused' | 'aborted';
  readonly waitedMs: number;
}
