/**
 * The local Philomena: a node:http server on 127.0.0.1 that answers the JSON API like Derpibooru 1.2 (or
 * upstream master, `errorStyle: 'upstream'`) does, serves its own image files under `/img/...`, records
 * every request and lets a test inject faults. Behaviour follows ../../../../shared/philomena-behaviour.md.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { baseTag, createDataset, FAKE_KEY, FILTER_IDS, OWNER, tagSlugOf } from './data.js';
import type { Dataset, FilterRecord, ImageRecord, UserRecord } from './data.js';
import { answerFault, createFaultTable } from './faults.js';
import type { FaultRule } from './faults.js';
import { fileBytes, isFileExtension, MIME_TYPES, sha512 } from './files.js';
import type { FileExtension } from './files.js';
import { QueryError, queryPredicate } from './query.js';
import type { Predicate, QueryContext, SearchSchema } from './query.js';
import {
  commentJson,
  commentSearchSchema,
  datePath,
  filterJson,
  filterSearchSchema,
  galleryJson,
  gallerySearchSchema,
  imageJson,
  imageSearchSchema,
  indexTags,
  postJson,
  postSearchSchema,
  representationExtension,
  tagJson,
  tagSearchSchema,
  topicJson,
  userJson,
  wilsonScore,
} from './render.js';
import type { ErrorStyle, RenderContext, TagIndex } from './render.js';

export interface FakePhilomenaOptions {
  port?: number;
  errorStyle?: ErrorStyle;
  latencyMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  at: number;
}

export interface FakePhilomena {
  readonly url: string;
  readonly requests: RecordedRequest[];
  inject(rule: FaultRule): void;
  clearFaults(): void;
  setErrorStyle(style: ErrorStyle): void;
  setLatency(ms: number): void;
  setFeatured(id: number | null): void;
  reset(): void;
  close(): Promise<void>;
}

const API = '/api/v1/json';
const NO_CACHE = 'no-store, no-cache';
const JSON_TYPE = 'application/json; charset=utf-8';
const MAX_BODY = 10 * 1024 * 1024;

class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: string | Buffer,
    readonly contentType: string,
    readonly headers: Record<string, string> = {},
  ) {}
}

const json = (status: number, value: unknown): HttpAnswer =>
  new HttpAnswer(status, JSON.stringify(value), JSON_TYPE);
const empty = (status: number): HttpAnswer => new HttpAnswer(status, '', 'text/plain; charset=utf-8');

/** What one request knows: its params (query, plus the body's on POST), user, filter. */
interface RequestContext {
  readonly method: string;
  readonly path: string;
  readonly params: URLSearchParams;
  /** The query string alone (params also hold the body's fields on POST). */
  readonly query: URLSearchParams;
  readonly files: Map<string, { filename: string; contentType: string; data: Buffer }>;
  readonly user: UserRecord | undefined;
  readonly contentType: string;
  readonly jsonBody: unknown;
}

// ---------------------------------------------------------------------------------------------------
// Body parsing

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

function parseMultipart(
  body: Buffer,
  contentType: string,
): {
  fields: [string, string][];
  files: Map<string, { filename: string; contentType: string; data: Buffer }>;
} {
  const fields: [string, string][] = [];
  const files = new Map<string, { filename: string; contentType: string; data: Buffer }>();
  const boundaryMatch = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = boundaryMatch?.[1] ?? boundaryMatch?.[2];
  if (!boundary) return { fields, files };
  const delimiter = Buffer.from(`--${boundary}`);
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const partStart = start + delimiter.length;
    if (body.subarray(partStart, partStart + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, partStart);
    if (next === -1) break;
    // Part: CRLF headers CRLF CRLF data CRLF
    const part = body.subarray(partStart + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd !== -1) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      const data = part.subarray(headerEnd + 4);
      const name = /name="([^"]*)"/i.exec(headers)?.[1];
      const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
      const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1] ?? 'application/octet-stream';
      if (name !== undefined) {
        if (filename !== undefined) files.set(name, { filename, contentType: type.trim(), data });
        else fields.push([name, data.toString('utf8')]);
      }
    }
    start = next;
  }
  return { fields, files };
}

function flattenJson(value: unknown, prefix: string, out: [string, string][]): void {
  if (value === null || value === undefined) return;
  if (typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flattenJson(v, prefix === '' ? k : `${prefix}[${k}]`, out);
    return;
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out.push([prefix, String(value)]);
  }
}

// ---------------------------------------------------------------------------------------------------
// Parameters

function pagination(params: URLSearchParams, defaultPerPage: number): { page: number; perPage: number } {
  const pageRaw = params.get('page') ?? '';
  const page = /^\d+$/.test(pageRaw.trim()) ? Math.max(1, Number(pageRaw)) : 1;
  const perRaw = (params.get('per_page') ?? '').trim();
  let perPage = defaultPerPage;
  if (/^-?\d+$/.test(perRaw)) perPage = Math.min(50, Math.max(1, Number(perRaw)));
  return { page, perPage };
}

function paginate<T>(items: readonly T[], page: number, perPage: number): T[] {
  return items.slice((page - 1) * perPage, page * perPage);
}

/** A 32-bit mix of seed and id, for `random:SEED` ordering. */
function mix(seed: number, id: number): number {
  let h = (seed ^ Math.imul(id + 0x9e3779b9, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

const SORT_FIELDS: Readonly<Record<string, (image: ImageRecord) => number>> = {
  id: (i) => i.id,
  updated_at: (i) => Date.parse(i.updatedAt.endsWith('Z') ? i.updatedAt : `${i.updatedAt}Z`),
  first_seen_at: (i) => Date.parse(i.firstSeenAt.endsWith('Z') ? i.firstSeenAt : `${i.firstSeenAt}Z`),
  aspect_ratio: (i) => i.width / i.height,
  faves: (i) => i.faves,
  downvotes: (i) => i.downvotes,
  upvotes: (i) => i.upvotes,
  width: (i) => i.width,
  height: (i) => i.height,
  score: (i) => i.upvotes - i.downvotes,
  comment_count: (i) => i.commentCount,
  tag_count: (i) => i.tags.length,
  wilson_score: (i) => i.wilsonScore ?? wilsonScore(i.upvotes, i.downvotes),
  pixels: (i) => i.width * i.height,
  size: (i) => i.size,
  duration: (i) => i.duration,
  // No relevance ranking here: every match scores the same, so the id tie-break decides.
  _score: () => 0,
};

// ---------------------------------------------------------------------------------------------------

export async function startFakePhilomena(options: FakePhilomenaOptions = {}): Promise<FakePhilomena> {
  const initialStyle: ErrorStyle = options.errorStyle ?? 'derpibooru';
  const initialLatency = options.latencyMs ?? 0;
  let style = initialStyle;
  let latency = initialLatency;
  let data: Dataset = createDataset();
  let tagIndex: TagIndex = indexTags(data);
  const faults = createFaultTable();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const timers = new Map<NodeJS.Timeout, () => void>();
  let base = '';
  let closed = false;

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.set(timer, resolve);
    });

  const renderContext = (): RenderContext => ({ base, style, tagIdsByName: tagIndex.idsByName });
  const notFound = (): HttpAnswer =>
    style === 'derpibooru' ? empty(404) : json(404, { error: 'Not found' });
  const badRequest = (): HttpAnswer => json(400, { error: 'Bad Request' });
  const queryContext = (ctx: RequestContext): QueryContext => ({
    user: ctx.user?.name,
    style,
    now: Date.now(),
  });

  // ---- filters ---------------------------------------------------------------------------------

  const canUseFilter = (filter: FilterRecord, user: UserRecord | undefined): boolean =>
    filter.system || filter.public || (user !== undefined && filter.userId === user.id);

  function currentFilter(ctx: RequestContext): FilterRecord {
    const raw = ctx.params.get('filter_id');
    if (raw !== null && /^\d+$/.test(raw.trim())) {
      const wanted = data.filters.find((f) => f.id === Number(raw));
      if (wanted && canUseFilter(wanted, ctx.user)) return wanted;
    }
    const fallbackId = ctx.user?.currentFilterId ?? FILTER_IDS.default;
    const fallback =
      data.filters.find((f) => f.id === fallbackId) ?? data.filters.find((f) => f.id === FILTER_IDS.default);
    if (!fallback) throw new Error('fake philomena: no default filter');
    return fallback;
  }

  /** Complex filters: one clause per line, OR-ed; a line that does not parse is ignored. */
  function complexPredicate(text: string | null, ctx: RequestContext): Predicate<ImageRecord> {
    if (text === null || text.trim() === '') return () => false;
    const schema = imageSearchSchema(tagIndex, data.galleries);
    const parts: Predicate<ImageRecord>[] = [];
    for (const line of text.split(/\r?\n/)) {
      if (line.trim() === '') continue;
      try {
        parts.push(queryPredicate(line, schema, queryContext(ctx)));
      } catch (error) {
        if (!(error instanceof QueryError)) throw error;
      }
    }
    return (image) => parts.some((p) => p(image));
  }

  function filterTests(
    filter: FilterRecord,
    ctx: RequestContext,
  ): {
    hidden: Predicate<ImageRecord>;
    spoilered: Predicate<ImageRecord>;
  } {
    const hiddenIds = new Set(filter.hiddenTagIds);
    const spoileredIds = new Set(filter.spoileredTagIds);
    const hasAny = (image: ImageRecord, ids: ReadonlySet<number>): boolean =>
      image.tags.some((t) => ids.has(tagIndex.idsByName.get(t) ?? -1));
    const hiddenComplex = complexPredicate(filter.hiddenComplex, ctx);
    const spoileredComplex = complexPredicate(filter.spoileredComplex, ctx);
    return {
      hidden: (image) => hasAny(image, hiddenIds) || hiddenComplex(image),
      spoilered: (image) => hasAny(image, spoileredIds) || spoileredComplex(image),
    };
  }

  const isStub = (image: ImageRecord): boolean => image.deletionReason !== null || image.duplicateOf !== null;

  /** Single-image views: unfiltered, `spoilered` means "hidden or spoilered by the current filter". */
  function singleImage(image: ImageRecord, ctx: RequestContext): HttpAnswer {
    const tests = filterTests(currentFilter(ctx), ctx);
    const spoilered = !isStub(image) && (tests.hidden(image) || tests.spoilered(image));
    return json(200, { image: imageJson(image, spoilered, renderContext()), interactions: [] });
  }

  // ---- search helpers ----------------------------------------------------------------------------

  function predicateOrError<T>(
    ctx: RequestContext,
    schema: SearchSchema<T>,
  ): { predicate: Predicate<T> } | { answer: HttpAnswer } | { emptyQuery: true } {
    const q = ctx.params.get('q');
    if (q === null || q.trim() === '') return { emptyQuery: true };
    try {
      return { predicate: queryPredicate(q, schema, queryContext(ctx)) };
    } catch (error) {
      if (error instanceof QueryError) return { answer: json(400, { error: error.message }) };
      throw error;
    }
  }

  function listSearch<T>(
    ctx: RequestContext,
    key: string,
    items: readonly T[],
    schema: SearchSchema<T>,
    render: (item: T) => unknown,
    compare: (a: T, b: T) => number,
  ): HttpAnswer {
    const compiled = predicateOrError(ctx, schema);
    if ('answer' in compiled) return compiled.answer;
    const { page, perPage } = pagination(ctx.params, 25);
    if ('emptyQuery' in compiled) return json(200, { [key]: [], total: 0 });
    const hits = items.filter(compiled.predicate).sort(compare);
    return json(200, { [key]: paginate(hits, page, perPage).map(render), total: hits.length });
  }

  const byCreatedDesc = <T extends { createdAt: string; id: number }>(a: T, b: T): number =>
    b.createdAt.localeCompare(a.createdAt) || b.id - a.id;

  // ---- images --------------------------------------------------------------------------------------

  function searchImages(ctx: RequestContext): HttpAnswer {
    const schema = imageSearchSchema(tagIndex, data.galleries);
    const compiled = predicateOrError(ctx, schema);
    if ('answer' in compiled) return compiled.answer;
    const { page, perPage } = pagination(ctx.params, ctx.user?.imagesPerPage ?? 15);
    if ('emptyQuery' in compiled) return json(200, { images: [], interactions: [], total: 0 });
    const tests = filterTests(currentFilter(ctx), ctx);
    const hits = [...data.images.values()].filter(
      (image) => image.approved && !isStub(image) && !tests.hidden(image) && compiled.predicate(image),
    );

    const sd = (ctx.params.get('sd') ?? '').toLowerCase() === 'asc' ? 1 : -1;
    const sf = (ctx.params.get('sf') ?? '').trim().toLowerCase();
    let key: (image: ImageRecord) => number = SORT_FIELDS['first_seen_at'] as (image: ImageRecord) => number;
    const randomMatch = /^random(?::(\d+))?$/.exec(sf);
    const galleryMatch = /^gallery_id:(\d+)$/.exec(sf);
    if (randomMatch) {
      const seed =
        randomMatch[1] === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(randomMatch[1]);
      key = (image) => mix(seed, image.id);
    } else if (galleryMatch) {
      const gallery = data.galleries.find((g) => g.id === Number(galleryMatch[1]));
      key = (image) => {
        const position = gallery?.imageIds.indexOf(image.id) ?? -1;
        return position === -1 ? Number.MAX_SAFE_INTEGER : position;
      };
    } else if (SORT_FIELDS[sf]) {
      key = SORT_FIELDS[sf] as (image: ImageRecord) => number;
    }
    hits.sort((a, b) => sd * (key(a) - key(b)) || sd * (a.id - b.id));
    const ctxRender = renderContext();
    return json(200, {
      images: paginate(hits, page, perPage).map((image) =>
        imageJson(image, tests.spoilered(image), ctxRender),
      ),
      interactions: [],
      total: hits.length,
    });
  }

  async function download(url: string): Promise<Buffer | undefined> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return undefined;
    }
    // Only our own files, over loopback: anything else is "the fetch failed".
    if (target.origin !== new URL(base).origin) return undefined;
    try {
      const response = await fetch(target, { signal: AbortSignal.timeout(5_000) });
      if (response.status !== 200) return undefined;
      return Buffer.from(await response.arrayBuffer());
    } catch {
      return undefined;
    }
  }

  async function reverseSearch(ctx: RequestContext): Promise<HttpAnswer> {
    const none = json(200, { images: [], interactions: [], total: 0 });
    const distanceRaw = Number.parseFloat(ctx.params.get('distance') ?? '0.25');
    const distance = Number.isNaN(distanceRaw) || distanceRaw < 0 ? 0 : distanceRaw;
    if (distance > 1) return none;
    const limitRaw = (ctx.params.get('limit') ?? '').trim();
    const limit = /^-?\d+$/.test(limitRaw) ? Math.min(50, Math.max(1, Number(limitRaw))) : 10;

    let bytes: Buffer | undefined = ctx.files.get('image[image]')?.data;
    if (bytes === undefined) {
      const url = ctx.params.get('url');
      if (url === null || url.trim() === '') return none;
      bytes = await download(url.trim());
    }
    if (bytes === undefined || bytes.length === 0) return none;
    const hash = sha512(bytes);
    const matches = [...data.images.values()]
      .filter((image) => image.approved && (image.sha512 === hash || image.origSha512 === hash))
      .sort((a, b) => b.id - a.id)
      .slice(0, limit);
    const tests = filterTests(currentFilter(ctx), ctx);
    const ctxRender = renderContext();
    return json(200, {
      images: matches.map((image) =>
        imageJson(image, !isStub(image) && (tests.hidden(image) || tests.spoilered(image)), ctxRender),
      ),
      interactions: [],
      total: matches.length,
    });
  }

  async function submitImage(ctx: RequestContext): Promise<HttpAnswer> {
    if (ctx.user === undefined) return empty(401);
    // Without the JSON content type the body is not read: only query parameters count.
    const body = ctx.contentType.startsWith('application/json') ? ctx.jsonBody : undefined;
    const fromBody = (path: string[]): string | undefined => {
      let node: unknown = body;
      for (const key of path) {
        if (typeof node !== 'object' || node === null) return undefined;
        node = (node as Record<string, unknown>)[key];
      }
      return typeof node === 'string' ? node : undefined;
    };
    const url = fromBody(['url']) ?? ctx.query.get('url');
    const description = fromBody(['image', 'description']) ?? '';
    const tagInput = fromBody(['image', 'tag_input']) ?? '';
    const sourceUrl = fromBody(['image', 'source_url']) ?? '';

    if (url === null || url.trim() === '') return json(400, { errors: { image: ["can't be blank"] } });
    const bytes = await download(url.trim());
    if (bytes === undefined) return json(400, { errors: { image: ["can't be blank"] } });
    const ext = sniff(bytes);
    if (ext === undefined) {
      return json(400, { errors: { image_mime_type: ['is invalid'], image_format: ['is invalid'] } });
    }
    const hash = sha512(bytes);
    const errors: Record<string, string[]> = {};
    if ([...data.images.values()].some((image) => image.origSha512 === hash || image.sha512 === hash)) {
      errors['image_orig_sha512_hash'] = ['has already been taken'];
    }
    const tags = [
      ...new Set(
        tagInput
          .split(',')
          .map((t) => t.trim().toLowerCase().replace(/\s+/g, ' '))
          .filter((t) => t !== ''),
      ),
    ];
    const tagErrors: string[] = [];
    if (tags.length < 3) tagErrors.push('must contain at least 3 tags');
    if (
      !tags.some((t) =>
        ['safe', 'suggestive', 'questionable', 'explicit', 'semi-grimdark', 'grimdark', 'grotesque'].includes(
          t,
        ),
      )
    ) {
      tagErrors.push('must contain at least one rating tag');
    }
    if (tagErrors.length > 0) errors['tag_input'] = tagErrors;
    if (Object.keys(errors).length > 0) return json(400, { errors });

    const id = Math.max(...data.images.keys()) + 1;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const seed = `upload-${id}`;
    data.uploads.set(seed, { bytes, ext });
    for (const tag of tags) {
      if (!tagIndex.byName.has(tag)) {
        // A new tag from an upload starts uncategorised.
        data.tags.push(baseTag(Math.max(...data.tags.map((t) => t.id)) + 1, tag, { category: null }));
      }
    }
    const format = ext === 'mp4' ? 'webm' : ext;
    const image: ImageRecord = {
      id,
      createdAt: now,
      updatedAt: now,
      firstSeenAt: now,
      legacyShape: false,
      tags,
      description,
      sourceUrls: sourceUrl === '' ? [] : [sourceUrl],
      uploader: ctx.user.name,
      uploaderId: ctx.user.id,
      width: 1,
      height: 1,
      format,
      name: decodeURIComponent(new URL(url).pathname.split('/').pop() ?? `upload.${ext}`),
      upvotes: 0,
      downvotes: 0,
      faves: 0,
      commentCount: 0,
      animated: format === 'gif' || format === 'webm',
      duration: 0.04,
      // New uploads appear before their thumbnails exist.
      thumbnailsGenerated: false,
      processed: false,
      intensities: null,
      size: bytes.length,
      origSha512: hash,
      sha512: hash,
      wilsonScore: 0,
      deletionReason: null,
      duplicateOf: null,
      urlStyle: 'absolute',
      favedBy: [],
      upvotedBy: [],
      fileSeed: seed,
      approved: true,
    };
    data.images.set(id, image);
    tagIndex = indexTags(data);
    return json(200, { image: imageJson(image, false, renderContext()) });
  }

  function oembed(ctx: RequestContext): HttpAnswer {
    const missing = (): HttpAnswer =>
      style === 'derpibooru'
        ? json(404, { error: "Couldn't find an image" })
        : json(404, { error: 'Not found' });
    const raw = ctx.params.get('url');
    if (raw === null || raw.trim() === '') return missing();
    let path: string;
    try {
      path = new URL(raw.trim(), 'https://any.host').pathname;
    } catch {
      return missing();
    }
    const match =
      /^\/images\/(\d+)(?:[/?#.]|$)/.exec(path) ??
      /^\/(\d+)(?:[/?#]|$)/.exec(path) ??
      /^\/img\/(?:view\/|download\/)?\d+\/\d+\/\d+\/(\d+)(?:[/_.]|$)/.exec(path);
    const image = match ? data.images.get(Number(match[1])) : undefined;
    if (!image || isStub(image) || !image.approved) return missing();
    const rendered = imageJson(image, false, renderContext());
    const reps = rendered['representations'] as Record<string, string>;
    const artists = image.tags.filter((t) => t.startsWith('artist:')).map((t) => t.slice('artist:'.length));
    return json(200, {
      version: '1.0',
      type: 'photo',
      title: `#${image.id} - ${image.tags.join(', ')} - Derpibooru`,
      author_url: image.sourceUrls[0] ?? '',
      author_name: artists.join(', '),
      provider_name: 'Derpibooru',
      provider_url: base,
      cache_age: 7200,
      derpibooru_id: image.id,
      derpibooru_score: image.upvotes - image.downvotes,
      derpibooru_comments: image.commentCount,
      derpibooru_tags: image.tags,
      thumbnail_url: reps['thumb'],
      thumbnail_width: Math.min(250, image.width),
      thumbnail_height: Math.min(250, image.height),
      url: reps['full'],
      width: image.width,
      height: image.height,
    });
  }

  // ---- forums ------------------------------------------------------------------------------------

  const topicPosts = (forum: string, slug: string) =>
    data.posts
      .filter((p) => p.topicKey === `${forum}/${slug}`)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
  const findTopic = (forum: string, slug: string) =>
    data.topics.find((t) => t.forum === forum && t.slug === slug);
  const forumJson = (shortName: string) => {
    const forum = data.forums.find((f) => f.shortName === shortName);
    if (!forum) return undefined;
    const topics = data.topics.filter((t) => t.forum === shortName);
    return {
      name: forum.name,
      short_name: forum.shortName,
      description: forum.description,
      topic_count: topics.length,
      post_count: data.posts.filter((p) => p.topicKey.startsWith(`${shortName}/`)).length,
    };
  };

  // ---- routes ------------------------------------------------------------------------------------

  type Handler = (ctx: RequestContext, m: RegExpExecArray) => HttpAnswer | Promise<HttpAnswer>;
  const numeric = (raw: string | undefined): number | undefined =>
    raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;

  const routes: [string, RegExp, Handler][] = [
    [
      'GET',
      /^\/comments\/([^/]+)$/,
      (_ctx, m) => {
        const id = numeric(m[1]);
        if (id === undefined) return badRequest();
        const comment = data.comments.find((c) => c.id === id);
        if (!comment) return notFound();
        const image = data.images.get(comment.imageId);
        if (image && image.deletionReason !== null) return empty(403);
        return json(200, { comment: commentJson(comment) });
      },
    ],
    [
      'GET',
      /^\/images\/featured$/,
      (ctx) => {
        const image = data.featuredId === null ? undefined : data.images.get(data.featuredId);
        if (!image) return notFound();
        return singleImage(image, ctx);
      },
    ],
    [
      'GET',
      /^\/images\/([^/]+)$/,
      (ctx, m) => {
        const id = numeric(m[1]);
        if (id === undefined) return badRequest();
        const image = data.images.get(id);
        if (!image || !image.approved) return notFound();
        return singleImage(image, ctx);
      },
    ],
    ['POST', /^\/images$/, (ctx) => submitImage(ctx)],
    [
      'GET',
      /^\/tags\/([^/]+)$/,
      (_ctx, m) => {
        let slug: string;
        try {
          slug = decodeURIComponent(m[1] ?? '');
        } catch {
          return badRequest();
        }
        const tag = tagIndex.bySlug.get(slug);
        if (!tag) return notFound();
        return json(200, { tag: tagJson(tag, tagIndex, base) });
      },
    ],
    [
      'GET',
      /^\/posts\/([^/]+)$/,
      (_ctx, m) => {
        const id = numeric(m[1]);
        if (id === undefined) return badRequest();
        const post = data.posts.find((p) => p.id === id);
        return post ? json(200, { post: postJson(post) }) : notFound();
      },
    ],
    [
      'GET',
      /^\/profiles\/([^/]+)$/,
      (_ctx, m) => {
        const id = numeric(m[1]);
        if (id === undefined) return badRequest();
        const user = data.users.find((u) => u.id === id);
        return user ? json(200, { user: userJson(user, base) }) : notFound();
      },
    ],
    [
      'GET',
      /^\/filters\/system$/,
      (ctx) => {
        const { page, perPage } = pagination(ctx.params, 25);
        const list = data.filters.filter((f) => f.system).sort((a, b) => a.id - b.id);
        return json(200, { filters: paginate(list, page, perPage).map(filterJson), total: list.length });
      },
    ],
    [
      'GET',
      /^\/filters\/user$/,
      (ctx) => {
        if (ctx.user === undefined) return empty(403);
        const user = ctx.user;
        const { page, perPage } = pagination(ctx.params, 25);
        const list = data.filters.filter((f) => f.userId === user.id).sort((a, b) => a.id - b.id);
        return json(200, { filters: paginate(list, page, perPage).map(filterJson), total: list.length });
      },
    ],
    [
      'GET',
      /^\/filters\/([^/]+)$/,
      (ctx, m) => {
        const id = numeric(m[1]);
        if (id === undefined) return badRequest();
        const filter = data.filters.find((f) => f.id === id);
        if (!filter || !canUseFilter(filter, ctx.user)) return notFound();
        return json(200, { filter: filterJson(filter) });
      },
    ],
    ['GET', /^\/oembed$/, (ctx) => oembed(ctx)],
    [
      'GET',
      /^\/search\/comments$/,
      (ctx) => {
        const visible = data.comments.filter((c) => {
          const image = data.images.get(c.imageId);
          return image === undefined || image.deletionReason === null;
        });
        return listSearch(ctx, 'comments', visible, commentSearchSchema, commentJson, byCreatedDesc);
      },
    ],
    [
      'GET',
      /^\/search\/galleries$/,
      (ctx) =>
        listSearch(
          ctx,
          'galleries',
          data.galleries,
          gallerySearchSchema,
          (g) => galleryJson(g, style),
          (a, b) => b.id - a.id,
        ),
    ],
    [
      'GET',
      /^\/search\/posts$/,
      (ctx) => listSearch(ctx, 'posts', data.posts, postSearchSchema, postJson, byCreatedDesc),
    ],
    [
      'GET',
      /^\/search\/filters$/,
      (ctx) => {
        const visible = data.filters.filter((f) => canUseFilter(f, ctx.user));
        return listSearch(ctx, 'filters', visible, filterSearchSchema, filterJson, (a, b) => a.id - b.id);
      },
    ],
    ['GET', /^\/search(?:\/images)?$/, (ctx) => searchImages(ctx)],
    [
      'GET',
      /^\/search\/tags$/,
      (ctx) =>
        listSearch(
          ctx,
          'tags',
          data.tags,
          tagSearchSchema(tagIndex),
          (t) => tagJson(t, tagIndex, base),
          (a, b) => {
            const count = (t: typeof a): number =>
              t.aliasOf === null ? (tagIndex.counts.get(t.name) ?? 0) : 0;
            return count(b) - count(a) || a.name.localeCompare(b.name);
          },
        ),
    ],
    ['POST', /^\/search\/reverse$/, (ctx) => reverseSearch(ctx)],
    [
      'GET',
      /^\/forums$/,
      () => {
        const forums = data.forums.map((f) => forumJson(f.shortName));
        return json(200, { forums, total: forums.length });
      },
    ],
    [
      'GET',
      /^\/forums\/([^/]+)$/,
      (_ctx, m) => {
        const forum = forumJson(m[1] ?? '');
        return forum ? json(200, { forum }) : notFound();
      },
    ],
    [
      'GET',
      /^\/forums\/([^/]+)\/topics$/,
      (ctx, m) => {
        const forum = m[1] ?? '';
        const { page, perPage } = pagination(ctx.params, 25);
        const topics = data.topics
          .filter((t) => t.forum === forum)
          .map((t) => topicJson(t, topicPosts(t.forum, t.slug)))
          .sort((a, b) => {
            if (a['sticky'] !== b['sticky']) return a['sticky'] ? -1 : 1;
            return String(b['last_replied_to_at'] ?? '').localeCompare(String(a['last_replied_to_at'] ?? ''));
          });
        return json(200, { topics: paginate(topics, page, perPage), total: topics.length });
      },
    ],
    [
      'GET',
      /^\/forums\/([^/]+)\/topics\/([^/]+)$/,
      (_ctx, m) => {
        const topic = findTopic(m[1] ?? '', m[2] ?? '');
        return topic
          ? json(200, { topic: topicJson(topic, topicPosts(topic.forum, topic.slug)) })
          : notFound();
      },
    ],
    [
      'GET',
      /^\/forums\/([^/]+)\/topics\/([^/]+)\/posts$/,
      (ctx, m) => {
        const topic = findTopic(m[1] ?? '', m[2] ?? '');
        // Derpibooru crashes on these (500); upstream answers 404.
        const broken = (): HttpAnswer =>
          style === 'derpibooru' ? json(500, { error: 'Internal Error' }) : json(404, { error: 'Not found' });
        if (!topic) return broken();
        const posts = topicPosts(topic.forum, topic.slug);
        const { page, perPage } = pagination(ctx.params, 25);
        if (page > Math.max(1, Math.ceil(posts.length / perPage))) return broken();
        return json(200, { posts: paginate(posts, page, perPage).map(postJson), total: posts.length });
      },
    ],
    [
      'GET',
      /^\/forums\/([^/]+)\/topics\/([^/]+)\/posts\/([^/]+)$/,
      (_ctx, m) => {
        const id = numeric(m[3]);
        if (id === undefined) return badRequest();
        const topic = findTopic(m[1] ?? '', m[2] ?? '');
        if (!topic) return notFound();
        const post = data.posts.find((p) => p.id === id && p.topicKey === `${topic.forum}/${topic.slug}`);
        return post ? json(200, { post: postJson(post) }) : notFound();
      },
    ],
  ];

  // ---- files --------------------------------------------------------------------------------------

  function originalBytes(image: ImageRecord): Buffer {
    const upload = data.uploads.get(image.fileSeed);
    return upload ? upload.bytes : fileBytes(image.fileSeed, image.format);
  }

  function serveFile(path: string): HttpAnswer | undefined {
    const view = /^\/img\/(?:view|download)\/(\d+\/\d+\/\d+)\/(\d+)(?:__[^/]*)?\.([a-z0-9]+)$/.exec(path);
    const thumb = /^\/img\/(\d+\/\d+\/\d+)\/(\d+)\/([a-z_]+)\.([a-z0-9]+)$/.exec(path);
    if (!view && !thumb) return undefined;
    const [dp, idRaw] = view ? [view[1], view[2]] : [thumb?.[1], thumb?.[2]];
    const ext = (view ? view[3] : thumb?.[4]) ?? '';
    const size = view ? 'full' : (thumb?.[3] ?? '');
    const image = data.images.get(Number(idRaw));
    if (
      !image ||
      isStub(image) ||
      !image.thumbnailsGenerated ||
      datePath(image) !== dp ||
      !isFileExtension(ext)
    ) {
      return notFound();
    }
    const repExt = representationExtension(image);
    const sizes = ['full', 'thumb_tiny', 'thumb_small', 'thumb', 'small', 'medium', 'large', 'tall'];
    let ok = false;
    if (view) ok = ext === image.format || ext === repExt || (image.format === 'webm' && ext === 'mp4');
    else if (size === 'rendered') ok = image.format === 'webm' && ext === 'png';
    else if (sizes.includes(size)) {
      ok =
        ext === repExt ||
        ((image.format === 'gif' || image.format === 'webm') && (ext === 'webm' || ext === 'mp4')) ||
        (image.format === 'webm' && ext === 'gif' && ['thumb', 'thumb_small', 'thumb_tiny'].includes(size));
    }
    if (!ok) return notFound();
    const bytes =
      ext === image.format ? originalBytes(image) : fileBytes(image.fileSeed, ext as FileExtension);
    return new HttpAnswer(200, bytes, MIME_TYPES[ext as FileExtension]);
  }

  function serveExtra(path: string): HttpAnswer | undefined {
    // Files that belong to no image: upload sources for POST /images, spoiler images, badges.
    const sample = /^\/samples\/([\w-]+)\.([a-z0-9]+)$/.exec(path);
    if (sample) {
      const ext = sample[2] ?? '';
      if (ext === 'txt')
        return new HttpAnswer(200, `not an image: ${sample[1]}\n`, 'text/plain; charset=utf-8');
      if (!isFileExtension(ext)) return notFound();
      return new HttpAnswer(200, fileBytes(`sample-${sample[1]}`, ext), MIME_TYPES[ext]);
    }
    const media = /^\/(?:media|badges)\/[\w/.-]+\.(png|svg)$/.exec(path);
    if (media) {
      const ext = media[1] as 'png' | 'svg';
      return new HttpAnswer(200, fileBytes(path, ext), MIME_TYPES[ext]);
    }
    return undefined;
  }

  // ---- dispatch ----------------------------------------------------------------------------------

  async function route(ctx: RequestContext): Promise<HttpAnswer> {
    const path = ctx.path;
    if (path.startsWith(`${API}/`) || path === API) {
      const sub = path.slice(API.length);
      for (const [method, pattern, handler] of routes) {
        pattern.lastIndex = 0;
        const m = pattern.exec(sub);
        if (m && method === ctx.method) return handler(ctx, m);
      }
      return notFound();
    }
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      const file = serveFile(path) ?? serveExtra(path);
      if (file) return file;
    }
    // The pre-2020 API is gone.
    if (path === '/search.json' || /^\/images\/\d+\.json$/.test(path)) return badRequest();
    return notFound();
  }

  function contextOf(req: IncomingMessage, url: URL, body: Buffer): RequestContext {
    const params = new URLSearchParams(url.searchParams);
    const contentType = String(req.headers['content-type'] ?? '').toLowerCase();
    let files = new Map<string, { filename: string; contentType: string; data: Buffer }>();
    let jsonBody: unknown;
    if (req.method === 'POST' && body.length > 0) {
      if (contentType.startsWith('application/json')) {
        try {
          jsonBody = JSON.parse(body.toString('utf8'));
          const flat: [string, string][] = [];
          flattenJson(jsonBody, '', flat);
          for (const [k, v] of flat) if (!params.has(k)) params.append(k, v);
        } catch {
          jsonBody = undefined;
        }
      } else if (contentType.startsWith('application/x-www-form-urlencoded')) {
        for (const [k, v] of new URLSearchParams(body.toString('utf8')))
          if (!params.has(k)) params.append(k, v);
      } else if (contentType.startsWith('multipart/form-data')) {
        const parsed = parseMultipart(body, String(req.headers['content-type'] ?? ''));
        for (const [k, v] of parsed.fields) if (!params.has(k)) params.append(k, v);
        files = parsed.files;
      }
    }
    // An unknown key is no error: the request just runs anonymously.
    const user = params.get('key') === FAKE_KEY ? data.users.find((u) => u.id === OWNER.id) : undefined;
    return {
      method: req.method ?? 'GET',
      path: url.pathname,
      params,
      query: url.searchParams,
      files,
      user,
      contentType,
      jsonBody,
    };
  }

  function write(res: ServerResponse, answer: HttpAnswer, head: boolean): void {
    if (res.destroyed || res.headersSent) return;
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
    res.writeHead(answer.status, {
      'content-type': answer.contentType,
      'content-length': String(body.length),
      'cache-control': NO_CACHE,
      ...answer.headers,
    });
    res.end(head ? undefined : body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const headers: IncomingHttpHeaders = { ...req.headers };
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: new URLSearchParams(url.searchParams),
      headers,
      body,
      at: Date.now(),
    });
    const fault = faults.take(url.pathname);
    if (latency > 0) await sleep(latency);
    if (fault) {
      if (fault.kind === 'latency') await sleep(fault.ms);
      else if (closed) return;
      else if (fault.kind === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      } else {
        answerFault(fault, req, res);
        return;
      }
    }
    if (closed) return;
    let answer: HttpAnswer;
    try {
      answer = await route(contextOf(req, url, body));
    } catch {
      answer = json(500, { error: 'Internal Error' });
    }
    write(res, answer, req.method === 'HEAD');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) write(res, json(500, { error: 'Internal Error' }), false);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  base = `http://127.0.0.1:${address.port}`;

  return {
    url: base,
    requests,
    inject: (rule) => faults.inject(rule),
    clearFaults: () => faults.clear(),
    setErrorStyle: (next) => {
      style = next;
    },
    setLatency: (ms) => {
      latency = Math.max(0, ms);
    },
    setFeatured: (id) => {
      data.featuredId = id;
    },
    reset: () => {
      requests.length = 0;
      faults.clear();
      latency = initialLatency;
      style = initialStyle;
      data = createDataset();
      tagIndex = indexTags(data);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      // Waiting requests wake up, see `closed` and give up; their sockets are destroyed below.
      for (const [timer, wake] of timers) {
        clearTimeout(timer);
        wake();
      }
      timers.clear();
      for (const res of hanging) res.destroy();
      hanging.clear();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await done;
    },
  };
}

function sniff(bytes: Buffer): FileExtension | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (bytes.subarray(0, 6).toString('latin1').startsWith('GIF8')) return 'gif';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpg';
  if (bytes.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))) return 'webm';
  const head = bytes.subarray(0, 256).toString('utf8').trimStart();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'svg';
  return undefined;
}

export { tagSlugOf };
