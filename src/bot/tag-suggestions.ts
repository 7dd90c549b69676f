/**
 * Tag suggestions for autocomplete: the tags whose name starts with what is being typed, most used first.
 * The term goes into `name:<term>*` with every search-syntax character escaped, so what a member types
 * can only ever be a name prefix. Responses are cached by the client's response cache.
 */
import type { PhilomenaClient } from '../philomena/client-types.js';

export interface TagSuggestion {
  /** The tag to use (an alias is replaced by its target). */
  readonly name: string;
  readonly images: number;
}

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
  const seen = new Set<string>();
  const suggestions: TagSuggestion[] = [];
  for (const tag of page.items) {
    const name = tag.aliased_tag ?? tag.name;
    if (seen.has(name)) continue;
    seen.add(name);
    suggestions.push({ name, images: tag.images });
  }
  return suggestions.slice(0, limit);
}
