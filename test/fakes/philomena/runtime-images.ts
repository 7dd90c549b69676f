/**
 * Images that arrive while the board runs: uploads (POST /images) and a test's `booru.addImage`, built
 * and stored the same way (the next id above every image, aliases resolved to their targets, implied
 * tags added, unknown tags created uncategorised, the tag index rebuilt), and `booru.updateImage` for
 * what changes on the real board after an upload (thumbnails generated, re-tagging, description edits).
 * `reset()` builds a fresh data set, so everything added here goes again.
 */
import type { Board } from './board-context.js';
import { baseTag, iso, RATING_TAGS, withImplied } from './data.js';
import type { ImageFormat, ImageRecord } from './data.js';
import { fileBytes, sha512 } from './files.js';
import type { FileExtension } from './files.js';
import { indexTags } from './render.js';
import { createSeededRandom } from '../../support/random.js';

/** An image for `booru.addImage`: what a feed would see a new upload as. */
export interface NewImage {
  /** Tag names; at least one rating tag (`safe`, `explicit` ...). Aliases and implications apply. */
  readonly tags: readonly string[];
  /** `created_at` and `first_seen_at` (default: now). */
  readonly at?: Date | number | string;
  readonly description?: string;
  /** Default: none. */
  readonly sourceUrls?: readonly string[];
  /**
   * Default true. false: `thumbnails_generated` and `processed` are false and the image's files answer
   * 404 until `updateImage(id, { thumbnailsGenerated: true })`, as for a fresh upload.
   */
  readonly thumbnailsGenerated?: boolean;
  /** Default `{ id: 7000, name: 'Uploader Pony' }` (the data set's usual uploader); null: anonymous. */
  readonly uploader?: { readonly id: number; readonly name: string } | null;
  /** Default png. */
  readonly format?: ImageFormat;
  /** Default 1920 x 1080. */
  readonly width?: number;
  readonly height?: number;
}

/** What `booru.updateImage` can change; `updated_at` becomes now. */
export interface ImagePatch {
  /** true also marks the image processed (its files are served from then on); false the reverse. */
  readonly thumbnailsGenerated?: boolean;
  /** The new full tag list (re-rating included); needs a rating tag, like addImage. */
  readonly tags?: readonly string[];
  readonly description?: string;
  readonly sourceUrls?: readonly string[];
}

/** What every new image is made from, whoever adds it. */
export interface StoredImageInit {
  /** Already normalised names (see `tagNames`). */
  readonly tags: readonly string[];
  readonly createdAt: string;
  readonly description: string;
  readonly sourceUrls: readonly string[];
  readonly uploader: string | null;
  readonly uploaderId: number | null;
  readonly format: ImageFormat;
  readonly width: number;
  readonly height: number;
  readonly thumbnailsGenerated: boolean;
  /** Default `image-<id>.<format>`. */
  readonly name?: string;
  /** The uploaded original; without it the file is generated from the seed `image-<id>`. */
  readonly upload?: { readonly bytes: Buffer; readonly ext: FileExtension };
}

/** Lower-cased, trimmed, inner spaces collapsed, each once: how the board reads a tag list. */
export function tagNames(input: readonly string[]): string[] {
  return [...new Set(input.map((t) => t.trim().toLowerCase().replace(/\s+/g, ' ')).filter((t) => t !== ''))];
}

const hasRatingTag = (tags: readonly string[]): boolean => tags.some((t) => RATING_TAGS.includes(t));

/** The next image id: above every image the board has (ids only grow). */
function nextImageId(board: Board): number {
  return Math.max(0, ...board.data.images.keys()) + 1;
}

/** Aliases replaced by their targets, then every implied tag added. */
export function resolveTags(board: Board, tags: readonly string[]): string[] {
  const implications = new Map<string, readonly string[]>();
  for (const tag of board.data.tags) if (tag.implies.length > 0) implications.set(tag.name, tag.implies);
  const resolved = tags.map((t) => board.tagIndex.byName.get(t)?.aliasOf ?? t);
  return withImplied([...new Set(resolved)], implications);
}

/** Tags the board has never seen start uncategorised (as an upload's new tags do). */
function createMissingTags(board: Board, tags: readonly string[]): void {
  const known = new Set(board.data.tags.map((t) => t.name));
  for (const tag of tags) {
    if (known.has(tag)) continue;
    board.data.tags.push(baseTag(Math.max(...board.data.tags.map((t) => t.id)) + 1, tag, { category: null }));
    known.add(tag);
  }
}

/** Builds the record, stores it under the next id and rebuilds the tag index. */
export function storeImage(board: Board, init: StoredImageInit): ImageRecord {
  const id = nextImageId(board);
  const tags = resolveTags(board, init.tags);
  createMissingTags(board, tags);
  const seed = init.upload === undefined ? `image-${id}` : `upload-${id}`;
  if (init.upload !== undefined)
    board.data.uploads.set(seed, { bytes: init.upload.bytes, ext: init.upload.ext });
  const bytes = init.upload?.bytes ?? fileBytes(seed, init.format);
  const hash = sha512(bytes);
  const r = createSeededRandom(id + 7);
  const image: ImageRecord = {
    id,
    createdAt: init.createdAt,
    updatedAt: init.createdAt,
    firstSeenAt: init.createdAt,
    legacyShape: false,
    tags,
    description: init.description,
    sourceUrls: [...init.sourceUrls],
    uploader: init.uploader,
    uploaderId: init.uploaderId,
    width: init.width,
    height: init.height,
    format: init.format,
    name: init.name ?? `image-${id}.${init.format}`,
    upvotes: 0,
    downvotes: 0,
    faves: 0,
    commentCount: 0,
    animated: init.format === 'gif' || init.format === 'webm',
    duration: 0.04,
    thumbnailsGenerated: init.thumbnailsGenerated,
    processed: init.thumbnailsGenerated,
    // Worked out while processing: none before.
    intensities: init.thumbnailsGenerated
      ? { ne: r() * 255, nw: r() * 255, se: r() * 255, sw: r() * 255 }
      : null,
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
  board.data.images.set(id, image);
  board.tagIndex = indexTags(board.data);
  return image;
}

function timestamp(at: Date | number | string | undefined): string {
  const ms = at === undefined ? Date.now() : at instanceof Date ? at.getTime() : new Date(at).getTime();
  if (Number.isNaN(ms)) throw new Error(`fake Philomena: addImage at ${String(at)} is not a time`);
  return iso(ms);
}

function requireRating(what: string, tags: readonly string[]): void {
  if (!hasRatingTag(tags)) {
    throw new Error(
      `fake Philomena: ${what} needs a rating tag (${RATING_TAGS.join(', ')}); got ${JSON.stringify(tags)}`,
    );
  }
}

/** `booru.addImage`: the new image's id. */
export function addImage(board: Board, spec: NewImage): number {
  const tags = tagNames(spec.tags);
  requireRating('addImage', tags);
  const uploader = spec.uploader === undefined ? { id: 7000, name: 'Uploader Pony' } : spec.uploader;
  return storeImage(board, {
    tags,
    createdAt: timestamp(spec.at),
    description: spec.description ?? '',
    sourceUrls: spec.sourceUrls ?? [],
    uploader: uploader?.name ?? null,
    uploaderId: uploader?.id ?? null,
    format: spec.format ?? 'png',
    width: spec.width ?? 1920,
    height: spec.height ?? 1080,
    thumbnailsGenerated: spec.thumbnailsGenerated ?? true,
  }).id;
}

/** `booru.updateImage`: changes an image in place (any image, not only added ones). */
export function updateImage(board: Board, id: number, patch: ImagePatch): void {
  const image = board.data.images.get(id);
  if (image === undefined) throw new Error(`fake Philomena: updateImage of unknown image ${id}`);
  if (patch.tags !== undefined) {
    const tags = tagNames(patch.tags);
    requireRating('updateImage', tags);
    image.tags = resolveTags(board, tags);
    createMissingTags(board, image.tags);
  }
  if (patch.description !== undefined) image.description = patch.description;
  if (patch.sourceUrls !== undefined) image.sourceUrls = [...patch.sourceUrls];
  if (patch.thumbnailsGenerated !== undefined) {
    image.thumbnailsGenerated = patch.thumbnailsGenerated;
    image.processed = patch.thumbnailsGenerated;
    if (patch.thumbnailsGenerated && image.intensities === null) {
      const r = createSeededRandom(id + 7);
      image.intensities = { ne: r() * 255, nw: r() * 255, se: r() * 255, sw: r() * 255 };
    }
  }
  image.updatedAt = iso(Date.now());
  board.tagIndex = indexTags(board.data);
}
