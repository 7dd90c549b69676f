/**
 * /forum: the board's forum post search (`/search/posts`, newest first; plain words match the post's
 * text, and the board's syntax passes as typed), one post per page with paging (shared/text-search.ts).
 * `forum:` narrows the search with the board's own `forum:` term; it is offered from the board's forums
 * (`/forums`, read through the client's cache) and may be typed as a forum's short name or its name. The
 * post search's answer names neither forum nor topic, so a post is titled with the forum only when the
 * search was narrowed to one, and linked to itself (page-cards.ts `postCard`, which also keeps its words to
 * age-restricted channels).
 */
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { Forum, Post } from '../../src/philomena/schemas.js';
import { quoteTag } from '../../src/philomena/tags.js';
import type { Incoming } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { truncate } from '../../src/render/index.js';
import { type Command, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import { postCard } from '../shared/page-cards.js';
import {
  firstTextPage,
  textPageCodec,
  textSearchButtons,
  type TextSearchKind,
  type TextSearchState,
} from '../shared/text-search.js';

const QUERY_MAX = 200;
/** Discord's most autocomplete choices. */
const CHOICES_MAX = 25;

/** The board's query: the member's, narrowed to the forum with the board's `forum:` term. */
export function postQuery(state: TextSearchState): string {
  if (state.forum === undefined) return state.query;
  // The board's quotes hold a whole term, its field included (`"forum:dis"`, not `forum:"dis"`).
  return `(${state.query}), ${quoteTag(`forum:${state.forum.short}`)}`;
}

/** How /forum searches and draws: one board call per window, nothing more per page. */
export const postSearch: TextSearchKind<Post> = {
  stateKind: 'forum',
  // Never change: buttons already posted decode with it.
  codec: textPageCodec('frm'),
  search: (client, state, page, perPage) => client.searchPosts({ q: postQuery(state), page, perPage }),
  draw: (post, state, position, _client, view) =>
    Promise.resolve([
      postCard(post, view, {
        ...(state.forum === undefined ? {} : { forum: state.forum.name }),
        footer: position,
      }),
    ]),
  goneKey: 'forum.gone',
  expiredKey: 'forum.expired',
};

/** The forum `typed` names (its short name or its name, any case), among the board's forums. */
export function findForum(forums: readonly Forum[], typed: string): Forum | undefined {
  const wanted = typed.trim().toLowerCase();
  return (
    forums.find((forum) => forum.short_name.toLowerCase() === wanted) ??
    forums.find((forum) => forum.name.trim().toLowerCase() === wanted)
  );
}

/** The forums whose name or short name holds `typed`, as autocomplete choices (the short name sent). */
export function forumChoices(
  forums: readonly Forum[],
  typed: string,
): { readonly name: string; readonly value: string }[] {
  const wanted = typed.trim().toLowerCase();
  return forums
    .filter(
      (forum) => forum.short_name.toLowerCase().includes(wanted) || forum.name.toLowerCase().includes(wanted),
    )
    .slice(0, CHOICES_MAX)
    .map((forum) => ({
      // Choice names show as typed: no Markdown, no mention is parsed there.
      name: truncate(`${forum.name} (${forum.short_name})`, 100),
      value: truncate(forum.short_name, 100),
    }));
}

async function resolveForum(client: PhilomenaClient, typed: string): Promise<Forum> {
  const forum = findForum((await client.forums()).items, typed);
  if (forum === undefined) {
    throw new UserFacingError(
      'forum.unknown',
      'That site has no forum by that name. Pick one from the list.',
    );
  }
  return forum;
}

function answersPrivately(interaction: Incoming<ChatInputCommandInteraction>): boolean {
  return interaction.options.getBoolean('private') ?? false;
}

export const forumCommand = {
  kind: 'chat',
  data: new SlashCommandBuilder()
    .setName('forum')
    .setIntegrationTypes(LOOKUP_INSTALLS)
    .setContexts(LOOKUP_CONTEXTS)
    .setDescription('Search forum posts, newest first')
    .addStringOption((option) =>
      option
        .setName('query')
        .setDescription('Words of the post, e.g. "commissions" (the site\'s post search syntax works)')
        .setRequired(true)
        .setMaxLength(QUERY_MAX),
    )
    .addStringOption((option) =>
      option
        .setName('forum')
        .setDescription('Only posts in this forum')
        .setMaxLength(QUERY_MAX)
        .setAutocomplete(true),
    )
    .addBooleanOption((option) =>
      option.setName('private').setDescription('Show the results only to you, with a button to post one'),
    )
    .toJSON(),
  ephemeral: answersPrivately,
  async execute(interaction, context) {
    const query = interaction.options.getString('query', true).trim();
    const typedForum = interaction.options.getString('forum')?.trim() ?? '';
    const site = context.view.site;
    const forum =
      typedForum === '' ? undefined : await resolveForum(context.registry.client(site), typedForum);
    return firstTextPage(
      postSearch,
      {
        query,
        owner: interaction.user.id,
        ...(forum === undefined ? {} : { forum: { short: forum.short_name, name: forum.name } }),
      },
      { site, private: answersPrivately(interaction) },
      context,
      (say) => say('forum.none'),
    );
  },
  async autocomplete(interaction, context) {
    const focused = interaction.options.getFocused(true);
    if (focused.name !== 'forum') return [];
    const client = context.registry.client(context.view.site);
    const forums = await client.forums({ signal: context.signal });
    return forumChoices(forums.items, focused.value);
  },
  buttons: textSearchButtons(postSearch),
} satisfies Command;
