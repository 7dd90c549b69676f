/**
 * Tag suggestions for autocomplete: the tags whose name starts with what is being typed, most used first.
 * The term goes into `name:<term>*` with every search-syntax character escaped, so what a member types
 * can only ever be a name prefix. Responses are cached by the client's response cache.
 *
 * Outside age-restricted channels the list offers no adult tag names with their counts (adult text in a
 * plain channel): rating tags other than `safe` are left out, and so are tags that imply one (the board's
 * own way of saying a tag is adult, e.g. a tag implying `explicit`).
 */
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { Tag } from '../../src/philomena/schemas.js';
import { tagNameOfSlug } from '../../src/philomena/tags.js';
import { isNotSafeRating } from './safety.js';
import type { Say } from './say.js';

export interface TagSuggestion {
  /** The tag to use: for an alias, its target's name (the board gives the target as a slug). */
  readonly name: string;
  /** The alias that was typed, when the suggestion came from one. */
  readonly alias?: string;
  /** Images carrying the tag; undefined for an alias whose target was not among the results. */
  readonly images: number | undefined;
}

/**
 * What the member reads in the list, in their language (`say`): `littlepip → oc:littlepip`, with the count
 * when it is known. Tag names stay as the board wrote them; the count is formatted for the language
 * (`pony (12,345)`, `pony (12.345)`), which is why even these few characters come from the catalogue.
 */
export function suggestionLabel(suggestion: TagSuggestion, say: Say): string {
  const label =
    suggestion.alias === undefined
      ? suggestion.name
      : say('autocomplete.tag.alias', { alias: suggestion.alias, name: suggestion.name });
  return suggestion.images === undefined
    ? label
    : say('autocomplete.tag.count', { label, count: suggestion.images });
}

export { CHOICE_TEXT_MAX } from '../../src/discord/autocomplete.js';

/** Characters with a meaning in Philomena's query syntax, escaped with `\`. */
const SYNTAX = /[\\"()*?^~,!&|-]/g;
const TERM_MAX = 80;

export function tagPrefixQuery(term: string): string {
  return `name:${term
    .slice(0, TERM_MAX)
    .toLowerCase()
    .replace(SYNTAX, (c) => `\\${c}`)}*`;
}

/** Prefixes of up to this many characters are served from their first character's search. */
const SHORT_PREFIX = 2;
/** The board's largest page: the most used tags of one first character. */
const SHORT_PREFIX_PAGE = 50;

/** The rating rule's test of a rating tag other than `safe`, on a name or a slug. */
function isAdultRating(nameOrSlug: string): boolean {
  return isNotSafeRating(tagNameOfSlug(nameOrSlug));
}

/** A rating tag other than `safe`, an alias of one, or a tag that implies one. */
function isAdultTag(tag: Tag): boolean {
  return (
    isAdultRating(tag.name) ||
    (tag.aliased_tag !== null && isAdultRating(tag.aliased_tag)) ||
    tag.implied_tags.some(isAdultRating)
  );
}

export async function suggestTags(
  client: Pick<PhilomenaClient, 'searchTags'>,
  term: string,
  options: {
    /** The channel allows adult content; outside such channels adult tags are not suggested. */
    readonly ageRestricted: boolean;
    readonly signal?: AbortSignal;
    readonly limit?: number;
  },
): Promise<TagSuggestion[]> {
  const trimmed = term.trim();
  if (trimmed === '') return [];
  const limit = options.limit ?? 25;
  // Short prefixes are what every member types first, so they must cost the board (and autocomplete's
  // small budget share) almost nothing: a one- or two-character prefix is answered from the most used
  // tags of its first character (one cached search per character and site), filtered here.
  const short = [...trimmed].length <= SHORT_PREFIX;
  const page = await client.searchTags({
    q: tagPrefixQuery(short ? ([...trimmed][0] ?? trimmed) : trimmed),
    perPage: short ? SHORT_PREFIX_PAGE : limit,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const prefix = trimmed.toLowerCase();
  const matches = (name: string): boolean => !short || name.toLowerCase().startsWith(prefix);
  // One suggestion per tag to use: an alias and its target (both may match the prefix) become one, the
  // target's own record winning since it has the count.
  const byName = new Map<string, TagSuggestion>();
  for (const tag of page.items) {
    if (!matches(tag.name)) continue;
    if (!options.ageRestricted && isAdultTag(tag)) continue;
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
