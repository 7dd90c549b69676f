/**
 * The credit and the sources every card carries (non-negotiable: the artists, or why none is named, and
 * every source), as embed fields and as single lines for places with little room (an example image, a
 * grid line). Where an image may not be shown here, only the sources that are links are listed.
 */
import type { APIEmbedField } from 'discord.js';
import { sayEnglish, type Say } from '../i18n/index.js';
import type { VisibleImage } from '../philomena/schemas.js';
import type { Site } from '../philomena/sites.js';
import { CREDIT_NAMESPACES, creditsOf, wellFormed, type CreditNamespace } from '../philomena/tags.js';
import { sourceLink, tagPageUrl } from '../philomena/urls.js';
import { EMBED_FIELD_VALUE_MAX } from './limits.js';
import { bareUrl, escapeInline, joinWithin, maskedLink, truncate, truncateMarkdown } from './discord-text.js';

/** Each credit namespace's label (a plural message: "Artist", "Artists"). */
const ROLE: Readonly<Record<CreditNamespace, string>> = {
  artist: 'card.role.artist',
  colorist: 'card.role.colorist',
  editor: 'card.role.editor',
  photographer: 'card.role.photographer',
  prompter: 'card.role.prompter',
  generator: 'card.role.generator',
  commissioner: 'card.role.commissioner',
};

/** "**Label:** value", as the language writes a label before its value (French puts a space before the colon). */
export function labelLine(label: string, value: string, say: Say = sayEnglish): string {
  return say('card.label-line', { label, value });
}

/** Plain tags that say why there is no credit tag; shown as they are instead of "artist unknown". */
const NO_CREDIT_TAGS = ['artist needed', 'anonymous artist', 'unknown artist', 'screencap'];

/** The credit field, its label and its words in `say`'s language (the names as the board wrote them). */
export function creditField(image: VisibleImage, site: Site, say: Say = sayEnglish): APIEmbedField {
  const name = say('card.field.credit');
  const credits = creditsOf(image.tags);
  if (credits.length === 0) {
    const lower = new Set(image.tags.map((tag) => tag.trim().toLowerCase()));
    // Tags, so shown as the board writes them, whatever the language.
    const said = NO_CREDIT_TAGS.filter((tag) => lower.has(tag));
    return { name, value: said.length > 0 ? said.join(', ') : say('card.credit.unknown') };
  }
  const lines: string[] = [];
  for (const namespace of CREDIT_NAMESPACES) {
    const names = credits.filter((credit) => credit.namespace === namespace);
    if (names.length === 0) continue;
    const label = say(ROLE[namespace], { count: names.length });
    const links = names.map((credit) =>
      maskedLink(escapeInline(truncate(credit.name, 80)), tagPageUrl(site, wellFormed(credit.tag))),
    );
    // Each role line gets its share of the field, so a crowd of prompters cannot push out the artist. The
    // names get the room they get in English whatever this language's label: a longer label costs no name.
    const budget = Math.floor(EMBED_FIELD_VALUE_MAX / CREDIT_NAMESPACES.length) + 200;
    const room = budget - labelLine(sayEnglish(ROLE[namespace], { count: names.length }), '').length;
    const more = (count: number): string => say('card.more', { count });
    lines.push(labelLine(label, joinWithin(links, ', ', room, more).text, say));
  }
  const moreRoles = (count: number): string => say('card.credit.more-roles', { count });
  return { name, value: joinWithin(lines, '\n', EMBED_FIELD_VALUE_MAX, moreRoles).text };
}

/** The credit in one line (roles joined with " · "), for places with little room such as an example image. */
export function creditLine(image: VisibleImage, site: Site, max: number, say: Say = sayEnglish): string {
  return truncateMarkdown(creditField(image, site, say).value.replaceAll('\n', ' · '), max);
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

/** "… and 3 more on the image page": the sources left out here, counted. */
export function onImagePage(count: number, say: Say = sayEnglish): string {
  return say('card.sources.more', { count });
}

/** "1 source on the image page": every source was left out here. */
export function allOnImagePage(count: number, say: Say = sayEnglish): string {
  return say('card.sources.all-on-page', { count });
}

/** "no source given": the image lists no source. */
export function noSource(say: Say = sayEnglish): string {
  return say('card.sources.none');
}

/**
 * Every source in one line, as many as fit in `max`, or "no source given". With `linksOnly` (an image
 * that may not be shown here), sources that are not links are counted, not shown.
 */
export function sourceLine(
  image: VisibleImage,
  max: number,
  linksOnly = false,
  say: Say = sayEnglish,
): string {
  const entries = sourcesOf(image);
  if (entries.length === 0) return noSource(say);
  const listed = listedSources(entries, linksOnly);
  const left = entries.length - listed.length;
  if (listed.length === 0) return allOnImagePage(left, say);
  const shown = left === 0 ? listed.map(sourceEntry) : [...listed.map(sourceEntry), onImagePage(left, say)];
  return joinWithin(shown, ' · ', max, (n) => onImagePage(left === 0 ? n : n - 1 + left, say)).text;
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
export function sourceFields(image: VisibleImage, linksOnly = false, say: Say = sayEnglish): APIEmbedField[] {
  const entries = sourcesOf(image);
  if (entries.length === 0) return [{ name: say('card.field.sources', { count: 1 }), value: noSource(say) }];
  const firstName = say('card.field.sources', { count: entries.length });
  const listed = listedSources(entries, linksOnly);
  const left = entries.length - listed.length;
  if (listed.length === 0) return [{ name: firstName, value: allOnImagePage(left, say) }];
  const shown = listed.map(sourceEntry);
  // Room kept in every field for the closing "… and N more" line that counts the sources left out.
  const tail = left === 0 ? 0 : `\n${onImagePage(entries.length, say)}`.length;
  const fields: APIEmbedField[] = [];
  let next = 0;
  while (next < shown.length && fields.length < SOURCE_FIELDS_MAX) {
    const last = fields.length === SOURCE_FIELDS_MAX - 1;
    const rest = shown.slice(next);
    const packed = last
      ? joinWithin(rest, '\n', EMBED_FIELD_VALUE_MAX - tail, (n) => onImagePage(n + left, say))
      : joinWithin(rest, '\n', EMBED_FIELD_VALUE_MAX - tail, () => '');
    const value = last ? packed.text : packed.text.replace(/\n$/, '');
    const name = fields.length > 0 ? say('card.field.sources-continued') : firstName;
    const cut = (shown[next] ?? '').slice(0, EMBED_FIELD_VALUE_MAX - tail);
    fields.push({ name, value: value === '' ? cut : value });
    next += Math.max(1, packed.shown);
  }
  const final = fields.at(-1);
  if (left > 0 && final !== undefined && next >= shown.length) {
    fields[fields.length - 1] = { ...final, value: `${final.value}\n${onImagePage(left, say)}` };
  }
  return fields;
}
