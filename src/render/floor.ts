/**
 * The operator's floor: what Discord's Community Guidelines forbid anywhere on Discord, age-restricted
 * channels included, kept out of every card whatever a server's filter allows. Discord forbids any content
 * that sexualises minors, drawn and AI-generated included (docs/discord-platform.md, "What Discord forbids
 * everywhere"); the boards forbid only part of it (Derpibooru's rule 5 bans human- or anthro-looking
 * underage sexual content and allows tagged feral `foalcon`; Ponybooru and Ponerpics keep what US law
 * allows; Furbooru and Manebooru ban sexualised young characters at `suggestive` and above), and tags can
 * be missing or wrong. The README's "The floor" lists each rule with its reason.
 *
 * Two kinds of rule: tags that only ever mark sexual content with minors hide an image at any rating; tags
 * that mark young characters hide it only together with a rating other than exactly `safe` (unrated
 * included: fail closed). Every known site shares one vocabulary (the pony boards fork or mirror
 * Derpibooru's, Furbooru adds the furry words), and a name a board does not know matches nothing, so every
 * site, known or not, gets the union: the floor never depends on which site a card comes from.
 *
 * Discord also forbids real gore and real animal cruelty, but the boards hold drawn art and one tag cannot
 * tell a photo from a drawing: that stays with the boards' own rules, the "no gore" preset and
 * NEVER_SHOW_TAGS.
 */
import { normaliseTagName, type TagRule } from './content-rules.js';

/** Tags that only ever mark sexual content with minors: hidden at every rating. */
export const SEXUALISED_MINOR_TAGS: readonly string[] = [
  'foalcon',
  'cubcon',
  'cub porn',
  'lolicon',
  'shotacon',
  'loli',
  'shota',
  'underage sex',
];

/** Tags that mark young characters: hidden together with any rating other than exactly `safe`. */
export const YOUNG_CHARACTER_TAGS: readonly string[] = [
  'foal',
  'filly',
  'colt',
  'cub',
  'young',
  'younger',
  'child',
  'children',
  'kid',
  'baby',
  'toddler',
  'underage',
  'age regression',
  'teenager',
];

/** The floor's defaults, as rules of the outermost layer. */
export const DEFAULT_FLOOR: readonly TagRule[] = [
  ...SEXUALISED_MINOR_TAGS.map((tag): TagRule => ({ tag, ratings: 'any', layer: 'floor' })),
  ...YOUNG_CHARACTER_TAGS.map((tag): TagRule => ({ tag, ratings: 'not-safe', layer: 'floor' })),
];

export interface FloorOptions {
  /** The defaults above; only an explicit operator setting turns them off (FLOOR_DEFAULTS=off). */
  readonly defaults: boolean;
  /** The operator's own tags, hidden at every rating (NEVER_SHOW_TAGS). */
  readonly neverShow: readonly string[];
}

/** The floor an operator's settings make: the defaults (unless turned off) and their own tags. */
export function floorRules(options: FloorOptions): readonly TagRule[] {
  const own = options.neverShow.map((tag): TagRule => ({
    tag: normaliseTagName(tag),
    ratings: 'any',
    layer: 'floor',
  }));
  return options.defaults ? [...DEFAULT_FLOOR, ...own] : own;
}
