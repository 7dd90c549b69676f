/**
 * Tags by slug, and tag search ordered by image count (an alias counts none), then by name.
 */
import { json, type Board } from '../board-context.js';
import { listSearch } from '../listing.js';
import { tagJson, tagSearchSchema } from '../render.js';

export function registerTagRoutes(board: Board): void {
  board.add('GET', /^\/tags\/([^/]+)$/, (_ctx, m) => {
    let slug: string;
    try {
      slug = decodeURIComponent(m[1] ?? '');
    } catch {
      return board.badRequest();
    }
    const tag = board.tagIndex.bySlug.get(slug);
    if (!tag) return board.notFound();
    return json(200, { tag: tagJson(tag, board.tagIndex, board.base) });
  });
  board.add('GET', /^\/search\/tags$/, (ctx) =>
    listSearch(
      board,
      ctx,
      'tags',
      board.data.tags,
      tagSearchSchema(board.tagIndex),
      (t) => tagJson(t, board.tagIndex, board.base),
      (a, b) => {
        const count = (t: typeof a): number =>
          t.aliasOf === null ? (board.tagIndex.counts.get(t.name) ?? 0) : 0;
        return count(b) - count(a) || a.name.localeCompare(b.name);
      },
    ),
  );
}
