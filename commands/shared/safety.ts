/**
 * The bot's channel rules, as pure functions: whether a channel is age-restricted or a spoiler channel,
 * and the search query that keeps non-age-restricted channels to `safe` images. Which images may be shown
 * there is the rating rule (src/render/rating-rule.ts), re-exported below.
 *
 * Everything fails closed: an unknown channel is not age-restricted, a channel that says it is both
 * age-restricted and a spoiler channel is a plain spoiler channel, a thread whose parent is unknown is a
 * spoiler channel's, an image without a rating tag is not safe, and a query whose brackets could escape
 * the `safe` clause is made literal.
 */
import { ChannelFlags, ChannelType } from 'discord.js';
import { quoteTag } from '../../src/philomena/tags.js';
import { queryExclusions, type ContentRules } from '../../src/render/content-rules.js';

/**
 * What the rules need of a channel; a discord.js `Channel` fits it as it is, and so do the runtime's
 * `ChannelFacts`. `parent` is read only for threads, which have no age restriction or spoiler flag of
 * their own and follow their parent channel. `flags` is Discord's channel flags field: a number, or
 * discord.js's bit field of it.
 */
export interface ChannelLike {
  /** The channel's id (which of a server's channel settings apply: commands/shared/view.ts). */
  readonly id?: string;
  /** A thread's parent channel id (discord.js threads and the runtime's facts carry it). */
  readonly parentId?: string | null;
  readonly type: number;
  readonly nsfw?: boolean | null;
  readonly flags?: unknown;
  readonly parent?: unknown;
}

/**
 * IS_SPOILER_CHANNEL (1 << 21, July 2026; docs/spoiler-channels.md): members opt in to view the channel,
 * and media posted there belongs behind a spoiler. Discord sets it only on channels that are not
 * age-restricted.
 */
export const IS_SPOILER_CHANNEL: number = ChannelFlags.IsSpoilerChannel;

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

/** Whether `channel` is a thread (public, private or an announcement's), which follows its parent. */
export function isThread(channel: { readonly type: number }): boolean {
  return THREAD_TYPES.has(channel.type);
}

/** A channel's flags field as a number: Discord's number, or the one in discord.js's bit field; else 0. */
function flagsOf(channel: object): number {
  const flags: unknown = 'flags' in channel ? channel.flags : undefined;
  if (typeof flags === 'number') return flags;
  if (typeof flags === 'object' && flags !== null && 'bitfield' in flags) {
    const bits: unknown = flags.bitfield;
    if (typeof bits === 'number') return bits;
  }
  return 0;
}

function spoilerFlagged(channel: unknown): boolean {
  if (typeof channel !== 'object' || channel === null) return false;
  return (flagsOf(channel) & IS_SPOILER_CHANNEL) !== 0;
}

function flagged(channel: unknown): boolean {
  if (typeof channel !== 'object' || channel === null) return false;
  const type = 'type' in channel ? channel.type : undefined;
  const nsfw = 'nsfw' in channel ? channel.nsfw : undefined;
  // A channel flagged both ways is not one Discord makes: read it as the plain spoiler channel it may be.
  return typeof type === 'number' && FLAGGED_TYPES.has(type) && nsfw === true && !spoilerFlagged(channel);
}

/**
 * True only for an age-restricted guild channel, or a thread whose parent is one, that is not also
 * marked a spoiler channel. DMs, group DMs, categories, unknown types, a thread without a known parent,
 * and no channel at all are false.
 */
export function isAgeRestrictedChannel(channel: ChannelLike | null | undefined): boolean {
  if (!channel) return false;
  if (THREAD_TYPES.has(channel.type)) return flagged(channel.parent) && !spoilerFlagged(channel);
  return flagged(channel);
}

/**
 * Whether every picture posted here goes behind Discord's spoiler: a spoiler channel (IS_SPOILER_CHANNEL),
 * or a thread of one. A thread is judged by its parent, as for age restriction, and fails closed: a
 * thread whose parent is unknown (a server the bot is not in) counts as a spoiler channel's, and so does
 * one carrying the flag itself. For the rating rule a spoiler channel is a plain channel (see
 * {@link isAgeRestrictedChannel}). No channel at all is false: the caller decides (resolveView).
 */
export function isSpoilerChannel(channel: ChannelLike | null | undefined): boolean {
  if (!channel) return false;
  if (spoilerFlagged(channel)) return true;
  if (!THREAD_TYPES.has(channel.type)) return false;
  const parent = channel.parent;
  return typeof parent !== 'object' || parent === null || spoilerFlagged(parent);
}

/**
 * The rating rule itself (what a channel may show of an image) lives in src/render/rating-rule.ts, where
 * every card applies it; here for the callers that decide without a card.
 */
export {
  isNotSafeRating,
  mayShow,
  unratedMayShow,
  wordsAboutImageMayShow,
} from '../../src/render/rating-rule.js';

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

/**
 * The query the board gets for a search in `view`: `safeSearchQuery`, and the community's hidden tags left
 * out (`-"tag"` terms, bounded: content-rules.ts `queryExclusions`), so pages stay full. With exclusions
 * the member's query goes last, in brackets in every channel (an `OR` must not swallow them), made literal
 * where its brackets could escape, as outside age-restricted channels.
 */
export function boardQuery(
  query: string,
  view: { readonly ageRestricted: boolean; readonly rules: ContentRules },
): string {
  const excluded = queryExclusions(view.rules);
  if (excluded.length === 0) return safeSearchQuery(query, view.ageRestricted);
  const trimmed = query.trim();
  // `safe` and the exclusions come first: a quote the member left open can only run to the end of the
  // query, never over a term of ours (`bracketsAreSafe` lets such a query through when it has no brackets).
  const parts: string[] = view.ageRestricted ? [] : ['safe'];
  for (const tag of excluded) parts.push(`-${quoteTag(tag)}`);
  if (trimmed !== '') parts.push(`(${bracketsAreSafe(trimmed) ? trimmed : literal(trimmed)})`);
  return parts.join(', ');
}
