/**
 * The board's refusal of an upload (`{ "errors": { field: [message, ...] } }`, docs/board-behaviour.md
 * "Uploads") as plain sentences in the member's language: one per thing to fix, never a raw field name or
 * board message. What the board says, field by field (images/image.ex, images/tag_validator.ex):
 *
 * - a duplicate, in either wording (`SubmitImageResult.duplicate`), with a link when the board names the image;
 * - `image_size` "must be less than or equal to N": too large (N bytes, said in MB);
 * - `image_mime_type` "(type) is invalid" or "is invalid" (and `image_format`): not a picture or video the
 *   site takes;
 * - every analysed field blank ("can't be blank"), or `image` alone blank in the older wording: the board
 *   could not fetch the link (or what it fetched was nothing);
 * - `image` "contents corrupt, not recognized, ...": the file could not be read;
 * - `tag_input`: each rule of the tag validator; `source_url`: not a link; `description`: too long;
 *   `image_name`: the file's name too long;
 * - anything else: one generic sentence.
 */
import type { SubmitImageResult } from '../../src/philomena/client/types.js';
import type { Site } from '../../src/philomena/sites.js';
import { imagePageUrl } from '../../src/philomena/urls.js';
import { escapeMarkdown } from '../../src/render/index.js';
import type { Say } from '../shared/say.js';
import { DESCRIPTION_MAX_BYTES } from './upload-input.js';

type Refusal = Extract<SubmitImageResult, { readonly ok: false }>;

/** The board's largest file (image.ex), said when its message names none. */
const BOARD_MAX_BYTES = 131_072_000;
const BLANK = "can't be blank";

/** One sentence per `tag_input` message, by what it says. */
function tagLine(message: string, say: Say): string {
  const few = /at least (\d{1,4}) tags/.exec(message);
  if (few) return say('upload.refused.tags-few', { count: Number(few[1]) });
  if (message.includes('rating tag')) return say('upload.refused.tags-rating');
  if (message.includes('other rating if safe')) return say('upload.refused.tags-safe');
  if (message.includes('sexual rating')) return say('upload.refused.tags-sexual');
  if (message.includes('grim rating')) return say('upload.refused.tags-grim');
  return say('upload.refused.tags');
}

/** What went wrong with the file itself, as one sentence; undefined when the file was fine. */
function fileLine(errors: Readonly<Record<string, readonly string[]>>, say: Say): string | undefined {
  const of = (field: string) => errors[field] ?? [];
  const typeRefused = [...of('image_mime_type'), ...of('image_format')].some((m) => m.endsWith('is invalid'));
  if (typeRefused) return say('upload.refused.unsupported');
  if (
    of('image').includes(BLANK) ||
    of('image_mime_type').includes(BLANK) ||
    of('uploaded_image').includes(BLANK)
  )
    return say('upload.refused.not-fetched');
  if (of('image').some((m) => m.startsWith('contents corrupt'))) return say('upload.refused.unreadable');
  const size = of('image_size')[0];
  if (size !== undefined) {
    const bytes = Number(/(\d{1,15})/.exec(size)?.[1] ?? BOARD_MAX_BYTES);
    return say('upload.refused.too-large', { megabytes: Math.floor(bytes / 1_048_576) });
  }
  return undefined;
}

/** The fields `fileLine` speaks for (and the duplicate's), so they are not also "something else". */
const FILE_FIELDS = new Set([
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
]);

/** The refusal's sentences, each once, in the order a member fixes things: the file, the tags, the rest. */
export function refusalLines(refusal: Refusal, site: Site, say: Say): string[] {
  const lines: string[] = [];
  const { errors } = refusal;
  if (refusal.duplicate) {
    lines.push(
      refusal.duplicateOf === undefined
        ? say('upload.refused.duplicate', { site: escapeMarkdown(site.name) })
        : say('upload.refused.duplicate-at', {
            site: escapeMarkdown(site.name),
            url: `<${imagePageUrl(site, refusal.duplicateOf)}>`,
          }),
    );
  }
  const file = fileLine(errors, say);
  if (file !== undefined) lines.push(file);
  for (const message of errors.tag_input ?? []) lines.push(tagLine(message, say));
  if ((errors.source_url ?? []).length > 0) lines.push(say('upload.refused.source'));
  if ((errors.description ?? []).length > 0) {
    lines.push(say('upload.refused.description', { max: DESCRIPTION_MAX_BYTES }));
  }
  if ((errors['image_name'] ?? []).length > 0) lines.push(say('upload.refused.name'));
  const known = new Set([...FILE_FIELDS, 'tag_input', 'source_url', 'description', 'image_name']);
  const unexplained = Object.entries(errors).some(
    ([field, messages]) => (messages ?? []).length > 0 && !known.has(field),
  );
  // A file field the lines above left unsaid (a duplicate's hash aside) is "something else" too.
  const unsaidFile =
    file === undefined &&
    Object.entries(errors).some(
      ([field, messages]) =>
        FILE_FIELDS.has(field) &&
        (messages ?? []).length > 0 &&
        !(refusal.duplicate && (field === 'image_orig_sha512_hash' || field === 'image')),
    );
  if (unexplained || unsaidFile || lines.length === 0) lines.push(say('upload.refused.other'));
  return [...new Set(lines)];
}
