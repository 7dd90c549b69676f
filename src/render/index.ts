/**
 * The pure renderers of the bot: cards, Markdown, Discord limits, allowed mentions; only what is imported
 * through here (knip keeps it so). The rating rule's functions are imported from rating-rule.ts itself, so
 * every gate names the room it asks.
 */
export type { Audience, CardFilter, Gate } from './rating-rule.js';
export { imageCard, type CardContext, type ImageCard } from './image-card.js';
export type { CardMedia } from './media.js';
export { sourceEntry } from './credit-and-sources.js';
export type { DescriptionMemo } from './description-memo.js';
export { countComponents, imageCardV2, v2TextLength, type V2Card, type V2CardOptions } from './card-v2.js';
export { imageGrid, type Grid, type GridOptions } from './grid.js';
export { tagCard, type TagCardContext } from './tag-card.js';
export {
  escapeInline,
  escapeMarkdown,
  neutraliseMentions,
  truncate,
  truncateMarkdown,
} from './discord-text.js';
export { boardMarkdownToDiscord } from './board-markdown.js';
export * from './limits.js';
export { NO_MENTIONS } from './mentions.js';
