/**
 * Paging of /search: one image per page (a card) or ten (a grid), the state in the custom_id (site, page,
 * total, sort, seed, owner, creation time, private, grid: codec.ts) and the query in the store under a
 * short token. Only the member who searched may page; a click after 15 minutes, or on a token the store
 * has lost, answers "expired". The page itself is read from the board in windows (window.ts).
 */
import {
  ButtonStyle,
  ComponentType,
  type APIButtonComponent,
  type APIStringSelectComponent,
} from 'discord.js';
import { z } from 'zod';
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { VisibleImage } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import { messageReply, type MessageBody, type Reply } from '../../src/discord/contract.js';
import type { ButtonHandler, CommandContext, SelectHandler } from '../shared/context.js';
import type { View } from '../shared/view.js';
import { sayIn, type Say } from '../shared/say.js';
import { siteCode } from '../../src/discord/custom-id.js';
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
import { escapeInline, imageCard, imageGrid, truncate } from '../../src/render/index.js';
import { creditsOf } from '../../src/philomena/tags.js';
import { STATE_TTL_MS } from '../../src/discord/button-state.js';
import { UserFacingError } from '../../src/discord/failures.js';
import {
  encodeSearchButton,
  pickCodec,
  SEARCH_STATE_KIND,
  searchButton,
  searchStateSchema,
  type SearchAction,
  type SearchPage,
} from './codec.js';
import { GRID_SIZE, gridPages, pageResults, windowReader } from './window.js';
import { searchAccess, searchWith } from './member-search.js';
import { boardFor } from '../shared/member-board.js';

function navButtons(state: SearchPage, say: Say): ControlRow[] {
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
        button('prev', say('search.button.previous'), state.page <= 1),
        button('next', say('search.button.next'), state.page >= state.total),
        button('rand', say('search.button.random'), false),
      ]),
    );
  }
  if (state.private) rows.push(buttonRow([button('pub', say('search.button.post-publicly'), false)]));
  return rows;
}

/** The grid's select: one option per image shown, its id as the value. */
function pickRow(site: Site, shown: readonly VisibleImage[], say: Say): ControlRow[] {
  if (shown.length === 0) return [];
  const select: APIStringSelectComponent = {
    type: ComponentType.StringSelect,
    custom_id: pickCodec.encode('pick', { site: siteCode(site) }),
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
/**
 * Reads page `state.page` and builds its message, in the `form` of the message it replaces (a grid is
 * always Components V2). Undefined when the search has no results at all.
 */
export async function renderSearchPage(
  query: string,
  state: SearchPage,
  context: CommandContext,
  options: {
    readonly withButtons: boolean;
    readonly form?: CardForm;
    /** The page's own words; the member's language (the view's) when not given. */
    readonly say?: Say;
    /** The board client of this search (member-search.ts `searchAccess`); the site's shared one by default. */
    readonly client?: PhilomenaClient;
    /** The view it reads under (`searchAccess`'s); the context's for the search's site by default. */
    readonly view?: View;
  },
): Promise<MessageBody | undefined> {
  const view = options.view ?? context.view.forSite(state.site);
  const say = options.say ?? sayIn(view.locale);
  const client = options.client ?? context.registry.client(state.site);
  const [results, filter] = await Promise.all([
    pageResults(windowReader(query, state, view, context, client), state),
    filterContext(client, view.filterId, context.logger),
  ]);
  const { items, total, page } = results;
  const image = items[0];
  if (image === undefined) return undefined;
  const pages = state.grid ? gridPages(total) : total;
  const next: SearchPage = { ...state, page, total: pages, issuedAt: context.now() };
  const nav = options.withButtons ? navButtons(next, say) : [];
  if (state.grid) {
    const from = (page - 1) * GRID_SIZE + 1;
    const heading = say('search.grid.heading', {
      query: escapeInline(truncate(query, 200)),
      from,
      to: from + items.length - 1,
      total,
    });
    const layout = (rows: readonly ControlRow[]) =>
      imageGrid(items, {
        site: state.site,
        ageRestricted: view.ageRestricted,
        spoilerChannel: view.spoilerChannel,
        rules: view.rules,
        ...(filter === undefined ? {} : { filter }),
        heading,
        footer: say('search.grid.footer', { site: state.site.name, page, pages }),
        rows,
        textMax: V2_ANSWER_TEXT_MAX,
        say,
      });
    // Laid out once without the picker to learn which images the rating rule and the filter let show
    // (those the list had no room for, with their sources, are still picked for their full cards).
    const laidOut = layout([]);
    const shown = [...laidOut.shown, ...laidOut.unlisted];
    const withRows = layout([...pickRow(state.site, shown, say), ...nav]);
    return { componentsV2: true, components: [withRows.container] };
  }
  const card = imageCard(
    image,
    cardContext(view, filter, { footerExtra: say('search.card.position', { page, total }) }),
  );
  return cardMessage(card, state.site, image.id, {
    rows: nav,
    ...(options.form === undefined ? {} : { form: options.form }),
  });
}

export function noResultsText(view: View): string {
  return sayIn(view.locale)(view.ageRestricted ? 'search.no-results' : 'search.no-results.safe-only');
}

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
      const state = searchButton.decodeWithSite(args, context.sites.all, context.sites.defaultSite);
      if (state !== undefined && state.owner !== interaction.user.id) {
        throw new UserFacingError(
          'paging.not-owner',
          'Only the person who searched can page through these results.',
        );
      }
      // The dead buttons come off the message (a "Post publicly" click has its own new reply instead),
      // and the clicker alone is told why.
      const say = sayIn(context.locale);
      const dead = (text: string): Reply =>
        action === 'pub' ? { kind: 'private', text } : { kind: 'expired', text };
      const expired = (): Reply => dead(say('search.expired'));
      if (state === undefined || context.now() - state.issuedAt > STATE_TTL_MS) return expired();
      const stored = await context.state.get(SEARCH_STATE_KIND, state.token, searchStateSchema);
      if (stored === undefined) return expired();
      if (stored.owner !== interaction.user.id) {
        throw new UserFacingError(
          'paging.not-owner',
          'Only the person who searched can page through these results.',
        );
      }
      const page = targetPage(action, state, random);
      // A search with the searcher's key pages with it, looked up again here (never carried by the button).
      const access = await searchAccess(stored.query, context.view.forSite(state.site), context);
      const message = await searchWith(access, state.site, interaction.user.id, context, () =>
        renderSearchPage(
          stored.query,
          { ...state, page, ...(action === 'pub' ? { private: false } : {}) },
          context,
          // Paging edits the message in place, which keeps its form; "Post publicly" is a new message.
          action === 'pub'
            ? { withButtons: false, client: access.client, view: access.view }
            : {
                withButtons: true,
                form: formOfMessage(interaction.message),
                client: access.client,
                view: access.view,
              },
        ),
      );
      if (message === undefined) return dead(say('search.gone'));
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
      const site = pickCodec.decodeWithSite(args, context.sites.all, context.sites.defaultSite)?.site;
      const id = z.coerce.number().int().nonnegative().safeParse(interaction.values[0]);
      if (site === undefined || !id.success)
        throw new UserFacingError('search.choice-gone', 'That choice no longer works.');
      // The chosen card is read as the member asks (their own account where it decides for them).
      const { client, view } = await boardFor(context, context.view.forSite(site));
      const { fetched, card } = await showImage(client, id.data, view, context.logger);
      return messageReply(cardMessage(card, site, fetched.image.id));
    },
  };
  return { [pickCodec.key('pick')]: pick };
}
