/**
 * The checks every parameter passes before anything is sent: ids are whole numbers in range, `page` >= 1,
 * `perPage` 1..50, `distance` 0..1, `limit` 1..50, `sf`/`sd` one of the server's values (Philomena's
 * `openapi.yaml`, docs/board-behaviour.md "Parameters"), an upload's `tag_input` present, path segments
 * non-empty text. A bad value throws a `RangeError` (or `TypeError` for a value of the wrong type) naming
 * the parameter: a programming error, since callers bound user input already, so it is not clamped silently.
 */
import { isSortField } from './sort-fields.js';
import type { FilterOption, PageOptions } from './types.js';

/** A query of path parameters; `undefined` values are left out. */
export type Query = Record<string, string | number | undefined>;

export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.append(name, String(value));
  }
  return params.toString();
}

/** Image ids start at 0 (Derpibooru's first upload is image 0); every other id starts at 1. */
export function imageId(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`image id must be a whole number from 0, got ${String(value)}`);
  }
  return value;
}

export function positiveInt(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

export function inRange(name: string, value: number, min: number, max: number, integer: boolean): number {
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new RangeError(
      `${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${String(value)}`,
    );
  }
  return value;
}

export function text(name: string, value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  return value;
}

/** Caller text as one path segment (forum, topic): a lone surrogate is sent as U+FFFD, never a URIError. */
export function segment(name: string, value: string): string {
  if (text(name, value).trim() === '') throw new RangeError(`${name} must not be empty`);
  return encodeURIComponent(value.toWellFormed());
}

export function pageQuery(options: PageOptions | undefined): Query {
  return {
    page: options?.page === undefined ? undefined : positiveInt('page', options.page),
    per_page: options?.perPage === undefined ? undefined : inRange('perPage', options.perPage, 1, 50, true),
  };
}

/** The view's filter as `filter_id`; unset means the site's default filter. */
export function filterQuery(filter: FilterOption | undefined): Query {
  return {
    filter_id: filter?.filterId === undefined ? undefined : positiveInt('filterId', filter.filterId),
  };
}

/** `sf` and `sd` of an image search, checked against the server's values. */
export function sortQuery(options: { readonly sf?: string; readonly sd?: string }): Query {
  if (options.sf !== undefined && !isSortField(options.sf)) {
    throw new RangeError(`sf must be a sort field of the server, got ${String(options.sf)}`);
  }
  if (options.sd !== undefined && options.sd !== 'asc' && options.sd !== 'desc') {
    throw new RangeError(`sd must be asc or desc, got ${String(options.sd)}`);
  }
  return { sf: options.sf, sd: options.sd };
}

/**
 * An upload's `tag_input`: the board requires it (docs/board-behaviour.md, "Parameters"; at least three tags
 * with a rating, which the board itself checks and answers in `errors.tag_input`), so an upload without
 * any is refused here, before anything is sent.
 */
export function tagInputOf(value: unknown): string {
  if (value === undefined)
    throw new RangeError('tagInput is required: the board refuses an upload without tags');
  const tags = text('tagInput', value);
  if (tags.trim() === '')
    throw new RangeError('tagInput must not be empty: the board refuses an upload without tags');
  return tags;
}
