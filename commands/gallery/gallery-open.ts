/**
 * An open gallery: its heading (title, creator, link; its spoiler warning and description on a card
 * page), then its images browsed exactly as a /search is (commands/shared/image-paging.ts), by card or by
 * grid, read in windows: the image search for `gallery_id:<id>` sorted by the gallery's own order
 * (`sf=gallery_id:<id>`), descending as the board's gallery page orders a gallery by default (Philomena's
 * gallery controller: ascending only for a gallery whose owner chose it, a setting the API does not
 * give), under every rule an image search has. The gallery's words follow its cover (page-cards.ts
 * `judgeGallery`): outside age-restricted channels a gallery whose cover may not show in full here is
 * named by its number, and one without a cover that can be judged likewise.
 */
import type { MessageBody } from '../../src/discord/contract.js';
import type { Gallery } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import { escapeInline, neutraliseMentions, truncate, truncateMarkdown } from '../../src/render/index.js';
import { siteCode } from '../../src/discord/custom-id.js';
import type { CommandContext } from '../shared/context.js';
import { pagingRows, readPage, renderImagePage, type ImageSearch } from '../shared/image-paging.js';
import { boardFor } from '../shared/member-board.js';
import { galleryById, galleryWords, judgeGallery } from '../shared/page-cards.js';
import { sayIn } from '../shared/say.js';
import type { CardForm } from '../shared/show-image.js';
import { encodeGalleryButton, galleryPickCodec, type GalleryPage } from './gallery-codec.js';

/** The longest heading above a card: room is left for the card's own text. */
const HEADING_MAX = 1_000;

export interface OpenAt {
  readonly site: Site;
  readonly galleryId: number;
  readonly page: number;
  readonly grid: boolean;
  readonly private: boolean;
  readonly owner: string;
}

export type OpenedGallery =
  | { readonly kind: 'page'; readonly body: MessageBody }
  /** No image of the gallery can be shown here (or it has none): its heading and why. */
  | { readonly kind: 'empty'; readonly text: string };

/** The gallery's link on its site. */
export function galleryLink(site: Site, galleryId: number): string {
  return `${site.baseUrl}/galleries/${galleryId}`;
}

/**
 * Reads page `at.page` of the gallery and builds its message, in the `form` of the message it replaces.
 * `gallery` is the record when the caller already has it (the list); else it is read by its id.
 */
export async function openGallery(
  at: OpenAt,
  context: CommandContext,
  options: { readonly withButtons: boolean; readonly form?: CardForm; readonly gallery?: Gallery },
): Promise<OpenedGallery> {
  // Read as the member asks (their own account where it decides for them), as a /search is.
  const { client, view } = await boardFor(context, context.view.forSite(at.site));
  const say = sayIn(view.locale);
  const search: ImageSearch = {
    query: `gallery_id:${at.galleryId}`,
    order: { sf: `gallery_id:${at.galleryId}`, sd: 'desc' },
  };
  // The page's window before the cover: a cover in it is then seeded in the cache and costs no call.
  const [gallery] = await Promise.all([
    options.gallery ?? galleryById(client, at.galleryId, view),
    readPage(search, at, view, context, client),
  ]);
  const judged = await judgeGallery(client, gallery, view, context.logger);
  const words = galleryWords(judged, view, say);
  const title = say('gallery.open.heading', {
    title: escapeInline(truncate(words.title, 200)),
    author: neutraliseMentions(escapeInline(truncate(gallery.creator ?? say('image.page.someone'), 100))),
    // In <...>: Discord's own preview of a board page ignores the rating rule.
    link: `<${galleryLink(at.site, gallery.id)}>`,
  });
  const heading = truncateMarkdown([title, ...words.lines].join('\n'), HEADING_MAX);
  const id = gallery.id;
  const rendered = await renderImagePage(search, at.site, at, context, {
    client,
    view,
    say,
    ...(options.form === undefined ? {} : { form: options.form }),
    content: heading,
    // The grid's heading holds the title line only: its tiles need the room.
    heading: (range) => `${title}\n${say('gallery.grid.range', range)}`,
    nav: (page, pages) => {
      if (!options.withButtons) return [];
      const next: GalleryPage = {
        ...at,
        galleryId: id,
        page,
        total: pages,
        issuedAt: context.now(),
      };
      return pagingRows(next, (action) => encodeGalleryButton(action, next), say);
    },
    pickId: galleryPickCodec.encode('pick', { site: siteCode(at.site) }),
  });
  if (rendered !== undefined) return { kind: 'page', body: rendered.body };
  const why = say(view.ageRestricted ? 'gallery.empty' : 'gallery.empty.safe-only');
  return { kind: 'empty', text: `${heading}\n${why}` };
}
