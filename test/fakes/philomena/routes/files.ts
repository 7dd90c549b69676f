/**
 * The board's own files outside the API: image files under `/img/...` (every representation an image
 * lists, with the rules of which extensions exist for which format), sample upload sources under
 * `/samples/` and spoiler or badge images. Reverse search downloads from nowhere else; uploads also from
 * a loopback server a test runs.
 */
import { HttpAnswer, type Board } from '../board-context.js';
import type { ImageRecord } from '../data.js';
import { fileBytes, isFileExtension, MIME_TYPES } from '../files.js';
import type { FileExtension } from '../files.js';
import { isStub } from '../filtering.js';
import { datePath, representationExtension } from '../render.js';

export async function downloadOwnFile(board: Board, url: string): Promise<Buffer | undefined> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  // Only our own files, over loopback: anything else is "the fetch failed".
  if (target.origin !== new URL(board.base).origin) return undefined;
  try {
    const response = await fetch(target, { signal: AbortSignal.timeout(5_000) });
    if (response.status !== 200) return undefined;
    return Buffer.from(await response.arrayBuffer());
  } catch {
    return undefined;
  }
}

/** Loopback only: a test's own file server may stand for the web, and nothing leaves the machine. */
const LOOPBACK = /^(?:127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i;

/**
 * What POST /images fetches from `url`: the board's own files, or any loopback server (a test's stand-in
 * for an artist's site); anything else, a failed fetch or a status but 200 give nothing, which the board
 * reads as no picture (scraper_plug.ex keeps the params unchanged).
 */
export async function downloadForUpload(board: Board, url: string): Promise<Buffer | undefined> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  const own = target.origin === new URL(board.base).origin;
  if (!own && !(target.protocol === 'http:' && LOOPBACK.test(target.hostname))) return undefined;
  try {
    const response = await fetch(target, { signal: AbortSignal.timeout(5_000), redirect: 'manual' });
    if (response.status !== 200) return undefined;
    return Buffer.from(await response.arrayBuffer());
  } catch {
    return undefined;
  }
}

function originalBytes(board: Board, image: ImageRecord): Buffer {
  const upload = board.data.uploads.get(image.fileSeed);
  return upload ? upload.bytes : fileBytes(image.fileSeed, image.format);
}

function serveFile(board: Board, path: string): HttpAnswer | undefined {
  const view = /^\/img\/(?:view|download)\/(\d+\/\d+\/\d+)\/(\d+)(?:__[^/]*)?\.([a-z0-9]+)$/.exec(path);
  const thumb = /^\/img\/(\d+\/\d+\/\d+)\/(\d+)\/([a-z_]+)\.([a-z0-9]+)$/.exec(path);
  if (!view && !thumb) return undefined;
  const [dp, idRaw] = view ? [view[1], view[2]] : [thumb?.[1], thumb?.[2]];
  const ext = (view ? view[3] : thumb?.[4]) ?? '';
  const size = view ? 'full' : (thumb?.[3] ?? '');
  const image = board.data.images.get(Number(idRaw));
  if (
    !image ||
    isStub(image) ||
    !image.thumbnailsGenerated ||
    datePath(image) !== dp ||
    !isFileExtension(ext)
  ) {
    return board.notFound();
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
  if (!ok) return board.notFound();
  const bytes =
    ext === image.format ? originalBytes(board, image) : fileBytes(image.fileSeed, ext as FileExtension);
  return new HttpAnswer(200, bytes, MIME_TYPES[ext as FileExtension]);
}

function serveExtra(board: Board, path: string): HttpAnswer | undefined {
  // Files that belong to no image: upload sources for POST /images, spoiler images, badges.
  const sample = /^\/samples\/([\w-]+)\.([a-z0-9]+)$/.exec(path);
  if (sample) {
    const ext = sample[2] ?? '';
    if (ext === 'txt')
      return new HttpAnswer(200, `not an image: ${sample[1]}\n`, 'text/plain; charset=utf-8');
    if (!isFileExtension(ext)) return board.notFound();
    return new HttpAnswer(200, fileBytes(`sample-${sample[1]}`, ext), MIME_TYPES[ext]);
  }
  const media = /^\/(?:media|badges)\/[\w/.-]+\.(png|svg)$/.exec(path);
  if (media) {
    const ext = media[1] as 'png' | 'svg';
    return new HttpAnswer(200, fileBytes(path, ext), MIME_TYPES[ext]);
  }
  return undefined;
}

/** A GET or HEAD outside the API: a file of the board, or undefined when the path names none. */
export function serveSiteFile(board: Board, path: string): HttpAnswer | undefined {
  return serveFile(board, path) ?? serveExtra(board, path);
}
