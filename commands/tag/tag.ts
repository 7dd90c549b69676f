import { SlashCommandBuilder } from 'discord.js';
import { messageReply } from '../../src/discord/contract.js';
import { fitEmbeds } from '../../src/render/index.js';
import { tagCardEmbed } from '../shared/page-cards.js';
import { type Command, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import { sayIn } from '../shared/say.js';
import { boardFor } from '../shared/member-board.js';
import { suggestionLabel, suggestTags } from '../shared/tag-suggestions.js';

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
    // The example image is searched as the member asks (their own account where it decides for them);
    // the tag itself answers the same for everyone (the member client asks for it without the key).
    const { client, view } = await boardFor(context, context.view);
    const name = interaction.options.getString('name', true).trim();
    const embed = await tagCardEmbed(client, name, view, context.logger);
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
    const say = sayIn(context.locale);
    return tags.map((tag) => ({ name: suggestionLabel(tag, say), value: tag.name }));
  },
} satisfies Command;
