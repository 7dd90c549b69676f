/**
 * What /gallery's components carry, all in the custom_id (a gallery's id is short: nothing goes to the
 * store): an open gallery's paging buttons, its grid's picker, and the list's select that opens one.
 *
 * Components already posted keep working only while their custom_ids decode the same: never change a
 * codec's namespace, fields or their order.
 */
import { z } from 'zod';
import type { Site } from '../../src/philomena/sites.js';
import { buttonCodec, encodeTime, segment, siteCode } from '../../src/discord/custom-id.js';
import type { PagingAction } from '../shared/image-paging.js';

const GALLERY_NS = 'gal';

/** An open gallery's page. */
export interface GalleryPage {
  readonly site: Site;
  readonly galleryId: number;
  /** The card's image number, or the grid's page number (from 1). */
  readonly page: number;
  /** Images (card), or grid pages (grid). */
  readonly total: number;
  /** The member who opened it: only they page. */
  readonly owner: string;
  /** When the buttons were made, ms. */
  readonly issuedAt: number;
  readonly private: boolean;
  readonly grid: boolean;
}

type PageFields = Omit<GalleryPage, 'site'> & { readonly site: string };

export const galleryButton = buttonCodec<PagingAction, PageFields>({
  namespace: GALLERY_NS,
  schema: z
    .tuple([
      segment.siteCode,
      segment.count,
      segment.count,
      segment.count,
      segment.snowflake,
      segment.time,
      segment.flag,
      segment.flag,
    ])
    .transform(([site, galleryId, page, total, owner, issuedAt, isPrivate, grid]) => ({
      site,
      galleryId,
      page,
      total,
      owner,
      issuedAt,
      private: isPrivate,
      grid,
    })),
  write: (state) => [
    state.site,
    state.galleryId,
    state.page,
    state.total,
    state.owner,
    encodeTime(state.issuedAt),
    state.private ? 1 : 0,
    state.grid ? 1 : 0,
  ],
});

export function encodeGalleryButton(action: PagingAction, state: GalleryPage): string {
  return galleryButton.encode(action, { ...state, site: siteCode(state.site) });
}

/** A grid's item picker: anyone may pick, and sees that image's card privately. */
export const galleryPickCodec = buttonCodec<'pick', { readonly site: string }>({
  namespace: GALLERY_NS,
  schema: z.tuple([segment.siteCode]).transform(([site]) => ({ site })),
  write: ({ site }) => [site],
});

/**
 * The list's select: the chosen gallery opens for the member who searched (in place, or beside a list
 * asked as a grid), and as a private answer of their own for anyone else. The form chosen goes with it.
 */
export interface ListChoice {
  readonly site: string;
  readonly owner: string;
  readonly private: boolean;
  readonly grid: boolean;
}

export const galleryListCodec = buttonCodec<'open', ListChoice>({
  namespace: GALLERY_NS,
  schema: z
    .tuple([segment.siteCode, segment.snowflake, segment.flag, segment.flag])
    .transform(([site, owner, isPrivate, grid]) => ({ site, owner, private: isPrivate, grid })),
  write: (choice) => [choice.site, choice.owner, choice.private ? 1 : 0, choice.grid ? 1 : 0],
});
