/**
 * Tag suggestions for a search query being typed (`/search query`, `/feed add query`): the last term of
 * the query is completed, a negation in front of it kept, and every choice's value is the whole query
 * with the tag in place (Discord replaces the option with it), within Discord's 100 characters.
 *
 * A member who linked their board account on the site (issue 22 §2) also gets the `my:` terms while the
 * term being typed starts like one (`my`, `my:`, `-my:f`): made here, never asked of the board. Others get
 * none: their `my:` search would be refused (commands/search/member-search.ts).
 */
import type { ApplicationCommandOptionChoiceData } from 'discord.js';
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import { lastTerm } from '../../src/philomena/tags.js';
import { truncate } from '../../src/render/index.js';
import type { Say } from './say.js';
import { CHOICE_TEXT_MAX, suggestionLabel, suggestTags } from './tag-suggestions.js';

/** The longest query a member may give (`/search`, `/feed add`). */
export const QUERY_MAX = 1000;

/** Discord's most choices in one autocomplete answer. */
const CHOICES_MAX = 25;

/** The `my:` lists the board knows (docs/board-behaviour.md, "Search syntax"), in the order offered. */
export const MY_LISTS = ['faves', 'upvotes', 'downvotes', 'uploads', 'watched'] as const;

/** The label of each `my:` choice (the member's words; the term itself stays as the board writes it). */
const MY_LABELS = {
  faves: 'search.my-choice.faves',
  upvotes: 'search.my-choice.upvotes',
  downvotes: 'search.my-choice.downvotes',
  uploads: 'search.my-choice.uploads',
  watched: 'search.my-choice.watched',
} as const satisfies Record<(typeof MY_LISTS)[number], string>;

/** `my`, then optionally spaces, a colon and the start of a list name: a `my:` term being typed. */
const MY_TYPED = /^my(?:\s*:\s*([a-z]*))?$/i;

/** The last term of `typed` without its negation, and the negation. */
function typedTerm(typed: string): { readonly lead: string; readonly bare: string } {
  const { prefix, term } = lastTerm(typed);
  // Keep a negation the member typed in front of the term.
  const negation = /^(?:-|!|NOT\s+)/i.exec(term)?.[0] ?? '';
  return { lead: `${prefix}${negation}`, bare: term.slice(negation.length) };
}

/** The `my:` lists the term being typed in `typed` may become; empty when it is not a `my:` term. */
export function typedMyLists(typed: string): readonly (typeof MY_LISTS)[number][] {
  const match = MY_TYPED.exec(typedTerm(typed).bare);
  if (match === null) return [];
  const start = (match[1] ?? '').toLowerCase();
  return MY_LISTS.filter((list) => list.startsWith(start));
}

export async function queryChoices(
  client: PhilomenaClient,
  typed: string,
  options: {
    readonly ageRestricted: boolean;
    readonly signal: AbortSignal;
    /** The member's words (their `context.locale`): the choices' names are read by them. */
    readonly say: Say;
    /** Whether the member linked their account on the site: only then are `my:` terms offered. */
    readonly ownLists?: boolean;
  },
): Promise<ApplicationCommandOptionChoiceData[]> {
  const { lead, bare } = typedTerm(typed);
  if (bare.trim() === '') return [];
  // A choice replaces the whole option, so its value is everything typed before the term plus the tag,
  // and Discord caps a value at 100 characters: only tags that fit are offered. Without room for even
  // one character, there is nothing to offer and the board is not asked.
  const room = CHOICE_TEXT_MAX - lead.length;
  if (room <= 0) return [];
  const lists = options.ownLists === true ? typedMyLists(typed) : [];
  const own = lists
    .filter((list) => `my:${list}`.length <= room)
    .map((list) => ({
      name: truncate(options.say(MY_LABELS[list], { term: `my:${list}` }), CHOICE_TEXT_MAX),
      value: `${lead}my:${list}`,
    }));
  // A term with a colon after `my` is a `my:` term: the board holds no tag to suggest for it.
  if (/^my\s*:/i.test(bare)) return own;
  const tags = await suggestTags(client, bare, options);
  return [
    ...own,
    ...tags
      .filter((tag) => tag.name.length <= room)
      .map((tag) => ({ name: suggestionLabel(tag, options.say), value: `${lead}${tag.name}` })),
  ].slice(0, CHOICES_MAX);
}
