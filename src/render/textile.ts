/**
 * Textile, which the boards used before Markdown and which old descriptions may still hold, read as the
 * Markdown it stands for: `[spoiler]…[/spoiler]` is a spoiler, `"text":url` a link, `!url!` an image,
 * `bq. ` a quote and `[==…==]` text shown as typed. Textile's `*bold*` and `_em_` are left to Markdown,
 * which reads them as emphasis.
 *
 * These are markdown-it rules rather than a rewrite of the text before parsing: only the parser knows
 * where code spans and code blocks are, and Textile typed inside code stays as typed.
 */
import type { MarkdownIt, StateBlock, StateInline } from 'markdown-it';
import { MAX_URL, TEXTILE_SPOILER, trimUrl } from './philomena-syntax.js';

const SPOILER_TAG = /\[(\/?)spoiler\]/iy;
const EMPTY_SPOILER = /\[spoiler\]\[\/spoiler\]/iy;

/** `[spoiler]` and `[/spoiler]`: a spoiler's delimiters, paired like emphasis. `[spoiler](url)` is a link. */
function spoilerTag(state: StateInline, silent: boolean): boolean {
  if (silent || state.src.charCodeAt(state.pos) !== 0x5b) return false;
  // Side by side the two never pair (markdown-it takes them for one run): an empty spoiler shows nothing.
  EMPTY_SPOILER.lastIndex = state.pos;
  const empty = EMPTY_SPOILER.exec(state.src);
  if (empty && state.pos + empty[0].length <= state.posMax) {
    state.pos += empty[0].length;
    return true;
  }
  SPOILER_TAG.lastIndex = state.pos;
  const match = SPOILER_TAG.exec(state.src);
  const end = state.pos + (match?.[0].length ?? 0);
  if (!match || end > state.posMax || state.src.charCodeAt(end) === 0x28) return false;
  const closing = match[1] === '/';
  state.push('text', '', 0).content = match[0];
  state.delimiters.push({
    marker: TEXTILE_SPOILER,
    length: 0,
    token: state.tokens.length - 1,
    end: -1,
    open: !closing,
    close: closing,
  });
  state.pos = end;
  return true;
}

/** Where the last search for `==]` in each inline run started and what it found. */
const noFormatSearches = new WeakMap<StateInline, { readonly from: number; readonly at: number }>();

/**
 * The first `==]` at or after `from`. Nothing lies between a search's start and its answer, so the answer
 * is reused for any `from` in that range: text full of `[==` costs one scan, not one per opener.
 */
function noFormatClose(state: StateInline, from: number): number {
  const last = noFormatSearches.get(state);
  if (last !== undefined && from >= last.from && (last.at === -1 || from <= last.at)) return last.at;
  const at = state.src.indexOf('==]', from);
  noFormatSearches.set(state, { from, at });
  return at;
}

/** `[==…==]`: the text inside, as typed. */
function noFormat(state: StateInline, silent: boolean): boolean {
  if (!state.src.startsWith('[==', state.pos)) return false;
  const close = noFormatClose(state, state.pos + 3);
  if (close === -1 || close + 3 > state.posMax) return false;
  if (!silent) state.pending += state.src.slice(state.pos + 3, close);
  state.pos = close + 3;
  return true;
}

const LINK = /"([^"\n]{1,300})":((?:https?:\/\/|\/)[^\s<>"]+)/iy;

/** `"text":url`: a link whose text is read as Markdown; trailing punctuation is not part of the URL. */
function link(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x22 || state.linkLevel > 0) return false;
  LINK.lastIndex = state.pos;
  const match = LINK.exec(state.src);
  const label = match?.[1] ?? '';
  const url = match?.[2] ?? '';
  if (!match || url.length > MAX_URL) return false;
  const target = trimUrl(url);
  const labelStart = state.pos + 1;
  const end = labelStart + label.length + 2 + target.length;
  if (end > state.posMax) return false;
  if (!silent) {
    state.push('link_open', 'a', 1).attrs = [['href', target]];
    const max = state.posMax;
    state.pos = labelStart;
    state.posMax = labelStart + label.length;
    state.linkLevel += 1;
    state.md.inline.tokenize(state);
    state.linkLevel -= 1;
    state.posMax = max;
    state.push('link_close', 'a', -1);
  }
  state.pos = end;
  return true;
}

const IMAGE = /!((?:https?:\/\/|\/)[^\s!<>]+)!(?::(?:https?:\/\/|\/)[^\s<>]+)?/iy;

/** `!url!`, optionally `!url!:link`: the image (its link is left out, as a Markdown image has none). */
function image(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x21 || state.linkLevel > 0) return false;
  IMAGE.lastIndex = state.pos;
  const match = IMAGE.exec(state.src);
  if (!match || state.pos + match[0].length > state.posMax) return false;
  if (!silent) {
    const token = state.push('image', 'img', 0);
    token.attrs = [
      ['src', match[1] ?? ''],
      ['alt', ''],
    ];
    token.children = [];
  }
  state.pos += match[0].length;
  return true;
}

/** `bq. text`: a one-line quote. */
function quote(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  if ((state.sCount[startLine] ?? 0) - state.blkIndent >= 4) return false;
  const start = (state.bMarks[startLine] ?? 0) + (state.tShift[startLine] ?? 0);
  const blank = state.src.charCodeAt(start + 3);
  if (!state.src.startsWith('bq.', start) || (blank !== 0x20 && blank !== 0x09)) return false;
  if (silent) return true;
  const lines: [number, number] = [startLine, startLine + 1];
  state.push('blockquote_open', 'blockquote', 1).map = lines;
  state.push('paragraph_open', 'p', 1).map = lines;
  const inline = state.push('inline', '', 0);
  inline.content = state.src.slice(start + 4, state.eMarks[startLine]).trim();
  inline.map = lines;
  inline.children = [];
  state.push('paragraph_close', 'p', -1);
  state.push('blockquote_close', 'blockquote', -1);
  state.line = startLine + 1;
  return true;
}

export function textile(md: MarkdownIt): void {
  md.inline.ruler.before('link', 'textile_spoiler', spoilerTag);
  md.inline.ruler.before('link', 'textile_no_format', noFormat);
  md.inline.ruler.before('link', 'textile_link', link);
  md.inline.ruler.before('image', 'textile_image', image);
  md.block.ruler.before('blockquote', 'textile_quote', quote, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
}
