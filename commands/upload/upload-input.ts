/**
 * What a member typed for an upload, checked before anything is sent (issue 22 §2), in the order they read
 * the answer: the image URL, the tags, the source, the description. Each refusal is one short sentence
 * (a `UserFacingError`); the board's own answer still decides whatever passes here.
 *
 * - The URL is the board's to fetch (docs/board-behaviour.md, "Uploads"): http(s) only, no user or password
 *   in it (a credential would be handed to the board and kept in its records), no control characters, a
 *   sane length. The bot never fetches it itself.
 * - The tags follow the board's tag validator (images/tag_validator.ex, as the local board's
 *   upload-rules.ts does it): a rating tag, the site's minimum count (five on Furbooru, three elsewhere and
 *   on sites the bot does not know), `safe` alone among ratings, one sexual rating, one grim rating. Tags the
 *   board implies are not known here, so a list the board would top up is refused: the member adds them.
 * - The source is a link (the board refuses another scheme: `source_url` "has invalid format").
 * - The description holds at most the board's 50,000 bytes.
 */
import { UserFacingError } from '../../src/discord/failures.js';
import type { Site } from '../../src/philomena/sites.js';
import { normaliseTagName } from '../../src/render/content-rules.js';
import { escapeMarkdown } from '../../src/render/index.js';
import { TAG_NAME_MAX } from '../shared/tag-lists.js';

/** Longer than any real image or page address; a longer text is not one a member means. */
export const URL_MAX = 2_000;
/** The board's limit on a description (`description` "should be at most 50000 byte(s)"). */
export const DESCRIPTION_MAX_BYTES = 50_000;
/** More tags than any image carries; a longer list is a paste gone wrong. */
const TAGS_MAX = 200;

const RATINGS = {
  safe: ['safe'],
  sexual: ['suggestive', 'questionable', 'explicit'],
  grim: ['semi-grimdark', 'grimdark'],
  gross: ['grotesque'],
} as const;

export interface UploadInput {
  readonly url: string;
  /** Comma-separated, normalised, each tag once. */
  readonly tagInput: string;
  readonly sourceUrl?: string;
  readonly description?: string;
}

/** What a member typed, as the options or the form gave it (absent fields undefined or empty). */
export interface TypedUpload {
  readonly url: string;
  readonly tags: string;
  readonly source?: string | null | undefined;
  readonly description?: string | null | undefined;
}

/** Fewest tags the site takes (tag_validator.ex; Furbooru asks for five). */
export function minimumTags(site: Site): number {
  return site.id === 'furbooru' ? 5 : 3;
}

// eslint-disable-next-line no-control-regex -- the characters refused are exactly the control ones
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex -- a description keeps its line breaks and tabs
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** The link as the board gets it, or the refusal. `what` tells the image's from the source's. */
function checkedLink(text: string, what: 'url' | 'source'): string {
  const trimmed = text.trim();
  if (trimmed.length > URL_MAX) {
    throw what === 'url'
      ? new UserFacingError(
          'upload.url-too-long',
          `That image link is too long (at most ${URL_MAX.toLocaleString('en-US')} characters).`,
          {
            params: {
              max: URL_MAX,
            },
          },
        )
      : new UserFacingError(
          'upload.source-too-long',
          `That source link is too long (at most ${URL_MAX.toLocaleString('en-US')} characters).`,
          {
            params: {
              max: URL_MAX,
            },
          },
        );
  }
  let url: URL | undefined;
  try {
    url = CONTROL.test(trimmed) || /\s/.test(trimmed) ? undefined : new URL(trimmed);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') {
    throw what === 'url'
      ? new UserFacingError(
          'upload.url-not-http',
          'The image link must be a web address starting with https://.',
        )
      : new UserFacingError(
          'upload.source-not-http',
          'The source must be a web address starting with https://.',
        );
  }
  if (url.username !== '' || url.password !== '') {
    throw new UserFacingError(
      'upload.url-credentials',
      'A link with a user name or password in it is not sent: use the plain address.',
    );
  }
  return url.href;
}

/** The tags as the board reads them (comma-separated), each once; the refusal of the first rule broken. */
function checkedTags(text: string, site: Site): string {
  if (CONTROL.test(text)) {
    throw new UserFacingError(
      'upload.control-characters',
      'Tags, links and descriptions cannot hold control characters.',
    );
  }
  const tags = [...new Set(text.split(',').map(normaliseTagName))].filter((tag) => tag !== '');
  if (tags.length > TAGS_MAX || tags.some((tag) => [...tag].length > TAG_NAME_MAX)) {
    throw new UserFacingError(
      'upload.tags-too-long',
      `Too many tags, or a tag too long (at most ${TAGS_MAX} tags of ${TAG_NAME_MAX} characters).`,
      { params: { count: TAGS_MAX, max: TAG_NAME_MAX } },
    );
  }
  const count = (names: readonly string[]) => names.filter((name) => tags.includes(name)).length;
  const safe = count(RATINGS.safe);
  const sexual = count(RATINGS.sexual);
  const grim = count(RATINGS.grim);
  const others = sexual + grim + count(RATINGS.gross);
  if (safe + others === 0) {
    throw new UserFacingError(
      'upload.tags-rating',
      'Add a rating tag: safe, suggestive, questionable, explicit, semi-grimdark, grimdark or grotesque.',
    );
  }
  const minimum = minimumTags(site);
  if (tags.length < minimum) {
    const name = escapeMarkdown(site.name);
    throw new UserFacingError(
      'upload.tags-few',
      `Add more tags: ${name} asks for at least ${minimum} tags.`,
      {
        params: {
          site: name,
          count: minimum,
        },
      },
    );
  }
  if (safe > 0 && others > 0) {
    throw new UserFacingError('upload.tags-safe', '`safe` cannot go with another rating tag.');
  }
  if (sexual > 1) {
    throw new UserFacingError('upload.tags-sexual', 'Use only one of suggestive, questionable and explicit.');
  }
  if (grim > 1) throw new UserFacingError('upload.tags-grim', 'Use only one of semi-grimdark and grimdark.');
  return tags.join(', ');
}

/** `typed` checked for `site` (see the header), or the first refusal. */
export function checkUpload(typed: TypedUpload, site: Site): UploadInput {
  const url = checkedLink(typed.url, 'url');
  const tagInput = checkedTags(typed.tags, site);
  const source = typed.source?.trim() ?? '';
  const sourceUrl = source === '' ? undefined : checkedLink(source, 'source');
  const description = typed.description ?? '';
  if (CONTROL_IN_TEXT.test(description)) {
    throw new UserFacingError(
      'upload.control-characters',
      'Tags, links and descriptions cannot hold control characters.',
    );
  }
  if (Buffer.byteLength(description) > DESCRIPTION_MAX_BYTES) {
    throw new UserFacingError(
      'upload.description-too-long',
      `The description is too long: the site takes at most ${DESCRIPTION_MAX_BYTES.toLocaleString('en-US')} bytes.`,
      { params: { max: DESCRIPTION_MAX_BYTES } },
    );
  }
  return {
    url,
    tagInput,
    ...(sourceUrl === undefined ? {} : { sourceUrl }),
    ...(description.trim() === '' ? {} : { description }),
  };
}
