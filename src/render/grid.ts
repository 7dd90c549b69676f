/**
 * A search grid as a Components V2 container: the heading, one numbered line per image (its link, its
 * credit, its first source and how many more it has), a media gallery of small pictures, and a footer.
 *
 * The rating rule holds per image, as on the card: an image that may not be shown here (not `safe`
 * outside an age-restricted channel, a deleted or merged stub, an image one of the filter's hidden tags
 * hits) is left out entirely, neither listed nor pictured. A spoilered image is listed and pictured
 * behind Discord's native spoiler when the filter is known (so it is known not to be hidden), else
 * listed without a picture; a processing image is listed without a picture. In a spoiler channel every
 * picture is behind the spoiler.
 *
 * Every listed image carries its credit and sources (no picture goes out without them, a tile neither):
 * its line holds the credit (linked where there is room, else the names, at least the first and a count
 * of the rest) and the first source with a count of the others; its full card is one pick away. When the
 * text budget cannot hold that for every image, fewer are listed and pictured (a picture never goes out
 * without its sources), and a last line counts the rest of the page (`Grid.unlisted`).
 */
import {
  ComponentType,
  type APIActionRowComponent,
  type APIComponentInContainer,
  type APIComponentInMessageActionRow,
  type APIContainerComponent,
  type APIMediaGalleryItem,
} from 'discord.js';
import { sayEnglish, type Say } from '../i18n/index.js';
import type { Image, VisibleImage } from '../philomena/schemas.js';
import type { Site } from '../philomena/sites.js';
import { creditsOf } from '../philomena/tags.js';
import { imagePageUrl } from '../philomena/urls.js';
import { creditLine, sourceEntry } from './credit-and-sources.js';
import { plainMediaText, previewOf } from './media.js';
import { ageRestrictedFor, hiddenByFilter, mayShow, type CardFilter } from './rating-rule.js';
import { spoileringRule, type ContentRules } from './content-rules.js';
import {
  escapeInline,
  joinWithin,
  maskedLink,
  neutraliseMentions,
  truncate,
  truncateMarkdown,
} from './discord-text.js';
import { GALLERY_ITEMS_MAX, MEDIA_DESCRIPTION_MAX, V2_TEXT_MAX } from './limits.js';

export interface GridOptions {
  readonly site: Site;
  readonly ageRestricted: boolean;
  /** The applied filter: its hidden tags leave images out, and only with it known are spoilers pictured. */
  readonly filter?: CardFilter;
  /** Already-escaped Markdown line, e.g. "Search: pony · 1–10 of 1,234"; mentions in it are broken here. */
  readonly heading: string;
  /** Plain text, shown small. */
  readonly footer?: string;
  readonly rows?: readonly APIActionRowComponent<APIComponentInMessageActionRow>[];
  /**
   * Text budget of the grid (all its text displays together); default, and at most, V2_TEXT_MAX; read as
   * at least {@link GRID_TEXT_MIN}.
   */
  readonly textMax?: number;
  /** A spoiler channel: every picture behind Discord's spoiler, and the plain channel's rating rule. */
  readonly spoilerChannel?: boolean;
  /** The rules in layers (content-rules.ts): an image one hides is left out; the floor's when not given. */
  readonly rules?: ContentRules;
  /** The grid's own words (`grid.*`), in the language it goes out in; English when not given. */
  readonly say?: Say;
}

export interface Grid {
  readonly container: APIContainerComponent;
  /** The images listed, in the order listed (numbered from 1). */
  readonly shown: readonly VisibleImage[];
  /**
   * Images that may be shown here but for which the text budget had no room with their credit and
   * sources, in order, after `shown`: neither listed nor pictured (the list's last line counts them). A
   * caller may still offer them in its picker, whose full cards carry everything.
   */
  readonly unlisted: readonly VisibleImage[];
}

const HEADING_MAX = 400;
const FOOTER_MAX = 300;
/** The smallest text budget a grid is cut to: a short heading and footer, and a line for the page. */
export const GRID_TEXT_MIN = 500;

/** Whether the image may be listed here at all (see the module comment). */
function listable(image: Image, options: GridOptions): image is VisibleImage {
  // A spoiler channel is a plain channel for the rating rule, whatever else the options say.
  if (image.kind !== 'image' || !mayShow(image, ageRestrictedFor(options), options.rules)) return false;
  return !hiddenByFilter(image, options.filter);
}

/** The longest credit line a grid line asks for: the whole linked credit fits below this. */
const CREDIT_LINE_MAX = 1_200;

/** "**Credit:** <names>" in the grid's language. */
function creditOf(names: string, say: Say): string {
  return say('grid.credit', { names });
}

/**
 * The credit of a line within `room`: the card's linked credit when it fits, else the credited names
 * without links, as many as fit, at least the first and a count of the rest ({@link minimalCredit}).
 */
function creditWithin(image: VisibleImage, site: Site, room: number, say: Say): string {
  const linked = creditLine(image, site, CREDIT_LINE_MAX, say);
  const names = creditNames(image);
  if (names.length === 0 || linked.length <= room) return linked;
  const minimal = minimalCredit(image, site, say);
  if (room <= minimal.length) return minimal;
  const more = (count: number): string => say('grid.more', { count });
  const label = creditOf('', say).length;
  return creditOf(joinWithin(names, ', ', room - label, more).text, say);
}

function creditNames(image: VisibleImage): string[] {
  return creditsOf(image.tags).map((credit) => escapeInline(truncate(credit.name, 80)));
}

/** The shortest credit a line carries: the first credited name and a count of the others. */
function minimalCredit(image: VisibleImage, site: Site, say: Say): string {
  const names = creditNames(image);
  const [first] = names;
  // No credit tag: the card's own words ("artist unknown", "anonymous artist" ...), always short.
  if (first === undefined) return creditLine(image, site, CREDIT_LINE_MAX, say);
  const left = names.length - 1;
  return creditOf(left > 0 ? `${first}, ${say('grid.more', { count: left })}` : first, say);
}

/** The first source (an https link, or text as a card shows it) and how many more; or "no source given". */
function sourcesPart(image: VisibleImage, say: Say): string {
  const entries = image.source_urls.map((source) => source.trim()).filter((source) => source !== '');
  const [first] = entries;
  if (first === undefined) return say('grid.no-source');
  const left = entries.length - 1;
  return `${sourceEntry(first)}${left > 0 ? ` ${say('grid.more-sources', { count: left })}` : ''}`;
}

/** The last line of a list that had no room for `count` images of the page. */
function unlistedLine(count: number, say: Say): string {
  return say('grid.unlisted', { count });
}

/** Alt text "#id by <artists>" (other credits when there is no artist), plain and mention-proof. */
function altText(image: VisibleImage, say: Say): string {
  const credits = creditsOf(image.tags);
  const artists = credits.filter((credit) => credit.namespace === 'artist');
  const names = (artists.length > 0 ? artists : credits)
    .map((credit) => plainMediaText(truncate(credit.name.trim(), 80)))
    .filter((name) => name.trim() !== '');
  // The id is a name, not a quantity: written as the board writes it, never grouped.
  const id = String(image.id);
  if (names.length === 0) return say('grid.alt.unknown', { id });
  const head = say('grid.alt.by', { id, names: '' }).length;
  const more = (count: number): string => say('grid.more', { count });
  const listed = joinWithin(names, ', ', MEDIA_DESCRIPTION_MAX - head, more).text;
  return truncate(say('grid.alt.by', { id, names: listed }), MEDIA_DESCRIPTION_MAX);
}

/** The gallery item of a listed image, or why it has none (a note for its line). */
function itemOf(
  image: VisibleImage,
  options: GridOptions,
): { item: APIMediaGalleryItem | null; note: string } {
  const say = options.say ?? sayEnglish;
  if (!image.thumbnails_generated) return { item: null, note: say('grid.note.processing') };
  // A spoilered image is pictured only where the filter is known: with it unknown, the image might be
  // one of its hidden ones, which keep no picture. (A grid's images come from a search with the filter,
  // which leaves out every image the filter hides, its hidden search included: what is `spoilered` here
  // is spoilered, not hidden. A single card cannot know that: see `mayBeHidden`.)
  if (image.spoilered && options.filter === undefined) {
    return { item: null, note: say('grid.note.spoilered') };
  }
  const url = previewOf(image, options.site);
  if (url === null) return { item: null, note: '' };
  const item: APIMediaGalleryItem = { media: { url }, description: altText(image, say) };
  // A server's or channel's own spoilered tags put the picture behind Discord's spoiler too.
  const ruled = options.rules !== undefined && spoileringRule(image.tags, options.rules) !== undefined;
  if (image.spoilered || options.spoilerChannel === true || ruled) item.spoiler = true;
  return { item, note: '' };
}

/**
 * Up to GALLERY_ITEMS_MAX images of `images` that may be listed here, as one container: the heading
 * and the numbered list in a text display, the gallery of those with a picture (none when no image has
 * one), the footer, then `rows`. Within Discord's text and component limits by itself (plus the rows),
 * and every listed image with its credit and sources (see the module comment).
 */
export function imageGrid(images: readonly Image[], options: GridOptions): Grid {
  const say = options.say ?? sayEnglish;
  const candidates: { image: VisibleImage; item: APIMediaGalleryItem | null; note: string }[] = [];
  for (const image of images) {
    if (candidates.length >= GALLERY_ITEMS_MAX) break;
    if (listable(image, options)) candidates.push({ image, ...itemOf(image, options) });
  }
  const textMax = Math.min(V2_TEXT_MAX, Math.max(GRID_TEXT_MIN, options.textMax ?? V2_TEXT_MAX));
  // A small budget cuts the heading and the footer too, so the list keeps room for its lines.
  const heading = truncateMarkdown(
    neutraliseMentions(options.heading.replace(/[\r\n]+/g, ' ').trim()),
    Math.min(HEADING_MAX, Math.floor(textMax / 4)),
  );
  const footerText = options.footer?.trim() ?? '';
  const footerMax = Math.min(FOOTER_MAX, Math.floor(textMax / 8));
  const footer = footerText === '' ? '' : `-# ${escapeInline(truncate(footerText, footerMax))}`;
  // Each line: its number and link, the credit, the sources and a note; what is fixed is known first.
  const drafts = candidates.map(({ image, note }, i) => {
    const link = `${i + 1}. ${maskedLink(`#${image.id}`, imagePageUrl(options.site, image.id))}`;
    const sources = ` · ${sourcesPart(image, say)}${note === '' ? '' : ` · ${note}`}`;
    const minimal = minimalCredit(image, options.site, say);
    return { image, link, sources, minimal, length: link.length + 3 + minimal.length + sources.length };
  });
  // Heading, footer and the line breaks between the text displays' parts (counted as before, generously).
  const fixed = heading.length + footer.length + 2;
  /** The text the list needs with its first `count` images at their shortest (and a line for the rest). */
  const needed = (count: number): number => {
    const lines = drafts.slice(0, count).reduce((sum, draft) => sum + draft.length + 1, 0);
    const rest = drafts.length - count;
    return fixed + lines + (rest > 0 ? unlistedLine(rest, say).length + 1 : 0);
  };
  let count = drafts.length;
  while (count > 0 && needed(count) > textMax) count -= 1;
  // What is left is shared out line by line, for fuller credits.
  const spare = Math.max(0, Math.floor((textMax - needed(count)) / Math.max(1, count)));
  const lines = drafts
    .slice(0, count)
    .map(
      ({ image, link, sources, minimal }) =>
        `${link} · ${creditWithin(image, options.site, minimal.length + spare, say)}${sources}`,
    );
  if (count < drafts.length) lines.push(unlistedLine(drafts.length - count, say));
  const listed = candidates.slice(0, count);
  // Said when every image was left out, so the grid is never without text.
  const list = lines.length === 0 ? say('grid.none-shown') : lines.join('\n');
  const top = [heading, list].filter((text) => text !== '').join('\n');
  const items = listed.flatMap(({ item }) => (item === null ? [] : [item]));
  const components: APIComponentInContainer[] = [];
  if (items.length === 0) {
    components.push(textDisplay([top, footer].filter((text) => text !== '').join('\n')));
  } else {
    components.push(textDisplay(top), { type: ComponentType.MediaGallery, items });
    if (footer !== '') components.push(textDisplay(footer));
  }
  components.push(...(options.rows ?? []));
  return {
    container: { type: ComponentType.Container, components },
    shown: listed.map(({ image }) => image),
    unlisted: candidates.slice(count).map(({ image }) => image),
  };
}

function textDisplay(content: string): APIComponentInContainer {
  return { type: ComponentType.TextDisplay, content };
}
