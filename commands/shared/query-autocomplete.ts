/**
 * Tag suggestions for a search query being typed (`/search query`, `/feed add query`): the last term of
 * the query is completed, a negation in front of it kept, and every choice's value is the whole query
 * with the tag in place (Discord replaces the option with it), within Discord's 100 characters.
 */
import type { ApplicationCommandOptionChoiceData } from 'discord.js';
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import { lastTerm } from '../../src/philomena/tags.js';
import type { Say } from './say.js';
import { CHOICE_TEXT_MAX, suggestionLabel, suggestTags } from './tag-suggestions.js';

/** The longest query a member may give (`/search`, `/feed add`). */
export const QUERY_MAX = 1000;

export async function queryChoices(
  client: PhilomenaClient,
  typed: string,
  options: {
    readonly ageRestricted: boolean;
    readonly signal: AbortSignal;
    /** The member's words (their `context.locale`): the choices' names are read by them. */
    readonly say: Say;
  },
): Promise<ApplicationCommandOptionChoiceData[]> {
  const { prefix, term } = lastTerm(typed);
  // Keep a negation the member typed in front of the term.
  const negation = /^(?:-|!|NOT\s+)/i.exec(term)?.[0] ?? '';
  const bare = term.slice(negation.length);
  if (bare.trim() === '') return [];
  // A choice replaces the whole option, so its value is everything typed before the term plus the tag,
  // and Discord caps a value at 100 characters: only tags that fit are offered. Without room for even
  // one character, there is nothing to offer and the board is not asked.
  const lead = `${prefix}${negation}`;
  const room = CHOICE_TEXT_MAX - lead.length;
  if (room <= 0) return [];
  const tags = await suggestTags(client, bare, options);
  return tags
    .filter((tag) => tag.name.length <= room)
    .map((tag) => ({ name: suggestionLabel(tag, options.say), value: `${lead}${tag.name}` }));
}
