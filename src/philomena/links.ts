/**
 * Recognises links to images of the given sites in chat text: image pages (`/images/N`, `/N`) and the
 * CDN file forms (`/img/Y/M/D/N/size.ext`, `/img/view/...`, `/img/download/...`), the same paths the
 * server's oEmbed accepts. It runs on every chat message, so a message without `://` costs one indexOf.
 *
 * Only the URL's own host counts, compared whole against the sites' hosts: `derpibooru.org.evil.test`,
 * `evilderpibooru.org`, `derpibooru.org@evil.test` (userinfo) and `evil.test/derpibooru.org/...` are not
 * the site. A URL inside another URL's query is part of that URL's token and is never looked at.
 */
import type { Site } from './sites.js';

export interface ImageLink {
  readonly site: Site;
  readonly imageId: number;
  /** The link as written (trailing chat punctuation removed). */
  readonly url: string;
  /** Offset of `url` in the text, so the caller can tell `<...>`-wrapped or code-block links. */
  readonly index: number;
}

interface HostEntry {
  readonly site: Site;
  /** The site's path prefix (a custom base such as `http://host/booru`), '' for the root. */
  readonly prefix: string;
  /** Site hosts serve image pages; CDN hosts only `/img/...` files. */
  readonly pages: boolean;
}

/** A URL token starts with http(s):// not glued to a preceding word, and runs to whitespace or `<>`. */
const TOKEN = /(?<![A-Za-z0-9])https?:\/\/[^\s<>]+/gi;
/** What chat puts after a link that is not part of it: sentence punctuation, closing brackets, Markdown. */
const TRAILING = new Set('.,!?;:)]}\'"*_~|');

/**
 * `url` without the trailing characters chat adds. A backwards scan: the regex `/[...]+$/` it replaces is
 * tried from every position of a token, which is quadratic on a long run of those characters mid-token.
 */
function withoutTrailing(url: string): string {
  let end = url.length;
  while (end > 0 && TRAILING.has(url.charAt(end - 1))) end -= 1;
  return url.slice(0, end);
}
const PAGE = /^\/(?:images\/)?(\d{1,16})(?:[?#/]|$)/;
const BARE_ID_END = /^\/\d+(?:[?#]|$)/;
const THUMBNAIL = /^\/img\/\d{4}\/\d{1,2}\/\d{1,2}\/(\d{1,16})\/[a-z_]+\.[a-z0-9]+(?:[?#]|$)/i;
const VIEW =
  /^\/img\/(?:view|download)\/\d{4}\/\d{1,2}\/\d{1,2}\/(\d{1,16})(?:__[^/?#]*)?\.[a-z0-9]+(?:[?#]|$)/i;

function pathPrefix(site: Site): string {
  try {
    return new URL(site.baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

function imageIdOf(path: string, pages: boolean): number | null {
  let digits: string | undefined;
  if (pages) {
    const page = PAGE.exec(path);
    // `/N` must end there (`/N/x` is not an image page); `/images/N/...` may go on (`/images/N/comments`).
    if (page && (path.startsWith('/images/') || BARE_ID_END.test(path))) digits = page[1];
  }
  if (digits === undefined && path.startsWith('/img/'))
    digits = (THUMBNAIL.exec(path) ?? VIEW.exec(path))?.[1];
  if (digits === undefined) return null;
  const id = Number(digits);
  // Image 0 is real (Derpibooru's first upload).
  return Number.isSafeInteger(id) && id >= 0 ? id : null;
}

export function createLinkRecogniser(sites: readonly Site[]): (text: string) => ImageLink[] {
  const byHost = new Map<string, HostEntry[]>();
  const add = (host: string, entry: HostEntry): void => {
    const key = host.toLowerCase();
    const list = byHost.get(key) ?? [];
    list.push(entry);
    byHost.set(key, list);
  };
  for (const site of sites) {
    const prefix = pathPrefix(site);
    for (const host of new Set([site.host, ...site.hosts])) add(host, { site, prefix, pages: true });
    for (const host of site.cdnHosts) add(host, { site, prefix: '', pages: false });
  }

  return (text: string): ImageLink[] => {
    if (byHost.size === 0 || !text.includes('://')) return [];
    const links: ImageLink[] = [];
    const seen = new Set<string>();
    for (const match of text.matchAll(TOKEN)) {
      const url = withoutTrailing(match[0]);
      const afterScheme = url.indexOf('//') + 2;
      let hostEnd = afterScheme;
      while (hostEnd < url.length && !'/?#'.includes(url.charAt(hostEnd))) hostEnd += 1;
      const entries = byHost.get(url.slice(afterScheme, hostEnd).toLowerCase());
      if (!entries) continue;
      const path = url.slice(hostEnd);
      for (const entry of entries) {
        if (entry.prefix !== '' && !path.startsWith(`${entry.prefix}/`)) continue;
        const imageId = imageIdOf(path.slice(entry.prefix.length), entry.pages);
        if (imageId === null) continue;
        const key = `${entry.site.id}\n${imageId}`;
        if (!seen.has(key)) {
          seen.add(key);
          links.push({ site: entry.site, imageId, url, index: match.index });
        }
        break;
      }
    }
    return links;
  };
}
