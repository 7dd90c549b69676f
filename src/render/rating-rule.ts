/**
 * The rating rule: what a channel may show of an image. Outside it stands the operator's floor
 * (content-rules.ts, floor.ts): an image one of its rules hides shows nothing anywhere, age-restricted
 * channels included, and `mayShow` says no for it wherever it is asked. Every gate calls this file (the image card and
 * its V2 form, the grid, the tag card, the page cards, feeds, tag autocomplete); the search query that
 * keeps a channel to `safe` images is its twin on the board's side (commands/shared/safety.ts,
 * `safeSearchQuery`), and which channels are age-restricted or spoiler channels is decided there too.
 *
 * The rule, failing closed at every step:
 *
 * - Outside age-restricted channels, spoiler channels included, only an image rated exactly `safe`
 *   (its rating tags are `safe` and nothing else: no rating tag is not safe) shows its picture, its tags
 *   and its description. Any other image gets a card that credits, links and lists only the sources that
 *   are links. A channel that says it is both age-restricted and a spoiler channel is a spoiler channel.
 * - Words written about an image (a comment, a gallery's title and description) show only where that
 *   image's card shows its picture in full. What no rating covers (forum topics and posts; a tag's
 *   descriptions, aliases, implications and spoiler image) shows only in age-restricted channels, and
 *   only there does autocomplete offer rating tags other than `safe` (or tags implying one).
 * - The server's filter: an image one of its hidden tags hits (the board returns it `spoilered`) keeps
 *   no picture, not even behind a spoiler, and a grid leaves it out; a spoilered image shows neither picture nor description until revealed, and is pictured behind
 *   Discord's spoiler only where the filter is known and cannot be hiding it. A filter with a hidden
 *   search (`hidden_complex`), which the board matches and the bot cannot, may hide any spoilered image.
 * - Reveal (to one member) lifts the spoiler, never the rating rule.
 */
import type { Image, VisibleImage } from '../philomena/schemas.js';
import { isSafe, RATINGS } from '../philomena/tags.js';
import { FLOOR_ONLY, hidingRule, type ContentRules } from './content-rules.js';

/** What a card shows: everything, or why not. */
export type Gate =
  | 'full'
  | 'rating-restricted'
  /** A rule hides it (the floor, later the server's, channel's or member's own): nothing but credit and links. */
  | 'rule-hidden'
  | 'spoilered'
  | 'processing'
  | 'deleted'
  | 'merged';

/** The applied filter, as far as the gates need it (and the spoiler notice names its tags). */
export interface CardFilter {
  readonly name: string;
  readonly spoileredTagIds: readonly number[];
  readonly hiddenTagIds: readonly number[];
  /** The filter's hidden search (`hidden_complex`): an image it matches also comes back `spoilered`. */
  readonly hiddenComplex?: string | null;
}

/** Where a card goes, as the rule reads it. */
export interface Audience {
  /** The channel allows non-safe images. */
  readonly ageRestricted: boolean;
  /** A spoiler channel: for the rule a plain channel, whatever `ageRestricted` says. */
  readonly spoilerChannel?: boolean;
}

/**
 * Whether the rule treats `where` as age-restricted: a spoiler channel never is, whatever else the context
 * says (fail closed: Discord never makes a channel both).
 */
export function ageRestrictedFor(where: Audience): boolean {
  return where.ageRestricted && where.spoilerChannel !== true;
}

/**
 * Whether the image may show its picture, tags and description: anywhere if `safe`, else age-restricted
 * only, and never when a rule hides it (the floor's defaults when `rules` is not given: fail closed).
 */
export function mayShow(image: Image, ageRestricted: boolean, rules: ContentRules = FLOOR_ONLY): boolean {
  if (image.kind !== 'image') return false;
  if (hidingRule(image.tags, rules) !== undefined) return false;
  return ageRestricted || isSafe(image.tags);
}

/** Whether one of the image's tags is one of the filter's hidden tags (by id: fails closed on bad names). */
export function hiddenByFilter(image: VisibleImage, filter: CardFilter | undefined): boolean {
  if (filter === undefined) return false;
  const hidden = new Set(filter.hiddenTagIds);
  return image.tag_ids.some((id) => hidden.has(id));
}

/**
 * Whether a `spoilered` image may be one the filter hides rather than spoilers, so that it must keep no
 * picture, not even behind a native spoiler: the filter is unknown, one of its hidden tags hits the image,
 * or the filter has a hidden search (`hidden_complex`, which the board matches and the bot cannot: an
 * image it matches comes back just `spoilered`). Fails closed.
 */
export function mayBeHidden(image: VisibleImage, filter: CardFilter | undefined): boolean {
  if (filter === undefined) return true;
  if (hiddenByFilter(image, filter)) return true;
  return image.spoilered && (filter.hiddenComplex ?? '').trim() !== '';
}

/**
 * Whether a spoilered image's card may picture it behind Discord's native spoiler: it may be shown here,
 * and the filter is known and hides none of its tags (a hidden image keeps no picture; Reveal, to one
 * member, stays the way to see it).
 */
export function mayPictureSpoilered(
  image: VisibleImage,
  ageRestricted: boolean,
  filter: CardFilter | undefined,
  rules: ContentRules = FLOOR_ONLY,
): boolean {
  return mayShow(image, ageRestricted, rules) && !mayBeHidden(image, filter);
}

/**
 * Whether words written about an image (a comment's excerpt, a gallery's title and description) may show:
 * only where its card shows its picture in full (allowed here, neither hidden nor spoilered by the
 * filter). No card (the image could not be read) is no.
 */
export function wordsAboutImageMayShow(gate: Gate | undefined): boolean {
  return gate === 'full';
}

/**
 * Whether what no rating covers (forum titles and posts; a tag's descriptions, aliases, implications and
 * spoiler image, which any board staff member can set) may show: only in age-restricted channels.
 */
export function unratedMayShow(ageRestricted: boolean): boolean {
  return ageRestricted;
}

const NOT_SAFE_RATINGS: ReadonlySet<string> = new Set(RATINGS.filter((rating) => rating !== 'safe'));

/** Whether `name` is a rating tag other than `safe` (any case, surrounding space ignored). */
export function isNotSafeRating(name: string): boolean {
  return NOT_SAFE_RATINGS.has(name.trim().toLowerCase());
}
