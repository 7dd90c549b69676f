import { SlashCommandBuilder } from 'discord.js';
import { messageReply, type Reply } from '../../src/discord/contract.js';
import { type Command, type CommandContext, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import { cardMessage, mergedNote, revealCodec, showImage } from '../shared/show-image.js';
import { parseImageInput } from './image-input.js';
import { whyButtons } from '../shared/why-button.js';
import { boardFor } from '../shared/member-board.js';
import { UserFacingError } from '../../src/discord/failures.js';

async function reveal(
  _interaction: unknown,
  args: readonly string[],
  context: CommandContext,
): Promise<Reply> {
  const fields = revealCodec.decodeWithSite(args, context.sites.all, context.sites.defaultSite);
  if (fields === undefined) throw new UserFacingError('button.gone', 'This button no longer works.');
  const { imageId, site } = fields;
  // Reveal lifts the spoiler for the clicker alone; the channel's rating rule still holds. Read as the
  // clicker asks (their own account where it decides for them).
  const board = await boardFor(context, context.view.forSite(site));
  const { fetched, card } = await showImage(board.client, imageId, board.view, context.logger, {
    reveal: true,
  });
  return messageReply(cardMessage(card, site, fetched.image.id, { revealable: false }));
}

export const imageCommand = {
  kind: 'chat',
  data: new SlashCommandBuilder()
    .setName('image')
    .setIntegrationTypes(LOOKUP_INSTALLS)
    .setContexts(LOOKUP_CONTEXTS)
    .setDescription('Show an image by its id or a link to it')
    .addStringOption((option) =>
      option
        .setName('id')
        .setDescription('An image id such as 1234, or a link to an image on any supported site')
        .setRequired(true)
        .setMaxLength(500),
    )
    .toJSON(),
  async execute(interaction, context) {
    const target = parseImageInput(
      interaction.options.getString('id', true),
      context.sites,
      context.view.site,
    );
    if (target === undefined) {
      throw new UserFacingError(
        'image.bad-id',
        'Give an image id (like 1234) or a link to an image on a supported site.',
      );
    }
    const board = await boardFor(context, context.view.forSite(target.site));
    const { fetched, card } = await showImage(board.client, target.imageId, board.view, context.logger);
    const note = mergedNote(fetched, card.say);
    return messageReply(
      cardMessage(card, target.site, fetched.image.id, note === undefined ? {} : { content: note }),
    );
  },
  buttons: {
    [revealCodec.key('reveal')]: { defer: () => 'ephemeral', run: reveal },
    ...whyButtons,
  },
} satisfies Command;
