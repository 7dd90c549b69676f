import { randomInt } from 'node:crypto';
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import { messageReply, type Incoming } from '../../src/discord/contract.js';
import { type Command, type CommandContext, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import { SEARCH_STATE_KIND, SORTS, VIEWS, type Sort } from './codec.js';
import { noResultsText, renderSearchPage, searchButtons, searchSelects } from './paging.js';
import { QUERY_MAX, queryChoices, typedMyLists } from '../shared/query-autocomplete.js';
import { sayIn } from '../shared/say.js';
import { searchAccess, searchWith } from './member-search.js';
import { hasMyTerm } from '../shared/my-terms.js';

/**
 * Whether the answer is private: as the member chose, else private when the search reads their own
 * account (a `my:` term) in a server, where others would see their lists (issue 22 §2). Decided before
 * the reply is deferred, from the options alone.
 */
function answersPrivately(interaction: Incoming<ChatInputCommandInteraction>): boolean {
  const chosen = interaction.options.getBoolean('private');
  if (chosen !== null) return chosen;
  return interaction.guildId !== null && hasMyTerm(interaction.options.getString('query', true));
}

/** Whether the member linked their account on `siteId`; a store that fails reads as not linked. */
async function linked(siteId: string, context: CommandContext): Promise<boolean> {
  try {
    return (await context.memberKeys.sites(context.userId)).some((site) => site.siteId === siteId);
  } catch (error) {
    context.logger.warn({ err: error }, "the member's linked accounts could not be read: no my: suggestions");
    return false;
  }
}

export const searchCommand = {
  kind: 'chat',
  data: new SlashCommandBuilder()
    .setName('search')
    .setIntegrationTypes(LOOKUP_INSTALLS)
    .setContexts(LOOKUP_CONTEXTS)
    .setDescription('Search images, one per page or ten in a grid')
    .addStringOption((option) =>
      option
        .setName('query')
        .setDescription('Tags separated by commas, e.g. "pony, cute" (the site\'s search syntax works)')
        .setRequired(true)
        .setMaxLength(QUERY_MAX)
        .setAutocomplete(true),
    )
    .addStringOption((option) =>
      option
        .setName('sort')
        .setDescription('Order of the results (newest first by default)')
        .addChoices(SORTS.map((sort) => ({ name: sort, value: sort }))),
    )
    .addStringOption((option) =>
      option
        .setName('view')
        .setDescription('One card per page (the default), or a grid of ten with a picker')
        .addChoices(VIEWS.map((view) => ({ name: view, value: view }))),
    )
    .addBooleanOption((option) =>
      option.setName('private').setDescription('Show the results only to you, with a button to post one'),
    )
    .toJSON(),
  ephemeral: answersPrivately,
  async execute(interaction, context) {
    const query = interaction.options.getString('query', true).trim();
    const sort: Sort = SORTS.find((s) => s === interaction.options.getString('sort')) ?? 'newest';
    const isPrivate = answersPrivately(interaction);
    const grid = interaction.options.getString('view') === 'grid';
    const site = context.view.site;
    const owner = interaction.user.id;
    // Before anything is stored or asked: a `my:` search without a linked key stops here.
    const access = await searchAccess(query, context.view, context);
    const token = await context.state.put(SEARCH_STATE_KIND, { query, owner });
    const message = await searchWith(access, site, owner, context, () =>
      renderSearchPage(
        query,
        {
          site,
          token,
          page: 1,
          total: 1,
          sort,
          seed: randomInt(1, 2 ** 31 - 1),
          owner,
          issuedAt: context.now(),
          private: isPrivate,
          grid,
        },
        context,
        { withButtons: true, client: access.client, view: access.view },
      ),
    );
    return messageReply(message ?? { content: noResultsText(access.view), embeds: [], components: [] });
  },
  async autocomplete(interaction, context) {
    const focused = interaction.options.getFocused(true);
    if (focused.name !== 'query') return [];
    const site = context.view.site;
    // `my:` terms only for a member who linked the site (their search would be refused otherwise); the
    // store is read only while such a term is being typed.
    const ownLists = typedMyLists(focused.value).length > 0 && (await linked(site.id, context));
    return queryChoices(context.registry.client(site), focused.value, {
      ageRestricted: context.view.ageRestricted,
      signal: context.signal,
      say: sayIn(context.locale),
      ownLists,
    });
  },
  buttons: searchButtons(),
  selects: searchSelects(),
} satisfies Command;
