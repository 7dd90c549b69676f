/**
 * Images: one by id, the featured one (both unfiltered, see filtering.ts) and uploads by URL (POST
 * /images with an account's key), judged the way Philomena does (upload-rules.ts); an accepted upload
 * is stored like any runtime image (runtime-images.ts: aliases resolved, implied tags added) and
 * counts as the account's (`my:uploads`).
 */
import { empty, json, numeric, type Board, type HttpAnswer, type RequestContext } from '../board-context.js';
import { iso } from '../data.js';
import { singleImage } from '../filtering.js';
import { imageJson } from '../render.js';
import { resolveTags, storeImage, tagNames } from '../runtime-images.js';
import { judgeUpload, type UploadedBytes } from '../upload-rules.js';
import { downloadForUpload } from './files.js';

/** The picture: a multipart `image[image]` file, else what the board fetched from `url` (scraper_plug.ex). */
async function uploadedFile(board: Board, ctx: RequestContext): Promise<UploadedBytes | undefined> {
  const sent = ctx.files.get('image[image]');
  if (sent !== undefined) return { bytes: sent.data, name: sent.filename };
  const url = (ctx.params.get('url') ?? '').trim();
  if (url === '') return undefined;
  const bytes = await downloadForUpload(board, url);
  if (bytes === undefined) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  } catch {
    name = url;
  }
  return { bytes, name: name.slice(0, 127) };
}

const TRUE = new Set(['true', '1', 'on']);

async function submitImage(board: Board, ctx: RequestContext): Promise<HttpAnswer> {
  // api_require_authorization_plug.ex: no account 401, a banned one 403, both with empty bodies.
  const account = ctx.account;
  if (account === undefined) return empty(401);
  if (account.banned) return empty(403);
  // ctx.params holds the query and a JSON or form body (a body of another type is not read, so its
  // fields are missing, as Plug.Parsers' `pass: ["*/*"]` leaves them).
  const field = (name: string): string => ctx.params.get(`image[${name}]`) ?? '';
  const file = await uploadedFile(board, ctx);
  const tags = resolveTags(board, tagNames(field('tag_input').split(',')));
  const sourceUrl = field('source_url').trim();
  const description = field('description');
  const judgement = judgeUpload(board, { file, tags, sourceUrl, description });
  if (!judgement.ok || file === undefined) {
    return json(400, { errors: judgement.ok ? { image: ["can't be blank"] } : judgement.errors });
  }
  const anonymous = TRUE.has(field('anonymous').toLowerCase());
  const image = storeImage(board, {
    tags,
    createdAt: iso(Date.now()),
    description,
    sourceUrls: sourceUrl === '' ? [] : [sourceUrl],
    uploader: anonymous ? null : account.user.name,
    uploaderId: anonymous ? null : account.user.id,
    width: 1,
    height: 1,
    format: judgement.ext,
    name: file.name === '' ? `upload.${judgement.ext}` : file.name,
    // New uploads appear before their thumbnails exist.
    thumbnailsGenerated: false,
    upload: { bytes: file.bytes, ext: judgement.ext },
  });
  // my:uploads reads true_uploader_id, so an anonymous upload is still the account's.
  account.lists.uploads.add(image.id);
  account.user.uploadsCount += 1;
  // An ImageResponse, as image_controller.ex `create` renders it (openapi.yaml): interactions included.
  return json(200, { image: imageJson(image, false, board.renderContext()), interactions: [] });
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
