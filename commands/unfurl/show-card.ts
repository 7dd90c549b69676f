/**
 * "Show card" (message menu: right-click a message → Apps → Show card): the cards for the board links of
 * that message, under the rules of unfurls (the channel's age restriction, the server's filter for each
 * link's own site; links in code, `<...>` or spoilers left alone; a forwarded message's original counts).
 *
 * Message menus always receive the whole target message, so this works without the Message Content
 * intent: where Discord did not grant it (or UNFURL is off), members still get cards on request.
 */
import { ApplicationCommandType, ContextMenuCommandBuilder } from 'discord.js';
import { messageReply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { type Command, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import { sayIn } from '../shared/say.js';
import {
  cardsForTargets,
  contentOf,
  linkTargets,
  linkText,
  singleImageBody,
  unfurlReplyBody,
} from './unfurl.js';

/** The most cards one answer holds (Discord's 10 embeds per message). */
const SHOW_CARD_MAX = 10;

export const showCardCommand = {
  kind: 'message',
  data: new ContextMenuCommandBuilder()
    .setName('Show card')
    .setType(ApplicationCommandType.Message)
    .setIntegrationTypes(LOOKUP_INSTALLS)
    .setContexts(LOOKUP_CONTEXTS)
    .toJSON(),
  async execute(interaction, context) {
    const message = interaction.targetMessage;
    const { view } = context;
    const links = linkTargets(linkText(message), context.sites, view.imageReferences ? view.site : undefined);
    if (links.length === 0) {
      throw new UserFacingError(
        'show-card.no-links',
        'That message has no links to images, tags or searches on a board I know.',
      );
    }
    const shown = links.slice(0, SHOW_CARD_MAX);
    const { cards, lines, failed } = await cardsForTargets(
      shown,
      context.view,
      context.registry,
      context.logger,
      'show card',
    );
    if (cards.length === 0 && lines.length === 0) {
      throw new UserFacingError(
        'show-card.board-failed',
        "I couldn't read any of those images from the board just now. Try again later.",
      );
    }
    const single = singleImageBody(cards, lines, links.length - shown.length + failed);
    if (single !== undefined) return messageReply(single);
    const body = unfurlReplyBody(cards);
    const more = links.length - shown.length + body.dropped + failed;
    return messageReply({
      ...contentOf(lines, more, sayIn(view.locale)),
      embeds: body.embeds,
      components: body.components,
    });
  },
} satisfies Command;
