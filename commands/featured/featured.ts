import { SlashCommandBuilder } from 'discord.js';
import type { Command } from '../../src/discord/contract.js';
import { cardContext, cardMessage, filterContext } from '../image/show-image.js';
import { imageCard } from '../../src/bot/render/index.js';

export const featuredCommand = {
  kind: 'chat',
  data: new SlashCommandBuilder()
    .setName('featured')
    .setDescription("Show the site's featured image")
    .toJSON(),
  async execute(interaction, context) {
    const { view } = context;
    const client = context.registry.client(view.site);
    const [image, filter] = await Promise.all([
      client.featuredImage(view.filterId === undefined ? {} : { filterId: view.filterId }),
      filterContext(client, view.filterId, context.logger),
    ]);
    const card = imageCard(image, cardContext(view, filter));
    await interaction.editReply(cardMessage(card, view.site, image.id));
  },
} satisfies Command;
