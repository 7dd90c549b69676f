/**
 * A search grid as a Components V2 container: the heading, one numbered line per image (its link and
 * credit), a media gallery of small pictures, and a footer.
 *
 * The rating rule holds per image, as on the card: an image that may not be shown here (not `safe`
 * outside an age-restricted channel, a deleted or merged stub, an image one of the filter's hidden tags
 * hits) is left out entirely, neither listed nor pictured. A spoilered image is listed and pictured
 * behind Discord's native spoiler when the filter is known (so it is known not to be hidden), else
 * listed without a picture; a processing image is listed without a picture.
 */
import {
  ComponentType,
  type APIActionRowComponent,
  type APIComponentInContainer,
  type APIComponentInMessageActionRow,
  type APIContainerComponent,
  type APIMediaGalleryItem,
} from 'discord.js';
import type { Image, VisibleImage } from '../philomena/schemas.js';
import type { Site } from '../philomena/sites.js';
import { creditsOf } from '../philomena/tags.js';
import { imagePageUrl } from '../philomena/urls.js';
import {
  creditLine,
  hiddenByFilter,
  joinWithin,
  mayShow,
  plainMediaText,
  previewOf,
  type CardContext,
} from './image-card.js';
import { escapeInline, maskedLink, neutraliseMentions, truncate, truncateMarkdown } from './discord-text.js';
import { GALLERY_ITEMS_MAX, MEDIA_DESCRIPTION_MAX, V2_TEXT_MAX } from './limits.js';

export interface GridOptions {
  readonly site: Site;
  readonly ageRestricted: boolean;
  /** The applied filter: its hidden tags leave images out, and only with it known are spoilers pictured. */
  readonly filter?: CardContext['filter'];
  /** Already-escaped Markdown line, e.g. "Search: pony · 1–10 of 1,234"; mentions in it are broken here. */
  readonly heading: string;
  /** Plain text, shown small. */
  readonly footer?: string;
  readonly rows?: readonly APIActionRowComponent<APIComponentInMessageActionRow>[];
  /** Text budget of the grid (all its text displays together); default, and at most, V2_TEXT_MAX. */
  readonly textMax?: number;
}

export interface Grid {
  readonly container: APIContainerComponent;
  /** The images listed, in the order listed (numbered from 1). */
  readonly shown: readonly VisibleImage[];
}

const HEADING_MAX = 400;
const FOOTER_MAX = 300;
/** Said when every image was left out, so the grid is never without text. */
const NONE_SHOWN = 'No image here can be shown in this channel.';

/** Whether the image may be listed here at all (see the module comment). */
function listable(image: Image, options: GridOptions): image is VisibleImage {
  if (image.kind !== 'image' || !mayShow(image, options.ageRestricted)) return false;
  return !hiddenByFilter(image, options.filter);
}

/** Alt text "#id by <artists>" (other credits when there is no artist), plain and mention-proof. */
function altText(image: VisibleImage): string {
  const credits = creditsOf(image.tags);
  const artists = credits.filter((credit) => credit.namespace === 'artist');
  const names = (artists.length > 0 ? artists : credits)
    .map((credit) => plainMediaText(truncate(credit.name.trim(), 80)))
    .filter((name) => name.trim() !== '');
  if (names.length === 0) return `#${image.id}, artist unknown`;
  const head = `#${image.id} by `;
  return truncate(
    head + joinWithin(names, ', ', MEDIA_DESCRIPTION_MAX - head.length).text,
    MEDIA_DESCRIPTION_MAX,
  );
}

/** The gallery item of a listed image, or why it has none (a note for its line). */
function itemOf(
  image: VisibleImage,
  options: GridOptions,
): { item: APIMediaGalleryItem | null; note: string } {
  if (!image.thumbnails_generated) return { item: null, note: 'still processing' };
  // A spoilered image is pictured only where the filter is known: with it unknown, the image might be
  // one of its hidden ones, which keep no picture. (A grid's images come from a search with the filter,
  // which leaves out every image the filter hides, its hidden search included: what is `spoilered` here
  // is spoilered, not hidden. A single card cannot know that: see `mayBeHidden`.)
  if (image.spoilered && options.filter === undefined) return { item: null, note: 'spoilered' };
  const url = previewOf(image, options.site);
  if (url === null) return { item: null, note: '' };
  const item: APIMediaGalleryItem = { media: { url }, description: altText(image) };
  if (image.spoilered) item.spoiler = true;
  return { item, note: '' };
}

/**
 * Up to GALLERY_ITEMS_MAX images of `images` that may be listed here, as one container: the heading
 * and the numbered list in a text display, the gallery of those with a picture (none when no image has
 * one), the footer, then `rows`. Within Discord's text and component limits by itself (plus the rows).
 */
export function imageGrid(images: readonly Image[], options: GridOptions): Grid {
  const listed: { image: VisibleImage; item: APIMediaGalleryItem | null; note: string }[] = [];
  for (const image of images) {
    if (listed.length >= GALLERY_ITEMS_MAX) break;
    if (listable(image, options)) listed.push({ image, ...itemOf(image, options) });
  }
  const heading = truncateMarkdown(
    neutraliseMentions(options.heading.replace(/[\r\n]+/g, ' ').trim()),
    HEADING_MAX,
  );
  const footerText = options.footer?.trim() ?? '';
  const footer = footerText === '' ? '' : `-# ${escapeInline(truncate(footerText, FOOTER_MAX))}`;
  // The list shares what the heading and footer leave, line by line (line breaks counted).
  const fixed = heading.length + footer.length + 2 + listed.length;
  const textMax = Math.min(V2_TEXT_MAX, options.textMax ?? V2_TEXT_MAX);
  const perLine = Math.floor((textMax - fixed) / Math.max(1, listed.length));
  const lines = listed.map(({ image, note }, i) => {
    const link = `${i + 1}. ${maskedLink(`#${image.id}`, imagePageUrl(options.site, image.id))}`;
    const tail = note === '' ? '' : ` · ${note}`;
    const room = perLine - link.length - tail.length - 3;
    return room < 12 ? `${link}${tail}` : `${link} · ${creditLine(image, options.site, room)}${tail}`;
  });
  const list = lines.length === 0 ? NONE_SHOWN : lines.join('\n');
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
  };
}

function textDisplay(content: string): APIComponentInContainer {
  return { type: ComponentType.TextDisplay, content };
}
