/**
 * `/upload url: tags: [source:] [description:]` (issue 22 §2): sends a picture from a link to the view's
 * site (the server's; the bot's own outside servers) with the member's own linked key. Answered privately:
 * it is the member's account. The checks, the one request and the answer are upload-send.ts's.
 */
import { SlashCommandBuilder } from 'discord.js';
import { type ChatCommand, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import { URL_MAX } from './upload-input.js';
import { upload, type UploadFeature } from './upload-send.js';

/** Discord's longest string option. */
const OPTION_MAX = 6_000;

export function createUploadCommand(feature: UploadFeature): ChatCommand {
  return {
    kind: 'chat',
    data: new SlashCommandBuilder()
      .setName('upload')
      .setDescription('Upload a picture from a link to the site, with your own linked account')
      .setIntegrationTypes(LOOKUP_INSTALLS)
      .setContexts(LOOKUP_CONTEXTS)
      .addStringOption((option) =>
        option
          .setName('url')
          .setDescription('A direct link to the picture (https)')
          .setRequired(true)
          .setMaxLength(URL_MAX),
      )
      .addStringOption((option) =>
        option
          .setName('tags')
          .setDescription('Tags, separated by commas, with a rating tag (safe, suggestive, ...)')
          .setRequired(true)
          .setMaxLength(OPTION_MAX),
      )
      .addStringOption((option) =>
        option
          .setName('source')
          .setDescription('Where the picture comes from (a link)')
          .setMaxLength(URL_MAX),
      )
      .addStringOption((option) =>
        option
          .setName('description')
          .setDescription('A description for the image page')
          .setMaxLength(OPTION_MAX),
      )
      .toJSON(),
    ephemeral: () => true,
    execute(interaction, context) {
      return upload(
        interaction.user.id,
        context.view.site,
        {
          url: interaction.options.getString('url', true),
          tags: interaction.options.getString('tags', true),
          source: interaction.options.getString('source'),
          description: interaction.options.getString('description'),
        },
        context,
        feature,
      );
    },
  };
}
