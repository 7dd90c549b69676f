/**
 * Discord's message and embed limits (../../../../shared/discord/README.md), met by truncation so that a
 * long board text is never the cause of an API error. `fitEmbeds` is the last guard before sending.
 */
import type { APIEmbed, APIEmbedField } from 'discord.js';
import { truncateMarkdown } from './markdown.js';

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
export const EMBED_URL_MAX = 2048;
/** A field needs a non-empty name and value; this is what stands in for an empty one. */
export const EMPTY_FIELD = '\u200b';

/** The characters an embed counts towards {@link EMBEDS_TOTAL_MAX}. */
export function embedLength(embed: APIEmbed): number {
  return (
    (embed.title?.length ?? 0) +
    (embed.description?.length ?? 0) +
    (embed.footer?.text.length ?? 0) +
    (embed.author?.name.length ?? 0) +
    (embed.fields ?? []).reduce((sum, field) => sum + field.name.length + field.value.length, 0)
  );
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

/** Shrink `embed` by about `excess` characters, least important text first. Returns the new embed. */
function shrink(embed: APIEmbed, excess: number): APIEmbed {
  const out: APIEmbed = { ...embed };
  let over = excess;
  const description = out.description;
  if (over > 0 && description !== undefined) {
    const keep = Math.max(0, description.length - over);
    const next = keep < 40 ? '' : fit(description, keep);
    over -= description.length - next.length;
    if (next === '') delete out.description;
    else out.description = next;
  }
  // Then fields from the last (tags, stats) towards the first (credit, sources).
  const fields = [...(out.fields ?? [])];
  for (let i = fields.length - 1; i >= 0 && over > 0; i -= 1) {
    const field = fields[i];
    if (!field) continue;
    const keep = field.value.length - over;
    if (keep >= 60) {
      const value = fit(field.value, keep);
      over -= field.value.length - value.length;
      fields[i] = { ...field, value };
    } else {
      over -= field.name.length + field.value.length;
      fields.splice(i, 1);
    }
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

/**
 * The embeds of one message within all of Discord's limits: at most 10, each within its own limits, and
 * 6000 characters in all. Over the total, the later embeds give up text first (descriptions, then the
 * last fields, ...); embeds with nothing left are dropped, but the first always stays.
 */
export function fitEmbeds(embeds: readonly APIEmbed[]): APIEmbed[] {
  const fitted = embeds.slice(0, EMBEDS_PER_MESSAGE_MAX).map(fitOne);
  let total = fitted.reduce((sum, embed) => sum + embedLength(embed), 0);
  for (let i = fitted.length - 1; i >= 0 && total > EMBEDS_TOTAL_MAX; i -= 1) {
    const embed = fitted[i];
    if (!embed) continue;
    const before = embedLength(embed);
    const shrunk = shrink(embed, total - EMBEDS_TOTAL_MAX);
    fitted[i] = shrunk;
    total -= before - embedLength(shrunk);
  }
  // Whole embeds from the end, if shrinking could not do it (many embeds with long titles).
  while (total > EMBEDS_TOTAL_MAX && fitted.length > 1) {
    const last = fitted.pop();
    if (last) total -= embedLength(last);
  }
  return fitted;
}
