/**
 * Board text made safe for Discord. `boardMarkdownToDiscord` reads Philomena-flavour Markdown with
 * markdown-it (CommonMark, plus the board's additions in ./philomena-syntax.ts and old Textile in
 * ./textile.ts) and writes its tokens back with Discord syntax from ./discord-text.ts; every piece of
 * text between them goes through `escapeText`. So nothing the board typed reaches Discord as syntax, and
 * unclosed or unknown markup simply shows as the characters it is. Every link is vetted in one place
 * ({@link linkUrl}): https only, relative links resolved against the site.
 */
import MarkdownIt, { type Token } from 'markdown-it';
import type { Site } from '../philomena/sites.js';
import { httpsUrl, imagePageUrl } from '../philomena/urls.js';
import {
  bareUrl,
  escapeText,
  httpsOnlyText,
  maskedLink,
  neutraliseMentions,
  truncate,
} from './discord-text.js';
import { CUT, MAX_URL, philomenaSyntax } from './philomena-syntax.js';
import { textile } from './textile.js';

/**
 * Longer input is cut first (with "…"). No card shows more than 2,500 characters of board text (an image
 * description at most 1,800, a tag description 2,500), and rendering only shortens text where markup
 * renders to nothing (HTML tags, entities), so 4,000 characters fill any card. It also bounds the work a
 * hostile description can cause on every view (any uploader writes one; every member who sees it pays).
 */
export const MAX_INPUT = 4_000;

/**
 * CommonMark as Philomena has it. HTML is recognised only to be dropped (the board omits raw HTML; `<br>`
 * is a line break); tables (Discord has none) and the typographer are off; markdown-it's own linkify is
 * off, bare URLs follow the board's rule instead. Every URL is kept as written and vetted when written
 * out, so a link the parser accepts is never shown as its raw syntax.
 */
const parser = new MarkdownIt('default', { html: true, linkify: false, typographer: false, maxNesting: 20 })
  .disable(['table', 'html_block', 'linkify', 'replacements', 'smartquotes'])
  .use(philomenaSyntax)
  .use(textile);
parser.validateLink = () => true;
parser.normalizeLink = (url) => url;
parser.normalizeLinkText = (text) => text;

/** The https URL a link of the board may point at, or null when it may not be a link. */
function linkUrl(href: string, site: Site): string | null {
  if (href.length > MAX_URL) return null;
  return httpsUrl(/^www\./i.test(href) ? `https://${href}` : href, site);
}

/** Text that looks like a URL or a domain; as link text it could disguise where the link goes. */
function looksLikeUrl(text: string): boolean {
  return /[a-z][a-z0-9+.-]*:\/\/|www\.|\b[a-z0-9-]+\.[a-z]{2,}\b/i.test(text);
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

/** Plain inline code; backticks inside become a look-alike so the span cannot be closed early. */
function inlineCode(content: string): string {
  const body = neutraliseMentions(content.replaceAll('`', 'ˋ'));
  return body.trim() === '' ? '' : `\`${body}\``;
}

function codeBlock(content: string): string {
  const body = neutraliseMentions(content.replace(/\n$/, '').replaceAll('```', 'ˋˋˋ'));
  return `\`\`\`\n${body}\n\`\`\``;
}

/** The text of inline tokens without their markup (an image's alt text). */
function plainText(tokens: readonly Token[] | null): string {
  let text = '';
  for (const token of tokens ?? []) {
    if (token.type === 'image') text += plainText(token.children);
    else if (token.type === 'softbreak' || token.type === 'hardbreak') text += ' ';
    else text += token.content;
  }
  return text;
}

/** Discord's marker for each kind of inline formatting. */
function markerOf(token: Token): string {
  if (token.type.startsWith('strong')) return token.markup === '__' ? '__' : '**';
  if (token.type.startsWith('em')) return '*';
  if (token.type.startsWith('s_')) return '~~';
  return '||';
}

/**
 * Inline tokens as Discord Markdown. Formatting of a kind nested inside the same kind shows only the
 * outer markers (Discord would read the inner ones as closing the outer), formatting around nothing is
 * left out, and links do not nest. `outer` is formatting the caller wraps the result in.
 */
function renderInline(tokens: readonly Token[], site: Site, lineStart: boolean, outer = ''): string {
  const out: string[] = [];
  let text = '';
  let atLineStart = lineStart;
  /** Pieces with something to see so far: formatting around none of them is dropped. */
  let shown = 0;
  const depth = new Map<string, number>(outer === '' ? [] : [[outer, 1]]);
  const opened: { readonly marker: string; readonly at: number; readonly shown: number }[] = [];
  let link: { readonly at: number; readonly href: string; plain: string } | null = null;
  let linkDepth = 0;

  const flush = (): void => {
    if (text === '') return;
    out.push(escapeText(text, atLineStart));
    if (text.trim() !== '') shown += 1;
    atLineStart = text.endsWith('\n');
    text = '';
  };
  const put = (piece: string): void => {
    flush();
    out.push(piece);
    if (piece.trim() !== '') shown += 1;
    atLineStart = false;
  };
  const lineBreak = (): void => {
    flush();
    out.push('\n');
    atLineStart = true;
    if (link) link.plain += '\n';
  };

  for (const token of tokens) {
    switch (token.type) {
      case 'text':
        text += token.content;
        if (link) link.plain += token.content;
        break;
      case 'html_inline':
        if (/^<br\s*\/?>$/i.test(token.content)) lineBreak();
        break;
      case 'softbreak':
      case 'hardbreak':
        lineBreak();
        break;
      case 'code_inline':
        put(inlineCode(token.content));
        if (link) link.plain += token.content;
        break;
      case 'em_open':
      case 'strong_open':
      case 's_open':
      case 'spoiler_open': {
        const marker = markerOf(token);
        const level = (depth.get(marker) ?? 0) + 1;
        depth.set(marker, level);
        if (level > 1) break;
        flush();
        opened.push({ marker, at: out.length, shown });
        out.push(marker);
        atLineStart = false;
        break;
      }
      case 'em_close':
      case 'strong_close':
      case 's_close':
      case 'spoiler_close': {
        const marker = markerOf(token);
        const level = (depth.get(marker) ?? 0) - 1;
        depth.set(marker, level);
        if (level > 0) break;
        flush();
        const open = opened.pop();
        if (open && open.shown === shown) out[open.at] = '';
        else out.push(marker);
        break;
      }
      case 'link_open':
        linkDepth += 1;
        if (linkDepth > 1) break;
        flush();
        link = { at: out.length, href: token.attrGet('href')?.toString() ?? '', plain: '' };
        break;
      case 'link_close': {
        linkDepth -= 1;
        if (linkDepth > 0 || !link) break;
        flush();
        const label = out.splice(link.at).join('');
        const { href, plain } = link;
        link = null;
        put(renderLink(label, plain, linkUrl(href, site)));
        break;
      }
      case 'image': {
        const alt = plainText(token.children).trim();
        const label = alt === '' ? 'image' : `image: ${alt}`;
        const url = linkUrl(token.attrGet('src')?.toString() ?? '', site);
        if (link) {
          link.plain += label;
          put(escapeText(label, false));
        } else
          put(
            url === null ? escapeText(`[${label}]`, false) : renderLink(escapeText(label, false), label, url),
          );
        break;
      }
      case 'image_reference': {
        const label = escapeText(token.content, false);
        const id = Number(token.meta?.['id']);
        if (link) link.plain += token.content;
        put(link ? label : maskedLink(label, imagePageUrl(site, id)));
        break;
      }
      case 'bare_url': {
        const url = linkUrl(token.content, site);
        put(url === null ? escapeText(token.content, false) : bareUrl(url));
        break;
      }
      default:
        break;
    }
  }
  flush();
  const body = out.join('');
  return outer === '' || body.trim() === '' ? body : `${outer}${body}${outer}`;
}

interface ListItem {
  readonly marker: string;
  first: boolean;
}

/**
 * Block tokens as Discord Markdown. Quotes are flattened (Discord's do not nest), lists keep their
 * markers, indented at most two levels; headings become bold lines and rules a line of `─`. Blocks keep
 * the line layout of the source: one line break between blocks that followed each other, one blank
 * line where the source had blank lines.
 */
function renderBlocks(tokens: readonly Token[], site: Site): string {
  const out: string[] = [];
  const items: ListItem[] = [];
  let quotes = 0;
  let lastLine = -1;
  let heading = false;

  const emit = (rendered: string, map: readonly [number, number] | null): void => {
    const [start, end] = map ?? [lastLine, lastLine];
    if (rendered.trim() !== '') {
      if (out.length > 0) out.push(start > lastLine ? '\n\n' : '\n');
      const item = items.at(-1);
      const indent = '  '.repeat(Math.min(Math.max(items.length - 1, 0), 2));
      const lines = rendered.split('\n').map((line, n) => {
        let prefix = quotes > 0 ? '> ' : '';
        if (item) prefix += indent + (n === 0 && item.first ? item.marker : ' '.repeat(item.marker.length));
        return `${prefix}${line}`;
      });
      for (const each of items) each.first = false;
      out.push(lines.join('\n'));
    }
    lastLine = Math.max(lastLine, end);
  };

  for (const token of tokens) {
    switch (token.type) {
      case 'blockquote_open':
        quotes += 1;
        break;
      case 'blockquote_close':
        quotes -= 1;
        break;
      case 'list_item_open':
        items.push({ marker: token.info === '' ? '- ' : `${token.info}. `, first: true });
        break;
      case 'list_item_close':
        items.pop();
        break;
      case 'heading_open':
        heading = true;
        break;
      case 'heading_close':
        heading = false;
        break;
      case 'inline':
        emit(renderInline(token.children ?? [], site, !heading, heading ? '**' : ''), token.map);
        break;
      case 'fence':
      case 'code_block':
        emit(codeBlock(token.content), token.map);
        break;
      case 'hr':
        emit('───', token.map);
        break;
      case 'table_rule':
        emit('', token.map);
        break;
      default:
        break;
    }
  }
  return out.join('');
}

/**
 * Philomena-flavour Markdown (and Textile leftovers) as Discord Markdown: `>>123` image references and
 * relative links become absolute links on the site, http links become https, images become links,
 * bold/italic/underline/strike/spoilers/quotes/lists/code stay, HTML is dropped, every other character
 * is escaped and every mention neutralised. Line ends may be `\r\n`.
 */
export function boardMarkdownToDiscord(text: string, site: Site): string {
  const tokens = parser.parse(truncate(text, MAX_INPUT), { [CUT]: text.length > MAX_INPUT });
  // Pieces written apart could meet as a mention (`<` then a dropped empty `*<b></b>*`, then `@1>`).
  const rendered = neutraliseMentions(renderBlocks(tokens, site));
  return httpsOnlyText(rendered.replace(/\n{3,}/g, '\n\n').trim(), site);
}
