/**
 * Paging of /search: one image per page (a card) or ten (a grid), the state in the custom_id (site, page,
 * total, sort, seed, owner, creation time, private, grid: codec.ts) and the query in the store under a
 * short token. Only the member who searched may page; a click after 15 minutes, or on a token the store
 * has lost, answers "expired". The page itself is read from the board in windows (window.ts).
 */
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import { messageReply, type MessageBody, type Reply } from '../../src/discord/contract.js';
import type { ButtonHandler, CommandContext, SelectHandler } from '../shared/context.js';
import type { View } from '../shared/view.js';
import { sayIn, type Say } from '../shared/say.js';
import { siteCode } from '../../src/discord/custom-id.js';
import { formOfMessage, type CardForm } from '../shared/show-image.js';
import { escapeInline, truncate } from '../../src/render/index.js';
import { STATE_TTL_MS } from '../../src/discord/button-state.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { pagingRows, pickSelect, renderImagePage, targetPage } from '../shared/image-paging.js';
import {
  encodeSearchButton,
  pickCodec,
  SEARCH_STATE_KIND,
  searchButton,
  searchStateSchema,
  sortParams,
  type SearchAction,
  type SearchPage,
} from './codec.js';
import { searchAccess, searchWith } from './member-search.js';

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
  const rendered = await renderImagePage(
    { query, order: sortParams(state.sort, state.seed) },
    state.site,
    state,
    context,
    {
      client: options.client ?? context.registry.client(state.site),
      view,
      say,
      ...(options.form === undefined ? {} : { form: options.form }),
      heading: ({ from, to, total }) =>
        say('search.grid.heading', { query: escapeInline(truncate(query, 200)), from, to, total }),
      nav: (page, pages) => {
        if (!options.withButtons) return [];
        const next: SearchPage = { ...state, page, total: pages, issuedAt: context.now() };
        return pagingRows(next, (action) => encodeSearchButton(action, next), say);
      },
      pickId: pickCodec.encode('pick', { site: siteCode(state.site) }),
    },
  );
  return rendered?.body;
}

export function noResultsText(view: View): string {
  return sayIn(view.locale)(view.ageRestricted ? 'search.no-results' : 'search.no-results.safe-only');
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
      const page = targetPage(action, state.page, state.total, random);
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
  const pick = pickSelect(
    (args, context) => pickCodec.decodeWithSite(args, context.sites.all, context.sites.defaultSite)?.site,
  );
  return { [pickCodec.key('pick')]: pick };
}
