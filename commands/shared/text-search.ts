/**
 * Paging through a search of the board's words (comments for `/comments`, forum posts for `/forum`): one
 * result per page, read in windows of `searchWindow` (50 at most, the board's largest page) as
 * image-paging.ts reads images, so Previous, Next and Random inside a window find it in the response cache
 * and cost no board call. The query goes to the store under a short token (it may be longer than a
 * custom_id holds); the page, total, owner and time ride in the custom_id. Only the member who searched
 * pages, for 15 minutes. A command supplies its board search and how one result is drawn.
 */
import type { APIEmbed } from 'discord.js';
import { z } from 'zod';
import type { Page, PhilomenaClient } from '../../src/philomena/client/types.js';
import type { Site } from '../../src/philomena/sites.js';
import { messageReply, type MessageBody, type Reply } from '../../src/discord/contract.js';
import { STATE_TTL_MS } from '../../src/discord/button-state.js';
import { buttonCodec, encodeTime, segment, siteCode, type ButtonCodec } from '../../src/discord/custom-id.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { fitEmbeds } from '../../src/render/index.js';
import type { ButtonHandler, CommandContext } from './context.js';
import { pagingRows, targetPage, type PagingAction } from './image-paging.js';
import { sayIn, type Say } from './say.js';
import type { View } from './view.js';

/** What a search token stands for; the owner is kept with it, and every click checked against both. */
export const textSearchStateSchema = z.object({
  query: z.string().min(1),
  owner: z.string().min(1),
  /** `/forum`'s narrowing: the forum's short name (the board's `forum:` value) and its name. */
  forum: z.object({ short: z.string().min(1), name: z.string() }).optional(),
});
export type TextSearchState = z.infer<typeof textSearchStateSchema>;

/** Where a browser stands: the result number (from 1) of how many, and whose buttons these are. */
export interface TextPage {
  readonly site: Site;
  readonly token: string;
  readonly page: number;
  readonly total: number;
  readonly owner: string;
  /** When the buttons were made, ms. */
  readonly issuedAt: number;
  readonly private: boolean;
}

type TextPageFields = Omit<TextPage, 'site'> & { readonly site: string };

/**
 * A paging codec in `namespace`. Buttons already posted keep working only while their custom_ids decode
 * the same: never change a namespace, the fields or their order.
 */
export function textPageCodec(namespace: string): ButtonCodec<PagingAction, TextPageFields> {
  return buttonCodec<PagingAction, TextPageFields>({
    namespace,
    schema: z
      .tuple([
        segment.siteCode,
        segment.token,
        segment.count,
        segment.count,
        segment.snowflake,
        segment.time,
        segment.flag,
      ])
      .transform(([site, token, page, total, owner, issuedAt, isPrivate]) => ({
        site,
        token,
        page,
        total,
        owner,
        issuedAt,
        private: isPrivate,
      })),
    write: (state) => [
      state.site,
      state.token,
      state.page,
      state.total,
      state.owner,
      encodeTime(state.issuedAt),
      state.private ? 1 : 0,
    ],
  });
}

/** One command's search of the board's words. */
export interface TextSearchKind<T> {
  /** The store kind of its tokens. */
  readonly stateKind: string;
  readonly codec: ButtonCodec<PagingAction, TextPageFields>;
  /** The board's search: page `page` (from 1) of `perPage` results, newest first. */
  search(client: PhilomenaClient, state: TextSearchState, page: number, perPage: number): Promise<Page<T>>;
  /** The embeds of one result; `position` says which of how many it is. */
  draw(
    item: T,
    state: TextSearchState,
    position: string,
    client: PhilomenaClient,
    view: View,
    context: CommandContext,
  ): Promise<APIEmbed[]>;
  /** The words when a clicked search no longer finds anything, and when its buttons have expired. */
  readonly goneKey: string;
  readonly expiredKey: string;
}

/**
 * The window of `perPage` results holding result `page` (from 1), and that result; the page is clamped to
 * the total the board has now (results removed since the buttons were made: the new last one).
 */
async function resultAt<T>(
  kind: TextSearchKind<T>,
  client: PhilomenaClient,
  state: TextSearchState,
  page: number,
  size: number,
): Promise<{ item: T; page: number; total: number } | undefined> {
  const read = async (at: number) => {
    const number = Math.floor((at - 1) / size) + 1;
    const found = await kind.search(client, state, number, size);
    return { item: found.items[at - 1 - (number - 1) * size], total: found.total };
  };
  let at = page;
  let found = await read(at);
  if (found.item === undefined && found.total > 0 && at > found.total) {
    at = Math.max(1, found.total);
    found = await read(at);
  }
  return found.item === undefined ? undefined : { item: found.item, page: at, total: found.total };
}

/** Reads result `at.page` (through its window) and builds its message; undefined when nothing matches. */
async function renderTextPage<T>(
  kind: TextSearchKind<T>,
  state: TextSearchState,
  at: TextPage,
  context: CommandContext,
  options: { readonly withButtons: boolean },
): Promise<MessageBody | undefined> {
  const view = context.view.forSite(at.site);
  const say = sayIn(view.locale);
  const client = context.registry.client(at.site);
  const size = Math.min(Math.max(1, context.searchWindow), 50);
  const found = await resultAt(kind, client, state, at.page, size);
  if (found === undefined) return undefined;
  const position = say('search.card.position', { page: found.page, total: found.total });
  const embeds = await kind.draw(found.item, state, position, client, view, context);
  const next: TextPage = { ...at, page: found.page, total: found.total, issuedAt: context.now() };
  const rows = options.withButtons
    ? pagingRows(next, (action) => kind.codec.encode(action, { ...next, site: siteCode(next.site) }), say)
    : [];
  return { embeds: fitEmbeds(embeds), components: rows };
}

function notOwner(): UserFacingError {
  return new UserFacingError(
    'paging.not-owner',
    'Only the person who searched can page through these results.',
  );
}

/** Stores the search and answers its first result, or `none` when nothing matches. */
export async function firstTextPage<T>(
  kind: TextSearchKind<T>,
  state: TextSearchState,
  at: { readonly site: Site; readonly private: boolean },
  context: CommandContext,
  none: (say: Say) => string,
): Promise<Reply> {
  const token = await context.state.put(kind.stateKind, state);
  const body = await renderTextPage(
    kind,
    state,
    { ...at, token, page: 1, total: 1, owner: state.owner, issuedAt: context.now() },
    context,
    { withButtons: true },
  );
  return messageReply(body ?? { content: none(sayIn(context.view.forSite(at.site).locale)), embeds: [] });
}

/** Previous, Next, Random and Post publicly of `kind`'s answers. */
export function textSearchButtons<T>(
  kind: TextSearchKind<T>,
  random: () => number = Math.random,
): Record<string, ButtonHandler> {
  const handler = (action: PagingAction): ButtonHandler => ({
    defer(interaction, args) {
      if (kind.codec.decode(args)?.owner !== interaction.user.id) return 'ephemeral';
      return action === 'pub' ? 'public' : 'update';
    },
    async run(interaction, args, context) {
      const at = kind.codec.decodeWithSite(args, context.sites.all, context.sites.defaultSite);
      if (at !== undefined && at.owner !== interaction.user.id) throw notOwner();
      const say = sayIn(context.locale);
      // The dead buttons come off the message (a "Post publicly" click has its own new reply instead).
      const dead = (text: string): Reply =>
        action === 'pub' ? { kind: 'private', text } : { kind: 'expired', text };
      if (at === undefined || context.now() - at.issuedAt > STATE_TTL_MS) return dead(say(kind.expiredKey));
      const stored = await context.state.get(kind.stateKind, at.token, textSearchStateSchema);
      if (stored === undefined) return dead(say(kind.expiredKey));
      if (stored.owner !== interaction.user.id) throw notOwner();
      const page = targetPage(action, at.page, at.total, random);
      const body = await renderTextPage(
        kind,
        stored,
        { ...at, page, ...(action === 'pub' ? { private: false } : {}) },
        context,
        { withButtons: action !== 'pub' },
      );
      if (body === undefined) return dead(say(kind.goneKey));
      return messageReply(body);
    },
  });
  return {
    [kind.codec.key('prev')]: handler('prev'),
    [kind.codec.key('next')]: handler('next'),
    [kind.codec.key('rand')]: handler('rand'),
    [kind.codec.key('pub')]: handler('pub'),
  };
}
