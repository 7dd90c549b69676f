/**
 * Paging and query search shared by the list endpoints: `page`/`per_page` as Philomena reads them, and
 * a search over one list (empty `q` gives nothing, a query that does not parse gives 400 with the
 * parser's message).
 */
import { json, type Board, type HttpAnswer, type RequestContext } from './board-context.js';
import { QueryError, queryPredicate } from './query.js';
import type { Predicate, SearchSchema } from './query.js';

export function pagination(
  params: URLSearchParams,
  defaultPerPage: number,
): { page: number; perPage: number } {
  const pageRaw = params.get('page') ?? '';
  const page = /^\d+$/.test(pageRaw.trim()) ? Math.max(1, Number(pageRaw)) : 1;
  const perRaw = (params.get('per_page') ?? '').trim();
  let perPage = defaultPerPage;
  if (/^-?\d+$/.test(perRaw)) perPage = Math.min(50, Math.max(1, Number(perRaw)));
  return { page, perPage };
}

export function paginate<T>(items: readonly T[], page: number, perPage: number): T[] {
  return items.slice((page - 1) * perPage, page * perPage);
}

export function predicateOrError<T>(
  board: Board,
  ctx: RequestContext,
  schema: SearchSchema<T>,
): { predicate: Predicate<T> } | { answer: HttpAnswer } | { emptyQuery: true } {
  const q = ctx.params.get('q');
  if (q === null || q.trim() === '') return { emptyQuery: true };
  try {
    return { predicate: queryPredicate(q, schema, board.queryContext(ctx)) };
  } catch (error) {
    if (error instanceof QueryError) return { answer: json(400, { error: error.message }) };
    throw error;
  }
}

export function listSearch<T>(
  board: Board,
  ctx: RequestContext,
  key: string,
  items: readonly T[],
  schema: SearchSchema<T>,
  render: (item: T) => unknown,
  compare: (a: T, b: T) => number,
): HttpAnswer {
  const compiled = predicateOrError(board, ctx, schema);
  if ('answer' in compiled) return compiled.answer;
  const { page, perPage } = pagination(ctx.params, 25);
  if ('emptyQuery' in compiled) return json(200, { [key]: [], total: 0 });
  const hits = items.filter(compiled.predicate).sort(compare);
  return json(200, { [key]: paginate(hits, page, perPage).map(render), total: hits.length });
}

export const byCreatedDesc = <T extends { createdAt: string; id: number }>(a: T, b: T): number =>
  b.createdAt.localeCompare(a.createdAt) || b.id - a.id;
