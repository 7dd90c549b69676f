/**
 * What /gallery reads from its options. `query:` goes to the board's gallery search, whose default field
 * is the whole title (docs/board-behaviour.md): plain words would find only a title that is exactly them,
 * so each plain word becomes `title:*word*` and a gallery matches when its title holds every word; a query
 * in the board's syntax (a field, a wildcard, an operator, quotes, parentheses) passes as typed. `id:`
 * takes a gallery's number on the view's site, or a link to a gallery on any site the bot knows.
 */
import type { Site } from '../../src/philomena/sites.js';
import type { SiteDirectory } from '../shared/site-directory.js';

/** Characters and words that make a query the board's syntax rather than plain words. */
const SYNTAX = /[:,()"*?\\^~]|&&|\|\||(?:^|\s)[-!]|\b(?:AND|OR|NOT)\b/;

/** The board's query for what a member typed (see the module comment). */
export function galleryQuery(typed: string): string {
  const text = typed.trim();
  if (text === '' || SYNTAX.test(text)) return text;
  return text
    .split(/\s+/)
    .map((word) => `title:*${word.toLowerCase()}*`)
    .join(', ');
}

export interface GalleryTarget {
  readonly site: Site;
  readonly galleryId: number;
}

/** The largest id a gallery's buttons carry back (12 digits: custom-id.ts counts). */
const MAX_GALLERY_ID = 10 ** 12 - 1;

/** A bare number (`123`, `#123`) on `viewSite`, or the first gallery link in `text`; else undefined. */
export function parseGalleryInput(
  text: string,
  sites: SiteDirectory,
  viewSite: Site,
): GalleryTarget | undefined {
  const trimmed = text.trim();
  // At most 12 digits: what a button can carry back (custom-id.ts counts); the board has far fewer galleries.
  const bare = /^#?(\d{1,12})$/.exec(trimmed);
  if (bare?.[1] !== undefined) {
    const galleryId = Number(bare[1]);
    return galleryId > 0 ? { site: viewSite, galleryId } : undefined;
  }
  const link = sites.recognisePages(trimmed).find((page) => page.kind === 'gallery');
  return link?.kind === 'gallery' && link.galleryId <= MAX_GALLERY_ID
    ? { site: link.site, galleryId: link.galleryId }
    : undefined;
}
