/**
 * What picture a card shows, and how: the still or gif Discord can show in an embed (`pictureOf`), a grid
 * tile's preview (`previewOf`), the media a Components V2 gallery plays (`cardMedia`: a video upload's
 * .mp4 rendition, since Discord plays mp4 and WebM is not documented; an animated gif; else the picture),
 * and its alt text. Whether a picture may be shown at all is the rating rule's (./rating-rule.ts): callers
 * ask that first. Every URL is https (through urls.ts) and fits Discord's media URL rules.
 */
import { sayEnglish, type Say } from '../i18n/index.js';
import type { VisibleImage } from '../philomena/schemas.js';
import type { Site } from '../philomena/sites.js';
import { ratingOf } from '../philomena/tags.js';
import { httpsUrl } from '../philomena/urls.js';
import { MEDIA_DESCRIPTION_MAX, MEDIA_URL_MAX } from './limits.js';
import { joinWithin, truncate } from './discord-text.js';
import { ratingTagsFirst, ratingWords } from './rating-labels.js';

/** The picture (or video) of a card as a media gallery item shows it. */
export interface CardMedia {
  /**
   * https (or the own host of a local http board). A video upload: the board's .mp4 rendition (Discord
   * plays mp4; WebM is not documented); an animated gif: the gif itself; else the picture.
   */
  readonly url: string;
  readonly kind: 'image' | 'animation' | 'video';
  /** Alt text from the tags (rating first); plain text, mention-proof, at most MEDIA_DESCRIPTION_MAX. */
  readonly description: string;
  /** Shown behind Discord's native media spoiler (spoilered by the filter, or in a spoiler channel). */
  readonly spoiler: boolean;
  /** The still picture (pictureOf(...).picture), for where the media cannot be used. */
  readonly still: string | null;
}

function isVideo(image: VisibleImage): boolean {
  return (
    image.format === 'webm' || image.format === 'mp4' || image.mime_type.toLowerCase().startsWith('video/')
  );
}

/** The still (or gif) Discord can show, and for a video the video itself to link to. */
export function pictureOf(image: VisibleImage, site: Site): { picture: string | null; video: string | null } {
  const reps = image.representations;
  if (isVideo(image)) {
    const thumb = httpsUrl(reps.thumb, site);
    let picture: string | null = null;
    if (thumb !== null) {
      const url = new URL(thumb);
      // `.gif` previews exist for the thumb sizes; when `thumb` points at the full file (a video smaller
      // than the thumb size), the still `rendered.png` beside it is the picture.
      url.pathname = /\/thumb\.(?:webm|mp4)$/i.test(url.pathname)
        ? url.pathname.replace(/\.(?:webm|mp4)$/i, '.gif')
        : url.pathname.replace(/\/[^/]*$/, '/rendered.png');
      picture = url.href;
    }
    const video = httpsUrl(reps.webm ?? reps.full, site) ?? httpsUrl(reps.mp4, site);
    return { picture, video };
  }
  return { picture: notSvg(httpsUrl(reps.large, site) ?? httpsUrl(reps.medium, site)), video: null };
}

/** SVG uploads have png representations; never hand Discord the SVG itself. */
function notSvg(picture: string | null): string | null {
  if (picture === null || !/\.svg$/i.test(new URL(picture).pathname)) return picture;
  const url = new URL(picture);
  url.pathname = url.pathname.replace(/\.svg$/i, '.png');
  return url.href;
}

/**
 * A picture small enough for a grid tile: `medium`, else `thumb` (an SVG's png); for a video the
 * preview {@link pictureOf} gives (the thumb's gif, or the still). Null when none is usable.
 */
export function previewOf(image: VisibleImage, site: Site): string | null {
  const reps = image.representations;
  const picture = isVideo(image)
    ? pictureOf(image, site).picture
    : notSvg(httpsUrl(reps.medium, site) ?? httpsUrl(reps.thumb, site));
  return mediaUrl(picture);
}

/**
 * A URL as a media item takes it, or null: a plain host, only RFC 3986 characters after it (Discord
 * checks media URLs as `format: uri`, which `|`, `^` or a stray `%` the URL parser keeps would fail),
 * `@` encoded there too (no text reading of it holds a mention), no fragment, at most MEDIA_URL_MAX.
 * Servers decode what is percent-encoded, so the file is the same.
 */
export function mediaUrl(url: string | null): string | null {
  if (url === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(parsed.protocol) || !/^[a-z0-9.-]+$/i.test(parsed.hostname)) return null;
  // After parsing, the path and query are ASCII: every other code point is already percent-encoded.
  const tail = `${parsed.pathname}${parsed.search}`.replace(
    /%(?![0-9a-f]{2})|[^a-z0-9\-._~!$&'()*+,;=:/?%]/gi,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
  const out = `${parsed.protocol}//${parsed.host}${tail}`;
  return out.length <= MEDIA_URL_MAX ? out : null;
}

/** The URL with its path's extension `from` replaced by `to`; null when the path does not end in `from`. */
function withExtension(url: string | null, from: RegExp, to: string): string | null {
  if (url === null) return null;
  const parsed = new URL(url);
  if (!from.test(parsed.pathname)) return null;
  parsed.pathname = parsed.pathname.replace(from, to);
  return parsed.href;
}

/** The board's .mp4 rendition of a video upload: `representations.mp4`, else the full file's .mp4 twin. */
function mp4Of(image: VisibleImage, site: Site): string | null {
  const reps = image.representations;
  const mp4 = /\.mp4$/i;
  return (
    withExtension(httpsUrl(reps.mp4, site), mp4, '.mp4') ??
    withExtension(httpsUrl(reps.full, site), /\.(?:webm|mp4)$/i, '.mp4') ??
    withExtension(httpsUrl(reps.webm, site), /\.webm$/i, '.mp4')
  );
}

/**
 * Board text as plain text for places Discord shows as typed (media alt text): one line, no control
 * characters, `http://` shown as `https://`, and a zero-width space after every `@` and `<`, so no
 * reading of it (escapes removed or not) holds a mention.
 */
export function plainMediaText(text: string): string {
  return text
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .replace(/http:\/\//gi, 'https://')
    .replace(/[@<]/g, (c) => `${c}\u200b`);
}

/** Alt text of a shown picture: the tags, rating first, as many as fit. */
function tagAltText(image: VisibleImage): string {
  const tags = ratingTagsFirst(image.tags)
    .map((tag) => plainMediaText(truncate(tag.trim(), 100)))
    .filter((tag) => tag.trim() !== '');
  const text = tags.length === 0 ? `#${image.id}` : joinWithin(tags, ', ', MEDIA_DESCRIPTION_MAX).text;
  return truncate(text, MEDIA_DESCRIPTION_MAX);
}

/**
 * Alt text of a spoilered picture: no tags (the embed form of a spoilered card shows none either), only
 * what the card's text says anyway, in `say`'s language (the rating tags as the board wrote them).
 */
function spoilerAltText(image: VisibleImage, say: Say): string {
  // The id as written, never with thousands separators: it is a name, not a quantity.
  const text = say('card.alt.spoilered', {
    id: String(image.id),
    rating: ratingWords(ratingOf(image.tags), say),
  });
  return truncate(plainMediaText(text), MEDIA_DESCRIPTION_MAX);
}

/**
 * The media of a card whose picture may be shown here (the caller's gate decided that): the video's
 * .mp4, the animated gif, or the picture, within Discord's media URL limit. Null while processing or
 * when no usable URL exists. `filtered`: spoilered by the filter (its alt text then names no tag, and
 * says so in `say`'s language); `spoiler`: behind a spoiler for that or because the channel is a spoiler
 * channel.
 */
export function cardMedia(
  image: VisibleImage,
  site: Site,
  {
    spoiler,
    filtered,
    say = sayEnglish,
  }: { readonly spoiler: boolean; readonly filtered: boolean; readonly say?: Say },
): CardMedia | null {
  if (!image.thumbnails_generated) return null;
  const still = mediaUrl(pictureOf(image, site).picture);
  const description = filtered ? spoilerAltText(image, say) : tagAltText(image);
  const media = (url: string, kind: CardMedia['kind']): CardMedia => ({
    url,
    kind,
    description,
    spoiler,
    still,
  });
  if (isVideo(image)) {
    const mp4 = mediaUrl(mp4Of(image, site));
    if (mp4 !== null) return media(mp4, 'video');
  } else if (image.animated && (image.format === 'gif' || image.mime_type.toLowerCase() === 'image/gif')) {
    const gif = mediaUrl(withExtension(httpsUrl(image.representations.full, site), /\.gif$/i, '.gif'));
    if (gif !== null) return media(gif, 'animation');
  }
  if (still === null) return null;
  return media(still, /\.gif$/i.test(new URL(still).pathname) && image.animated ? 'animation' : 'image');
}
