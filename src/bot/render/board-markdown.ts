/**
 * Board text made safe for Discord: `boardMarkdownToDiscord` parses Philomena-flavour Markdown (comrak with
 * spoilers, underline, greentext, `>>123` image references; old content may still be Textile) into a
 * small set of constructs and writes each back with Discord syntax from ./discord-text.ts; every piece of
 * text between them goes through `escapeText`. So nothing the board typed reaches Discord as syntax, and
 * unclosed or unknown markup simply shows as the characters it is.
 */
import type { Site } from '../../philomena/sites.js';
import { httpsUrl, imagePageUrl } from '../../philomena/urls.js';
import {
  bareUrl,
  escapeText,
  httpsOnlyText,
  maskedLink,
  neutraliseMentions,
  truncate,
} from './discord-text.js';

/** Text that looks like a URL or a domain; as link text it could disguise where the link goes. */
function looksLikeUrl(text: string): boolean {
  return /[a-z][a-z0-9+.-]*:\/\/|www\.|\b[a-z0-9-]+\.[a-z]{2,}\b/i.test(text);
}

// ---- board Markdown ----

interface InlineOptions {
  readonly site: Site;
  /** Inside link text: links may not nest. */
  readonly noLinks: boolean;
  readonly depth: number;
  /**
   * The text is the end of board text that was cut (MAX_INPUT): it may go on past its last character.
   * Where what follows the cut could decide whether text is spoilered, the reading that hides more wins:
   * a spoiler open at the end runs to the end, and a backtick run unclosed so far (a code span would
   * hide the closer of a spoiler or emphasis after it) stops the closer search. A whole description's
   * spoilered text then never shows in the clear because its closing `||` was cut off.
   */
  readonly openEnd: boolean;
}

const MAX_DEPTH = 12;
/**
 * Longer input is cut first (with "…"). No card shows more than 2,500 characters of board text (an image
 * description at most 1,800, a tag description 2,500), and rendering only shortens text where markup
 * renders to nothing (HTML tags, entities), so 4,000 characters fill any card. It also bounds the work a
 * hostile description can cause on every view (security review H2).
 */
export const MAX_INPUT = 4_000;
/** Link text and destinations longer than this are not links: bounds the scans on hostile input. */
const MAX_LINK_SCAN = 2_048;
/** A URL longer than this is shown as text, not linked: bounds the work and the output of one link. */
const MAX_URL = 2_048;

const EMPHASIS = ['**', '__', '~~', '||', '*', '_'] as const;
type Emphasis = (typeof EMPHASIS)[number];
const DISCORD_EMPHASIS: Readonly<Record<Emphasis, string>> = {
  '**': '**',
  __: '__',
  '~~': '~~',
  '||': '||',
  '*': '*',
  _: '*',
};

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
        ? String.fromCodePoint(code)
        : whole;
    }
    return ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/** HTML tags the board would have stripped or escaped; `<br>` is a line break. */
function stripHtml(text: string): string {
  return text.replace(/<br\s*\/?>/gi, '\n').replace(/<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>/gi, '');
}

/** Plain inline code; backticks inside become a look-alike so the span cannot be closed early. */
function inlineCode(content: string): string {
  const body = neutraliseMentions(content.replaceAll('`', 'ˋ'));
  return body.trim() === '' ? '' : `\`${body}\``;
}

function codeBlock(lines: readonly string[]): string {
  const body = neutraliseMentions(lines.join('\n').replaceAll('```', 'ˋˋˋ'));
  return `\`\`\`\n${body}\n\`\`\``;
}

/**
 * Lookups over one text that the inline renderer would otherwise redo at every position: the `]` matching
 * each `[`, the `)` matching each `(`, the next occurrence of a closing marker. Scanning afresh for each
 * opener made text full of openers (`[[[[`, `[a](((`, `[==[==`) quadratic; here the brackets are matched
 * in one pass with a stack, and a search remembers its last answer, so each text costs linear time
 * (security review H2). Built per text (inner texts of links and emphasis get their own), lazily.
 */
interface TextIndex {
  /** The `]` matching the `[` at `open` (nesting and backslashes honoured, within MAX_LINK_SCAN), or -1. */
  closingBracket(open: number): number;
  /** The `)` matching the `(` at `open`, on the same line and within MAX_LINK_SCAN, or -1. */
  closingParen(open: number): number;
  /**
   * The first `needle` at or after `from`, or -1; a needle with letters is found case-insensitively.
   * Each distinct needle is searched forward and its answer reused for any later `from` up to it.
   */
  next(needle: string, from: number): number;
}

function createTextIndex(text: string): TextIndex {
  let brackets: Int32Array | null = null;
  let parens: Int32Array | null = null;
  const searches = new Map<string, { readonly from: number; readonly at: number }>();
  return {
    closingBracket(open) {
      brackets ??= matchPairs(text, '[', ']', false);
      return brackets[open] ?? -1;
    },
    closingParen(open) {
      parens ??= matchPairs(text, '(', ')', true);
      return parens[open] ?? -1;
    },
    next(needle, from) {
      const last = searches.get(needle);
      // Nothing lies between a search's start and its answer, so any `from` in that range has the same one.
      if (last !== undefined && from >= last.from && (last.at === -1 || from <= last.at)) return last.at;
      const at = findFrom(text, needle, from);
      searches.set(needle, { from, at });
      return at;
    },
  };
}

/**
 * For each `open` character, the index of its matching `close` (or -1), with a stack in one pass. A
 * backslash escapes the next character; with `lineBound`, a line break leaves every open one unmatched.
 * A match further than MAX_LINK_SCAN away does not count, as a link that long is not taken as one.
 */
function matchPairs(text: string, open: string, close: string, lineBound: boolean): Int32Array {
  const match = new Int32Array(text.length).fill(-1);
  const stack: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\\') i += 1;
    else if (lineBound && c === '\n') stack.length = 0;
    else if (c === open) stack.push(i);
    else if (c === close) {
      const at = stack.pop();
      if (at !== undefined && i - at < MAX_LINK_SCAN) match[at] = i;
    }
  }
  return match;
}

function findFrom(text: string, needle: string, from: number): number {
  if (!/[a-z]/i.test(needle)) return text.indexOf(needle, from);
  const pattern = new RegExp(needle.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'), 'gi');
  pattern.lastIndex = from;
  return pattern.exec(text)?.index ?? -1;
}

/** `(dest "title")` starting at `open`: the destination and the index after `)`. */
function linkDestination(text: string, open: number, index: TextIndex): { dest: string; end: number } | null {
  if (text[open] !== '(') return null;
  const close = index.closingParen(open);
  if (close === -1) return null;
  let inner = text.slice(open + 1, close).trim();
  if (inner.startsWith('<'))
    inner = inner.slice(1, inner.indexOf('>') === -1 ? undefined : inner.indexOf('>'));
  const dest = inner.split(/\s+/)[0] ?? '';
  return { dest, end: close + 1 };
}

/** The length of the run of backticks at `at`. */
function backtickRun(text: string, at: number): number {
  let end = at;
  while (text[end] === '`') end += 1;
  return end - at;
}

const URL_TRAILING = new Set('.,:;!?\'"*_~|');

/**
 * Trailing punctuation is not part of a bare URL (`see https://x.org/a.`), unless a `)` is balanced.
 * The brackets are counted once and the counts kept up to date while trimming: counting them again for
 * each trailing `)` took 2 s on a 12,000-character `https://a.bc/))))…` (security review H2).
 */
function trimUrl(url: string): string {
  let opens = 0;
  let closes = 0;
  for (let i = 0; i < url.length; i += 1) {
    if (url[i] === '(') opens += 1;
    else if (url[i] === ')') closes += 1;
  }
  let end = url.length;
  while (end > 0) {
    const last = url[end - 1] ?? '';
    if (URL_TRAILING.has(last)) end -= 1;
    else if (last === ')' && opens < closes) {
      closes -= 1;
      end -= 1;
    } else break;
  }
  return url.slice(0, end);
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}]/u.test(c);
}

/** Index of the closing delimiter for an emphasis run opened at `from`, or -1. */
function closingDelimiter(
  text: string,
  delim: Emphasis,
  from: number,
  index: TextIndex,
  openEnd: boolean,
): number {
  for (let i = from; i <= text.length - delim.length; i += 1) {
    const c = text[i];
    if (c === '\\') {
      i += 1;
      continue;
    }
    if (c === '`') {
      // A code span hides its content from emphasis. An unclosed run is skipped whole, as the renderer
      // shows it (trying each of its backticks again scanned the rest of the text once per backtick).
      const run = backtickRun(text, i);
      const close = index.next('`'.repeat(run), i + run);
      if (close === -1 && openEnd) return -1;
      i = (close === -1 ? i + run : close + run) - 1;
      continue;
    }
    if (!text.startsWith(delim, i)) continue;
    const before = text[i - 1];
    const after = text[i + delim.length];
    if (before === undefined || /\s/.test(before)) continue;
    if (delim.length === 1 && (after === delim || before === delim)) continue;
    if (delim === '_' && isWordChar(after)) continue;
    return i;
  }
  return -1;
}

/**
 * A link the board made. Text that looks like a URL could disguise the target, so then the target itself
 * is shown instead; a target that is not http(s) leaves only the text.
 */
function renderLink(textMd: string, plainText: string, url: string | null): string {
  if (url === null) return textMd;
  if (plainText.trim() === '' || looksLikeUrl(plainText)) return bareUrl(url);
  return maskedLink(textMd, url);
}

/**
 * Inline board Markdown → Discord Markdown. `text` may hold line breaks (a paragraph); `lineStart` says
 * whether its first character starts a line of the output.
 */
function renderInline(text: string, options: InlineOptions, lineStart: boolean): string {
  if (options.depth > MAX_DEPTH) return escapeText(text, lineStart);
  const out: string[] = [];
  let plain = '';
  let plainAtLineStart = lineStart;
  const flush = (): void => {
    if (plain !== '') out.push(escapeText(plain, plainAtLineStart));
    plain = '';
  };
  const emit = (piece: string): void => {
    flush();
    out.push(piece);
    plainAtLineStart = false;
  };
  const deeper: InlineOptions = { ...options, depth: options.depth + 1, openEnd: false };
  const inLink: InlineOptions = { ...deeper, noLinks: true };
  const toTheEnd: InlineOptions = { ...deeper, openEnd: options.openEnd };
  const noCloserFrom = new Map<Emphasis, number>();
  const index = createTextIndex(text);

  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const c = text[i] ?? '';
    const prev = text[i - 1];

    if (plain === '' && out.length > 0 && prev === '\n') plainAtLineStart = true;

    if (c === '\\' && i + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[i + 1] ?? '')) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = backtickRun(text, i);
      const close = index.next('`'.repeat(run), i + run);
      if (close !== -1) {
        emit(inlineCode(text.slice(i + run, close)));
        i = close + run;
        continue;
      }
      plain += text.slice(i, i + run);
      i += run;
      continue;
    }
    // Old Textile spoilers: [spoiler]...[/spoiler].
    const spoilerOpen = /^\[spoiler\]/i.test(rest);
    const spoilerClose = spoilerOpen ? index.next('[/spoiler]', i + 9) : -1;
    if (spoilerClose !== -1 || (spoilerOpen && options.openEnd)) {
      const inner =
        spoilerClose === -1
          ? renderInline(text.slice(i + 9), toTheEnd, false)
          : renderInline(text.slice(i + 9, spoilerClose), deeper, false);
      if (inner.trim() !== '') emit(`||${inner}||`);
      i = spoilerClose === -1 ? text.length : spoilerClose + 10;
      continue;
    }
    const noFormatClose = rest.startsWith('[==') ? index.next('==]', i + 3) : -1;
    if (noFormatClose !== -1) {
      plain += text.slice(i + 3, noFormatClose);
      i = noFormatClose + 3;
      continue;
    }
    if (c === '!' && text[i + 1] === '[' && !options.noLinks) {
      const close = index.closingBracket(i + 1);
      const dest = close === -1 ? null : linkDestination(text, close + 1, index);
      if (dest) {
        const alt = text.slice(i + 2, close).trim();
        const url = httpsUrl(dest.dest, options.site);
        const label = alt === '' ? 'image' : `image: ${alt}`;
        emit(
          url === null ? escapeText(`[${label}]`, false) : renderLink(escapeText(label, false), label, url),
        );
        i = dest.end;
        continue;
      }
    }
    if (c === '[' && !options.noLinks) {
      const close = index.closingBracket(i);
      const dest = close === -1 ? null : linkDestination(text, close + 1, index);
      if (dest) {
        const label = text.slice(i + 1, close);
        const url = httpsUrl(dest.dest, options.site);
        emit(renderLink(renderInline(label, inLink, false), label, url));
        i = dest.end;
        continue;
      }
    }
    // Image references: >>123, >>123t / s / p (thumbnail, small, preview embeds) become a link.
    const reference = /^>>(\d{1,12})([tsp])?(?![\p{L}\p{N}])/u.exec(rest);
    if (reference && !isWordChar(prev)) {
      const id = Number(reference[1]);
      const label = escapeText(`>>${reference[1] ?? ''}`, false);
      emit(options.noLinks ? label : maskedLink(label, imagePageUrl(options.site, id)));
      i += reference[0].length;
      continue;
    }
    // Textile links: "text":url
    const textileLink = /^"([^"\n]{1,300})":((?:https?:\/\/|\/)[^\s<>"]+)/i.exec(rest);
    if (textileLink && !options.noLinks && (textileLink[2] ?? '').length <= MAX_URL) {
      const target = trimUrl(textileLink[2] ?? '');
      const url = httpsUrl(target, options.site);
      const label = textileLink[1] ?? '';
      emit(renderLink(renderInline(label, inLink, false), label, url));
      i += 1 + label.length + 2 + target.length;
      continue;
    }
    // Textile images: !url! (optionally !url!:link).
    const textileImage = /^!((?:https?:\/\/|\/)[^\s!<>]+)!(?::(?:https?:\/\/|\/)[^\s<>]+)?/i.exec(rest);
    if (textileImage && !options.noLinks) {
      const url = httpsUrl(textileImage[1], options.site);
      emit(url === null ? escapeText('[image]', false) : maskedLink('image', url));
      i += textileImage[0].length;
      continue;
    }
    const autolink = /^<((?:https?:\/\/|www\.)[^\s<>]+)>/i.exec(rest);
    if (autolink && (autolink[1] ?? '').length <= MAX_URL) {
      const raw = autolink[1] ?? '';
      const url = httpsUrl(raw.startsWith('www.') ? `https://${raw}` : raw, options.site);
      emit(url === null || options.noLinks ? escapeText(raw, false) : bareUrl(url));
      i += autolink[0].length;
      continue;
    }
    const bare = /^(?:https?:\/\/|www\.)[^\s<>"]+/i.exec(rest);
    if (bare && !isWordChar(prev) && bare[0].length > MAX_URL) {
      plain += bare[0];
      i += bare[0].length;
      continue;
    }
    if (bare && !isWordChar(prev)) {
      const raw = trimUrl(bare[0]);
      const url = httpsUrl(raw.toLowerCase().startsWith('www.') ? `https://${raw}` : raw, options.site);
      emit(url === null || options.noLinks ? escapeText(raw, false) : bareUrl(url));
      i += raw.length;
      continue;
    }
    const delim = EMPHASIS.find((d) => rest.startsWith(d));
    if (delim) {
      const after = text[i + delim.length];
      const canOpen =
        after !== undefined &&
        !/\s/.test(after) &&
        !(delim === '_' && isWordChar(prev)) &&
        after !== delim[0];
      const from = i + delim.length + 1;
      // A delimiter with no closer after `from` has none after any later position either: remember it,
      // so text full of unclosed markers costs one scan, not one per marker.
      const known = noCloserFrom.get(delim);
      const close =
        canOpen && (known === undefined || from < known)
          ? closingDelimiter(text, delim, from, index, options.openEnd)
          : -1;
      if (canOpen && close === -1) noCloserFrom.set(delim, Math.min(from, known ?? from));
      if (close !== -1) {
        const inner = renderInline(text.slice(i + delim.length, close), deeper, false);
        const mark = DISCORD_EMPHASIS[delim];
        if (inner.trim() !== '') emit(`${mark}${inner}${mark}`);
        i = close + delim.length;
        continue;
      }
      if (canOpen && delim === '||' && options.openEnd) {
        const inner = renderInline(text.slice(i + delim.length), toTheEnd, false);
        if (inner.trim() !== '') emit(`||${inner}||`);
        i = text.length;
        continue;
      }
      plain += delim;
      i += delim.length;
      continue;
    }
    plain += c;
    i += 1;
  }
  flush();
  return out.join('');
}

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

/**
 * A heading's text without its closing `#`s and trailing blanks (`## Title ##` → `Title`). Trimmed by
 * hand: the regex `(.*?)(?:[ \t]+#+)?[ \t]*$` retried the whole tail at each character, quadratic on a
 * heading followed by a run of spaces.
 */
function headingText(rest: string): string {
  let end = rest.length;
  while (end > 0 && isBlank(rest[end - 1])) end -= 1;
  let hashes = end;
  while (hashes > 0 && rest[hashes - 1] === '#') hashes -= 1;
  if (hashes < end && hashes > 0 && isBlank(rest[hashes - 1])) {
    end = hashes;
    while (end > 0 && isBlank(rest[end - 1])) end -= 1;
  }
  return rest.slice(0, end);
}

/**
 * A table's delimiter row (`| --- | :-: |`): dropped, as Discord has no tables. Split into cells rather
 * than matched with one regex, whose neighbouring `\s*` made a line of blanks quadratic.
 */
function isTableRule(line: string): boolean {
  const row = line.trim();
  const cells = row.split('|');
  if (row.startsWith('|')) cells.shift();
  if (row.endsWith('|')) cells.pop();
  return cells.length >= 2 && cells.every((cell) => /^:?-{3,}:?$/.test(cell.trim()));
}

type Block =
  | { readonly kind: 'paragraph'; readonly lines: string[]; readonly openEnd: boolean }
  | { readonly kind: 'line'; readonly text: string };

/**
 * Philomena-flavour Markdown (and Textile leftovers) as Discord Markdown: `>>123` image references and
 * relative links become absolute links on the site, http links become https, images become links,
 * bold/italic/underline/strike/spoilers/quotes/lists/code stay, HTML is stripped, every other character
 * is escaped and every mention neutralised. Line ends may be `\r\n`.
 */
export function boardMarkdownToDiscord(text: string, site: Site): string {
  const source = stripHtml(decodeEntities(truncate(text, MAX_INPUT).replace(/\r\n?/g, '\n')));
  const lines = source.split('\n');
  const cut = text.length > MAX_INPUT;
  const closed: InlineOptions = { site, noLinks: false, depth: 0, openEnd: false };
  const blocks: Block[] = [];
  let paragraph: string[] | null = null;
  let paragraphOpenEnd = false;
  const endParagraph = (): void => {
    if (paragraph) blocks.push({ kind: 'paragraph', lines: paragraph, openEnd: paragraphOpenEnd });
    paragraph = null;
  };

  for (let n = 0; n < lines.length; n += 1) {
    const line = lines[n] ?? '';
    // Only the last line of cut text can hold the start of something closed in the part cut off.
    const options: InlineOptions = cut && n === lines.length - 1 ? { ...closed, openEnd: true } : closed;
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      endParagraph();
      const marker = fence[1] ?? '```';
      const body: string[] = [];
      n += 1;
      while (n < lines.length && !(lines[n] ?? '').trimStart().startsWith(marker)) {
        body.push(lines[n] ?? '');
        n += 1;
      }
      blocks.push({ kind: 'line', text: codeBlock(body) });
      continue;
    }
    if (line.trim() === '') {
      endParagraph();
      blocks.push({ kind: 'line', text: '' });
      continue;
    }
    const heading = /^ {0,3}#{1,6}[ \t]+/.exec(line);
    if (heading && !/[\r\u2028\u2029]/.test(line)) {
      endParagraph();
      const inner = renderInline(headingText(line.slice(heading[0].length)), options, false);
      blocks.push({ kind: 'line', text: inner.trim() === '' ? '' : `**${inner}**` });
      continue;
    }
    // Blockquote needs a space after `>` (without one it is greentext, shown as typed); nesting is
    // flattened, since Discord quotes do not nest. `>>123` is a reference, never a quote.
    const quote = /^ {0,3}(?:>[ \t]+|bq\.[ \t]+)(.*)$/.exec(line);
    if (quote && !/^ {0,3}>>\d/.test(line)) {
      endParagraph();
      const inner = (quote[1] ?? '').replace(/^(?:>(?!>\d)[ \t]*)+/, '');
      blocks.push({ kind: 'line', text: `> ${renderInline(inner, options, false)}` });
      continue;
    }
    if (/^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(line)) {
      endParagraph();
      blocks.push({ kind: 'line', text: '───' });
      continue;
    }
    if (isTableRule(line)) continue;
    const bullet = /^([ \t]*)[-*+][ \t]+(.*)$/.exec(line);
    if (bullet) {
      endParagraph();
      const indent = Math.min((bullet[1] ?? '').replace(/\t/g, '  ').length, 4);
      blocks.push({
        kind: 'line',
        text: `${' '.repeat(indent)}- ${renderInline(bullet[2] ?? '', options, false)}`,
      });
      continue;
    }
    const numbered = /^([ \t]*)(\d{1,9})[.)][ \t]+(.*)$/.exec(line);
    if (numbered) {
      endParagraph();
      const indent = Math.min((numbered[1] ?? '').replace(/\t/g, '  ').length, 4);
      blocks.push({
        kind: 'line',
        text: `${' '.repeat(indent)}${numbered[2] ?? '1'}. ${renderInline(numbered[3] ?? '', options, false)}`,
      });
      continue;
    }
    paragraph ??= [];
    paragraph.push(line.trim());
    paragraphOpenEnd = options.openEnd;
  }
  endParagraph();

  const rendered = blocks.map((block) =>
    block.kind === 'line'
      ? block.text
      : renderInline(block.lines.join('\n'), { ...closed, openEnd: block.openEnd }, true),
  );
  return httpsOnlyText(
    rendered
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    site,
  );
}
