/**
 * /gallery query: the board's gallery search (newest first, as the board lists galleries), its first ten
 * as a list with a select that opens one. Each gallery's title follows its cover (page-cards.ts
 * `judgeGallery`): where the cover may not show in full here, the line and the option name the gallery by
 * its number and say its images cannot be shown here, with its link. Titles and names are the board's
 * text: escaped, with mentions broken, and cut to size.
 */
import { ComponentType, type APIStringSelectComponent } from 'discord.js';
import type { MessageBody } from '../../src/discord/contract.js';
import type { Gallery } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import { siteCode } from '../../src/discord/custom-id.js';
import { escapeInline, neutraliseMentions, truncate, truncateMarkdown } from '../../src/render/index.js';
import type { CommandContext } from '../shared/context.js';
import { boardFor } from '../shared/member-board.js';
import { judgeGallery, type JudgedGallery } from '../shared/page-cards.js';
import { sayIn, type Say } from '../shared/say.js';
import { galleryListCodec, type ListChoice } from './gallery-codec.js';
import { galleryQuery } from './gallery-input.js';
import { galleryLink } from './gallery-open.js';

/** Galleries listed: one select's worth is 25, ten keep the list readable and the covers read few. */
const LIST_SIZE = 10;

export type GallerySearch =
  | { readonly kind: 'none'; readonly text: string }
  /** Exactly one gallery matches: it opens at once. */
  | { readonly kind: 'one'; readonly gallery: Gallery }
  | { readonly kind: 'list'; readonly body: MessageBody };

function line(judged: JudgedGallery, n: number, site: Site, say: Say): string {
  const { gallery } = judged;
  const link = galleryLink(site, gallery.id);
  if (!judged.wordsShown || gallery.title.trim() === '') {
    return say('gallery.list.withheld', { n, id: String(gallery.id), link });
  }
  return say('gallery.list.line', {
    n,
    title: neutraliseMentions(escapeInline(truncate(gallery.title, 100))),
    author: neutraliseMentions(escapeInline(truncate(gallery.creator ?? say('image.page.someone'), 60))),
    id: String(gallery.id),
    link,
  });
}

function option(judged: JudgedGallery, say: Say): { label: string; value: string; description?: string } {
  const { gallery } = judged;
  const label =
    judged.wordsShown && gallery.title.trim() !== ''
      ? gallery.title
      : say('image.page.gallery.title', { id: String(gallery.id) });
  // Select options show text as typed: no Markdown to escape, and no mention is parsed there.
  return {
    label: truncate(label, 100),
    value: String(gallery.id),
    ...(gallery.creator === null ? {} : { description: truncate(gallery.creator, 100) }),
  };
}

/** Searches galleries for what the member typed; the list to pick from, the one match, or none. */
export async function searchGalleryList(
  typed: string,
  choice: Omit<ListChoice, 'site'> & { readonly site: Site },
  context: CommandContext,
): Promise<GallerySearch> {
  const { client, view } = await boardFor(context, context.view.forSite(choice.site));
  const say = sayIn(view.locale);
  const found = await client.searchGalleries({ q: galleryQuery(typed), perPage: LIST_SIZE });
  const [only] = found.items;
  if (only === undefined) return { kind: 'none', text: say('gallery.none') };
  if (found.items.length === 1 && found.total <= 1) return { kind: 'one', gallery: only };
  const judged = await Promise.all(
    found.items.map((gallery) => judgeGallery(client, gallery, view, context.logger)),
  );
  const lines = judged.map((j, index) => line(j, index + 1, choice.site, say));
  const more =
    found.total > judged.length
      ? [say('gallery.list.more', { shown: judged.length, total: found.total })]
      : [];
  const select: APIStringSelectComponent = {
    type: ComponentType.StringSelect,
    custom_id: galleryListCodec.encode('open', { ...choice, site: siteCode(choice.site) }),
    placeholder: truncate(say('gallery.list.placeholder'), 150),
    min_values: 1,
    max_values: 1,
    options: judged.map((j) => option(j, say)),
  };
  return {
    kind: 'list',
    body: {
      embeds: [
        {
          title: truncate(say('gallery.list.title', { count: found.total, site: choice.site.name }), 256),
          description: truncateMarkdown([...lines, ...more].join('\n'), 4_000),
        },
      ],
      components: [{ type: ComponentType.ActionRow, components: [select] }],
    },
  };
}
