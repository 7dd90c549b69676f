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

type HostMap = ReadonlyMap<string, readonly HostEntry[]>;

function hostMap(sites: readonly Site[]): HostMap {
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
  return byHost;
}

/**
 * Every URL token of `text` on one of the sites, with its path below the site's prefix, in order; `take`
 * returns true to stop at the first of a token's sites that claims it.
 */
function scan(
  text: string,
  byHost: HostMap,
  take: (entry: HostEntry, path: string, url: string, index: number) => boolean,
): void {
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
      if (take(entry, path.slice(entry.prefix.length), url, match.index)) break;
    }
  }
}

export function createLinkRecogniser(sites: readonly Site[]): (text: string) => ImageLink[] {
  const byHost = hostMap(sites);
  return (text: string): ImageLink[] => {
    if (byHost.size === 0 || !text.includes('://')) return [];
    const links: ImageLink[] = [];
    const seen = new Set<string>();
    scan(text, byHost, (entry, path, url, index) => {
      const imageId = imageIdOf(path, entry.pages);
      if (imageId === null) return false;
      const key = `${entry.site.id}\n${imageId}`;
      if (!seen.has(key)) {
        seen.add(key);
        links.push({ site: entry.site, imageId, url, index });
      }
      return true;
    });
    return links;
  };
}

/**
 * A link to a board page that is not an image: a tag page, a search, a comment, a forum topic or post, a
 * gallery, a profile.
 */
export type PageLink =
  | {
      readonly kind: 'gallery';
      readonly site: Site;
      readonly galleryId: number;
      readonly url: string;
      readonly index: number;
    }
  | {
      readonly kind: 'profile';
      readonly site: Site;
      /** The profile's slug as the URL has it, decoded. */
      readonly slug: string;
      readonly url: string;
      readonly index: number;
    }
  | {
      readonly kind: 'comment';
      readonly site: Site;
      readonly imageId: number;
      readonly commentId: number;
      readonly url: string;
      readonly index: number;
    }
  | {
      readonly kind: 'topic';
      readonly site: Site;
      readonly forum: string;
      readonly topic: string;
      /** The post linked to (`?post_id=N` or `#post_N`), if any. */
      readonly postId: number | undefined;
      readonly url: string;
      readonly index: number;
    }
  | {
      readonly kind: 'tag';
      readonly site: Site;
      /** The tag's slug as the URL has it, decoded (`artist-colon-foo`). */
      readonly slug: string;
      readonly url: string;
      readonly index: number;
    }
  | {
      readonly kind: 'search';
      readonly site: Site;
      /** The search's `q`, as the board reads it. */
      readonly query: string;
      readonly url: string;
      readonly index: number;
    };

const TAG_PAGE = /^\/tags\/([^/?#]{1,300})\/?(?:[?#]|$)/;
const COMMENT = /^\/(?:images\/)?(\d{1,16})(?:\/comments\/(\d{1,16})|[^#]*#comment_(\d{1,16}))(?:[/?#]|$)/;
const GALLERY = /^\/galleries\/(\d{1,16})\/?(?:[?#]|$)/;
const PROFILE = /^\/profiles\/([^/?#]{1,100})\/?(?:[?#]|$)/;
const TOPIC = /^\/forums\/([a-z0-9_-]{1,64})\/topics\/([^/?#]{1,200})\/?(?:[?#]|$)/i;
const POST_ID = /[?&]post_id=(\d{1,16})|#post_(\d{1,16})/;
const SEARCH_PAGE = /^\/search\/?\?/;
/** Longer queries are not a chat link anyone means: left alone. */
const QUERY_MAX = 1_000;

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function pageKey(link: PageLink): string {
  switch (link.kind) {
    case 'tag':
      return link.slug;
    case 'search':
      return link.query;
    case 'comment':
      return String(link.commentId);
    case 'topic':
      return `${link.forum}/${link.topic}#${link.postId ?? ''}`;
    case 'gallery':
      return String(link.galleryId);
    case 'profile':
      return link.slug;
  }
}

/**
 * Recognises links to tag pages (`/tags/<slug>`), searches (`/search?q=...`), comments
 * (`/images/N#comment_M`, `/images/N/comments/M`) and forum topics and posts
 * (`/forums/F/topics/T[?post_id=N]`), galleries (`/galleries/N`) and profiles (`/profiles/<slug>`) of the
 * sites, in order, each once. Image links are
 * `createLinkRecogniser`'s (a comment link is one too: the unfurler keeps the comment). Only the site hosts
 * count (not CDN hosts).
 */
export function createPageLinkRecogniser(sites: readonly Site[]): (text: string) => PageLink[] {
  const byHost = hostMap(sites);
  return (text: string): PageLink[] => {
    if (byHost.size === 0 || !text.includes('://')) return [];
    const links: PageLink[] = [];
    const seen = new Set<string>();
    scan(text, byHost, (entry, path, url, index) => {
      if (!entry.pages) return false;
      const tag = TAG_PAGE.exec(path);
      const comment = COMMENT.exec(path);
      const topic = TOPIC.exec(path);
      const gallery = GALLERY.exec(path);
      const profile = PROFILE.exec(path);
      let link: PageLink | undefined;
      if (gallery) {
        const galleryId = Number(gallery[1]);
        if (Number.isSafeInteger(galleryId))
          link = { kind: 'gallery', site: entry.site, galleryId, url, index };
      } else if (profile) {
        const slug = decoded(profile[1] ?? '')?.trim();
        if (slug) link = { kind: 'profile', site: entry.site, slug, url, index };
      } else if (comment) {
        const imageId = Number(comment[1]);
        const commentId = Number(comment[2] ?? comment[3]);
        if (Number.isSafeInteger(imageId) && Number.isSafeInteger(commentId)) {
          link = { kind: 'comment', site: entry.site, imageId, commentId, url, index };
        }
      } else if (topic) {
        const slug = decoded(topic[2] ?? '')?.trim();
        const post = POST_ID.exec(path);
        const postId = post === null ? undefined : Number(post[1] ?? post[2]);
        if (slug) {
          link = {
            kind: 'topic',
            site: entry.site,
            forum: (topic[1] ?? '').toLowerCase(),
            topic: slug,
            postId: postId !== undefined && Number.isSafeInteger(postId) ? postId : undefined,
            url,
            index,
          };
        }
      } else if (tag) {
        const slug = decoded(tag[1] ?? '')?.trim();
        if (slug) link = { kind: 'tag', site: entry.site, slug, url, index };
      } else if (SEARCH_PAGE.test(path)) {
        const search = path.slice(path.indexOf('?') + 1).split('#')[0] ?? '';
        const q = new URLSearchParams(search).get('q')?.trim();
        if (q && q.length <= QUERY_MAX) link = { kind: 'search', site: entry.site, query: q, url, index };
      }
      if (link === undefined) return false;
      const key = `${entry.site.id}\n${link.kind}\n${pageKey(link)}`;
      if (!seen.has(key)) {
        seen.add(key);
        links.push(link);
      }
      return true;
    });
    return links;
  };
}
