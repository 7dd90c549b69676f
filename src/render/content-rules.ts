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
import { sayEnglish, type Say } from '../i18n/index.js';
import { isSafe } from '../philomena/tags.js';
import { escapeInline, truncate } from './discord-text.js';
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

/** What a rule did to one image (counted by layer in the metrics). */
export type RuleDecision = 'hidden' | 'spoilered';

/** The rules that apply where a card goes, outermost layer first. */
export interface ContentRules {
  /** Tags whose images show no picture, tags or description here. */
  readonly hidden: readonly TagRule[];
  /**
   * Tags whose images show their picture only behind Discord's spoiler here (a server's or a channel's own
   * spoilered tags); none when absent.
   */
  readonly spoilered?: readonly TagRule[];
  /** Told of each image a rule hid or spoilered (metrics); the rules decide the same without it. */
  readonly observe?: (decision: RuleDecision, layer: RuleLayer) => void;
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

/**
 * The first spoilered rule that applies to an image with these tags, or undefined. Only consulted for an
 * image no rule hides (a hidden image shows nothing, spoiler or not).
 */
export function spoileringRule(tags: readonly string[], rules: ContentRules): TagRule | undefined {
  const spoilered = rules.spoilered;
  if (spoilered === undefined || spoilered.length === 0) return undefined;
  const names = new Set(tags);
  let safe: boolean | undefined;
  return spoilered.find(
    (rule) => names.has(rule.tag) && (rule.ratings === 'any' || !(safe ??= isSafe(tags))),
  );
}

/** The most hidden tags one search leaves out in its query (the board says long generated queries cost more). */
export const QUERY_EXCLUSIONS_MAX = 40;

/**
 * The tags a search leaves out in its query so that its pages stay full: the community's hidden tags (a
 * member's own list first, then the channel's, then the server's), each once, at most
 * QUERY_EXCLUSIONS_MAX. The floor's are not among them: boards keep such images out themselves, and every
 * query of every search would pay for them; like everything else, every result is still checked one by
 * one, so a tag past the bound only costs a thinner page, never a hidden picture.
 */
export function queryExclusions(rules: ContentRules): readonly string[] {
  const order: readonly RuleLayer[] = ['member', 'channel', 'server'];
  const out = new Set<string>();
  for (const layer of order) {
    for (const rule of rules.hidden) {
      if (out.size >= QUERY_EXCLUSIONS_MAX) return [...out];
      if (rule.layer === layer && rule.ratings === 'any') out.add(rule.tag);
    }
  }
  return [...out];
}

/**
 * What a spoilered card says about why, in `say`'s language: the layer and the tag (a spoiler names what
 * it covers; the tag as the board writes it).
 */
export function spoileredNotice(rule: TagRule, say: Say = sayEnglish): string {
  return say('card.rule.spoilered', {
    layer: rule.layer === 'channel' ? 'channel' : 'server',
    tag: escapeInline(truncate(rule.tag, 100)),
  });
}

/**
 * What a hidden card says about why, by layer, in `say`'s language (the tag is named only to whoever
 * asks, privately).
 */
export function hiddenNotice(layer: RuleLayer, say: Say = sayEnglish): string {
  switch (layer) {
    case 'floor':
      return say('card.rule.hidden.floor');
    case 'server':
      return say('card.rule.hidden.server');
    case 'channel':
      return say('card.rule.hidden.channel');
    case 'member':
      return say('card.rule.hidden.member');
  }
}
