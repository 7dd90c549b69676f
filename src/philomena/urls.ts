/**
 * Every URL the bot shows is absolute https. The board sends absolute https URLs today, but old data has
 * protocol-relative (`//cdn/...`) and root-relative (`/img/...`) ones, avatars can be `data:` URIs, and
 * source URLs are whatever the uploader typed. These functions turn them into https or drop them.
 */
import type { Award, Image, Tag, User } from './schemas.js';
import type { Site } from './sites.js';
import { tagPath } from './tags.js';

function parse(url: string, base?: string | URL): URL | null {
  try {
    return new URL(url, base);
  } catch {
    return null;
  }
}

/** The base as a URL; a site's base is always http(s), but never trust that with a throw. */
function siteBase(site: Site): URL | null {
  return parse(site.baseUrl);
}

/**
 * Absolute https for `url`, or null when it cannot be one (data:, javascript:, junk, empty, credentials).
 * `//host/x` gets `https:`, `/path` resolves against the site, `http:` is upgraded. The one exception is
 * a site whose base is plain http (a local server): URLs on its own host keep http, since it has no TLS.
 */
export function httpsUrl(url: string | null | undefined, site: Site): string | null {
  if (url == null) return null;
  const input = url.trim();
  if (input === '') return null;
  const base = siteBase(site);
  let parsed: URL | null;
  if (input.startsWith('//')) parsed = parse(`https:${input}`);
  else if (input.startsWith('/')) parsed = base && parse(input, base);
  else if (/^https?:\/\//i.test(input)) parsed = parse(input);
  else return null;
  if (!parsed || parsed.hostname === '' || parsed.username !== '' || parsed.password !== '') return null;
  const localHttp = base?.protocol === 'http:' && parsed.host === base.host;
  parsed.protocol = localHttp ? 'http:' : 'https:';
  return parsed.href;
}

/**
 * A source URL as the uploader typed it, made safe to show: only http(s) URLs with a host count, without
 * userinfo (a `https://real.site@evil.test` trick), upgraded to https. Anything else is null.
 */
export function sourceLink(url: string | null | undefined): string | null {
  if (url == null) return null;
  const input = url.trim();
  if (!/^https?:\/\//i.test(input)) return null;
  const parsed = parse(input);
  if (!parsed || parsed.hostname === '' || parsed.username !== '' || parsed.password !== '') return null;
  parsed.protocol = 'https:';
  return parsed.href;
}

/** The image's page on its site. */
export function imagePageUrl(site: Site, id: number): string {
  return `${site.baseUrl}/images/${id}`;
}

/** The tag's page; takes a tag name (`artist:foo bar`) or a slug (`artist-colon-foo+bar`). */
export function tagPageUrl(site: Site, slugOrName: string): string {
  return `${site.baseUrl}/tags/${tagPath(slugOrName)}`;
}

/**
 * A source as the client hands it out: a usable http(s) URL becomes its https {@link sourceLink}; other
 * text (prose, a userinfo trick) stays as typed, except that a leading `http://` still becomes `https://`
(and a protocol-relative `//host/...` gets `https:`),
 * so no source the client returns is plain http. Show sources through {@link sourceLink}: it gives the
 * link, or null for text that must not be linked.
 */
export function httpsSource(source: string): string {
  const trimmed = source.trim();
  const link = sourceLink(trimmed.startsWith('//') ? `https:${trimmed}` : trimmed);
  return link ?? source.replace(/^(\s*)http:\/\//i, '$1https://');
}

/**
 * The image with https representations, view_url and sources. A representation that cannot be made https
 * falls back to `full` (then the view URL, then the image page), so the type keeps every key. Hidden stubs
 * have no URLs and come back unchanged.
 */
export function absolutiseImage<T extends Image>(image: T, site: Site): T {
  if (image.kind !== 'image') return image;
  const page = imagePageUrl(site, image.id);
  const rawFull = httpsUrl(image.representations.full, site);
  const view = httpsUrl(image.view_url, site) ?? rawFull ?? page;
  const full = rawFull ?? view;
  const representations: Record<string, string> = {};
  for (const [key, value] of Object.entries(image.representations)) {
    if (typeof value === 'string') representations[key] = httpsUrl(value, site) ?? full;
  }
  return {
    ...image,
    representations: { ...image.representations, ...representations, full },
    view_url: view,
    source_urls: image.source_urls.map(httpsSource),
  };
}

/** A comment's or post's avatar: https, or null for `data:` URIs (Discord cannot show them) and junk. */
export function absolutiseAvatar<T extends { readonly avatar: string | null }>(item: T, site: Site): T {
  return { ...item, avatar: httpsUrl(item.avatar, site) };
}

/** A tag with an https `spoiler_image_uri` (or null). */
export function absolutiseTag<T extends Tag>(tag: T, site: Site): T {
  return { ...tag, spoiler_image_uri: httpsUrl(tag.spoiler_image_uri, site) };
}

/** A profile with https `avatar_url` and award images (or null). */
export function absolutiseUser<T extends User>(user: T, site: Site): T {
  return {
    ...user,
    avatar_url: httpsUrl(user.avatar_url, site),
    awards: user.awards.map((award): Award => ({ ...award, image_url: httpsUrl(award.image_url, site) })),
  };
}
