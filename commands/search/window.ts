/**
 * Reading a /search page from the board. Results are read in windows of `searchWindow` (50 by default, the
 * board's largest page), and a page is cut from its window: Previous, Next and Random inside a window find
 * it in the response cache and cost no board call, and the window's images are cached under their own ids
 * for Show card, /image and a grid's pick.
 */
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { VisibleImage } from '../../src/philomena/schemas.js';
import { GALLERY_ITEMS_MAX } from '../../src/render/index.js';
import type { CommandContext } from '../shared/context.js';
import { boardQuery as queryFor } from '../shared/safety.js';
import type { View } from '../shared/view.js';
import { sortParams, type SearchPage } from './codec.js';

/** Images on one grid page: one media gallery's worth. */
export const GRID_SIZE = GALLERY_ITEMS_MAX;

/**
 * The query the board gets: outside age-restricted channels only `safe` images are searched, and the
 * community's hidden tags are left out (commands/shared/safety.ts).
 */
function boardQuery(query: string, view: View): string {
  return queryFor(query, view);
}

/** The part of the results one board call reads: `size` of them from `offset` (0-based). */
interface ResultWindow {
  readonly items: readonly VisibleImage[];
  readonly total: number;
  readonly offset: number;
}

/** Reads the window that holds result `index` (0-based). */
type WindowRead = (index: number) => Promise<ResultWindow>;

/**
 * Reads results in windows of `size`, the board's pages of that size, so a page is cut from its window,
 * through `client` (the site's shared one, or the member's for a `my:` search: member-search.ts).
 */
export function windowReader(
  query: string,
  state: SearchPage,
  view: View,
  context: CommandContext,
  client: PhilomenaClient,
): WindowRead {
  const configured = Math.min(Math.max(1, context.searchWindow), 50);
  // A grid page must sit inside one window: a grid reads whole multiples of its ten.
  const size = state.grid ? Math.max(GRID_SIZE, configured - (configured % GRID_SIZE)) : configured;
  return async (index: number): Promise<ResultWindow> => {
    const number = Math.floor(index / size) + 1;
    const result = await client.searchImages({
      q: boardQuery(query, view),
      ...sortParams(state.sort, state.seed),
      page: number,
      perPage: size,
      ...(view.filterId === undefined ? {} : { filterId: view.filterId }),
    });
    return { items: result.items, total: result.total, offset: (number - 1) * size };
  };
}

/** How many grid pages `total` results make. */
export function gridPages(total: number): number {
  return Math.max(1, Math.ceil(total / GRID_SIZE));
}

/**
 * The results of page `state.page` (a card's one, or a grid's ten), clamped to what the board has now:
 * when images were removed since the buttons were made, the new last page.
 */
export async function pageResults(
  read: WindowRead,
  state: SearchPage,
): Promise<{ items: readonly VisibleImage[]; total: number; page: number }> {
  const per = state.grid ? GRID_SIZE : 1;
  const cut = (window: ResultWindow, page: number) => {
    const from = (page - 1) * per - window.offset;
    return window.items.slice(Math.max(0, from), Math.max(0, from + per));
  };
  const first = (state.page - 1) * per;
  let window = await read(first);
  let page = state.page;
  let items = cut(window, page);
  if (items.length === 0 && window.total > 0) {
    page = Math.max(1, Math.min(page, Math.ceil(window.total / per)));
    window = await read((page - 1) * per);
    items = cut(window, page);
  }
  return { items, total: window.total, page };
}
