/**
 * /comments: the board's comment search (`/search/comments`, newest first; plain words match the
 * comment's text, and the board's syntax passes as typed), one comment per page with paging
 * (shared/text-search.ts). Each comment is drawn as an unfurled comment link is (page-cards.ts
 * `commentCardsOf`): author, time, an excerpt, its link, and its image as a credited card under the
 * rating rule; where that image may not show in full here, the comment is listed without its excerpt.
 */
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import { isPhilomenaError } from '../../src/errors.js';
import type { Comment } from '../../src/philomena/schemas.js';
import type { Incoming } from '../../src/discord/contract.js';
import { type Command, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import { commentCardsOf, commentEmbed } from '../shared/page-cards.js';
import {
  firstTextPage,
  textPageCodec,
  textSearchButtons,
  type TextSearchKind,
} from '../shared/text-search.js';

const QUERY_MAX = 200;

/** How /comments searches and draws: one board call per window, the image read (and cached) per page. */
export const commentSearch: TextSearchKind<Comment> = {
  stateKind: 'comments',
  // Never change: buttons already posted decode with it.
  codec: textPageCodec('cmt'),
  search: (client, state, page, perPage) => client.searchComments({ q: state.query, page, perPage }),
  async draw(comment, _state, position, client, view, context) {
    try {
      const found = await commentCardsOf(client, comment, view, context.logger, position);
      return [...found.embeds, found.image.embed];
    } catch (error) {
      // An image the board no longer serves fails closed for its comment alone, not for the whole page.
      if (!isPhilomenaError(error)) throw error;
      context.logger.info({ err: error, comment: comment.id }, "a comment's image could not be read");
      return [commentEmbed(comment, view, false, position)];
    }
  },
  goneKey: 'comments.gone',
  expiredKey: 'comments.expired',
};

function answersPrivately(interaction: Incoming<ChatInputCommandInteraction>): boolean {
  return interaction.options.getBoolean('private') ?? false;
}

export const commentsCommand = {
  kind: 'chat',
  data: new SlashCommandBuilder()
    .setName('comments')
    .setIntegrationTypes(LOOKUP_INSTALLS)
    .setContexts(LOOKUP_CONTEXTS)
    .setDescription('Search comments on images, newest first')
    .addStringOption((option) =>
      option
        .setName('query')
        .setDescription('Words of the comment, e.g. "lovely" (the site\'s comment search syntax works)')
        .setRequired(true)
        .setMaxLength(QUERY_MAX),
    )
    .addBooleanOption((option) =>
      option.setName('private').setDescription('Show the results only to you, with a button to post one'),
    )
    .toJSON(),
  ephemeral: answersPrivately,
  async execute(interaction, context) {
    const query = interaction.options.getString('query', true).trim();
    return firstTextPage(
      commentSearch,
      { query, owner: interaction.user.id },
      { site: context.view.site, private: answersPrivately(interaction) },
      context,
      (say) => say('comments.none'),
    );
  },
  buttons: textSearchButtons(commentSearch),
} satisfies Command;
