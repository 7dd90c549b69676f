/**
 * Discord's message and embed limits (docs/discord-platform.md, "Message and embed limits" and
 * "Components V2"), met by truncation so that a long board text is never the cause of an API error.
 * `fitEmbeds` is the last guard before sending.
 */
import { embedLength as discordEmbedLength, type APIEmbed, type APIEmbedField } from 'discord.js';
import { truncateMarkdown } from './discord-text.js';

export const EMBED_TITLE_MAX = 256;
export const EMBED_DESCRIPTION_MAX = 4096;
export const EMBED_FIELDS_MAX = 25;
export const EMBED_FIELD_NAME_MAX = 256;
export const EMBED_FIELD_VALUE_MAX = 1024;
export const EMBED_FOOTER_MAX = 2048;
export const EMBED_AUTHOR_NAME_MAX = 256;
/** Title, description, field names and values, footer text and author name of all embeds together. */
export const EMBEDS_TOTAL_MAX = 6000;
export const EMBEDS_PER_MESSAGE_MAX = 10;
export const MESSAGE_CONTENT_MAX = 2000;
/** Discord rejects longer embed URLs (url, image, thumbnail, icons). */
const EMBED_URL_MAX = 2048;
/** A field needs a non-empty name and value; this is what stands in for an empty one. */
const EMPTY_FIELD = '\u200b';

/** The characters an embed counts towards {@link EMBEDS_TOTAL_MAX} (discord.js's own count). */
export function embedLength(embed: APIEmbed): number {
  return discordEmbedLength(embed);
}

function fit(text: string, max: number): string {
  return truncateMarkdown(text, max);
}

function okUrl(url: string | undefined): url is string {
  return url !== undefined && url.length <= EMBED_URL_MAX && /^(?:https?:\/\/|attachment:\/\/)/i.test(url);
}

/** Discord trims field text and refuses it blank (a board category of `"\t"`): a stand-in then. */
function orEmptyField(text: string): string {
  return text.trim() === '' ? EMPTY_FIELD : text;
}

/** One embed within every per-embed limit (the total is handled by {@link fitEmbeds}). */
function fitOne(embed: APIEmbed): APIEmbed {
  const out: APIEmbed = { ...embed };
  if (out.title !== undefined) out.title = fit(out.title, EMBED_TITLE_MAX);
  if (out.description !== undefined) {
    out.description = fit(out.description, EMBED_DESCRIPTION_MAX);
    if (out.description === '') delete out.description;
  }
  if (out.url !== undefined && !(okUrl(out.url) && !out.url.startsWith('attachment:'))) delete out.url;
  if (out.footer) {
    const footer = { ...out.footer, text: fit(out.footer.text, EMBED_FOOTER_MAX) };
    if (footer.icon_url !== undefined && !okUrl(footer.icon_url)) delete footer.icon_url;
    if (footer.text === '') delete out.footer;
    else out.footer = footer;
  }
  if (out.author) {
    const author = { ...out.author, name: fit(out.author.name, EMBED_AUTHOR_NAME_MAX) };
    if (author.url !== undefined && !okUrl(author.url)) delete author.url;
    if (author.icon_url !== undefined && !okUrl(author.icon_url)) delete author.icon_url;
    if (author.name === '') delete out.author;
    else out.author = author;
  }
  if (out.image && !okUrl(out.image.url)) delete out.image;
  if (out.thumbnail && !okUrl(out.thumbnail.url)) delete out.thumbnail;
  if (out.fields) {
    out.fields = out.fields.slice(0, EMBED_FIELDS_MAX).map((field): APIEmbedField => ({
      ...field,
      name: orEmptyField(fit(field.name, EMBED_FIELD_NAME_MAX)),
      value: orEmptyField(fit(field.value, EMBED_FIELD_VALUE_MAX)),
    }));
  }
  return out;
}

/**
 * The core fields of an embed: the leading block fields before the first inline one. On an image card
 * they are the credit and the sources, which the board asks every client to show: shrinking may shorten
 * them but never removes them.
 */
function coreFieldCount(fields: readonly APIEmbedField[]): number {
  const firstInline = fields.findIndex((field) => field.inline === true);
  return firstInline === -1 ? 0 : firstInline;
}

const DESCRIPTION_KEEP = 300;
const FIELD_KEEP = 60;
const CORE_FIELD_KEEP = 120;

/** `text` cut by up to `over` characters but not below `floor`; returns the new text and what it saved. */
function cut(text: string, over: number, floor: number): { text: string; saved: number } {
  if (over <= 0 || text.length <= floor) return { text, saved: 0 };
  const next = fit(text, Math.max(floor, text.length - over));
  return { text: next, saved: text.length - next.length };
}

/**
 * Shrink `embed` by about `excess` characters, least important text first: the description down to its
 * opening (where the gate notices are), then the other fields from the last, then the rest of the
 * description, then the core fields down to a short remainder, then the footer and the title.
 */
function shrink(embed: APIEmbed, excess: number): APIEmbed {
  const out: APIEmbed = { ...embed };
  let over = excess;
  if (out.description !== undefined) {
    const step = cut(out.description, over, DESCRIPTION_KEEP);
    out.description = step.text;
    over -= step.saved;
  }
  const fields = [...(out.fields ?? [])];
  const core = coreFieldCount(fields);
  for (let i = fields.length - 1; i >= core && over > 0; i -= 1) {
    const field = fields[i];
    if (!field) continue;
    if (field.value.length - over >= FIELD_KEEP) {
      const step = cut(field.value, over, FIELD_KEEP);
      over -= step.saved;
      fields[i] = { ...field, value: step.text };
    } else {
      over -= field.name.length + field.value.length;
      fields.splice(i, 1);
    }
  }
  if (over > 0 && out.description !== undefined) {
    over -= out.description.length;
    delete out.description;
  }
  for (let i = core - 1; i >= 0 && over > 0; i -= 1) {
    const field = fields[i];
    if (!field) continue;
    const step = cut(field.value, over, CORE_FIELD_KEEP);
    over -= step.saved;
    fields[i] = { ...field, value: step.text };
  }
  if (out.fields) out.fields = fields;
  if (over > 0 && out.author) {
    over -= out.author.name.length;
    delete out.author;
  }
  if (over > 0 && out.footer) {
    const keep = out.footer.text.length - over;
    const text = keep < 8 ? '' : fit(out.footer.text, keep);
    over -= out.footer.text.length - text.length;
    if (text === '') delete out.footer;
    else out.footer = { ...out.footer, text };
  }
  if (over > 0 && out.title !== undefined) {
    const keep = Math.max(1, out.title.length - over);
    out.title = fit(out.title, keep);
  }
  return out;
}

/** The largest per-embed size `b` with the sum of min(length, b) within `total` (water-filling). */
function fairShare(lengths: readonly number[], total: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let remaining = total;
  let left = sorted.length;
  for (const length of sorted) {
    const share = Math.floor(remaining / left);
    if (length > share) return share;
    remaining -= length;
    left -= 1;
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * The embeds of one message within all of Discord's limits: at most 10, each within its own limits, and
 * 6000 characters in all. Over the total, the room is shared fairly: every embed longer than its share
 * gives up text (see `shrink`), so three long cards keep three credits and three sets of sources. Only
 * when that cannot be enough are whole embeds dropped from the end (never the first, never gutted).
 */
export function fitEmbeds(embeds: readonly APIEmbed[]): APIEmbed[] {
  let fitted = embeds.slice(0, EMBEDS_PER_MESSAGE_MAX).map(fitOne);
  const lengths = fitted.map(embedLength);
  const total = lengths.reduce((sum, length) => sum + length, 0);
  if (total <= EMBEDS_TOTAL_MAX) return fitted;
  const share = fairShare(lengths, EMBEDS_TOTAL_MAX);
  fitted = fitted.map((embed, i) => {
    const length = lengths[i] ?? 0;
    return length > share ? shrink(embed, length - share) : embed;
  });
  let sum = fitted.reduce((acc, embed) => acc + embedLength(embed), 0);
  while (sum > EMBEDS_TOTAL_MAX && fitted.length > 1) {
    const last = fitted.pop();
    if (last) sum -= embedLength(last);
  }
  if (sum > EMBEDS_TOTAL_MAX && fitted[0]) fitted[0] = shrink(fitted[0], sum - EMBEDS_TOTAL_MAX);
  return fitted;
}

// ---- Components V2 (message flag IS_COMPONENTS_V2) ----

/** Components in one message, nested ones counted (media gallery items are not components). */
export const V2_COMPONENTS_MAX = 40;
/** Characters of all text displays of one message together; also the most one text display holds. */
export const V2_TEXT_MAX = 4000;
/** Items of one media gallery (it needs at least one). */
export const GALLERY_ITEMS_MAX = 10;
/** Alt text of one media gallery item. */
export const MEDIA_DESCRIPTION_MAX = 1024;
/** A media item's URL (http(s) or attachment://). */
export const MEDIA_URL_MAX = 2048;
