import { SlashCommandBuilder } from 'discord.js';
import { messageReply } from '../../src/discord/contract.js';
import { type Command, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import { cardContext, cardMessage, filterContext } from '../shared/show-image.js';
import { imageCard } from '../../src/render/index.js';
import { boardFor } from '../shared/member-board.js';

export const featuredCommand = {
  kind: 'chat',
  data: new SlashCommandBuilder()
    .setName('featured')
    .setIntegrationTypes(LOOKUP_INSTALLS)
    .setContexts(LOOKUP_CONTEXTS)
    .setDescription("Show the site's featured image")
    .toJSON(),
  async execute(_interaction, context) {
    // The member's own account where it decides for them (member-board.ts), else the shared client.
    const { client, view } = await boardFor(context, context.view);
    const [image, filter] = await Promise.all([
      client.featuredImage(view.filterId === undefined ? {} : { filterId: view.filterId }),
      filterContext(client, view.filterId, context.logger),
    ]);
    const card = imageCard(image, cardContext(view, filter));
    return messageReply(cardMessage(card, view.site, image.id));
  },
} satisfies Command;
