/**
 * Paging through an image search, by card or by grid, for every command that browses one (`/search`, and
 * `/gallery` over a gallery's images). Results are read in windows of `searchWindow` (50 by default, the
 * board's largest page) and a page is cut from its window: Previous, Next and Random inside a window find
 * it in the response cache and cost no board call, and the window's images are cached under their own ids
 * for Show card, /image and a grid's pick. A command owns its custom ids and its state; this module draws
 * the page and its buttons from the ids it is given.
 */
import {
  ButtonStyle,
  ComponentType,
  type APIButtonComponent,
  type APIStringSelectComponent,
} from 'discord.js';
import { z } from 'zod';
import type { PhilomenaClient, SortDirection, SortField } from '../../src/philomena/client/types.js';
import type { VisibleImage } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import { creditsOf } from '../../src/philomena/tags.js';
import { messageReply, type MessageBody } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { GALLERY_ITEMS_MAX, imageCard, imageGrid, truncate } from '../../src/render/index.js';
import type { CommandContext, SelectHandler } from './context.js';
import { boardFor } from './member-board.js';
import { boardQuery } from './safety.js';
import type { Say } from './say.js';
import {
  buttonRow,
  cardContext,
  cardMessage,
  filterContext,
  showImage,
  V2_ANSWER_TEXT_MAX,
  type CardForm,
  type ControlRow,
} from './show-image.js';
import type { View } from './view.js';

/** Images on one grid page: one media gallery's worth. */
const GRID_SIZE = GALLERY_ITEMS_MAX;

/** What the board is asked: the member's query (the view's rules are added to it) and the order. */
export interface ImageSearch {
  readonly query: string;
  readonly order: { readonly sf: SortField; readonly sd: SortDirection };
}

/** Where a browser stands: the card's result number or the grid's page number (from 1), and the form. */
export interface PagePosition {
  readonly page: number;
  readonly grid: boolean;
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
 * through `client` (the site's shared one, or the member's own). Outside age-restricted channels only
 * `safe` images are searched, and the community's hidden tags are left out (safety.ts).
 */
function windowReader(
  search: ImageSearch,
  grid: boolean,
  view: View,
  context: CommandContext,
  client: PhilomenaClient,
): WindowRead {
  const configured = Math.min(Math.max(1, context.searchWindow), 50);
  // A grid page must sit inside one window: a grid reads whole multiples of its ten.
  const size = grid ? Math.max(GRID_SIZE, configured - (configured % GRID_SIZE)) : configured;
  return async (index: number): Promise<ResultWindow> => {
    const number = Math.floor(index / size) + 1;
    const result = await client.searchImages({
      q: boardQuery(search.query, view),
      ...search.order,
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
 * The results of page `at.page` (a card's one, or a grid's ten), clamped to what the board has now: when
 * images were removed since the buttons were made, the new last page.
 */
async function pageResults(
  read: WindowRead,
  at: PagePosition,
): Promise<{ items: readonly VisibleImage[]; total: number; page: number }> {
  const per = at.grid ? GRID_SIZE : 1;
  const cut = (window: ResultWindow, page: number) => {
    const from = (page - 1) * per - window.offset;
    return window.items.slice(Math.max(0, from), Math.max(0, from + per));
  };
  let window = await read((at.page - 1) * per);
  let page = at.page;
  let items = cut(window, page);
  if (items.length === 0 && window.total > 0) {
    page = Math.max(1, Math.min(page, Math.ceil(window.total / per)));
    window = await read((page - 1) * per);
    items = cut(window, page);
  }
  return { items, total: window.total, page };
}

/**
 * Reads page `at` (its window, through the response cache) without drawing it: a caller that needs the
 * window's images in the cache first (a gallery's cover is often one of them) reads it before the page,
 * which then finds it cached.
 */
export async function readPage(
  search: ImageSearch,
  at: PagePosition,
  view: View,
  context: CommandContext,
  client: PhilomenaClient,
): Promise<void> {
  await pageResults(windowReader(search, at.grid, view, context, client), at);
}

export type PagingAction = 'prev' | 'next' | 'rand' | 'pub';

/** The page a button leads to, from `page` of `total`; Random picks another page uniformly. */
export function targetPage(action: PagingAction, page: number, total: number, random: () => number): number {
  switch (action) {
    case 'prev':
      return Math.max(1, page - 1);
    case 'next':
      return Math.min(total, page + 1);
    case 'rand': {
      if (total <= 1) return 1;
      const pick = 1 + Math.floor(random() * (total - 1));
      return pick >= page ? pick + 1 : pick;
    }
    case 'pub':
      return page;
  }
}

/** Previous, Next and Random (when there is more than one page), and Post publicly on a private answer. */
export function pagingRows(
  at: { readonly page: number; readonly total: number; readonly private: boolean },
  encode: (action: PagingAction) => string,
  say: Say,
): ControlRow[] {
  const button = (action: PagingAction, label: string, disabled: boolean): APIButtonComponent => ({
    type: ComponentType.Button,
    style: action === 'pub' ? ButtonStyle.Primary : ButtonStyle.Secondary,
    label,
    custom_id: encode(action),
    disabled,
  });
  const rows: ControlRow[] = [];
  if (at.total > 1) {
    rows.push(
      buttonRow([
        button('prev', say('search.button.previous'), at.page <= 1),
        button('next', say('search.button.next'), at.page >= at.total),
        button('rand', say('search.button.random'), false),
      ]),
    );
  }
  if (at.private) rows.push(buttonRow([button('pub', say('search.button.post-publicly'), false)]));
  return rows;
}

/** The grid's select (custom id `customId`): one option per image shown, its id as the value. */
function pickRow(customId: string, shown: readonly VisibleImage[], say: Say): ControlRow[] {
  if (shown.length === 0) return [];
  const select: APIStringSelectComponent = {
    type: ComponentType.StringSelect,
    custom_id: customId,
    placeholder: truncate(say('search.pick.placeholder'), 150),
    min_values: 1,
    max_values: 1,
    options: shown.map((image, index) => {
      const names = creditsOf(image.tags).map((credit) => credit.name);
      return {
        label: truncate(`${index + 1}. #${image.id}`, 100),
        value: String(image.id),
        // Select options show text as typed: no Markdown to escape, and no mention is parsed there.
        description: truncate(names.length > 0 ? names.join(', ') : say('search.pick.artist-unknown'), 100),
      };
    }),
  };
  return [{ type: ComponentType.ActionRow, components: [select] }];
}

export interface ImagePageOptions {
  readonly client: PhilomenaClient;
  readonly view: View;
  readonly say: Say;
  /** The form of the message a page replaces (a grid is always Components V2). */
  readonly form?: CardForm;
  /** The grid's heading, from the range it shows. */
  readonly heading: (range: { from: number; to: number; total: number }) => string;
  /** The paging rows of the page read (its number and the pages there are); none without buttons. */
  readonly nav: (page: number, pages: number) => ControlRow[];
  /** The custom id of the grid's picker. */
  readonly pickId: string;
  /** A line above a card (a grid says what it shows in its heading). */
  readonly content?: string;
}

/**
 * Reads page `at.page` and builds its message. Undefined when the search has no results at all; else the
 * body and the page it shows (clamped) of how many.
 */
export async function renderImagePage(
  search: ImageSearch,
  site: Site,
  at: PagePosition,
  context: CommandContext,
  options: ImagePageOptions,
): Promise<{ body: MessageBody; page: number; pages: number } | undefined> {
  const { view, say, client } = options;
  const [results, filter] = await Promise.all([
    pageResults(windowReader(search, at.grid, view, context, client), at),
    filterContext(client, view.filterId, context.logger),
  ]);
  const { items, total, page } = results;
  const image = items[0];
  if (image === undefined) return undefined;
  const pages = at.grid ? gridPages(total) : total;
  const nav = options.nav(page, pages);
  if (at.grid) {
    const from = (page - 1) * GRID_SIZE + 1;
    const layout = (rows: readonly ControlRow[]) =>
      imageGrid(items, {
        site,
        ageRestricted: view.ageRestricted,
        spoilerChannel: view.spoilerChannel,
        rules: view.rules,
        ...(filter === undefined ? {} : { filter }),
        heading: options.heading({ from, to: from + items.length - 1, total }),
        footer: say('search.grid.footer', { site: site.name, page, pages }),
        rows,
        textMax: V2_ANSWER_TEXT_MAX,
        say,
      });
    // Laid out once without the picker to learn which images the rating rule and the filter let show
    // (those the list had no room for, with their sources, are still picked for their full cards).
    const laidOut = layout([]);
    const shown = [...laidOut.shown, ...laidOut.unlisted];
    const withRows = layout([...pickRow(options.pickId, shown, say), ...nav]);
    return { body: { componentsV2: true, components: [withRows.container] }, page, pages };
  }
  const card = imageCard(
    image,
    cardContext(view, filter, { footerExtra: say('search.card.position', { page, total }) }),
  );
  const body = cardMessage(card, site, image.id, {
    rows: nav,
    ...(options.content === undefined ? {} : { content: options.content }),
    ...(options.form === undefined ? {} : { form: options.form }),
  });
  return { body, page, pages };
}

/**
 * A grid's picker: the chosen image's full card, to the member who chose, under this channel's rules.
 * `siteOf` reads the site from the select's custom id arguments.
 */
export function pickSelect(siteOf: (args: readonly string[], context: CommandContext) => Site | undefined) {
  const pick: SelectHandler = {
    defer: () => 'ephemeral',
    async run(interaction, args, context) {
      const site = siteOf(args, context);
      const id = z.coerce.number().int().nonnegative().safeParse(interaction.values[0]);
      if (site === undefined || !id.success)
        throw new UserFacingError('search.choice-gone', 'That choice no longer works.');
      // The chosen card is read as the member asks (their own account where it decides for them).
      const { client, view } = await boardFor(context, context.view.forSite(site));
      const { fetched, card } = await showImage(client, id.data, view, context.logger);
      return messageReply(cardMessage(card, site, fetched.image.id));
    },
  };
  return pick;
}
