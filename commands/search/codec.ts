/**
 * What a /search message's components carry: the sorts (their names, their one-letter custom_id codes, and
 * what the board is asked for), the search state kept in the store under a short token, and the two codecs,
 * the paging buttons' and the grid picker's.
 *
 * Buttons already posted keep working only while their custom_ids decode the same: never change a codec's
 * namespace, fields or their order, nor a sort's code (test/discord/custom-id.test.ts).
 */
import { z } from 'zod';
import type { SortDirection, SortField } from '../../src/philomena/client/types.js';
import type { Site } from '../../src/philomena/sites.js';
import { buttonCodec, encodeTime, segment, siteCode } from '../../src/discord/custom-id.js';

export const SORTS = ['newest', 'oldest', 'score', 'wilson', 'faves', 'random', 'relevance'] as const;
export type Sort = (typeof SORTS)[number];

/** How /search shows its results: a card per page, or a grid of ten. */
export const VIEWS = ['card', 'grid'] as const;

const SORT_CODES: Readonly<Record<Sort, string>> = {
  newest: 'n',
  oldest: 'o',
  score: 's',
  wilson: 'w',
  faves: 'f',
  random: 'r',
  relevance: 'v',
};

export function sortParams(sort: Sort, seed: number): { sf: SortField; sd: SortDirection } {
  switch (sort) {
    case 'newest':
      return { sf: 'first_seen_at', sd: 'desc' };
    case 'oldest':
      return { sf: 'first_seen_at', sd: 'asc' };
    case 'score':
      return { sf: 'score', sd: 'desc' };
    case 'wilson':
      return { sf: 'wilson_score', sd: 'desc' };
    case 'faves':
      return { sf: 'faves', sd: 'desc' };
    case 'random':
      // One seed per search, so that page n stays the same image while paging.
      return { sf: `random:${seed}`, sd: 'desc' };
    case 'relevance':
      return { sf: '_score', sd: 'desc' };
  }
}

const SEARCH_NS = 'srch';
export const SEARCH_STATE_KIND = 'search';
/**
 * What a search token stands for. The owner is kept with it (not only in the custom_id, which a client
 * writes): every click is checked against both.
 */
export const searchStateSchema = z.object({ query: z.string().min(1), owner: z.string().min(1) });

export type SearchAction = 'prev' | 'next' | 'rand' | 'pub';

export interface SearchPage {
  readonly site: Site;
  readonly token: string;
  /** The card's result number, or the grid's page number (from 1). */
  readonly page: number;
  /** Results (card), or grid pages (grid). */
  readonly total: number;
  readonly sort: Sort;
  readonly seed: number;
  readonly owner: string;
  /** When the buttons were made, ms. */
  readonly issuedAt: number;
  readonly private: boolean;
  /** Ten results a page in one gallery, instead of one card. */
  readonly grid: boolean;
}

/** A search button's fields as its custom_id holds them: everything but the query (in the store). */
export const searchButton = buttonCodec<SearchAction, SearchButtonFields>({
  namespace: SEARCH_NS,
  schema: z
    .tuple([
      segment.siteCode,
      segment.token,
      segment.count,
      segment.count,
      z.enum(SORTS.map((sort) => SORT_CODES[sort])),
      segment.base36,
      segment.snowflake,
      segment.time,
      segment.flag,
    ])
    .rest(segment.flag)
    .transform(([site, token, page, total, sortCode, seed, owner, issuedAt, isPrivate, grid]) => ({
      site,
      token,
      page,
      total,
      sort: SORTS.find((sort) => SORT_CODES[sort] === sortCode) ?? 'newest',
      seed,
      owner,
      issuedAt,
      private: isPrivate,
      // Buttons made before the grid existed have no tenth segment: they page cards.
      grid: grid === true,
    })),
  write: (state) => [
    state.site,
    state.token,
    state.page,
    state.total,
    SORT_CODES[state.sort],
    state.seed.toString(36),
    state.owner,
    encodeTime(state.issuedAt),
    state.private ? 1 : 0,
    state.grid ? 1 : 0,
  ],
});

/** The custom_id fields of a page: its site as a code. */
type SearchButtonFields = Omit<SearchPage, 'site'> & { readonly site: string };

/** A grid's item picker: anyone may pick, and sees that image's card privately. */
export const pickCodec = buttonCodec<'pick', { readonly site: string }>({
  namespace: SEARCH_NS,
  schema: z.tuple([segment.siteCode]).transform(([site]) => ({ site })),
  write: ({ site }) => [site],
});

export function encodeSearchButton(action: SearchAction, state: SearchPage): string {
  return searchButton.encode(action, { ...state, site: siteCode(state.site) });
}
