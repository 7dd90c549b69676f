/**
 * How the caller's filter applies to images: which filter a request gets (`filter_id` if the caller may
 * use it, else their own or Default), what it hides and spoilers (tags and complex clauses), and the
 * single-image answer that is unfiltered but says `spoilered`.
 */
import { json, type Board, type HttpAnswer, type RequestContext } from './board-context.js';
import { FILTER_IDS } from './data.js';
import type { FilterRecord, ImageRecord, UserRecord } from './data.js';
import { QueryError, queryPredicate } from './query.js';
import type { Predicate } from './query.js';
import { imageJson, imageSearchSchema } from './render.js';

export const canUseFilter = (filter: FilterRecord, user: UserRecord | undefined): boolean =>
  filter.system || filter.public || (user !== undefined && filter.userId === user.id);

export function currentFilter(board: Board, ctx: RequestContext): FilterRecord {
  const raw = ctx.params.get('filter_id');
  if (raw !== null && /^\d+$/.test(raw.trim())) {
    const wanted = board.data.filters.find((f) => f.id === Number(raw));
    if (wanted && canUseFilter(wanted, ctx.user)) return wanted;
  }
  const fallbackId = ctx.user?.currentFilterId ?? FILTER_IDS.default;
  const fallback =
    board.data.filters.find((f) => f.id === fallbackId) ??
    board.data.filters.find((f) => f.id === FILTER_IDS.default);
  if (!fallback) throw new Error('fake philomena: no default filter');
  return fallback;
}

/** Complex filters: one clause per line, OR-ed; a line that does not parse is ignored. */
function complexPredicate(board: Board, text: string | null, ctx: RequestContext): Predicate<ImageRecord> {
  if (text === null || text.trim() === '') return () => false;
  const schema = imageSearchSchema(board.tagIndex, board.data.galleries);
  const parts: Predicate<ImageRecord>[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    try {
      parts.push(queryPredicate(line, schema, board.queryContext(ctx)));
    } catch (error) {
      if (!(error instanceof QueryError)) throw error;
    }
  }
  return (image) => parts.some((p) => p(image));
}

export function filterTests(
  board: Board,
  filter: FilterRecord,
  ctx: RequestContext,
): {
  hidden: Predicate<ImageRecord>;
  spoilered: Predicate<ImageRecord>;
} {
  const hiddenIds = new Set(filter.hiddenTagIds);
  const spoileredIds = new Set(filter.spoileredTagIds);
  const hasAny = (image: ImageRecord, ids: ReadonlySet<number>): boolean =>
    image.tags.some((t) => ids.has(board.tagIndex.idsByName.get(t) ?? -1));
  const hiddenComplex = complexPredicate(board, filter.hiddenComplex, ctx);
  const spoileredComplex = complexPredicate(board, filter.spoileredComplex, ctx);
  return {
    hidden: (image) => hasAny(image, hiddenIds) || hiddenComplex(image),
    spoilered: (image) => hasAny(image, spoileredIds) || spoileredComplex(image),
  };
}

export const isStub = (image: ImageRecord): boolean =>
  image.deletionReason !== null || image.duplicateOf !== null;

/** Single-image views: unfiltered, `spoilered` means "hidden or spoilered by the current filter". */
export function singleImage(board: Board, image: ImageRecord, ctx: RequestContext): HttpAnswer {
  const tests = filterTests(board, currentFilter(board, ctx), ctx);
  const spoilered = !isStub(image) && (tests.hidden(image) || tests.spoilered(image));
  return json(200, { image: imageJson(image, spoilered, board.renderContext()), interactions: [] });
}
