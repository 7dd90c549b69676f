/**
 * The image card as a Components V2 container (message flag IS_COMPONENTS_V2): the same gated card as
 * the embed form (./image-card.ts decides what may show, by ./rating-rule.ts; this module only lays it out), as text displays
 * and a media gallery inside one container, in the card's language (`ImageCard.say`: its labels and
 * notices are told apart by the words that language gives them).
 *
 * The text is built from the embed form, so the two forms cannot disagree about what a gate shows. A V2
 * message holds at most 4,000 characters of text in all, so a card keeps within a budget of its own
 * (several cards share a message): the board's description goes first, then the tags, the stats, the
 * footer and the gate notice; the heading never, and the credit and the sources only when they alone are
 * over the budget (the sources then end with "… and N more on the image page", and `complete` is false).
 */
import {
  ComponentType,
  type APIActionRowComponent,
  type APIComponentInContainer,
  type APIComponentInMessageActionRow,
  type APIContainerComponent,
  type APIEmbed,
  type APIEmbedField,
  type APIMediaGalleryComponent,
  type APIMessageComponent,
  type APITextDisplayComponent,
} from 'discord.js';
import type { Say } from '../i18n/index.js';
import { allOnImagePage, labelLine, noSource, onImagePage } from './credit-and-sources.js';
import type { ImageCard } from './image-card.js';
import type { CardMedia } from './media.js';
import { bareUrl, escapeInline, maskedLink, truncate, truncateMarkdown } from './discord-text.js';
import { V2_TEXT_MAX } from './limits.js';

export interface V2CardOptions {
  /**
   * Text budget of this card (all its text displays together); default V2_TEXT_MAX. Read as at least
   * {@link V2_CARD_TEXT_MIN} (room for the heading, a credit and a source count) and at most V2_TEXT_MAX.
   */
  readonly textMax?: number;
  /** Rows (buttons, a select) placed inside the container, at its end. */
  readonly rows?: readonly APIActionRowComponent<APIComponentInMessageActionRow>[];
}

export interface V2Card {
  readonly container: APIContainerComponent;
  /** Every credit and source line of the embed form made it into the text (the card lost nothing that counts). */
  readonly complete: boolean;
}

/** The smallest text budget a card is cut to: below it the credit and the sources could not be told. */
export const V2_CARD_TEXT_MIN = 300;

/** The order parts give up their text when the card is over its budget: lowest first. */
const Tier = {
  Description: 0,
  Tags: 1,
  Stats: 2,
  Footer: 3,
  Notice: 4,
  Sources: 5,
  Credit: 6,
} as const;
type Tier = (typeof Tier)[keyof typeof Tier];

interface Part {
  readonly tier: Tier;
  text: string;
  /** The part within `room` characters ('' drops it). */
  readonly cut: (room: number) => string;
}

/** Components counted as Discord counts them: every component, nested ones too; gallery items are not. */
export function countComponents(components: readonly unknown[]): number {
  let count = 0;
  walk(components, () => {
    count += 1;
  });
  return count;
}

/** Characters of all text displays (nested ones too) together, as Discord counts a message's text. */
export function v2TextLength(components: readonly unknown[]): number {
  let length = 0;
  walk(components, (component) => {
    // Checked although typed: callers may hand in any JSON, and a text display without text counts nothing.
    if (component.type === ComponentType.TextDisplay && typeof component.content === 'string')
      length += component.content.length;
  });
  return length;
}

/**
 * Anything with a numeric `type` counts as a component, as Discord counts it; what each type holds is then
 * read through the discord-api-types union.
 */
function isComponent(value: unknown): value is APIMessageComponent {
  return typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'number';
}

function walk(value: unknown, visit: (component: APIMessageComponent) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
    return;
  }
  if (!isComponent(value)) return;
  visit(value);
  switch (value.type) {
    case ComponentType.ActionRow:
    case ComponentType.Container:
      walk(value.components, visit);
      return;
    case ComponentType.Section:
      walk(value.components, visit);
      walk(value.accessory, visit);
      return;
    default:
      return;
  }
}

/** Whole `items` joined with `separator`, as many as fit in `room`; '' when not even one does. */
function whole(items: readonly string[], separator: string, room: number): string {
  let text = '';
  for (const item of items) {
    const next = text === '' ? item : `${text}${separator}${item}`;
    if (next.length > room) break;
    text = next;
  }
  return text;
}

/** A labelled block (`**Label**` then the text) cut to `room` by truncating the text, '' below `floor`. */
function block(label: string, text: string, floor: number): (room: number) => string {
  return (room) => {
    const head = `${label}\n`;
    if (room - head.length < floor) return '';
    return head + truncateMarkdown(text, room - head.length);
  };
}

/**
 * The count in `line` when it is the message `make` writes for that count, else undefined. The number is
 * read from its digits (whatever separators the language groups them with) and the message made again
 * from it, so a source that merely looks like a count line is never taken for one.
 */
function countIn(line: string, make: (count: number) => string): number | undefined {
  const digits = line.replace(/\D/g, '');
  if (digits === '' || digits.length > 9) return undefined;
  const count = Number(digits);
  return make(count) === line ? count : undefined;
}

/**
 * The sources block cut to `room`: whole lines kept from the top, the rest counted in one closing line
 * (adding to the count the embed form already gave). Never empty: the count alone stays.
 */
function cutSources(label: string, lines: readonly string[], room: number, say: Say): string {
  const last = lines.at(-1) ?? '';
  const counted =
    countIn(last, (n) => onImagePage(n, say)) ?? countIn(last, (n) => allOnImagePage(n, say)) ?? 0;
  const entries = counted > 0 ? lines.slice(0, -1) : [...lines];
  const head = `${label}\n`;
  if (lines.length === 1 && last === noSource(say)) return head + last;
  for (let kept = entries.length; kept >= 0; kept -= 1) {
    const left = entries.length - kept + counted;
    const tail = left === 0 ? [] : [kept === 0 ? allOnImagePage(left, say) : onImagePage(left, say)];
    const text = head + [...entries.slice(0, kept), ...tail].join('\n');
    if (text.length <= room || kept === 0) return text;
  }
  return head;
}

function fieldLine(field: APIEmbedField, say: Say): string {
  return labelLine(field.name, field.value.replaceAll('\n', ' '), say);
}

/**
 * The embed's fields sorted into the card's parts (see the module comment for the names), told apart by
 * their labels in the card's language. The sources are the block fields (not inline) that are neither
 * the credit, the video nor the tags: their label changes with their number and continues over fields.
 */
function sortFields(
  fields: readonly APIEmbedField[],
  say: Say,
): {
  credit: string[];
  sourceLabel: string;
  sources: string[];
  tags: APIEmbedField | undefined;
  video: APIEmbedField | undefined;
  stats: APIEmbedField[];
} {
  const credit: string[] = [];
  const sources: string[] = [];
  let sourceLabel = '';
  let tags: APIEmbedField | undefined;
  let video: APIEmbedField | undefined;
  const stats: APIEmbedField[] = [];
  const creditLabel = say('card.field.credit');
  const videoLabel = say('card.field.video');
  const tagsLabel = (count: number): string => say('card.field.tags', { count });
  for (const field of fields) {
    if (field.name === creditLabel) credit.push(...field.value.split('\n'));
    else if (field.name === videoLabel) video = field;
    else if (countIn(field.name, tagsLabel) !== undefined) tags = field;
    else if (field.inline === true) stats.push(field);
    else {
      if (sourceLabel === '') sourceLabel = field.name;
      sources.push(...field.value.split('\n'));
    }
  }
  return { credit, sourceLabel, sources, tags, video, stats };
}

/** The gate notice and the board's own description, told apart (the embed form holds both in one). */
function splitDescription(card: ImageCard): { notice: string; description: string } {
  const { say } = card;
  const text = card.embed.description ?? '';
  const processingNotice = say('card.notice.processing');
  const spoilerEnd = say('card.spoiler.end');
  if (card.gate === 'full') {
    // A spoiler rule's reason stays as the notice; the embed's word that it left the picture out goes,
    // since here the picture is, behind a spoiler.
    const ruleNotice = card.ruleNotice ?? '';
    const noted = ruleNotice !== '' && text.startsWith(ruleNotice);
    let rest = noted ? text.slice(ruleNotice.length).trim() : text;
    if (card.spoilerChannel === true && card.media !== null) {
      const withheld = [say('card.notice.spoiler-channel'), say('card.notice.spoilered-picture')].find(
        (notice) => rest.startsWith(notice),
      );
      if (withheld !== undefined) rest = rest.slice(withheld.length).trim();
    }
    return { notice: noted ? ruleNotice : '', description: rest };
  }
  if (card.gate === 'processing') {
    // A spoiler rule's reason comes before the processing notice: both are notices, not board text.
    const ruleNotice = card.ruleNotice ?? '';
    const noted = ruleNotice !== '' && text.startsWith(ruleNotice);
    const rest = noted ? text.slice(ruleNotice.length).trim() : text;
    const reason = noted ? [ruleNotice] : [];
    if (!rest.startsWith(processingNotice)) return { notice: reason.join(''), description: rest };
    return {
      notice: [...reason, processingNotice].join('\n\n'),
      description: rest.slice(processingNotice.length).trim(),
    };
  }
  // Pictured behind a native spoiler here, which the embed form never does.
  if (card.media?.spoiler === true && text.endsWith(spoilerEnd)) {
    return { notice: `${text.slice(0, -spoilerEnd.length)}${say('card.spoiler.pictured')}`, description: '' };
  }
  return { notice: text, description: '' };
}

function textDisplay(content: string): APITextDisplayComponent {
  return { type: ComponentType.TextDisplay, content };
}

function gallery(media: CardMedia): APIMediaGalleryComponent {
  return {
    type: ComponentType.MediaGallery,
    items: [
      {
        media: { url: media.url },
        ...(media.description.trim() === '' ? {} : { description: media.description }),
        ...(media.spoiler ? { spoiler: true } : {}),
      },
    ],
  };
}

function heading(embed: APIEmbed, say: Say): string {
  const title = escapeInline(truncate(embed.title ?? say('card.untitled'), 100));
  return `### ${embed.url === undefined ? title : maskedLink(title, embed.url)}`;
}

/** The parts of the card's body, in the order they are shown. */
function bodyParts(card: ImageCard): Part[] {
  const { embed, media, say } = card;
  const { notice, description } = splitDescription(card);
  const fields = sortFields(embed.fields ?? [], say);
  const parts: Part[] = [];
  const add = (tier: Tier, text: string, cut: (room: number) => string): void => {
    if (text.trim() !== '') parts.push({ tier, text, cut });
  };
  add(Tier.Notice, notice, (room) => (room < 40 ? '' : truncateMarkdown(notice, room)));
  // The video's own link, for clients that do not play it; not for a spoilered one (Reveal shows it).
  const videoLine =
    media?.kind === 'video'
      ? media.spoiler
        ? ''
        : labelLine(say('card.field.video'), bareUrl(media.url), say)
      : fields.video
        ? fieldLine(fields.video, say)
        : '';
  add(Tier.Stats, videoLine, (room) => (videoLine.length <= room ? videoLine : ''));
  if (fields.credit.length > 0) {
    const head = `**${say('card.field.credit')}**\n`;
    const credit = fields.credit.join('\n');
    add(
      Tier.Credit,
      head + credit,
      (room) => head + truncateMarkdown(credit, Math.max(1, room - head.length)),
    );
  }
  if (fields.sources.length > 0) {
    const label = `**${fields.sourceLabel}**`;
    add(Tier.Sources, `${label}\n${fields.sources.join('\n')}`, (room) =>
      cutSources(label, fields.sources, room, say),
    );
  }
  const stats = fields.stats.map((field) => fieldLine(field, say));
  add(Tier.Stats, stats.join(' · '), (room) => whole(stats, ' · ', room));
  if (fields.tags) {
    const label = `**${fields.tags.name}**`;
    add(Tier.Tags, `${label}\n${fields.tags.value}`, block(label, fields.tags.value, 40));
  }
  // A blank line sets the board's own text apart from the card's.
  add(Tier.Description, `\n${description}`, (room) =>
    room < 41 ? '' : `\n${truncateMarkdown(description, room - 1)}`,
  );
  const footer = embed.footer?.text.trim() ?? '';
  if (footer !== '') {
    const small = (text: string): string => `-# ${escapeInline(text)}`;
    add(Tier.Footer, small(footer), (room) => (room < 12 ? '' : truncate(small(footer), room)));
  }
  return parts;
}

/** The texts of the parts still shown. */
function shown(parts: readonly Part[]): string[] {
  return parts.map((part) => part.text).filter((text) => text.trim() !== '');
}

/**
 * The card as one V2 container: accent colour by rating, a heading linking to the image page, the media
 * gallery when the gate allows a picture, then credit, sources, stats, tags, description and a small
 * footer in one text display, then `rows`. Within `textMax` characters of text (see the module comment)
 * and few components: 4 plus the rows, 5 with a picture.
 */
export function imageCardV2(card: ImageCard, options: V2CardOptions = {}): V2Card {
  const budget = Math.min(
    V2_TEXT_MAX,
    Math.max(V2_CARD_TEXT_MIN, Math.floor(options.textMax ?? V2_TEXT_MAX)),
  );
  const head = heading(card.embed, card.say);
  const parts = bodyParts(card);
  const originals = parts.map((part) => part.text);
  const separate = card.media !== null;
  // The heading is a text display of its own above a picture, else the first line of the body's.
  const length = (): number => {
    const body = shown(parts);
    if (body.length === 0) return head.length;
    const bodyLength = body.reduce((sum, text) => sum + text.length, 0) + body.length - 1;
    return head.length + bodyLength + (separate ? 0 : 1);
  };
  for (const tier of Object.values(Tier)) {
    if (length() <= budget) break;
    for (let i = parts.length - 1; i >= 0; i -= 1) {
      const part = parts[i];
      const over = length() - budget;
      if (part === undefined || part.tier !== tier || part.text === '' || over <= 0) continue;
      const room = Math.max(0, part.text.length - over);
      part.text = part.cut(room);
      // Only the credit and the sources may stay longer than asked (a short count of them always stays).
      if (part.text.length > room && part.tier < Tier.Sources) part.text = '';
    }
  }
  const complete = parts.every(
    (part, i) => (part.tier !== Tier.Credit && part.tier !== Tier.Sources) || part.text === originals[i],
  );
  const body = shown(parts).join('\n');
  const components: APIComponentInContainer[] = [];
  if (separate && card.media !== null) {
    components.push(textDisplay(head), gallery(card.media));
    if (body !== '') components.push(textDisplay(body));
  } else {
    components.push(textDisplay(body === '' ? head : `${head}\n${body}`));
  }
  components.push(...(options.rows ?? []));
  const container: APIContainerComponent = { type: ComponentType.Container, components };
  if (card.embed.color !== undefined) container.accent_color = card.embed.color;
  return { container, complete };
}
