/**
 * oEmbed for image page and file URLs on any host; unknown, deleted or unapproved images are 404 with the
 * style's message.
 */
import { json, type Board, type HttpAnswer, type RequestContext } from '../board-context.js';
import { isStub } from '../filtering.js';
import { imageJson } from '../render.js';

function oembed(board: Board, ctx: RequestContext): HttpAnswer {
  const missing = (): HttpAnswer =>
    board.style === 'derpibooru'
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
  const image = match ? board.data.images.get(Number(match[1])) : undefined;
  if (!image || isStub(image) || !image.approved) return missing();
  const rendered = imageJson(image, false, board.renderContext());
  const reps = rendered['representations'] as Record<string, string>;
  const artists = image.tags.filter((t) => t.startsWith('artist:')).map((t) => t.slice('artist:'.length));
  return json(200, {
    version: '1.0',
    type: 'photo',
    title: `#${image.id} - ${image.tags.join(', ')} - Derpibooru`,
    author_url: image.sourceUrls[0] ?? '',
    author_name: artists.join(', '),
    provider_name: 'Derpibooru',
    provider_url: board.base,
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

export function registerOembedRoutes(board: Board): void {
  board.add('GET', /^\/oembed$/, (ctx) => oembed(board, ctx));
}
