import { SlashCommandBuilder } from 'discord.js';
import { type Command, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import { answerReverseSearch, clampDistance, fileInput, reverseButtons } from './results.js';
import { UserFacingError } from '../../src/discord/failures.js';
import type { ReverseSearchInput } from '../../src/philomena/client/types.js';

function httpUrl(text: string): string | undefined {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export const reverseCommand = {
  kind: 'chat',
  data: new SlashCommandBuilder()
    .setName('reverse')
    .setIntegrationTypes(LOOKUP_INSTALLS)
    .setContexts(LOOKUP_CONTEXTS)
    .setDescription('Find an image on the site from a picture (reverse image search)')
    .addStringOption((option) =>
      option.setName('url').setDescription('A link to the picture').setMaxLength(2000),
    )
    .addAttachmentOption((option) => option.setName('file').setDescription('The picture as a file'))
    .addNumberOption((option) =>
      option
        .setName('distance')
        .setDescription('How different a match may be, 0 to 1 (default 0.25)')
        .setMinValue(0)
        .setMaxValue(1),
    )
    .toJSON(),
  async execute(interaction, context) {
    const urlText = interaction.options.getString('url');
    const file = interaction.options.getAttachment('file');
    const distance = clampDistance(interaction.options.getNumber('distance'));
    if ((urlText === null) === (file === null)) {
      throw new UserFacingError('reverse.url-or-file', 'Give either a url or a file (one of them).');
    }
    let input: ReverseSearchInput;
    if (file !== null) {
      input = fileInput(file, context);
    } else {
      const url = httpUrl(urlText ?? '');
      if (url === undefined) throw new UserFacingError('reverse.not-http', 'That is not an http(s) link.');
      input = { url };
    }
    return answerReverseSearch(interaction.user.id, input, distance, context);
  },
  buttons: reverseButtons(),
} satisfies Command;
