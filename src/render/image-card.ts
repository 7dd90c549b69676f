/**
 * The image card: one embed per image, gated by the safety rules.
 *
 * Every card credits the artists (or says they are unknown), lists every source, and links to the image
 * page. What else it shows depends on the gate: outside age-restricted channels only an image rated
 * exactly `safe` shows its picture, tags and description; a spoilered image shows neither picture nor
 * description until revealed; deleted and merged images get a stub card. In a spoiler channel every
 * picture goes behind Discord's spoiler: the media (for Components V2) is marked spoiler, and the embed,
 * which cannot spoiler its image, carries none and says so. Board text is escaped and mention-proof,
 * every URL is https (through urls.ts), and the card fits Discord's limits by itself.
 */
import { createHash } from 'node:crypto';
import type { APIEmbed, APIEmbedField } from 'discord.js';
import type { HiddenImage, Image, VisibleImage } from '../philomena/schemas.js';
import type { Site } from '../philomena/sites.js';
import {
  CREDIT_NAMESPACES,
  creditsOf,
  isSafe,
  ratingOf,
  RATINGS,
  wellFormed,
  type CreditNamespace,
  type Rating,
} from '../philomena/tags.js';
import { httpsUrl, imagePageUrl, sourceLink, tagPageUrl } from '../philomena/urls.js';
import {
  EMBED_FIELD_VALUE_MAX,
  EMBEDS_TOTAL_MAX,
  embedLength,
  fitEmbeds,
  MEDIA_DESCRIPTION_MAX,
  MEDIA_URL_MAX,
} from './limits.js';
import { boardMarkdownToDiscord } from './board-markdown.js';
import {
  bareUrl,
  escapeInline,
  maskedLink,
  neutraliseMentions,
  truncate,
  truncateMarkdown,
} from './discord-text.js';

/** Whether the image may show its picture, tags and description: anywhere if `safe`, else age-restricted only. */
export function mayShow(image: Image, ageRestricted: boolean): boolean {
  if (image.kind !== 'image') return false;
  return ageRestricted || isSafe(image.tags);
}

export type Gate = 'full' | 'rating-restricted' | 'spoilered' | 'processing' | 'deleted' | 'merged';

export interface CardContext {
  readonly site: Site;
  /** The channel allows non-safe images. */
  readonly ageRestricted: boolean;
  /** The applied filter, to tell which of its tags hit a spoilered image. */
  readonly filter?: {
    readonly name: string;
    readonly spoileredTagIds: readonly number[];
    readonly hiddenTagIds: readonly number[];
    /** The filter's hidden search (`hidden_complex`): an image it matches also comes back `spoilered`. */
    readonly hiddenComplex?: string | null;
  };
  /**
   * Reveal (ephemeral, to one member) ignores `spoilered` and `spoilerChannel`, never the rating rule: a
   * picture shown to the clicker alone needs no spoiler.
   */
  readonly reveal?: boolean;
  /**
   * A spoiler channel (docs/spoiler-channels.md): for the rating rule a plain channel (`ageRestricted` is
   * false there), and every picture posted there goes behind Discord's spoiler.
   */
  readonly spoilerChannel?: boolean;
  /** Appended to the footer, e.g. "3 of 120". */
  readonly footerExtra?: string;
  /** Where rendered descriptions are kept; the module's shared memo when not given. */
  readonly descriptions?: DescriptionMemo;
}

export interface ImageCard {
  readonly embed: APIEmbed;
  readonly gate: Gate;
  /**
   * A Reveal button may show its picture to one member: spoilered by the filter, or (a spoiler channel)
   * a picture the embed form leaves out.
   */
  readonly revealable: boolean;
  /**
   * Made for a spoiler channel: `media` is behind a spoiler, and the embed carries no picture (its
   * description opens with {@link SPOILER_CHANNEL_NOTICE} where it left one out).
   */
  readonly spoilerChannel?: boolean;
  /**
   * What a Components V2 media gallery shows, decided here by the same gates as the embed: null where
   * the embed shows no picture, and on a spoilered card (which shows none) only as a native spoiler.
   */
  readonly media: CardMedia | null;
}

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

/** Colours by rating, most severe first: the first rating of the image in this list picks the colour. */
const RATING_COLOURS: readonly (readonly [Rating, number])[] = [
  ['grotesque', 0x1e1f22],
  ['grimdark', 0x2b2d31],
  ['explicit', 0xed4245],
  ['questionable', 0xe67e22],
  ['semi-grimdark', 0x4e5058],
  ['suggestive', 0xfee75c],
  ['safe', 0x57f287],
];
/** No rating tag, and deleted or merged stubs. */
export const NEUTRAL_COLOUR = 0x99aab5;

export function ratingColour(ratings: ReadonlySet<Rating>): number {
  return RATING_COLOURS.find(([rating]) => ratings.has(rating))?.[1] ?? NEUTRAL_COLOUR;
}

/** The rating words in the board's order, e.g. "questionable, grimdark"; "no rating tag" when none. */
export function ratingWords(ratings: ReadonlySet<Rating>): string {
  const words = RATINGS.filter((rating) => ratings.has(rating));
  return words.length === 0 ? 'no rating tag' : words.join(', ');
}

const ROLE: Readonly<Record<CreditNamespace, [string, string]>> = {
  artist: ['Artist', 'Artists'],
  colorist: ['Colorist', 'Colorists'],
  editor: ['Editor', 'Editors'],
  photographer: ['Photographer', 'Photographers'],
  prompter: ['Prompter', 'Prompters'],
  generator: ['Generator', 'Generators'],
  commissioner: ['Commissioner', 'Commissioners'],
};

/** Plain tags that say why there is no credit tag; shown as they are instead of "artist unknown". */
const NO_CREDIT_TAGS = ['artist needed', 'anonymous artist', 'unknown artist', 'screencap'];

/**
 * `items` joined with `separator`, as many as fit in `max` characters, then "and N more". Items are
 * whole Markdown pieces (a link, an escaped name): they are never cut in the middle.
 */
export function joinWithin(
  items: readonly string[],
  separator: string,
  max: number,
  more: (left: number) => string = (left) => `… and ${left} more`,
): { text: string; shown: number } {
  let text = '';
  let shown = 0;
  for (const [index, item] of items.entries()) {
    const next = shown === 0 ? item : `${text}${separator}${item}`;
    const left = items.length - index - 1;
    const tail = left > 0 ? `${separator}${more(left)}`.length : 0;
    if (next.length + tail > max) break;
    text = next;
    shown += 1;
  }
  if (shown < items.length) {
    const rest = more(items.length - shown);
    text = shown === 0 ? rest : `${text}${separator}${rest}`;
  }
  return { text, shown };
}

function creditField(image: VisibleImage, site: Site): APIEmbedField {
  const credits = creditsOf(image.tags);
  if (credits.length === 0) {
    const lower = new Set(image.tags.map((tag) => tag.trim().toLowerCase()));
    const said = NO_CREDIT_TAGS.filter((tag) => lower.has(tag));
    return { name: 'Credit', value: said.length > 0 ? said.join(', ') : 'artist unknown' };
  }
  const lines: string[] = [];
  for (const namespace of CREDIT_NAMESPACES) {
    const labels = ROLE[namespace];
    const names = credits.filter((credit) => credit.namespace === namespace);
    if (names.length === 0) continue;
    const label = names.length === 1 ? labels[0] : labels[1];
    const links = names.map((credit) =>
      maskedLink(escapeInline(truncate(credit.name, 80)), tagPageUrl(site, wellFormed(credit.tag))),
    );
    // Each role line gets its share of the field, so a crowd of prompters cannot push out the artist.
    const budget = Math.floor(EMBED_FIELD_VALUE_MAX / CREDIT_NAMESPACES.length) + 200;
    lines.push(`**${label}:** ${joinWithin(links, ', ', budget - label.length - 6).text}`);
  }
  return {
    name: 'Credit',
    value: joinWithin(lines, '\n', EMBED_FIELD_VALUE_MAX, (n) => `… and ${n} more roles`).text,
  };
}

/** The credit in one line (roles joined with " · "), for places with little room such as an example image. */
export function creditLine(image: VisibleImage, site: Site, max: number): string {
  return truncateMarkdown(creditField(image, site).value.replaceAll('\n', ' · '), max);
}

function sourcesOf(image: VisibleImage): string[] {
  return image.source_urls.map((source) => source.trim()).filter((source) => source !== '');
}

/**
 * Where an image may not be shown, only sources that are links are listed: any other source is free
 * text of the uploader's (up to 200 characters each), which could say what the picture shows.
 */
function listedSources(entries: readonly string[], linksOnly: boolean): string[] {
  return linksOnly ? entries.filter((source) => sourceLink(source) !== null) : [...entries];
}

function onImagePage(n: number): string {
  return `… and ${n} more on the image page`;
}

/** "1 source on the image page": every source was left out here. */
function allOnImagePage(n: number): string {
  return `${n} ${n === 1 ? 'source' : 'sources'} on the image page`;
}

/**
 * Every source in one line, as many as fit in `max`, or "no source given". With `linksOnly` (an image
 * that may not be shown here), sources that are not links are counted, not shown.
 */
export function sourceLine(image: VisibleImage, max: number, linksOnly = false): string {
  const entries = sourcesOf(image);
  if (entries.length === 0) return 'no source given';
  const listed = listedSources(entries, linksOnly);
  const left = entries.length - listed.length;
  if (listed.length === 0) return allOnImagePage(left);
  const shown = left === 0 ? listed.map(sourceEntry) : [...listed.map(sourceEntry), onImagePage(left)];
  return joinWithin(shown, ' · ', max, (n) => onImagePage(left === 0 ? n : n - 1 + left)).text;
}

/** A source as shown: an https link, or (not an http(s) URL) escaped plain text. */
export function sourceEntry(source: string): string {
  const link = sourceLink(source);
  if (link !== null && link.length <= 900) return bareUrl(link);
  // Not a URL we can link (prose, a broken address): shown as text, still never as http.
  return escapeInline(truncate(source.trim(), 200)).replace(/http:\/\//gi, 'https://');
}

const SOURCE_FIELDS_MAX = 3;

/**
 * Every source, over up to three fields; "no source given" when there is none. With `linksOnly`, only
 * the sources that are links (see {@link listedSources}); the others are counted "on the image page".
 */
function sourceFields(image: VisibleImage, linksOnly = false): APIEmbedField[] {
  const entries = sourcesOf(image);
  if (entries.length === 0) return [{ name: 'Source', value: 'no source given' }];
  const firstName = entries.length === 1 ? 'Source' : 'Sources';
  const listed = listedSources(entries, linksOnly);
  const left = entries.length - listed.length;
  if (listed.length === 0) return [{ name: firstName, value: allOnImagePage(left) }];
  const shown = listed.map(sourceEntry);
  // Room kept in every field for the closing "… and N more" line that counts the sources left out.
  const tail = left === 0 ? 0 : `\n${onImagePage(entries.length)}`.length;
  const fields: APIEmbedField[] = [];
  let next = 0;
  while (next < shown.length && fields.length < SOURCE_FIELDS_MAX) {
    const last = fields.length === SOURCE_FIELDS_MAX - 1;
    const rest = shown.slice(next);
    const packed = last
      ? joinWithin(rest, '\n', EMBED_FIELD_VALUE_MAX - tail, (n) => onImagePage(n + left))
      : joinWithin(rest, '\n', EMBED_FIELD_VALUE_MAX - tail, () => '');
    const value = last ? packed.text : packed.text.replace(/\n$/, '');
    const name = fields.length > 0 ? 'Sources (continued)' : firstName;
    const cut = (shown[next] ?? '').slice(0, EMBED_FIELD_VALUE_MAX - tail);
    fields.push({ name, value: value === '' ? cut : value });
    next += Math.max(1, packed.shown);
  }
  const final = fields.at(-1);
  if (left > 0 && final !== undefined && next >= shown.length) {
    fields[fields.length - 1] = { ...final, value: `${final.value}\n${onImagePage(left)}` };
  }
  return fields;
}

/** Rating tags first (in the board's order), then the rest as the image lists them. */
function tagsField(image: VisibleImage): APIEmbedField | null {
  const ratings = RATINGS.filter((rating) => image.tags.some((tag) => tag.trim().toLowerCase() === rating));
  const rest = image.tags.filter((tag) => !(RATINGS as readonly string[]).includes(tag.trim().toLowerCase()));
  const tags = [...ratings, ...rest].map((tag) => escapeInline(truncate(tag, 100)));
  if (tags.length === 0) return null;
  return { name: `Tags (${image.tags.length})`, value: joinWithin(tags, ', ', EMBED_FIELD_VALUE_MAX).text };
}

function unixSeconds(iso: string | undefined): number | null {
  if (iso === undefined) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

function statFields(image: VisibleImage): APIEmbedField[] {
  const fields: APIEmbedField[] = [
    {
      name: 'Score',
      value: `${image.score} (▲ ${image.upvotes} ▼ ${image.downvotes}) · ★ ${image.faves} · 💬 ${image.comment_count}`,
      inline: true,
    },
    {
      name: 'Size',
      value: `${image.width}×${image.height} ${escapeInline(image.format.toUpperCase())}`,
      inline: true,
    },
  ];
  const uploaded = unixSeconds(image.first_seen_at) ?? unixSeconds(image.created_at);
  if (uploaded !== null) fields.push({ name: 'Uploaded', value: `<t:${uploaded}:d>`, inline: true });
  return fields;
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
  const ratings = RATINGS.filter((rating) => image.tags.some((tag) => tag.trim().toLowerCase() === rating));
  const rest = image.tags.filter((tag) => !(RATINGS as readonly string[]).includes(tag.trim().toLowerCase()));
  const tags = [...ratings, ...rest]
    .map((tag) => plainMediaText(truncate(tag.trim(), 100)))
    .filter((tag) => tag.trim() !== '');
  const text = tags.length === 0 ? `#${image.id}` : joinWithin(tags, ', ', MEDIA_DESCRIPTION_MAX).text;
  return truncate(text, MEDIA_DESCRIPTION_MAX);
}

/**
 * Alt text of a spoilered picture: no tags (the embed form of a spoilered card shows none either), only
 * what the card's text says anyway.
 */
function spoilerAltText(image: VisibleImage): string {
  return `#${image.id}, spoilered by the filter (${ratingWords(ratingOf(image.tags))})`;
}

/**
 * The media of a card whose picture may be shown here (the caller's gate decided that): the video's
 * .mp4, the animated gif, or the picture, within Discord's media URL limit. Null while processing or
 * when no usable URL exists. `filtered`: spoilered by the filter (its alt text then names no tag);
 * `spoiler`: behind a spoiler for that or because the channel is a spoiler channel.
 */
function cardMedia(
  image: VisibleImage,
  site: Site,
  { spoiler, filtered }: { readonly spoiler: boolean; readonly filtered: boolean },
): CardMedia | null {
  if (!image.thumbnails_generated) return null;
  const still = mediaUrl(pictureOf(image, site).picture);
  const description = filtered ? spoilerAltText(image) : tagAltText(image);
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

/** Whether one of the image's tags is one of the filter's hidden tags (by id: fails closed on bad names). */
export function hiddenByFilter(image: VisibleImage, filter: CardContext['filter']): boolean {
  if (filter === undefined) return false;
  const hidden = new Set(filter.hiddenTagIds);
  return image.tag_ids.some((id) => hidden.has(id));
}

/**
 * Whether a `spoilered` image may be one the filter hides rather than spoilers, so that it must keep no
 * picture, not even behind a native spoiler: the filter is unknown, one of its hidden tags hits the image,
 * or the filter has a hidden search (`hidden_complex`, which the board matches and the bot cannot: an
 * image it matches comes back just `spoilered`). Fails closed.
 */
export function mayBeHidden(image: VisibleImage, filter: CardContext['filter']): boolean {
  if (filter === undefined) return true;
  if (hiddenByFilter(image, filter)) return true;
  return image.spoilered && (filter.hiddenComplex ?? '').trim() !== '';
}

/** Footers show text as typed (no Markdown), so only mentions are neutralised. */
function footer(ctx: CardContext): { text: string } {
  const extra = ctx.footerExtra?.trim();
  return { text: neutraliseMentions(extra ? `${ctx.site.name} · ${extra}` : ctx.site.name) };
}

/** The filter's tags that hit the image (ids and names align: the server builds both from one list). */
function filterHits(image: VisibleImage, ctx: CardContext): { spoilered: string[]; hidden: string[] } {
  const spoileredIds = new Set(ctx.filter?.spoileredTagIds ?? []);
  const hiddenIds = new Set(ctx.filter?.hiddenTagIds ?? []);
  const spoilered: string[] = [];
  const hidden: string[] = [];
  image.tag_ids.forEach((id, index) => {
    const name = image.tags[index];
    if (name === undefined) return;
    if (hiddenIds.has(id)) hidden.push(name);
    else if (spoileredIds.has(id)) spoilered.push(name);
  });
  return { spoilered, hidden };
}

/** How a spoilered card's notice ends (the V2 card, which may picture it behind a spoiler, rewords it). */
export const SPOILER_NOTICE_END = 'Its picture and description are not shown.';

function spoilerNotice(image: VisibleImage, ctx: CardContext): string {
  const by = ctx.filter ? `the filter “${escapeInline(truncate(ctx.filter.name, 100))}”` : 'the filter';
  const { spoilered, hidden } = filterHits(image, ctx);
  const list = (names: string[]): string =>
    joinWithin(
      names.map((name) => `**${escapeInline(truncate(name, 100))}**`),
      ', ',
      600,
    ).text;
  const parts: string[] = [];
  if (hidden.length > 0) parts.push(`hidden by ${by} for ${list(hidden)}`);
  if (spoilered.length > 0) parts.push(`spoilered by ${by} for ${list(spoilered)}`);
  const why = parts.length > 0 ? parts.join('; ') : `spoilered: it matches ${by}'s rules`;
  return `This image is ${why}. ${SPOILER_NOTICE_END}`;
}

function stubCard(image: HiddenImage, ctx: CardContext): ImageCard {
  const merged = image.duplicate_of !== null;
  const description = merged
    ? `This image was merged into ${maskedLink(`#${image.duplicate_of}`, imagePageUrl(ctx.site, image.duplicate_of ?? image.id))}.`
    : `This image was deleted${image.deletion_reason ? `: ${escapeInline(truncate(image.deletion_reason, 1000))}` : '.'}`;
  const embed: APIEmbed = {
    title: `#${image.id}`,
    url: imagePageUrl(ctx.site, image.id),
    color: NEUTRAL_COLOUR,
    description,
    footer: footer(ctx),
  };
  return { embed: fitOne(embed), gate: merged ? 'merged' : 'deleted', revealable: false, media: null };
}

function fitOne(embed: APIEmbed): APIEmbed {
  return fitEmbeds([embed])[0] ?? embed;
}

/** The opening of a processing card's description (the V2 card tells it apart from the board's text). */
export const PROCESSING_NOTICE = 'Still processing: the picture is not ready yet.';

/**
 * The opening of an embed made for a spoiler channel that leaves its picture out: an embed cannot put its
 * image behind a spoiler (the Components V2 form of the card does, and leaves this out).
 */
export const SPOILER_CHANNEL_NOTICE =
  'Spoiler channel: the picture is not in this card, which cannot hide it behind a spoiler. **Reveal** shows it to you alone.';

/** Room for the description once the rest of the card is counted, kept readable. */
const DESCRIPTION_MAX = 1800;

/**
 * Rendered descriptions, so that a card seen again (the same link unfurled in several servers, paging
 * back and forth, Reveal) costs a lookup instead of a parse of uploader-written text (security review
 * H2). A rendering depends only on the description, the site and the room it was cut to, so it is the
 * same for every server and channel and a shared one reveals nothing; the gates decide before it is
 * asked whether a description shows at all.
 */
export interface DescriptionMemo {
  /** The description of `image` rendered for `site` within `room`: remembered, or `render()`ed now. */
  get(image: VisibleImage, site: Site, room: number, render: () => string): string;
  /** Renderings kept, never more than the capacity. */
  readonly size: number;
}

/** Enough for every image on a busy bot's screens at once; at most ~4 KB each, so ~8 MB in all. */
export const DESCRIPTION_MEMO_MAX = 2_000;

/**
 * A least-recently-used memo of at most `capacity` renderings, keyed by site, image id, `updated_at` and
 * room. Each entry also holds a digest of the description it was made from and is used only when it
 * matches: a board that edits a description without touching `updated_at` (a fork, a fake) still gets
 * the new text, and only the digest is kept, never a copy of a description of any length.
 */
export function createDescriptionMemo(capacity = DESCRIPTION_MEMO_MAX): DescriptionMemo {
  const entries = new Map<string, { readonly digest: string; readonly text: string }>();
  return {
    get(image, site, room, render) {
      const key = [site.id, site.baseUrl, image.id, image.updated_at, room].join('\u0000');
      // UTF-16 in, so descriptions differing only in lone surrogates do not share a digest.
      const digest = createHash('sha256').update(image.description, 'utf16le').digest('base64url');
      const kept = entries.get(key);
      entries.delete(key);
      const entry = kept !== undefined && kept.digest === digest ? kept : { digest, text: render() };
      // Map order is insertion order: re-inserting makes this the most recently used.
      entries.set(key, entry);
      if (entries.size > capacity) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
      return entry.text;
    },
    get size() {
      return entries.size;
    },
  };
}

/**
 * Used by cards whose context brings no memo of its own. Module-level on purpose: cards are built by
 * commands, unfurls and buttons alike, and one memo serves them all without each caller threading it
 * through; it is bounded (DESCRIPTION_MEMO_MAX), and tests or a caller that wants its own pass one in
 * `CardContext.descriptions`.
 */
const sharedDescriptions = createDescriptionMemo();

export function imageCard(image: Image, ctx: CardContext): ImageCard {
  if (image.kind === 'hidden') return stubCard(image, ctx);
  const { site } = ctx;
  const ratings = ratingOf(image.tags);
  const safe = isSafe(image.tags);
  // Reveal shows the picture to the clicker alone: no spoiler needed there.
  const channelSpoiler = ctx.spoilerChannel === true && ctx.reveal !== true;
  // A spoiler channel is a plain channel for the rating rule, whatever else the context says (fail closed).
  const ageRestricted = ctx.ageRestricted && ctx.spoilerChannel !== true;
  const base: APIEmbed = {
    title: `#${image.id}`,
    url: imagePageUrl(site, image.id),
    color: ratingColour(ratings),
    footer: footer(ctx),
  };
  const rating: APIEmbedField = { name: 'Rating', value: escapeInline(ratingWords(ratings)), inline: true };

  if (!safe && !ageRestricted) {
    const embed: APIEmbed = {
      ...base,
      description:
        ratings.size === 0
          ? 'This image has no rating tag, so it can only be shown in age-restricted channels.'
          : `This image is rated **${escapeInline(ratingWords(ratings))}**: it can only be shown in age-restricted channels.`,
      fields: [creditField(image, site), ...sourceFields(image, true), rating],
    };
    return { embed: fitOne(embed), gate: 'rating-restricted', revealable: false, media: null };
  }

  if (image.spoilered && ctx.reveal !== true) {
    const embed: APIEmbed = {
      ...base,
      description: spoilerNotice(image, ctx),
      fields: [creditField(image, site), ...sourceFields(image), rating, ...statFields(image)],
    };
    // A native spoiler only where the filter is known and hides none of the image's tags: a hidden
    // image keeps no picture, and Reveal (to one member) stays the way to see it.
    const spoilerable = mayShow(image, ageRestricted) && !mayBeHidden(image, ctx.filter);
    const media = spoilerable ? cardMedia(image, site, { spoiler: true, filtered: true }) : null;
    return {
      embed: fitOne(embed),
      gate: 'spoilered',
      revealable: true,
      media,
      ...(channelSpoiler ? { spoilerChannel: true } : {}),
    };
  }

  const processing = !image.thumbnails_generated;
  const { picture, video } = pictureOf(image, site);
  const fields: APIEmbedField[] = [
    creditField(image, site),
    ...sourceFields(image),
    rating,
    ...statFields(image),
  ];
  if (video !== null && !processing) fields.push({ name: 'Video', value: bareUrl(video) });
  const tags = tagsField(image);
  if (tags) fields.push(tags);
  const embed: APIEmbed = { ...base, fields };
  // In a spoiler channel the embed keeps no picture: it cannot spoiler one.
  const withheld = !processing && picture !== null && channelSpoiler;
  if (!processing && picture !== null && !withheld) embed.image = { url: picture };

  const notice = processing ? PROCESSING_NOTICE : withheld ? SPOILER_CHANNEL_NOTICE : '';
  const room = Math.min(DESCRIPTION_MAX, EMBEDS_TOTAL_MAX - embedLength(embed) - notice.length - 2);
  const descriptions = ctx.descriptions ?? sharedDescriptions;
  const text =
    room > 40 && image.description.trim() !== ''
      ? descriptions.get(image, site, room, () =>
          truncateMarkdown(boardMarkdownToDiscord(image.description, site), room),
        )
      : '';
  const description = [notice, text].filter((part) => part !== '').join('\n\n');
  if (description !== '') embed.description = description;
  return {
    embed: fitOne(embed),
    gate: processing ? 'processing' : 'full',
    revealable: withheld,
    media: processing ? null : cardMedia(image, site, { spoiler: channelSpoiler, filtered: false }),
    ...(channelSpoiler ? { spoilerChannel: true } : {}),
  };
}
