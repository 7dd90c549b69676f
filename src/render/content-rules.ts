/**
 * Rules in layers: tags that keep an image out of a card whatever the board filter lets through. The
 * outermost layer is the operator's floor (src/render/floor.ts): what Discord's Community Guidelines forbid
 * anywhere on Discord, age-restricted channels included. The rating rule (rating-rule.ts) and the board
 * filter come after it; a layer can only hide more, never show what an outer one hides.
 *
 * A rule is a tag and the ratings it applies to: `any` (the tag only ever marks what must not be shown),
 * or `not-safe` (the tag matters only together with a rating other than exactly `safe`, unrated included:
 * a young character is fine in a safe picture). Names compare as the board writes them (lowercase, one
 * space between words); an alias never appears in an image's tags, so a rule names the tag itself.
 */
import { isSafe } from '../philomena/tags.js';
import { DEFAULT_FLOOR } from './floor.js';

/** Who set a rule: the operator's floor, the server, the channel, or the member for themselves. */
export type RuleLayer = 'floor' | 'server' | 'channel' | 'member';

/** The ratings a rule applies to. */
export type RuleRatings = 'any' | 'not-safe';

export interface TagRule {
  readonly tag: string;
  readonly ratings: RuleRatings;
  readonly layer: RuleLayer;
}

/** The rules that apply where a card goes, outermost layer first. */
export interface ContentRules {
  /** Tags whose images show no picture, tags or description here. */
  readonly hidden: readonly TagRule[];
}

/** The floor's defaults alone: what every card obeys when the caller names no rules (fail closed). */
export const FLOOR_ONLY: ContentRules = { hidden: DEFAULT_FLOOR };

/** A tag name as the board writes it: lowercase, trimmed, runs of blanks as one space. */
export function normaliseTagName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, ' ');
}

/**
 * The first rule (outermost layer first) that hides an image with these tags, or undefined. An image's tags
 * come from the board as it writes them, and a rule's tag is kept that way (floorRules and the lists
 * normalise what people type), so the names compare as they are: this runs for every card.
 */
export function hidingRule(tags: readonly string[], rules: ContentRules = FLOOR_ONLY): TagRule | undefined {
  if (rules.hidden.length === 0) return undefined;
  const names = new Set(tags);
  // The rating is read only once a rule's tag is there: most images carry none.
  let safe: boolean | undefined;
  return rules.hidden.find(
    (rule) => names.has(rule.tag) && (rule.ratings === 'any' || !(safe ??= isSafe(tags))),
  );
}

/** What a hidden card says about why, by layer (the tag is named only to whoever asks, privately). */
export function hiddenNotice(layer: RuleLayer): string {
  switch (layer) {
    case 'floor':
      return "This image is hidden by the bot's own rules, which keep out what Discord does not allow anywhere.";
    case 'server':
      return "This image is hidden by this server's rules.";
    case 'channel':
      return "This image is hidden by this channel's rules.";
    case 'member':
      return 'This image is hidden by your own list.';
  }
}
