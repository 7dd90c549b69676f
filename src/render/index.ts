/** The pure renderers of the bot: cards, Markdown, Discord limits, allowed mentions. */
export {
  createDescriptionMemo,
  imageCard,
  pictureOf,
  ratingColour,
  ratingWords,
  sourceEntry,
  type CardContext,
  type DescriptionMemo,
  type Gate,
  type ImageCard,
} from './image-card.js';
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
