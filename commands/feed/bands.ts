/**
 * One feed group's searches, served to every feed from its own cursor.
 *
 * Feeds that share a search (same site, query as sent and filter) usually share a cursor too: they post the
 * same images and move together. But a feed resumed after a pause, or one whose posts failed for a while,
 * lags behind; one page from the group's lowest cursor would then hold only images the others posted long
 * ago, and they would lose their new ones. So cursors are served in bands: a search from the lowest cursor
 * not yet served answers that cursor and every higher one whose share of the page is whole (the page is the
 * last one, or it holds at least as many images above that cursor as a feed may post in a round); the next
 * search starts from the first cursor it could not answer. Up-to-date feeds cost one search together, and
 * each band far behind costs one more, at most `maxSearches` a round (the rest wait for the next round).
 */
import type { VisibleImage } from '../../src/philomena/schemas.js';

/** What one search from `id.gt:<above>`, sorted by id ascending, gave. */
export interface BandPage {
  readonly items: readonly VisibleImage[];
  /** Every match above the cursor, on this page and beyond it. */
  readonly total: number;
}

/** What a feed at `cursor` sees: the images above its cursor that a page held, and how many there are. */
export interface Band {
  readonly cursor: number;
  /** Ascending by id, all above `cursor`. */
  readonly images: readonly VisibleImage[];
  /** Matches above `cursor` in all, these included. */
  readonly total: number;
}

/**
 * Searches for `cursors` (any order, repeats fine) with `search(above)`, at most `maxSearches` times.
 * `need` is what one feed may post in a round: a band is whole when it holds that many images (or all
 * there are). Cursors beyond the searches allowed are absent from the result. Rejects with the first
 * search's failure; a later search's failure leaves its cursors out.
 */
export async function searchBands(
  cursors: readonly number[],
  need: number,
  maxSearches: number,
  search: (above: number) => Promise<BandPage>,
): Promise<Map<number, Band>> {
  const sorted = [...new Set(cursors)].sort((a, b) => a - b);
  const bands = new Map<number, Band>();
  let next = 0;
  let searches = 0;
  while (next < sorted.length && searches < maxSearches) {
    const from = sorted[next];
    if (from === undefined) break;
    let page: BandPage;
    try {
      page = await search(from);
    } catch (error) {
      if (searches === 0) throw error;
      break;
    }
    searches += 1;
    const last = page.total <= page.items.length;
    while (next < sorted.length) {
      const cursor = sorted[next];
      if (cursor === undefined) break;
      const images = page.items.filter((image) => image.id > cursor);
      // The page holds every image from `from` up: those at or below `cursor` are behind this feed.
      const total = Math.max(images.length, page.total - (page.items.length - images.length));
      // The search's own cursor is always served (its page is the first images above it, however few a
      // page held); a higher one only when its share of the page is whole.
      if (cursor !== from && !last && images.length < Math.min(need, total)) break;
      bands.set(cursor, { cursor, images, total });
      next += 1;
    }
  }
  return bands;
}
