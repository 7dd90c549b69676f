/**
 * Philomena's own image references in chat: `>>123`, and `>>123t` / `>>123s` / `>>123p` (the thumbnail,
 * small and preview forms), on the server's site. The board's own rule: not after a letter or digit
 * (`a>>1` is text) nor followed by one, and not inside a longer `>>>` run (Discord's block quote).
 */
import type { ImageLink } from '../../src/philomena/links.js';
import type { Site } from '../../src/philomena/sites.js';

const REFERENCE = /(?<![\p{L}\p{N}>])>>(\d{1,12})[tsp]?(?![\p{L}\p{N}])/gu;

/** The references of `text` (already masked: code, `<...>` and spoilers blanked) as links on `site`. */
export function imageReferences(text: string, site: Site): ImageLink[] {
  if (!text.includes('>>')) return [];
  const links: ImageLink[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    const imageId = Number(match[1]);
    if (!Number.isSafeInteger(imageId)) continue;
    links.push({ site, imageId, url: match[0], index: match.index });
  }
  return links;
}

/** `links` and `references` in the order they were written, each image once. */
export function mergeLinks(links: readonly ImageLink[], references: readonly ImageLink[]): ImageLink[] {
  const seen = new Set<string>();
  return [...links, ...references]
    .sort((a, b) => a.index - b.index)
    .filter((link) => {
      const key = `${link.site.id}:${link.imageId}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
