/**
 * What Philomena's Markdown (comrak with its extensions) adds to CommonMark, as markdown-it rules:
 * `||spoilers||`, `>>123` image references, greentext (`>` opens a quote only when a blank follows), bare
 * URLs linked by the board's rule (trailing punctuation left out), table delimiter rows dropped, and the
 * end of a description cut at the input cap read so that the most stays hidden. The tokens they make
 * (`spoiler_open`, `image_reference`, `bare_url`, `table_rule`) are written out by ./board-markdown.ts.
 */
import type { MarkdownIt, StateBlock, StateCore, StateInline, Token } from 'markdown-it';

/** A URL longer than this is shown as text, not linked: bounds the work and the output of one link. */
export const MAX_URL = 2_048;

/** Delimiter markers of the two spoiler syntaxes: `||` and Textile's `[spoiler]` (./textile.ts). */
const PIPE_SPOILER = 0x7c;
export const TEXTILE_SPOILER = 0x5b;

/** In markdown-it's `env`: the parse is of text cut at the input cap. */
export const CUT = Symbol('cut');
/** In markdown-it's `env`: the tokens of the last inline run of cut text, which may go on past the cut. */
const OPEN_END = Symbol('open end');

/** A letter or digit: `a>>1` and `xhttps://` are not a reference or a URL. */
function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}]/u.test(c);
}

const URL_TRAILING = new Set('.,:;!?\'"*_~|');

/**
 * Trailing punctuation is not part of a bare URL (`see https://x.org/a.`), unless a `)` is balanced.
 * The brackets are counted once and the counts kept up to date while trimming: counting them again for
 * each trailing `)` took 2 s on a 12,000-character `https://a.bc/))))…`, which any uploader can put in a
 * description to stall the bot.
 */
export function trimUrl(url: string): string {
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

/** Characters where markdown-it's own text rule stops (a rule may start there), plus `|` and `"`. */
const STOPS = new Uint8Array(128);
for (const c of '\n!#$%&*+-:<=>@[\\]^_`{}~|"') STOPS[c.charCodeAt(0)] = 1;

/**
 * markdown-it's text rule, stopping also at `|` (spoilers), `"` (Textile links) and at a word starting
 * with h or w, where a bare URL may begin.
 */
function text(state: StateInline, silent: boolean): boolean {
  const { src, posMax } = state;
  let pos = state.pos;
  while (pos < posMax) {
    const code = src.charCodeAt(pos);
    if (code < 128 && STOPS[code] === 1) break;
    const lower = code | 0x20;
    if ((lower === 0x68 || lower === 0x77) && pos > state.pos && !isWordChar(src[pos - 1])) break;
    pos += 1;
  }
  if (pos === state.pos) return false;
  if (!silent) state.pending += src.slice(state.pos, pos);
  state.pos = pos;
  return true;
}

/** `||`, as markdown-it reads `~~`: runs of pipes, each pair a delimiter that may open or close. */
function spoiler(state: StateInline, silent: boolean): boolean {
  if (silent || state.src.charCodeAt(state.pos) !== PIPE_SPOILER) return false;
  const scanned = state.scanDelims(state.pos, true);
  let length = scanned.length;
  if (length < 2) return false;
  if (length % 2 === 1) {
    state.push('text', '', 0).content = '|';
    length -= 1;
  }
  for (let i = 0; i < length; i += 2) {
    state.push('text', '', 0).content = '||';
    state.delimiters.push({
      marker: PIPE_SPOILER,
      length: 0,
      token: state.tokens.length - 1,
      end: -1,
      open: scanned.can_open,
      close: scanned.can_close,
    });
  }
  state.pos += scanned.length;
  return true;
}

/**
 * Matched spoiler delimiters (either syntax) become `spoiler_open` / `spoiler_close`; an opener left
 * without a closer is marked, for {@link openEnd}.
 */
function spoilerPairs(state: StateInline): void {
  const lists = [state.delimiters, ...state.tokens_meta.map((meta) => meta?.delimiters)];
  for (const delimiters of lists) {
    for (const delimiter of delimiters ?? []) {
      if (delimiter.marker !== PIPE_SPOILER && delimiter.marker !== TEXTILE_SPOILER) continue;
      const opener = state.tokens[delimiter.token];
      if (!opener) continue;
      if (delimiter.end === -1) {
        if (delimiter.open) opener.meta = { spoilerOpener: true };
        continue;
      }
      const closer = state.tokens[delimiters?.[delimiter.end]?.token ?? -1];
      if (!closer) continue;
      retype(opener, 'spoiler_open', 1);
      retype(closer, 'spoiler_close', -1);
    }
  }
}

/** Before the inline rules run: which inline run, if any, ends where the text was cut. */
function markOpenEnd(state: StateCore): void {
  if (state.env[CUT] !== true) return;
  const last = state.tokens.findLast((token) => token.type === 'inline');
  if (last?.children) state.env[OPEN_END] = last.children;
}

/**
 * Text cut at the input cap may go on past its last character. Where what follows the cut could decide
 * whether text is spoilered, the reading that hides more wins, so a whole spoilered description never
 * shows in the clear because its closing `||` was cut off: a spoiler still open at the end runs to the
 * end, and so does one whose closer follows a backtick run left open (the code span it starts could go on
 * past the cut and hide that closer). The spoiler starts early enough to enclose whatever it would
 * otherwise cross (emphasis or a link opened before it), so the output stays well nested.
 */
function openEnd(state: StateInline): void {
  if (state.env[OPEN_END] !== state.tokens) return;
  const tokens = state.tokens;
  const openOf = new Int32Array(tokens.length).fill(-1);
  const stack: number[] = [];
  tokens.forEach((token, i) => {
    if (token.nesting === 1) stack.push(i);
    else if (token.nesting === -1) openOf[i] = stack.pop() ?? -1;
  });
  let backticks = tokens.findIndex((token) => token.type === 'text' && token.content.includes('`'));
  if (backticks === -1) backticks = tokens.length;
  // The first spoiler that may run on: an opener without a closer, or one closed after the backticks.
  let opener = tokens.findIndex((token) => token.meta?.['spoilerOpener'] === true);
  if (opener === -1) opener = tokens.length;
  let closer = -1;
  for (let i = backticks + 1; i < tokens.length; i += 1) {
    const open = openOf[i] ?? -1;
    if (tokens[i]?.type === 'spoiler_close' && open !== -1 && open < backticks && open < opener) {
      opener = open;
      closer = i;
    }
  }
  if (opener === tokens.length) return;
  if (closer !== -1) asText(tokens[closer]);
  let start = opener;
  for (let i = tokens.length - 1; i >= start; i -= 1) {
    const open = openOf[i] ?? -1;
    if (tokens[i]?.nesting === -1 && open !== -1 && open < start) start = open;
  }
  const first = tokens[opener];
  if (start === opener && first?.type === 'text') retype(first, 'spoiler_open', 1);
  else if (start !== opener) {
    asText(first);
    tokens.splice(start, 0, new state.Token('spoiler_open', '', 1));
  }
  tokens.push(new state.Token('spoiler_close', '', -1));
}

/** A spoiler marker as markup; the characters it was typed with are kept in `markup`. */
function retype(token: Token, type: 'spoiler_open' | 'spoiler_close', nesting: 1 | -1): void {
  token.type = type;
  token.nesting = nesting;
  token.markup = token.content;
  token.content = '';
}

/** A spoiler marker shown as the characters it was typed with. */
function asText(token: Token | undefined): void {
  if (token?.type !== 'spoiler_open' && token?.type !== 'spoiler_close') return;
  token.type = 'text';
  token.nesting = 0;
  token.content = token.markup;
}

const REFERENCE = />>(\d{1,12})[tsp]?(?![\p{L}\p{N}])/uy;

/** `>>123`, `>>123t` / `s` / `p` (thumbnail, small, preview embeds): a reference to image 123. */
function imageReference(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3e || isWordChar(state.src[state.pos - 1])) return false;
  REFERENCE.lastIndex = state.pos;
  const match = REFERENCE.exec(state.src);
  if (!match || state.pos + match[0].length > state.posMax) return false;
  if (!silent) {
    const token = state.push('image_reference', '', 0);
    token.content = `>>${match[1] ?? ''}`;
    token.meta = { id: Number(match[1]) };
  }
  state.pos += match[0].length;
  return true;
}

const BARE_URL = /(?:https?:\/\/|www\.)[^\s<>"]+/iy;

/**
 * A bare `http(s)://` or `www.` URL at the start of a word, without its trailing punctuation. One longer
 * than {@link MAX_URL} is text; inside link text it is text too (links do not nest).
 */
function bareUrl(state: StateInline, silent: boolean): boolean {
  // Not when link text is being measured (silent): the brackets of a link come first, as in GFM.
  if (silent) return false;
  const lower = state.src.charCodeAt(state.pos) | 0x20;
  if (lower !== 0x68 && lower !== 0x77) return false;
  if (isWordChar(state.src[state.pos - 1])) return false;
  BARE_URL.lastIndex = state.pos;
  const match = BARE_URL.exec(state.src);
  if (!match) return false;
  const whole = match[0].slice(0, state.posMax - state.pos);
  const raw = whole.length > MAX_URL ? whole : trimUrl(whole);
  if (raw.length > MAX_URL || state.linkLevel > 0) state.pending += raw;
  else state.push('bare_url', '', 0).content = raw;
  state.pos += raw.length;
  return true;
}

const ANGLE_URL = /<((?:https?:\/\/|www\.)[^\s<>]+)>/iy;

/** `<https://…>` and `<www.…>` as the board links them: whole, no punctuation trimmed. */
function angleUrl(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3c) return false;
  ANGLE_URL.lastIndex = state.pos;
  const match = ANGLE_URL.exec(state.src);
  const raw = match?.[1] ?? '';
  if (!match || raw.length > MAX_URL || state.pos + match[0].length > state.posMax) return false;
  if (!silent) {
    if (state.linkLevel > 0) state.pending += raw;
    else state.push('bare_url', '', 0).content = raw;
  }
  state.pos += match[0].length;
  return true;
}

/**
 * A table's delimiter row (`| --- | :-: |`): dropped, as Discord has no tables (the rest of a table shows
 * as the lines it is). Split into cells rather than matched with one regex, whose neighbouring `\s*`
 * made a line of blanks quadratic.
 */
function isTableRule(line: string): boolean {
  const row = line.trim();
  const cells = row.split('|');
  if (row.startsWith('|')) cells.shift();
  if (row.endsWith('|')) cells.pop();
  return cells.length >= 2 && cells.every((cell) => /^:?-{3,}:?$/.test(cell.trim()));
}

function tableRule(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  if ((state.sCount[startLine] ?? 0) - state.blkIndent >= 4) return false;
  const start = (state.bMarks[startLine] ?? 0) + (state.tShift[startLine] ?? 0);
  if (!isTableRule(state.src.slice(start, state.eMarks[startLine]))) return false;
  if (silent) return true;
  state.push('table_rule', '', 0).map = [startLine, startLine + 1];
  state.line = startLine + 1;
  return true;
}

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/** Greentext: `>` opens a quote only when a blank follows it; `>text` and `>>123` are lines as typed. */
function greentext(blockquote: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    const start = (state.bMarks[startLine] ?? 0) + (state.tShift[startLine] ?? 0);
    const next = state.src.charCodeAt(start + 1);
    if (state.src.charCodeAt(start) === 0x3e && next !== 0x20 && next !== 0x09) return false;
    return blockquote(state, startLine, endLine, silent);
  };
}

/** The rules above, on a markdown-it whose own rules read the CommonMark that Philomena shares. */
export function philomenaSyntax(md: MarkdownIt): void {
  md.inline.ruler.at('text', text);
  md.inline.ruler.before('text', 'bare_url', bareUrl);
  md.inline.ruler.after('text', 'image_reference', imageReference);
  md.inline.ruler.after('strikethrough', 'spoiler', spoiler);
  md.inline.ruler.before('autolink', 'angle_url', angleUrl);
  md.inline.ruler2.after('balance_pairs', 'spoiler', spoilerPairs);
  md.inline.ruler2.before('fragments_join', 'open_end', openEnd);
  md.core.ruler.before('inline', 'open_end', markOpenEnd);
  md.block.ruler.after('code', 'table_rule', tableRule, { alt: ['paragraph'] });
  const quote = md.block.ruler.__rules__[md.block.ruler.__find__('blockquote')];
  if (!quote) throw new Error('markdown-it has no blockquote rule');
  md.block.ruler.at('blockquote', greentext(quote.fn), { alt: quote.alt });
}
