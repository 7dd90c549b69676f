/**
 * Paging of /search: one image per page, the state in the custom_id (site, page, total, sort, seed, owner,
 * creation time, private) and the query in the store under a short token. Only the member who searched
 * may page; a click after 15 minutes, or on a token the store has lost, answers "expired".
 */
import { ButtonStyle, ComponentType, type APIButtonComponent } from 'discord.js';
import { z } from 'zod';
import type { SortDirection, SortField } from '../../src/philomena/client-types.js';
import type { Site } from '../../src/philomena/sites.js';
import { messageReply, type Reply } from '../../src/discord/contract.js';
import type { ButtonHandler, CommandContext } from '../shared/context.js';
import type { View } from '../shared/view.js';
import { buttonCodec, encodeTime, segment, siteCode, siteOfCode } from '../../src/discord/custom-id.js';
import { buttonRow, cardContext, cardMessage, filterContext, type ActionRow } from '../shared/show-image.js';
import { imageCard } from '../../src/render/index.js';
import { safeSearchQuery } from '../shared/safety.js';
import { STATE_TTL_MS } from '../../src/discord/button-state.js';
import { UserFacingError } from '../../src/discord/user-error.js';

export const SORTS = ['newest', 'oldest', 'score', 'wilson', 'faves', 'random', 'relevance'] as const;
export type Sort = (typeof SORTS)[number];

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

export const SEARCH_NS = 'srch';
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
  readonly page: number;
  readonly total: number;
  readonly sort: Sort;
  readonly seed: number;
  readonly owner: string;
  /** When the buttons were made, ms. */
  readonly issuedAt: number;
  readonly private: boolean;
}

/** A search button's fields as its custom_id holds them: everything but the query (in the store). */
const searchButton = buttonCodec<SearchAction, SearchButtonFields>({
  namespace: SEARCH_NS,
  schema: z
    .tuple([
      segment.siteCode,
      segment.token,
      segment.count,
      segment.count,
      z.enum(SORTS.map((sort) => SORT_CODES[sort]) as [string, ...string[]]),
      segment.base36,
      segment.snowflake,
      segment.time,
      segment.flag,
    ])
    .transform(([site, token, page, total, sortCode, seed, owner, issuedAt, isPrivate]) => ({
      site,
      token,
      page,
      total,
      sort: SORTS.find((sort) => SORT_CODES[sort] === sortCode) ?? 'newest',
      seed,
      owner,
      issuedAt,
      private: isPrivate,
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
  ],
});

/** The custom_id fields of a page: its site as a code. */
type SearchButtonFields = Omit<SearchPage, 'site'> & { readonly site: string };

export function encodeSearchButton(action: SearchAction, state: SearchPage): string {
  return searchButton.encode(action, { ...state, site: siteCode(state.site) });
}

/** Undefined when the id is not one of ours or is damaged. */
export function decodeSearchButton(
  args: readonly string[],
  sites: readonly Site[],
  configured: Site,
): SearchPage | undefined {
  const fields = searchButton.decode(args);
  const site = fields === undefined ? undefined : siteOfCode(fields.site, sites, configured);
  return fields === undefined || site === undefined ? undefined : { ...fields, site };
}

/** The query the board gets: outside age-restricted channels only `safe` images are searched. */
export function boardQuery(query: string, view: View): string {
  return safeSearchQuery(query, view.ageRestricted);
}

function navButtons(state: SearchPage): ActionRow[] {
  const button = (action: SearchAction, label: string, disabled: boolean): APIButtonComponent => ({
    type: ComponentType.Button,
    style: action === 'pub' ? ButtonStyle.Primary : ButtonStyle.Secondary,
    label,
    custom_id: encodeSearchButton(action, state),
    disabled,
  });
  const rows: ActionRow[] = [];
  if (state.total > 1) {
    rows.push(
      buttonRow([
        button('prev', 'Previous', state.page <= 1),
        button('next', 'Next', state.page >= state.total),
        button('rand', 'Random', false),
      ]),
    );
  }
  if (state.private) rows.push(buttonRow([button('pub', 'Post publicly', false)]));
  return rows;
}

/**
 * Fetches page `state.page` (clamped to what the board has now) and builds its message. Returns undefined
 * when the search has no results at all.
 */
export async function renderSearchPage(
  query: string,
  state: SearchPage,
  context: CommandContext,
  options: { readonly withButtons: boolean },
) {
  const view = context.view.forSite(state.site);
  const client = context.registry.client(state.site);
  const search = (page: number) =>
    client.searchImages({
      q: boardQuery(query, view),
      ...sortParams(state.sort, state.seed),
      page,
      perPage: 1,
      ...(view.filterId === undefined ? {} : { filterId: view.filterId }),
    });
  const [first, filter] = await Promise.all([
    search(state.page),
    filterContext(client, view.filterId, context.logger),
  ]);
  let result = first;
  let page = state.page;
  if (result.items.length === 0 && result.total > 0) {
    // Images were removed since the buttons were made: show the new last page.
    page = Math.min(page, result.total);
    result = await search(page);
  }
  const image = result.items[0];
  if (image === undefined) return undefined;
  const next: SearchPage = { ...state, page, total: result.total, issuedAt: context.now() };
  const card = imageCard(image, cardContext(view, filter, { footerExtra: `${page} of ${result.total}` }));
  return cardMessage(card, state.site, image.id, { rows: options.withButtons ? navButtons(next) : [] });
}

export function noResultsText(view: View): string {
  return view.ageRestricted
    ? 'No images matched that search.'
    : 'No images matched that search. Outside age-restricted channels only images rated safe are searched.';
}

const EXPIRED = 'These search results have expired. Run /search again.';

function targetPage(action: SearchAction, state: SearchPage, random: () => number): number {
  switch (action) {
    case 'prev':
      return Math.max(1, state.page - 1);
    case 'next':
      return Math.min(state.total, state.page + 1);
    case 'rand': {
      if (state.total <= 1) return 1;
      // Another page than the current one, uniformly.
      const pick = 1 + Math.floor(random() * (state.total - 1));
      return pick >= state.page ? pick + 1 : pick;
    }
    case 'pub':
      return state.page;
  }
}

export function searchButtons(random: () => number = Math.random): Record<string, ButtonHandler> {
  const handler = (action: SearchAction): ButtonHandler => ({
    defer(interaction, args) {
      if (searchButton.decode(args)?.owner !== interaction.user.id) return 'ephemeral';
      return action === 'pub' ? 'public' : 'update';
    },
    async run(interaction, args, context) {
      const state = decodeSearchButton(args, context.sites.all, context.sites.defaultSite);
      if (state !== undefined && state.owner !== interaction.user.id) {
        throw new UserFacingError('Only the person who searched can page through these results.');
      }
      // The dead buttons come off the message (a "Post publicly" click has its own new reply instead),
      // and the clicker alone is told why.
      const dead = (text: string): Reply =>
        action === 'pub' ? { kind: 'private', text } : { kind: 'expired', text };
      const expired = (): Reply => dead(EXPIRED);
      if (state === undefined || context.now() - state.issuedAt > STATE_TTL_MS) return expired();
      const stored = await context.state.get(SEARCH_STATE_KIND, state.token, searchStateSchema);
      if (stored === undefined) return expired();
      if (stored.owner !== interaction.user.id) {
        throw new UserFacingError('Only the person who searched can page through these results.');
      }
      const page = targetPage(action, state, random);
      const message = await renderSearchPage(
        stored.query,
        { ...state, page, ...(action === 'pub' ? { private: false } : {}) },
        context,
        { withButtons: action !== 'pub' },
      );
      if (message === undefined) return dead('No images match that search any more.');
      return messageReply(message);
    },
  });
  return {
    [searchButton.key('prev')]: handler('prev'),
    [searchButton.key('next')]: handler('next'),
    [searchButton.key('rand')]: handler('rand'),
    [searchButton.key('pub')]: handler('pub'),
  };
}
