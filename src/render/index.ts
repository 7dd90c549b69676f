/** The pure renderers of the bot: cards, Markdown, Discord limits, allowed mentions. */
export {
  ageRestrictedFor,
  hiddenByFilter,
  isNotSafeRating,
  mayBeHidden,
  mayPictureSpoilered,
  mayShow,
  unratedMayShow,
  wordsAboutImageMayShow,
  type Audience,
  type CardFilter,
  type Gate,
} from './rating-rule.js';
export { imageCard, type CardContext, type ImageCard } from './image-card.js';
export { mediaUrl, pictureOf, plainMediaText, previewOf, type CardMedia } from './media.js';
export { sourceEntry } from './credit-and-sources.js';
export { ratingColour, ratingWords } from './rating-labels.js';
export { createDescriptionMemo, type DescriptionMemo } from './description-memo.js';
export {
  countComponents,
  imageCardV2,
  v2TextLength,
  V2_CARD_TEXT_MIN,
  type V2Card,
  type V2CardOptions,
} from './card-v2.js';
export { GRID_TEXT_MIN, imageGrid, type Grid, type GridOptions } from './grid.js';
export { tagCard, type TagCardContext } from './tag-card.js';
export {
  bareUrl,
  escapeInline,
  escapeMarkdown,
  escapeText,
  maskedLink,
  neutraliseMentions,
  truncate,
  truncateMarkdown,
} from './discord-text.js';
export { boardMarkdownToDiscord } from './board-markdown.js';
export * from './limits.js';
export { NO_MENTIONS } from './mentions.js';
