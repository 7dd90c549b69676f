/**
 * The tag lists the layers keep (a server's, a channel's, a member's hidden and spoilered tags): names are
 * checked with the board as they are added, and every list is bounded.
 *
 * A name is kept as the board writes it (normaliseTagName), and as the tag images actually carry: an alias
 * never appears in an image's tags, so an alias is stored as its target and the answer says so. An unknown
 * name is refused with up to five suggestions (a prefix search of tag names, the same cached search as
 * autocomplete; for the first SUGGESTED_NAMES_MAX unknown names of a check). A board that is busy or down is
 * not "unknown": the check rejects with the board's error, so the member reads "try again"
 * (error-texts.ts) and nothing is stored.
 *
 * Every board call goes through the PhilomenaClient (cache, coalescing, the site's budget). One check asks
 * about at most TAG_NAMES_PER_CHECK names, CHECK_CONCURRENCY at a time, so one admin's long list cannot
 * take the site's whole budget from the members searching meanwhile.
 */
import type { CallOptions, PhilomenaClient } from '../../src/philomena/client/types.js';
import { NotFoundError } from '../../src/errors.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { normaliseTagName } from '../../src/render/content-rules.js';
import { neutraliseMentions, truncate } from '../../src/render/index.js';
import { sayEnglish, type Say } from './say.js';
import { suggestTags } from './tag-suggestions.js';

/** The most names one check asks the board about (one command's `tags:` option). */
export const TAG_NAMES_PER_CHECK = 25;
/** The longest tag name accepted, in characters; longer ones are refused without a board call. */
export const TAG_NAME_MAX = 100;
/** The most tags one layer keeps in one list. */
export const TAG_LIST_MAX = 200;
/** Board lookups of one check in flight at once. */
const CHECK_CONCURRENCY = 3;
const SUGGESTIONS_MAX = 5;
/** Unknown names of one check that get suggestions (each costs one or two tag searches). */
export const SUGGESTED_NAMES_MAX = 5;

/** A tag the board knows, as it will be stored. */
export interface AcceptedTag {
  /** The tag's own name (an alias's target), normalised. */
  readonly name: string;
  /** The names given that are stored as this tag under another name: an alias, or the tag's slug. */
  readonly via: readonly { readonly given: string; readonly alias: boolean }[];
}

/** A name the board does not know, with the tags whose names start like it. */
export interface UnknownTag {
  readonly given: string;
  /** Empty: none start like it; null: not looked up (past SUGGESTED_NAMES_MAX unknown names). */
  readonly suggestions: readonly string[] | null;
}

export type TagRefusal = 'too-long' | 'wildcard' | 'namespace-only' | 'query-syntax';

/** A name refused before any board call. */
export interface RefusedTag {
  readonly given: string;
  readonly reason: TagRefusal;
}

export interface TagCheck {
  /** The site's name, for the answer ("not a tag on Derpibooru"). */
  readonly site: string;
  /** In the order given; each tag once, however many names led to it. */
  readonly accepted: readonly AcceptedTag[];
  readonly unknown: readonly UnknownTag[];
  readonly refused: readonly RefusedTag[];
}

export interface CheckTagNamesOptions {
  /**
   * Whether the answer goes where adult text may be read: outside age-restricted channels suggestions
   * leave out adult tag names, as autocomplete does (tag-suggestions.ts).
   */
  readonly ageRestricted: boolean;
  readonly signal?: AbortSignal;
}

/**
 * Why a name cannot be a tag, or undefined: what someone used to writing searches types instead of names
 * (docs/board-behaviour.md, "Query syntax"). A list holds names only, so a wildcard or a search would be
 * looked up as a literal name and hide nothing. `raw` is the name as typed, since the search keywords are
 * upper-case only (`rock and roll` is a name, `gore OR blood` a search); `name` is it normalised. Negation
 * counts only before a letter or digit, and boost or fuzz only with its number, so emoticon tags such as
 * `-_-` and `^_^` stay names.
 */
function refusalOf(raw: string, name: string): TagRefusal | undefined {
  if ([...name].length > TAG_NAME_MAX) return 'too-long';
  if (/[*?]/.test(name)) return 'wildcard';
  if (/^[^:]+:$/.test(name)) return 'namespace-only';
  if (
    /[",]|&&|\|\|/.test(name) ||
    /^[-!](?=[\p{L}\p{N}])/u.test(name) ||
    /(?:^|\s)(?:AND|OR|NOT)(?:\s|$)/.test(raw) ||
    /\.(?:gt|gte|lt|lte):/.test(name) ||
    /[\^~]\d+(?:\.\d+)?$/.test(name)
  ) {
    return 'query-syntax';
  }
  return undefined;
}

/** What the board says of one name: the tag it is stored as, or nothing (unknown). */
type Lookup = { readonly name: string; readonly alias: boolean } | undefined;

/**
 * Checks tag names with the board: which are tags (aliases followed to their targets), which are unknown
 * (with suggestions), which cannot be tag names at all. Empty names are skipped and names that normalise
 * alike are asked about once. Rejects with a UserFacingError past TAG_NAMES_PER_CHECK distinct names
 * (before any board call), and with the board's own error when the board cannot answer.
 */
export async function checkTagNames(
  client: Pick<PhilomenaClient, 'site' | 'tag' | 'searchTags'>,
  names: readonly string[],
  options: CheckTagNamesOptions,
): Promise<TagCheck> {
  const given = new Map<string, string>();
  for (const raw of names) {
    const name = normaliseTagName(raw);
    if (name !== '' && !given.has(name)) given.set(name, raw);
  }
  if (given.size > TAG_NAMES_PER_CHECK) {
    throw new UserFacingError(
      'tags.too-many',
      `Give at most ${TAG_NAMES_PER_CHECK} tags at a time (that was ${given.size}); add the rest in another go.`,
      { params: { max: TAG_NAMES_PER_CHECK, given: given.size } },
    );
  }

  const refused: RefusedTag[] = [];
  const toAsk: string[] = [];
  for (const [name, raw] of given) {
    const reason = refusalOf(raw, name);
    if (reason === undefined) toAsk.push(name);
    else refused.push({ given: name, reason });
  }

  // The first board failure stops the rest: its error is the answer, and the lookups still queued would
  // only spend the budget of a site that is already struggling.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const call: CallOptions = { signal };

  async function lookUp(name: string): Promise<Lookup> {
    try {
      const own = await client.tag(name, { ...call, followAlias: false });
      if (own.aliased_tag === null || own.aliased_tag === '') {
        return { name: normaliseTagName(own.name), alias: false };
      }
      // The client follows the rest of a chain (and refuses a loop).
      const target = await client.tag(own.aliased_tag, call);
      return { name: normaliseTagName(target.name), alias: true };
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  async function suggestionsFor(name: string): Promise<string[]> {
    const ask = async (term: string): Promise<string[]> =>
      (
        await suggestTags(client, term, {
          ageRestricted: options.ageRestricted,
          limit: SUGGESTIONS_MAX,
          signal,
        })
      ).map((suggestion) => suggestion.name);
    const found = await ask(name);
    // A typo late in the name (`ai generatd`) matches no prefix; the name without its last word often
    // does. One more search at most, so a list of typos costs two searches a name.
    const lastSpace = name.lastIndexOf(' ');
    if (found.length > 0 || lastSpace <= 0) return found;
    return ask(name.slice(0, lastSpace));
  }

  const lookups = await inTurns(toAsk, CHECK_CONCURRENCY, stop, lookUp);

  const accepted = new Map<string, { name: string; via: AcceptedTag['via'][number][] }>();
  const missing: string[] = [];
  toAsk.forEach((name, i) => {
    const lookup = lookups[i];
    if (lookup === undefined) {
      missing.push(name);
      return;
    }
    const entry = accepted.get(lookup.name) ?? { name: lookup.name, via: [] };
    accepted.set(lookup.name, entry);
    if (name !== lookup.name) entry.via.push({ given: name, alias: lookup.alias });
  });

  // Searches have the smaller budget window (20 per 10 s by default): the first few unknown names, in the
  // order given, get suggestions; a list of many typos is answered without taking the window from everyone.
  const suggested = missing.slice(0, SUGGESTED_NAMES_MAX);
  const suggestions = await inTurns(suggested, CHECK_CONCURRENCY, stop, suggestionsFor);
  const unknown = missing.map((given, i): UnknownTag => ({ given, suggestions: suggestions[i] ?? null }));
  return { site: client.site.name, accepted: [...accepted.values()], unknown, refused };
}

/**
 * `work` over `items`, at most `limit` at a time, results in order. The first failure rejects at once and
 * aborts `stop`, so the items not started yet never start.
 */
async function inTurns<T, R>(
  items: readonly T[],
  limit: number,
  stop: AbortController,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stop.signal.aborted) {
      const index = next;
      next += 1;
      const item = items[index];
      if (item === undefined) continue;
      try {
        results[index] = await work(item);
      } catch (error) {
        stop.abort(error);
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A tag name inside `code`: cut short, and no backtick can close the span early. */
function codeOf(name: string, max = 60): string {
  return `\`${neutraliseMentions(truncate(name, max).replaceAll('`', 'ˋ'))}\``;
}

/** The catalogue key of each refusal's note (`{given}` the name in `code`). */
const REFUSAL_KEY: Readonly<Record<TagRefusal, string>> = {
  'too-long': 'tags.refused.too-long',
  wildcard: 'tags.refused.wildcard',
  'namespace-only': 'tags.refused.namespace-only',
  'query-syntax': 'tags.refused.query-syntax',
};

/**
 * What the answer says about a check besides the tags simply accepted: aliases and other spellings stored
 * under the tag's own name, unknown names with their suggestions, refused names with the reason. One line
 * each, Markdown, every name in `code`, in `say`'s language (English by default).
 */
export function tagCheckNotes(check: TagCheck, say: Say = sayEnglish): string[] {
  const lines: string[] = [];
  for (const tag of check.accepted) {
    for (const { given, alias } of tag.via) {
      lines.push(
        say(alias ? 'tags.note.alias' : 'tags.note.stored-as', {
          given: codeOf(given),
          name: codeOf(tag.name),
        }),
      );
    }
  }
  const site = neutraliseMentions(truncate(check.site, 60));
  for (const { given, suggestions } of check.unknown) {
    const params = { given: codeOf(given), site };
    lines.push(
      suggestions === null
        ? say('tags.note.unknown.unchecked', params)
        : suggestions.length === 0
          ? say('tags.note.unknown.no-match', params)
          : say('tags.note.unknown.suggested', {
              ...params,
              suggestions: suggestions.map((name) => codeOf(name)).join(', '),
            }),
    );
  }
  if (check.unknown.length > SUGGESTED_NAMES_MAX) {
    lines.push(say('tags.note.suggestions-limited', { count: SUGGESTED_NAMES_MAX }));
  }
  for (const { given, reason } of check.refused) {
    lines.push(say(REFUSAL_KEY[reason], { given: codeOf(given), max: TAG_NAME_MAX }));
  }
  return lines;
}

/** A list after a change, and what the change did. */
export interface TagListChange {
  readonly list: readonly string[];
  /** The names the change added (or removed), normalised, in the order given. */
  readonly changed: readonly string[];
  /** The names that were already in the list (or, removing, were not in it). */
  readonly unchanged: readonly string[];
}

/**
 * `list` with `additions` appended (normalised, each once, those already in it left alone). Throws a
 * UserFacingError saying the limit, and changes nothing, when the list would grow past `max`.
 */
export function mergeTagList(
  list: readonly string[],
  additions: readonly string[],
  max: number = TAG_LIST_MAX,
): TagListChange {
  const present = new Set(list.map(normaliseTagName));
  const added: string[] = [];
  const already: string[] = [];
  for (const raw of additions) {
    const name = normaliseTagName(raw);
    if (name === '' || added.includes(name) || already.includes(name)) continue;
    if (present.has(name)) already.push(name);
    else added.push(name);
  }
  if (present.size + added.length > max) {
    throw new UserFacingError(
      'tags.list-full',
      `A tag list holds at most ${max} tags: this one has ${present.size}, and that would add ` +
        `${added.length} more. Remove some first.`,
      { params: { max, size: present.size, adding: added.length } },
    );
  }
  return { list: [...list, ...added], changed: added, unchanged: already };
}

/** `list` without `removals` (compared normalised); names not in it are reported, not an error. */
export function removeFromTagList(list: readonly string[], removals: readonly string[]): TagListChange {
  const wanted = new Set(removals.map(normaliseTagName).filter((name) => name !== ''));
  const kept = list.filter((name) => !wanted.has(normaliseTagName(name)));
  const present = new Set(list.map(normaliseTagName));
  const removed = [...wanted].filter((name) => present.has(name));
  const absent = [...wanted].filter((name) => !present.has(name));
  return { list: kept, changed: removed, unchanged: absent };
}
