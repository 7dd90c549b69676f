/**
 * Discord output text: everything the bot writes into a message or embed from untrusted text goes through
 * here. Board text (tag names, credits, descriptions) must not format, must not make masked links the
 * board did not make, must not ping or even render as a mention, and every URL it yields must be https.
 * The board's own Markdown is read by ./board-markdown.ts, which writes its output with these functions.
 */
import type { Site } from '../philomena/sites.js';

const ZWSP = '\u200b';
const ELLIPSIS = '…';

/**
 * `@everyone`, `@here`, `<@id>`, `<@!id>`, `<@&id>`, `<#id>`, `</cmd:id>`, `<t:...>`, `<:emoji:id>` and
 * `<id:...>` cannot render as what they look like once a zero-width space follows the `@` or `<`. This
 * holds even if `allowed_mentions` were wrong, and in embeds, where Discord renders but never pings.
 */
export function neutraliseMentions(text: string): string {
  return text.replace(/@(?=everyone|here)/gi, `@${ZWSP}`).replace(/<(?=[@#/:]|a:|t:|id:)/gi, `<${ZWSP}`);
}

/** Characters that format anywhere in a line: bold/italic, underline, strike, code, spoilers, links. */
const INLINE_SPECIAL = /[\\*_~`|[\]<]/g;

/**
 * Escape text for Discord Markdown and neutralise mentions. `atLineStart` says whether the text begins a
 * line of the output (headings `#`, quotes `>`, lists `-`/`1.` only act there); it is true for standalone
 * text. `scheme://` has its colon escaped so a bare URL in board text never becomes a clickable link.
 */
export function escapeText(text: string, atLineStart = true): string {
  const escaped = neutraliseMentions(text)
    .replace(INLINE_SPECIAL, (c) => `\\${c}`)
    .replace(/:(?=\/\/)/g, '\\:');
  return escaped.replace(
    atLineStart ? /(^|\n)([ \t]*)(?:([#>+-])|(\d+)([.)]))/g : /(\n)([ \t]*)(?:([#>+-])|(\d+)([.)]))/g,
    (_m, start: string, space: string, mark: string | undefined, digits: string | undefined, dot: string) =>
      mark !== undefined ? `${start}${space}\\${mark}` : `${start}${space}${digits ?? ''}\\${dot}`,
  );
}

/**
 * Board text as plain Discord text: every Markdown character escaped (so it cannot format or make a
 * masked link) and every mention neutralised.
 */
export function escapeMarkdown(text: string): string {
  return escapeText(text, true);
}

/** Escaped text for one-line places (titles, field names, footers): line breaks become spaces. */
export function escapeInline(text: string): string {
  return escapeMarkdown(text.replace(/[\r\n]+/g, ' '));
}

/** The index at most `max` that does not split a surrogate pair. */
function codePointCut(text: string, max: number): number {
  if (max <= 0) return 0;
  if (max >= text.length) return text.length;
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/**
 * `text` cut to at most `max` UTF-16 code units (Discord counts characters; UTF-16 length is never less
 * than the count of code points, so it is the safe measure), ending with "…" when cut. Never splits a
 * surrogate pair; prefers to cut at a space when one is near the end.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  if (max === 1) return ELLIPSIS;
  let cut = codePointCut(text, max - 1);
  const space = text.lastIndexOf(' ', cut);
  if (space > cut - 24 && space > 0) cut = space;
  let kept = text.slice(0, cut).trimEnd();
  // A lone trailing backslash would escape the ellipsis, which is harmless, but looks odd.
  if (/(^|[^\\])(\\\\)*\\$/.test(kept)) kept = kept.slice(0, -1);
  return `${kept}${ELLIPSIS}`;
}

/** Positions of unescaped occurrences of `token` in Discord Markdown `text`. */
function unescapedIndexes(text: string, token: string): number[] {
  const found: number[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '\\') {
      i += 2;
      continue;
    }
    if (text.startsWith(token, i)) {
      found.push(i);
      i += token.length;
      continue;
    }
    i += 1;
  }
  return found;
}

/**
 * Like {@link truncate}, for Markdown this module produced: the cut never leaves a spoiler, a code block,
 * an inline code span or a masked link open. An open `||` would show the rest of a spoiler in the clear, so the cut moves
 * back to before the opening marker instead.
 */
export function truncateMarkdown(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = truncate(text, max).slice(0, -1);
  for (let round = 0; round < 8; round += 1) {
    const fences = unescapedIndexes(kept, '```');
    if (fences.length % 2 === 1) {
      kept = kept.slice(0, fences.at(-1));
      continue;
    }
    const unfenced = kept.replace(/```[\s\S]*?```/g, (m) => ' '.repeat(m.length));
    const code = openCodeSpan(unfenced);
    if (code !== undefined) {
      kept = kept.slice(0, code);
      continue;
    }
    const spoilers = unescapedIndexes(unfenced, '||');
    if (spoilers.length % 2 === 1) {
      kept = kept.slice(0, spoilers.at(-1));
      continue;
    }
    const opens = unescapedIndexes(kept, '[');
    const lastOpen = opens.at(-1);
    if (lastOpen !== undefined && !hasLinkTail(kept, lastOpen)) {
      kept = kept.slice(0, lastOpen);
      continue;
    }
    break;
  }
  return `${kept.trimEnd()}${ELLIPSIS}`;
}

/**
 * Where an inline code span opens that `text` never closes, or undefined. A span opens with a run of
 * backticks and closes at the next run of the same length; inside it a backslash is text. Cut off from its
 * closing run, the opening run would show as a backtick and what follows as Markdown: text the renderer
 * left as code (a mention, a link) would come alive.
 */
function openCodeSpan(text: string): number | undefined {
  let open: { at: number; length: number } | undefined;
  let i = 0;
  while (i < text.length) {
    if (open === undefined && text[i] === '\\') {
      i += 2;
      continue;
    }
    if (text[i] !== '`') {
      i += 1;
      continue;
    }
    let end = i;
    while (text[end] === '`') end += 1;
    if (open === undefined) open = { at: i, length: end - i };
    else if (end - i === open.length) open = undefined;
    i = end;
  }
  return open?.at;
}

/**
 * Whether `text` holds a masked link's tail `](target)` (target without `)` or blanks) at or after `from`.
 * One pass: every `](` between a failed `](` and the blank that stopped it stops at that same blank, so
 * the search goes on from there (the regex it replaces restarted at each `](`: quadratic on `](](](`).
 */
function hasLinkTail(text: string, from: number): boolean {
  let at = text.indexOf('](', from);
  while (at !== -1) {
    let end = at + 2;
    while (end < text.length && text[end] !== ')' && !/\s/.test(text[end] ?? '')) end += 1;
    if (text[end] === ')') return true;
    at = text.indexOf('](', end);
  }
  return false;
}

// ---- links ----

/**
 * A URL as Discord link syntax accepts it: characters that could end the link early or be read as
 * Markdown or a mention are percent-encoded (servers read `%28` as `(`); `@` only outside the authority.
 */
function linkTarget(url: string): string {
  const authorityEnd = url.indexOf('/', url.indexOf('//') + 2);
  const head = authorityEnd === -1 ? url : url.slice(0, authorityEnd);
  const tail = authorityEnd === -1 ? '' : url.slice(authorityEnd);
  const encode = (s: string): string =>
    s.replace(/[()<>[\]"' `@\\]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return head + encode(tail);
}

/** Discord masked link with escaped text; the text is written by the caller's own escaping. */
export function maskedLink(escapedText: string, url: string): string {
  return `[${escapedText}](${linkTarget(url)})`;
}

/** A URL as Discord's autolink `<url>`: delimited, so no neighbouring character is read into it. */
export function bareUrl(url: string): string {
  return `<${linkTarget(url)}>`;
}

/**
 * Every URL shown is https, also where no link conversion runs (code spans and blocks, plain text): a
 * remaining `http://` becomes `https://`, except the own links of a site configured with an http base
 * (a local board).
 */
export function httpsOnlyText(text: string, site: Site): string {
  const ownBase = site.baseUrl.toLowerCase().startsWith('http://') ? site.baseUrl.toLowerCase() : null;
  return text.replace(/http:\/\//gi, (match: string, offset: number) =>
    ownBase !== null && text.slice(offset, offset + ownBase.length).toLowerCase() === ownBase
      ? match
      : 'https://',
  );
}

/**
 * `items` joined with `separator`, as many as fit in `max` characters, then "and N more". Items are
 * whole Markdown pieces (a link, an escaped name): they are never cut in the middle.
 *
 * `more` may be a formatted message in the card's language (a plural, a number): it is asked only when
 * the items do not all fit, and then a few times (a binary search over how many are shown), not once per
 * item, so a card of 80 tags costs a handful of formats rather than 80.
 */
export function joinWithin(
  items: readonly string[],
  separator: string,
  max: number,
  more: (left: number) => string = (left) => `… and ${left} more`,
): { text: string; shown: number } {
  const all = items.join(separator);
  if (all.length <= max) return { text: all, shown: items.length };
  // The length of the first k items joined, for k = 1..n.
  const prefix: number[] = [];
  let length = 0;
  for (const [index, item] of items.entries()) {
    length += (index === 0 ? 0 : separator.length) + item.length;
    prefix.push(length);
  }
  const fits = (shown: number): boolean =>
    (prefix[shown - 1] ?? 0) + separator.length + more(items.length - shown).length <= max;
  // The most items that fit with the count line after them: shown items grow and the count shrinks as k
  // grows, so the search is on a condition that holds up to a point; the steps after it settle a count
  // line whose length is not monotone (plural forms of different lengths).
  let low = 0;
  let high = items.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  let shown = low;
  while (shown + 1 <= items.length - 1 && fits(shown + 1)) shown += 1;
  while (shown > 0 && !fits(shown)) shown -= 1;
  const rest = more(items.length - shown);
  const text = shown === 0 ? rest : `${items.slice(0, shown).join(separator)}${separator}${rest}`;
  return { text, shown };
}
