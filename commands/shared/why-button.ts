/**
 * The "Why?" button of a card a rule hides (issue 20 §2): it tells the member who pressed it, privately,
 * which layer hides the image for them here and, for the server's, the channel's and their own lists,
 * which tag. The floor's tags are not named: what it keeps out is said by what it is for. The answer is
 * worked out again at the press, for the presser, in the channel as it is now (a member's own list is
 * theirs; a rule may have changed since the card was made), from the image as the board has it (cached).
 */
import { ButtonStyle, ComponentType, type APIButtonComponent } from 'discord.js';
import { z } from 'zod';
import type { Reply } from '../../src/discord/contract.js';
import { buttonCodec, segment, siteCode } from '../../src/discord/custom-id.js';
import { UserFacingError } from '../../src/discord/failures.js';
import type { Site } from '../../src/philomena/sites.js';
import { hidingRule, type TagRule } from '../../src/render/content-rules.js';
import type { ButtonHandler } from './context.js';
import { boardFor } from './member-board.js';
import { tagNamesLine } from './tag-changes.js';
import { textReply } from './text-reply.js';
import { sayEnglish, sayIn, type Say } from './say.js';

const whyCodec = buttonCodec<'rule', { readonly site: string; readonly imageId: number }>({
  namespace: 'why',
  schema: z.tuple([segment.siteCode, segment.imageId]).transform(([site, imageId]) => ({ site, imageId })),
  write: ({ site, imageId }) => [site, imageId],
});

/** The Why? button; its label in the card's language (`card.button.why`), English when not given. */
export function whyButton(
  site: Site,
  imageId: number,
  label = sayEnglish('card.button.why'),
): APIButtonComponent {
  return {
    type: ComponentType.Button,
    style: ButtonStyle.Secondary,
    label,
    custom_id: whyCodec.encode('rule', { site: siteCode(site), imageId }),
  };
}

/** What the presser reads about `rule`, in `say`'s language (English by default). */
export function whyText(rule: TagRule | undefined, imageId: number, say: Say = sayEnglish): string {
  // The id as written, never with thousands separators.
  const id = String(imageId);
  if (rule === undefined) return say('why.none', { id });
  if (rule.layer === 'floor') return say('why.floor');
  return say(`why.${rule.layer}`, { tag: tagNamesLine([rule.tag], 120, say) });
}

export const whyButtons: Readonly<Record<string, ButtonHandler>> = {
  [whyCodec.key('rule')]: {
    defer: () => 'ephemeral',
    async run(_interaction, args, context): Promise<Reply> {
      const say = sayIn(context.locale);
      const fields = whyCodec.decodeWithSite(args, context.sites.all, context.sites.defaultSite);
      if (fields === undefined) throw new UserFacingError('button.gone', 'This button no longer works.');
      const { site, imageId } = fields;
      const { client, view } = await boardFor(context, context.view.forSite(site));
      const image = await client.image(
        imageId,
        view.filterId === undefined ? {} : { filterId: view.filterId },
      );
      if (image.kind !== 'image') {
        return textReply(say('why.gone', { id: String(imageId), site: site.name }));
      }
      return textReply(whyText(hidingRule(image.tags, view.rules), imageId, say));
    },
  },
};
