/**
 * Image search (`/search/images`, and `/search` its alias) with the caller's filter, sorting and paging,
 * and reverse search, which matches the sha512 of an upload or of one of the fake's own files.
 */
import { json, type Board, type HttpAnswer, type RequestContext } from '../board-context.js';
import type { ImageRecord } from '../data.js';
import { sha512 } from '../files.js';
import { currentFilter, filterTests, isStub } from '../filtering.js';
import { paginate, pagination, predicateOrError } from '../listing.js';
import { imageJson, imageSearchSchema, wilsonScore } from '../render.js';
import { downloadOwnFile } from './files.js';

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
  // The board sorts by its count of users who hid the image; the local board keeps no hides, so they tie
  // (and the id decides) rather than fall back to first_seen_at as an unknown field would.
  hides: () => 0,
  // No relevance ranking here: every match scores the same, so the id tie-break decides.
  _score: () => 0,
};

function searchImages(board: Board, ctx: RequestContext): HttpAnswer {
  const schema = imageSearchSchema(board.tagIndex, board.data.galleries);
  const compiled = predicateOrError(board, ctx, schema);
  if ('answer' in compiled) return compiled.answer;
  const { page, perPage } = pagination(ctx.params, ctx.user?.imagesPerPage ?? 15);
  if ('emptyQuery' in compiled) return json(200, { images: [], interactions: [], total: 0 });
  const tests = filterTests(board, currentFilter(board, ctx), ctx);
  const hits = [...board.data.images.values()].filter(
    (image) => image.approved && !isStub(image) && !tests.hidden(image) && compiled.predicate(image),
  );

  const sd = (ctx.params.get('sd') ?? '').toLowerCase() === 'asc' ? 1 : -1;
  const sf = (ctx.params.get('sf') ?? '').trim().toLowerCase();
  let key: (image: ImageRecord) => number = SORT_FIELDS['first_seen_at'] as (image: ImageRecord) => number;
  const randomMatch = /^random(?::(\d+))?$/.exec(sf);
  const galleryMatch = /^gallery_id:(\d+)$/.exec(sf);
  if (randomMatch) {
    const seed = randomMatch[1] === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(randomMatch[1]);
    key = (image) => mix(seed, image.id);
  } else if (galleryMatch) {
    const gallery = board.data.galleries.find((g) => g.id === Number(galleryMatch[1]));
    key = (image) => {
      const position = gallery?.imageIds.indexOf(image.id) ?? -1;
      return position === -1 ? Number.MAX_SAFE_INTEGER : position;
    };
  } else if (SORT_FIELDS[sf]) {
    key = SORT_FIELDS[sf] as (image: ImageRecord) => number;
  }
  hits.sort((a, b) => sd * (key(a) - key(b)) || sd * (a.id - b.id));
  const ctxRender = board.renderContext();
  return json(200, {
    images: paginate(hits, page, perPage).map((image) => imageJson(image, tests.spoilered(image), ctxRender)),
    interactions: [],
    total: hits.length,
  });
}

async function reverseSearch(board: Board, ctx: RequestContext): Promise<HttpAnswer> {
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
    bytes = await downloadOwnFile(board, url.trim());
  }
  if (bytes === undefined || bytes.length === 0) return none;
  const hash = sha512(bytes);
  const matches = [...board.data.images.values()]
    .filter((image) => image.approved && (image.sha512 === hash || image.origSha512 === hash))
    .sort((a, b) => b.id - a.id)
    .slice(0, limit);
  const tests = filterTests(board, currentFilter(board, ctx), ctx);
  const ctxRender = board.renderContext();
  return json(200, {
    images: matches.map((image) =>
      imageJson(image, !isStub(image) && (tests.hidden(image) || tests.spoilered(image)), ctxRender),
    ),
    interactions: [],
    total: matches.length,
  });
}

export function registerSearchRoutes(board: Board): void {
  board.add('GET', /^\/search(?:\/images)?$/, (ctx) => searchImages(board, ctx));
  board.add('POST', /^\/search\/reverse$/, (ctx) => reverseSearch(board, ctx));
}
