/**
 * "Show card" (message menu: right-click a message → Apps → Show card): the cards for the board links of
 * that message, under the rules of unfurls (the channel's age restriction, the server's filter for each
 * link's own site; links in code, `<...>` or spoilers left alone; a forwarded message's original counts).
 *
 * Message menus always receive the whole target message, so this works without the Message Content
 * intent: where Discord did not grant it (or UNFURL is off), members still get cards on request.
 *
 * The member asked, so on a site where their own account decides for them (commands/shared/member-board.ts)
 * the cards are read with their key; an unfurl (nobody asked) never is.
 */
import { ApplicationCommandType, ContextMenuCommandBuilder } from 'discord.js';
import { messageReply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { type Command, LOOKUP_CONTEXTS, LOOKUP_INSTALLS } from '../shared/context.js';
import type { CommandContext } from '../shared/context.js';
import { boardFor } from '../shared/member-board.js';
import { sayIn } from '../shared/say.js';
import type { View } from '../shared/view.js';
import type { ClientRegistry } from '../../src/philomena/registry.js';
import type { Site } from '../../src/philomena/sites.js';
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

/**
 * The registry and view the cards of `sites` are read with: the member's own client on each site where
 * their account decides for them; a key gone meanwhile drops the account for every site (as if unlinked).
 */
async function readersFor(
  sites: readonly Site[],
  context: CommandContext,
): Promise<{ readonly registry: ClientRegistry; readonly view: View }> {
  const own = [...new Map(sites.map((site) => [site.id, site])).values()].filter(
    (site) => context.view.forSite(site).ownAccount,
  );
  if (own.length === 0) return { registry: context.registry, view: context.view };
  const boards = await Promise.all(own.map((site) => boardFor(context, context.view.forSite(site))));
  if (boards.some((board) => !board.member)) {
    return { registry: context.registry, view: context.view.withoutAccount() };
  }
  const clients = new Map(boards.map((board) => [board.view.site.id, board.client]));
  return {
    registry: {
      ...context.registry,
      client: (site) => clients.get(site.id) ?? context.registry.client(site),
    },
    view: context.view,
  };
}

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
    const readers = await readersFor(
      shown.map((target) => target.link.site),
      context,
    );
    const { cards, lines, failed } = await cardsForTargets(
      shown,
      readers.view,
      readers.registry,
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
