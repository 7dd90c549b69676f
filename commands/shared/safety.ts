/**
 * The bot's safety rules, as pure functions: whether a channel is age-restricted, which images may be
 * shown there, and the search query that keeps non-age-restricted channels to `safe` images.
 *
 * Everything fails closed: an unknown channel is not age-restricted, an image without a rating tag is not
 * safe, and a query whose brackets could escape the `safe` clause is made literal.
 */
import { ChannelType } from 'discord.js';

/**
 * What the rule needs of a channel; a discord.js `Channel` fits it as it is. `parent` is read only for
 * threads, which have no age restriction of their own and follow their parent channel.
 */
export interface ChannelLike {
  readonly type: number;
  readonly nsfw?: boolean | null;
  readonly parent?: unknown;
}

/** Guild channels that carry Discord's own "age-restricted" flag. */
const FLAGGED_TYPES: ReadonlySet<number> = new Set([
  ChannelType.GuildText,
  ChannelType.GuildVoice,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildStageVoice,
  ChannelType.GuildForum,
  ChannelType.GuildMedia,
]);

const THREAD_TYPES: ReadonlySet<number> = new Set([
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
]);

function flagged(channel: unknown): boolean {
  if (typeof channel !== 'object' || channel === null) return false;
  const type = 'type' in channel ? channel.type : undefined;
  const nsfw = 'nsfw' in channel ? channel.nsfw : undefined;
  return typeof type === 'number' && FLAGGED_TYPES.has(type) && nsfw === true;
}

/**
 * True only for an age-restricted guild channel, or a thread whose parent is one. DMs, group DMs,
 * categories, unknown types, a thread without a known parent, and no channel at all are false.
 */
export function isAgeRestrictedChannel(channel: ChannelLike | null | undefined): boolean {
  if (!channel) return false;
  if (THREAD_TYPES.has(channel.type)) return flagged(channel.parent);
  return flagged(channel);
}

/** The rating rule of the cards (render/image-card.ts), for callers that decide without a card. */
export { mayShow } from '../../src/render/image-card.js';

/** A whole query that is one `"quoted term"`, with `\\` escapes inside. */
const QUOTED_TERM = /^"(?:[^"\\]|\\[\s\S])*"$/;

/**
 * Whether wrapping `query` in `( ... )` keeps it inside the brackets as the board's lexer reads it.
 *
 * The lexer (Philomena's search parser) reads `(` and `)` as grouping, except inside a term, where a
 * balanced `(...)` is part of the term, after a `\`, and inside a `"quoted term"`. Without quotes and
 * backslashes, every bracket is grouping or a balanced in-term pair, so brackets balanced by plain counting
 * (never below zero, zero at the end) cannot close our bracket early, and an in-term pair cannot reach
 * past the end of the query, since no suffix of a balanced query has more `(` than `)`. With quotes or
 * backslashes the reading depends on details of the lexer, so such a query counts only if it has no
 * brackets at all (then a quote cannot span our `)`: there is no closing quote after it), or if it is one
 * quoted term as a whole (a tag name with brackets, `"fluttershy (g4)"`, stays one term).
 */
function bracketsAreSafe(query: string): boolean {
  // One quoted term (what quoteTag makes for /tag's example search): the lexer reads from its opening
  // quote to its closing quote, the last character, so a bracket inside is text and cannot reach ours.
  if (QUOTED_TERM.test(query)) return true;
  const hasBrackets = /[()]/.test(query);
  if (!hasBrackets) return !/\\$/.test(query.replace(/\\\\/g, ''));
  if (/["\\]/.test(query)) return false;
  let depth = 0;
  for (const c of query) {
    if (c === '(') depth += 1;
    else if (c === ')') {
      depth -= 1;
      if (depth < 0) return false;
    }
  }
  return depth === 0;
}

/** Every bracket, quote and backslash escaped: the query can hold no grouping at all. */
function literal(query: string): string {
  return query.replace(/[\\()"]/g, (c) => `\\${c}`);
}

/**
 * The query the board gets. Outside age-restricted channels it is `(<query>), safe` (just `safe` when
 * the query is empty), and the user's text can never step outside the brackets: a query whose brackets
 * could (unbalanced, or mixed with quotes or backslashes) has its brackets escaped, so it is searched
 * literally rather than widened. In age-restricted channels the query goes as typed.
 */
export function safeSearchQuery(query: string, ageRestricted = false): string {
  const trimmed = query.trim();
  if (ageRestricted) return trimmed;
  if (trimmed === '') return 'safe';
  const inner = bracketsAreSafe(trimmed) ? trimmed : literal(trimmed);
  return `(${inner}), safe`;
}
