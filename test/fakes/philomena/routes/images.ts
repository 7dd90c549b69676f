/**
 * Images: one by id, the featured one (both unfiltered, see filtering.ts) and uploads by URL (POST
 * /images with the key), which check the file, the hash and the tags the way Philomena does; an accepted
 * upload is stored like any runtime image (runtime-images.ts: aliases resolved, implied tags added).
 */
import { empty, json, numeric, type Board, type HttpAnswer, type RequestContext } from '../board-context.js';
import { iso } from '../data.js';
import type { FileExtension } from '../files.js';
import { sha512 } from '../files.js';
import { singleImage } from '../filtering.js';
import { imageJson } from '../render.js';
import { hasRatingTag, storeImage, tagNames } from '../runtime-images.js';
import { downloadOwnFile } from './files.js';

async function submitImage(board: Board, ctx: RequestContext): Promise<HttpAnswer> {
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
  const bytes = await downloadOwnFile(board, url.trim());
  if (bytes === undefined) return json(400, { errors: { image: ["can't be blank"] } });
  const ext = sniff(bytes);
  if (ext === undefined) {
    return json(400, { errors: { image_mime_type: ['is invalid'], image_format: ['is invalid'] } });
  }
  const hash = sha512(bytes);
  const errors: Record<string, string[]> = {};
  if ([...board.data.images.values()].some((image) => image.origSha512 === hash || image.sha512 === hash)) {
    errors['image_orig_sha512_hash'] = ['has already been taken'];
  }
  const tags = tagNames(tagInput.split(','));
  const tagErrors: string[] = [];
  if (tags.length < 3) tagErrors.push('must contain at least 3 tags');
  if (!hasRatingTag(tags)) {
    tagErrors.push('must contain at least one rating tag');
  }
  if (tagErrors.length > 0) errors['tag_input'] = tagErrors;
  if (Object.keys(errors).length > 0) return json(400, { errors });

  const format = ext === 'mp4' ? 'webm' : ext;
  const image = storeImage(board, {
    tags,
    createdAt: iso(Date.now()),
    description,
    sourceUrls: sourceUrl === '' ? [] : [sourceUrl],
    uploader: ctx.user.name,
    uploaderId: ctx.user.id,
    width: 1,
    height: 1,
    format,
    name: decodeURIComponent(new URL(url).pathname.split('/').pop() ?? `upload.${ext}`),
    // New uploads appear before their thumbnails exist.
    thumbnailsGenerated: false,
    upload: { bytes, ext },
  });
  // An ImageResponse, as image_controller.ex `create` renders it (openapi.yaml): interactions included.
  return json(200, { image: imageJson(image, false, board.renderContext()), interactions: [] });
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

export function registerImageRoutes(board: Board): void {
  board.add('GET', /^\/images\/featured$/, (ctx) => {
    const image = board.data.featuredId === null ? undefined : board.data.images.get(board.data.featuredId);
    if (!image) return board.notFound();
    return singleImage(board, image, ctx);
  });
  board.add('GET', /^\/images\/([^/]+)$/, (ctx, m) => {
    const id = numeric(m[1]);
    if (id === undefined) return board.badRequest();
    const image = board.data.images.get(id);
    if (!image || !image.approved) return board.notFound();
    return singleImage(board, image, ctx);
  });
  board.add('POST', /^\/images$/, (ctx) => submitImage(board, ctx));
}
