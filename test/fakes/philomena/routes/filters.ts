/**
 * Filters: system ones, the key owner's (both by id, as the board orders them), one by id (only if the
 * caller may use it) and filter search, sorted as search/filter_controller.ex sorts it (openapi.yaml:
 * "sorted by name"): by the lower-cased name its index holds, then by id descending.
 */
import { empty, json, numeric, type Board } from '../board-context.js';
import { canUseFilter } from '../filtering.js';
import { listSearch, paginate, pagination } from '../listing.js';
import type { FilterRecord } from '../data.js';
import { filterJson, filterSearchSchema } from '../render.js';

/** The index's keyword order (bytes of the lower-cased name), then the newest filter first. */
function byName(a: FilterRecord, b: FilterRecord): number {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : b.id - a.id;
}

export function registerFilterRoutes(board: Board): void {
  board.add('GET', /^\/filters\/system$/, (ctx) => {
    const { page, perPage } = pagination(ctx.params, 25);
    const list = board.data.filters.filter((f) => f.system).sort((a, b) => a.id - b.id);
    return json(200, { filters: paginate(list, page, perPage).map(filterJson), total: list.length });
  });
  board.add('GET', /^\/filters\/user$/, (ctx) => {
    if (ctx.user === undefined) return empty(403);
    const user = ctx.user;
    const { page, perPage } = pagination(ctx.params, 25);
    const list = board.data.filters.filter((f) => f.userId === user.id).sort((a, b) => a.id - b.id);
    return json(200, { filters: paginate(list, page, perPage).map(filterJson), total: list.length });
  });
  board.add('GET', /^\/filters\/([^/]+)$/, (ctx, m) => {
    const id = numeric(m[1]);
    if (id === undefined) return board.badRequest();
    const filter = board.data.filters.find((f) => f.id === id);
    if (!filter || !canUseFilter(filter, ctx.user)) return board.notFound();
    return json(200, { filter: filterJson(filter) });
  });
  board.add('GET', /^\/search\/filters$/, (ctx) => {
    const visible = board.data.filters.filter((f) => canUseFilter(f, ctx.user));
    return listSearch(board, ctx, 'filters', visible, filterSearchSchema, filterJson, byName);
  });
}
