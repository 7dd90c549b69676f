/**
 * Paging of /search: one image per page (a card) or ten (a grid), the state in the custom_id (site, page,
 * total, sort, seed, owner, creation time, private, grid) and the query in the store under a short token.
 * Only the member who searched may page; a click after 15 minutes, or on a token the store has lost,
 * answers "expired".
 *
 * Results are read from the board in windows of `searchWindow` (50 by default, the board's largest page),
 * and a page is cut from its window: Previous, Next and Random inside a window find it in the response
 * cache and cost no board call, and the window's images are cached under their own ids for Show card,
 * /image and a grid's pick.
 */
import {
  ButtonStyle,
  ComponentType,
  type APIButtonComponent,
  type APIStringSelectComponent,
} from 'discord.js';
import { z } from 'zod';
import type { SortDirection, SortField } from '../../src/philomena/client-types.js';
import type { VisibleImage } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import { messageReply, type MessageBody, type Reply } from '../../src/discord/contract.js';
import type { ButtonHandler, CommandContext, SelectHandler } from '../shared/context.js';
import type { View } from '../shared/view.js';
import { buttonCodec, encodeTime, segment, siteCode, siteOfCode } from '../../src/discord/custom-id.js';
import {
  buttonRow,
  cardContext,
  cardMessage,
  filterContext,
  formOfMessage,
  showImage,
  V2_ANSWER_TEXT_MAX,
  type CardForm,
  type ControlRow,
} from '../shared/show-image.js';
import { escapeInline, GALLERY_ITEMS_MAX, imageCard, imageGrid, truncate } from '../../src/render/index.js';
import { creditsOf } from '../../src/philomena/tags.js';
import { safeSearchQuery } from '../shared/safety.js';
import { STATE_TTL_MS } from '../../src/discord/button-state.js';
import { UserFacingError } from '../../src/discord/user-error.js';

export const SORTS = ['newest', 'oldest', 'score', 'wilson', 'faves', 'random', 'relevance'] as const;
export type Sort = (typeof SORTS)[number];

/** How /search shows its results: a card per page, or a grid of ten. */
export const VIEWS = ['card', 'grid'] as const;
export type SearchView = (typeof VIEWS)[number];

/** Images on one grid page: one media gallery's worth. */
export const GRID_SIZE = GALLERY_ITEMS_MAX;

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
const pickCodec = buttonCodec<'pick', { readonly site: string }>({
  namespace: SEARCH_NS,
  schema: z.tuple([segment.siteCode]).transform(([site]) => ({ site })),
  write: ({ site }) => [site],
});

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

function navButtons(state: SearchPage): ControlRow[] {
  const button = (action: SearchAction, label: string, disabled: boolean): APIButtonComponent => ({
    type: ComponentType.Button,
    style: action === 'pub' ? ButtonStyle.Primary : ButtonStyle.Secondary,
    label,
    custom_id: encodeSearchButton(action, state),
    disabled,
  });
  const rows: ControlRow[] = [];
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

/** The grid's select: one option per image shown, its id as the value. */
function pickRow(site: Site, shown: readonly VisibleImage[]): ControlRow[] {
  if (shown.length === 0) return [];
  const select: APIStringSelectComponent = {
    type: ComponentType.StringSelect,
    custom_id: pickCodec.encode('pick', { site: siteCode(site) }),
    placeholder: 'Show one of these as a full card (only to you)',
    min_values: 1,
    max_values: 1,
    options: shown.map((image, index) => {
      const names = creditsOf(image.tags).map((credit) => credit.name);
      return {
        label: truncate(`${index + 1}. #${image.id}`, 100),
        value: String(image.id),
        // Select options show text as typed: no Markdown to escape, and no mention is parsed there.
        description: truncate(names.length > 0 ? names.join(', ') : 'artist unknown', 100),
      };
    }),
  };
  return [{ type: ComponentType.ActionRow, components: [select] }];
}

/** The part of the results one board call reads: `size` of them from `offset` (0-based). */
interface ResultWindow {
  readonly items: readonly VisibleImage[];
  readonly total: number;
  readonly offset: number;
}

/** Reads results in windows of `size`, the board's pages of that size, so a page is cut from its window. */
function windowReader(query: string, state: SearchPage, view: View, context: CommandContext) {
  const client = context.registry.client(state.site);
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
function gridPages(total: number): number {
  return Math.max(1, Math.ceil(total / GRID_SIZE));
}

/**
 * The results of page `state.page` (a card's one, or a grid's ten), clamped to what the board has now:
 * when images were removed since the buttons were made, the new last page.
 */
async function pageResults(
  read: (index: number) => Promise<ResultWindow>,
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

/**
 * Reads page `state.page` and builds its message, in the `form` of the message it replaces (a grid is
 * always Components V2). Undefined when the search has no results at all.
 */
export async function renderSearchPage(
  query: string,
  state: SearchPage,
  context: CommandContext,
  options: { readonly withButtons: boolean; readonly form?: CardForm },
): Promise<MessageBody | undefined> {
  const view = context.view.forSite(state.site);
  const client = context.registry.client(state.site);
  const [results, filter] = await Promise.all([
    pageResults(windowReader(query, state, view, context), state),
    filterContext(client, view.filterId, context.logger),
  ]);
  const { items, total, page } = results;
  const image = items[0];
  if (image === undefined) return undefined;
  const pages = state.grid ? gridPages(total) : total;
  const next: SearchPage = { ...state, page, total: pages, issuedAt: context.now() };
  const nav = options.withButtons ? navButtons(next) : [];
  if (state.grid) {
    const from = (page - 1) * GRID_SIZE + 1;
    const heading = `**Search:** ${escapeInline(truncate(query, 200))} · ${from}–${from + items.length - 1} of ${total}`;
    const layout = (rows: readonly ControlRow[]) =>
      imageGrid(items, {
        site: state.site,
        ageRestricted: view.ageRestricted,
        spoilerChannel: view.spoilerChannel,
        ...(filter === undefined ? {} : { filter }),
        heading,
        footer: `${state.site.name} · page ${page} of ${pages}`,
        rows,
        textMax: V2_ANSWER_TEXT_MAX,
      });
    // Laid out once without the picker to learn which images the rating rule and the filter let show
    // (those the list had no room for, with their sources, are still picked for their full cards).
    const laidOut = layout([]);
    const shown = [...laidOut.shown, ...laidOut.unlisted];
    const withRows = layout([...pickRow(state.site, shown), ...nav]);
    return { componentsV2: true, components: [withRows.container] };
  }
  const card = imageCard(image, cardContext(view, filter, { footerExtra: `${page} of ${total}` }));
  return cardMessage(card, state.site, image.id, {
    rows: nav,
    ...(options.form === undefined ? {} : { form: options.form }),
  });
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
        // Paging edits the message in place, which keeps its form; "Post publicly" is a new message.
        action === 'pub'
          ? { withButtons: false }
          : { withButtons: true, form: formOfMessage(interaction.message) },
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

/** A grid's picker: the chosen image's full card, to the member who chose, under this channel's rules. */
export function searchSelects(): Record<string, SelectHandler> {
  const pick: SelectHandler = {
    defer: () => 'ephemeral',
    async run(interaction, args, context) {
      const fields = pickCodec.decode(args);
      const site =
        fields === undefined
          ? undefined
          : siteOfCode(fields.site, context.sites.all, context.sites.defaultSite);
      const id = z.coerce.number().int().nonnegative().safeParse(interaction.values[0]);
      if (site === undefined || !id.success) throw new UserFacingError('That choice no longer works.');
      const view = context.view.forSite(site);
      const { fetched, card } = await showImage(context.registry.client(site), id.data, view, context.logger);
      return messageReply(cardMessage(card, site, fetched.image.id));
    },
  };
  return { [pickCodec.key('pick')]: pick };
}
