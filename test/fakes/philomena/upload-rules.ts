/**
 * How POST /images judges an upload, after Philomena's image creation: the tag rules
 * (images/tag_validator.ex), the file rules (images/image.ex `image_changeset`, fed by
 * philomena_media/uploader.ex's analysis) and the duplicate check that runs only when all else passed
 * (`prepare_changes`, at insert). Refusals are `{ "errors": { field: [message, ...] } }`, rendered by
 * Ecto's `traverse_errors` (docs/board-behaviour.md "Uploads").
 *
 * Two wordings: `described` is what the API page and this fake always said (a duplicate is
 * `image_orig_sha512_hash: ["has already been taken"]`, a file the board cannot read only
 * `image: ["can't be blank"]`); `source` is what the code answers since Philomena 1.1 (Dec 2021, Derpibooru
 * included): a duplicate is `image: ["has already been uploaded: it's image N"]`, and a file the board
 * could not fetch or read leaves every analysed field blank.
 */
import type { Board } from './board-context.js';
import type { ImageFormat } from './data.js';
import { sha512 } from './files.js';

export interface UploadRules {
  /** Fewest tags (implied ones count): 3 on Philomena, 5 on Furbooru. */
  minimumTags: number;
  /** Largest file, in bytes: image.ex allows 131 072 000. */
  maxBytes: number;
  wording: 'described' | 'source';
}

export const DEFAULT_UPLOAD_RULES: Readonly<UploadRules> = {
  minimumTags: 3,
  maxBytes: 131_072_000,
  wording: 'described',
};

/** What the board fetched or was sent: undefined when it got nothing (no url, not 200, not allowed). */
export interface UploadedBytes {
  readonly bytes: Buffer;
  readonly name: string;
}

export interface UploadFields {
  readonly file: UploadedBytes | undefined;
  /** Tag names as the board reads them, aliases resolved and implied tags added. */
  readonly tags: readonly string[];
  readonly sourceUrl: string;
  readonly description: string;
}

export type Judgement =
  | { readonly ok: true; readonly ext: ImageFormat }
  | { readonly ok: false; readonly errors: Record<string, string[]> };

/** The fields image_changeset requires: all blank when the analysis failed. */
const ANALYSED = [
  'image',
  'image_width',
  'image_height',
  'image_size',
  'image_orig_size',
  'image_format',
  'image_mime_type',
  'image_aspect_ratio',
  'image_duration',
  'image_orig_sha512_hash',
  'image_sha512_hash',
  'uploaded_image',
  'image_is_animated',
] as const;

const UNREADABLE = 'contents corrupt, not recognized, or dimensions are too large to process';

/** The formats the board accepts, sniffed from the bytes (as `file --mime-type` would). */
function sniff(bytes: Buffer): { ext: ImageFormat } | { mime: string } {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return { ext: 'png' };
  if (bytes.subarray(0, 6).toString('latin1').startsWith('GIF8')) return { ext: 'gif' };
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return { ext: 'jpg' };
  if (bytes.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))) return { ext: 'webm' };
  const head = bytes.subarray(0, 256).toString('utf8').trimStart();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return { ext: 'svg' };
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp') return { mime: 'video/mp4' };
  if (bytes.length === 0) return { mime: 'application/x-empty' };
  // eslint-disable-next-line no-control-regex -- text is what has no control bytes but whitespace
  return /[\x00-\x08\x0e-\x1f]/.test(bytes.toString('latin1'))
    ? { mime: 'application/octet-stream' }
    : { mime: 'text/plain' };
}

function add(errors: Record<string, string[]>, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** tag_validator.ex: count, one rating at least, and the ratings that exclude each other. */
function tagErrors(tags: readonly string[], minimum: number): string[] {
  const out: string[] = [];
  if (tags.length < minimum) out.push(`must contain at least ${minimum} tags`);
  const has = (names: readonly string[]): number => names.filter((n) => tags.includes(n)).length;
  const safe = has(['safe']);
  const sexual = has(['suggestive', 'questionable', 'explicit']);
  const horror = has(['semi-grimdark', 'grimdark']);
  const gross = has(['grotesque']);
  if (safe + sexual + horror + gross === 0) out.push('must contain at least one rating tag');
  if (safe > 0 && sexual + horror + gross > 0) out.push('may not contain any other rating if safe');
  if (sexual > 1) out.push('may contain at most one sexual rating');
  if (horror > 1) out.push('may contain at most one grim rating');
  return out;
}

/** The image with these bytes; the described wording also matched the processed file's hash. */
function duplicateOf(board: Board, hash: string, processedToo: boolean): number | undefined {
  for (const image of board.data.images.values())
    if (image.origSha512 === hash || (processedToo && image.sha512 === hash)) return image.id;
  return undefined;
}

/** Judges one upload; the caller has already checked the key (401) and the ban (403). */
export function judgeUpload(board: Board, fields: UploadFields): Judgement {
  const rules = board.uploads;
  const errors: Record<string, string[]> = {};
  const analysis = fields.file === undefined ? undefined : sniff(fields.file.bytes);

  if (rules.wording === 'described') {
    // The fake's first wording, kept as it was: a file problem alone answers first.
    if (analysis === undefined) return { ok: false, errors: { image: ["can't be blank"] } };
    if (!('ext' in analysis))
      return { ok: false, errors: { image_mime_type: ['is invalid'], image_format: ['is invalid'] } };
  }

  // creation_changeset: the description's length and the source's scheme (an empty field is no value).
  if (Buffer.byteLength(fields.description) > 50_000)
    add(errors, 'description', 'should be at most 50000 byte(s)');
  const source = fields.sourceUrl.trim();
  if (source !== '' && !/^https?:\/\//.test(source)) add(errors, 'source_url', 'has invalid format');
  for (const message of tagErrors(fields.tags, rules.minimumTags)) add(errors, 'tag_input', message);

  // image_changeset: what the analysis could not fill stays blank.
  if (analysis === undefined || !('ext' in analysis)) {
    for (const field of ANALYSED) {
      if (field === 'image_mime_type' && analysis !== undefined) {
        add(errors, field, `(${analysis.mime}) is invalid`);
      } else add(errors, field, "can't be blank");
    }
    add(errors, 'image', UNREADABLE);
    return { ok: false, errors };
  }
  const bytes = fields.file?.bytes ?? Buffer.alloc(0);
  if (bytes.length > rules.maxBytes) {
    add(errors, 'image_size', `must be less than or equal to ${rules.maxBytes}`);
  }
  if (Buffer.byteLength(fields.file?.name ?? '') > 255)
    add(errors, 'image_name', 'should be at most 255 byte(s)');

  const duplicate = duplicateOf(board, sha512(bytes), rules.wording === 'described');
  if (rules.wording === 'described') {
    // unsafe_validate_unique (before 1.1) ran beside the other checks.
    if (duplicate !== undefined) add(errors, 'image_orig_sha512_hash', 'has already been taken');
  } else if (duplicate !== undefined && Object.keys(errors).length === 0) {
    add(errors, 'image', `has already been uploaded: it's image ${duplicate}`);
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, ext: analysis.ext };
}
