/**
 * The sort fields of the image search, in a module of their own: the client's types (types.ts) name them
 * and the parameter checks (params.ts) check against them, so neither has to import the other's file.
 */

/**
 * The sort fields of the image search (`sf`), besides the seeded `random:<n>` and `gallery_id:<n>`: the
 * `SortField` enum of Philomena's `openapi.yaml` (docs/board-behaviour.md, "Parameters").
 */
export const SORT_FIELDS = [
  'id',
  'updated_at',
  'first_seen_at',
  'aspect_ratio',
  'faves',
  'downvotes',
  'upvotes',
  'width',
  'height',
  'score',
  'comment_count',
  'tag_count',
  'wilson_score',
  'pixels',
  'size',
  'duration',
  'hides',
  '_score',
  'random',
] as const;

export type SortField = (typeof SORT_FIELDS)[number] | `random:${number}` | `gallery_id:${number}`;
export type SortDirection = 'asc' | 'desc';

const SORT_FIELD_SET: ReadonlySet<string> = new Set(SORT_FIELDS);

export function isSortField(value: string): value is SortField {
  return SORT_FIELD_SET.has(value) || /^(?:random|gallery_id):\d+$/.test(value);
}
