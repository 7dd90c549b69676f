/**
 * How a card presents an image's rating: its colour, its words, and rating tags listed first. What the
 * rating allows a channel to show is the rating rule's business (./rating-rule.ts), not this file's.
 */
import { sayEnglish, type Say } from '../i18n/index.js';
import { RATINGS, type Rating } from '../philomena/tags.js';

/** Colours by rating, most severe first: the first rating of the image in this list picks the colour. */
const RATING_COLOURS: readonly (readonly [Rating, number])[] = [
  ['grotesque', 0x1e1f22],
  ['grimdark', 0x2b2d31],
  ['explicit', 0xed4245],
  ['questionable', 0xe67e22],
  ['semi-grimdark', 0x4e5058],
  ['suggestive', 0xfee75c],
  ['safe', 0x57f287],
];
/** No rating tag, and deleted or merged stubs. */
export const NEUTRAL_COLOUR = 0x99aab5;

export function ratingColour(ratings: ReadonlySet<Rating>): number {
  return RATING_COLOURS.find(([rating]) => ratings.has(rating))?.[1] ?? NEUTRAL_COLOUR;
}

/**
 * The rating tags in the board's order, e.g. "questionable, grimdark" (the board's words, as written);
 * "no rating tag" in `say`'s language when none.
 */
export function ratingWords(ratings: ReadonlySet<Rating>, say: Say = sayEnglish): string {
  const words = RATINGS.filter((rating) => ratings.has(rating));
  return words.length === 0 ? say('card.rating.none') : words.join(', ');
}

/** Rating tags first (in the board's order), then the rest as the image lists them. */
export function ratingTagsFirst(tags: readonly string[]): string[] {
  const ratings = RATINGS.filter((rating) => tags.some((tag) => tag.trim().toLowerCase() === rating));
  const rest = tags.filter((tag) => !(RATINGS as readonly string[]).includes(tag.trim().toLowerCase()));
  return [...ratings, ...rest];
}
