/**
 * Tag suggestions for autocomplete: the tags whose name starts with what is being typed, most used first.
 * The term goes into `name:<term>*` with every search-syntax character escaped, so what a member types
 * can only ever be a name prefix. Responses are cached by the client's response cache.
 */
import type { PhilomenaClient } from '../philomena/client-types.js';
import { tagNameOfSlug } from '../philomena/tags.js';

export interface TagSuggestion {
  /** The tag to use: for an alias, its target's name (the board gives the target as a slug). */
  readonly name: string;
  /** The alias that was typed, when the suggestion came from one. */
  readonly alias?: string;
  /** Images carrying the tag; undefined for an alias whose target was not among the results. */
  readonly images: number | undefined;
}

/** What the member reads in the list: `littlepip → oc:littlepip`, with the count when it is known. */
export function suggestionLabel(suggestion: TagSuggestion): string {
  const name = suggestion.alias === undefined ? suggestion.name : `${suggestion.alias} → ${suggestion.name}`;
  return suggestion.images === undefined ? name : `${name} (${suggestion.images})`;
}

/** Discord's limit on an autocomplete choice's name and on a string value, in characters. */
export const CHOICE_TEXT_MAX = 100;

/** Characters with a meaning in Philomena's query syntax, escaped with `\`. */
const SYNTAX = /[\\"()*?^~,!&|-]/g;
const TERM_MAX = 80;

export function tagPrefixQuery(term: string): string {
  return `name:${term
    .slice(0, TERM_MAX)
    .toLowerCase()
    .replace(SYNTAX, (c) => `\\${c}`)}*`;
}

export async function suggestTags(
  client: PhilomenaClient,
  term: string,
  options: { readonly signal?: AbortSignal; readonly limit?: number } = {},
): Promise<TagSuggestion[]> {
  const trimmed = term.trim();
  if (trimmed === '') return [];
  const limit = options.limit ?? 25;
  const page = await client.searchTags({
    q: tagPrefixQuery(trimmed),
    perPage: limit,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // One suggestion per tag to use: an alias and its target (both may match the prefix) become one, the
  // target's own record winning since it has the count.
  const byName = new Map<string, TagSuggestion>();
  for (const tag of page.items) {
    if (tag.aliased_tag === null) {
      byName.set(tag.name, { name: tag.name, images: tag.images });
    } else {
      const target = tagNameOfSlug(tag.aliased_tag);
      // An alias record counts no images of its own (the board says 0): leave the count out.
      if (!byName.has(target)) byName.set(target, { name: target, alias: tag.name, images: undefined });
    }
  }
  return [...byName.values()].slice(0, limit);
}
