/**
 * Gallery search; the owner's fields are named by the error style (`user` on Derpibooru, `creator`
 * upstream).
 */
import type { Board } from '../board-context.js';
import { listSearch } from '../listing.js';
import { galleryJson, gallerySearchSchema } from '../render.js';

export function registerGalleryRoutes(board: Board): void {
  board.add('GET', /^\/search\/galleries$/, (ctx) =>
    listSearch(
      board,
      ctx,
      'galleries',
      board.data.galleries,
      gallerySearchSchema,
      (g) => galleryJson(g, board.style),
      (a, b) => b.id - a.id,
    ),
  );
}
