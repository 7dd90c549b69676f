import { SlashCommandBuilder } from 'discord.js';
import { messageReply } from '../../src/discord/contract.js';
import { fitEmbeds, tagCard } from '../../src/render/index.js';
import { type Command, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import type { View } from '../shared/view.js';
import { safeSearchQuery } from '../shared/safety.js';
import { suggestionLabel, suggestTags } from '../shared/tag-suggestions.js';
import { isPhilomenaError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import type { PhilomenaClient } from '../../src/philomena/client-types.js';
import type { Image, Tag } from '../../src/philomena/schemas.js';
import { quoteTag } from '../../src/philomena/tags.js';

/**
 * The example is the first search result: filtered, and only `safe` outside age-restricted channels. It
 * is an extra: when the search fails (the board limits its search paths on their own, so a 429 there is
 * common while tag pages still answer), the card is shown without it.
 */
async function exampleImage(
  client: PhilomenaClient,
  tag: Tag,
  view: View,
  logger: Logger,
): Promise<Image | undefined> {
  try {
    const examples = await client.searchImages({
      q: safeSearchQuery(quoteTag(tag.name), view.ageRestricted),
      perPage: 1,
      ...(view.filterId === undefined ? {} : { filterId: view.filterId }),
    });
    return examples.items[0];
  } catch (error) {
    if (!isPhilomenaError(error)) throw error;
    logger.info({ err: error, tag: tag.slug }, 'no example image for the tag card');
    return undefined;
  }
}

export const tagCommand = {
  kind: 'chat',
  data: new SlashCommandBuilder()
    .setName('tag')
    .setIntegrationTypes(LOOKUP_INSTALLS)
    .setContexts(LOOKUP_CONTEXTS)
    .setDescription('Show a tag: description, aliases, implications and an example image')
    .addStringOption((option) =>
      option
        .setName('name')
        .setDescription('The tag name')
        .setRequired(true)
        .setMaxLength(200)
        .setAutocomplete(true),
    )
    .toJSON(),
  async execute(interaction, context) {
    const { view } = context;
    const client = context.registry.client(view.site);
    const name = interaction.options.getString('name', true).trim();
    const asked = await client.tag(name, { followAlias: false });
    let tag: Tag = asked;
    let aliasOf: Tag | undefined;
    if (asked.aliased_tag !== null) {
      tag = await client.tag(asked.aliased_tag);
      aliasOf = asked;
    }
    const example = await exampleImage(client, tag, view, context.logger);
    const embed = tagCard(tag, {
      site: view.site,
      ageRestricted: view.ageRestricted,
      ...(example === undefined ? {} : { example }),
      ...(aliasOf === undefined ? {} : { aliasOf }),
    });
    // The card says when the name asked for was an alias.
    return messageReply({ embeds: fitEmbeds([embed]), components: [] });
  },
  async autocomplete(interaction, context) {
    const focused = interaction.options.getFocused(true);
    if (focused.name !== 'name') return [];
    const tags = await suggestTags(context.registry.client(context.view.site), focused.value, {
      ageRestricted: context.view.ageRestricted,
      signal: context.signal,
    });
    return tags.map((tag) => ({ name: suggestionLabel(tag), value: tag.name }));
  },
} satisfies Command;
