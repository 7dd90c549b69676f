import { ApplicationCommandType, ContextMenuCommandBuilder } from 'discord.js';
import type { Message } from 'discord.js';
import { type Command, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import { answerReverseSearch, fileInput, isMatchableMedia, type PictureFile } from './results.js';
import { UserFacingError } from '../../src/discord/failures.js';
import type { ReverseSearchInput } from '../../src/philomena/client/types.js';

/** The first picture of a message: an attachment (uploaded as a file), else an embed's image or thumbnail. */
function firstPicture(
  message: Pick<Message, 'attachments' | 'embeds'>,
): (PictureFile & { readonly kind: 'file' }) | { readonly kind: 'url'; readonly url: string } | undefined {
  const attachment = message.attachments.find((a) => isMatchableMedia(a.contentType, a.name));
  if (attachment) {
    return {
      kind: 'file',
      url: attachment.url,
      name: attachment.name,
      size: attachment.size,
      contentType: attachment.contentType,
    };
  }
  for (const embed of message.embeds) {
    const url = embed.image?.url ?? embed.thumbnail?.url;
    if (url && /^https?:\/\//i.test(url)) return { kind: 'url', url };
  }
  return undefined;
}

export const findSourceCommand = {
  kind: 'message',
  data: new ContextMenuCommandBuilder()
    .setName('Find source')
    .setType(ApplicationCommandType.Message)
    .setIntegrationTypes(LOOKUP_INSTALLS)
    .setContexts(LOOKUP_CONTEXTS)
    .toJSON(),
  ephemeral: () => true,
  async execute(interaction, context) {
    const picture = firstPicture(interaction.targetMessage);
    if (picture === undefined)
      throw new UserFacingError('reverse.no-picture', 'That message has no picture to search for.');
    const input: ReverseSearchInput =
      picture.kind === 'file' ? fileInput(picture, context) : { url: picture.url };
    return answerReverseSearch(interaction.user.id, input, undefined, context);
  },
} satisfies Command;
