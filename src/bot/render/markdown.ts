/**
 * Kept only for the renderers that still import from here (image-card, tag-card, limits): the Discord text
 * functions live in ./discord-text.ts, the board Markdown reader in ./board-markdown.ts, and `wellFormed`
 * in src/philomena/tags.ts. Import from those; this file goes once nothing imports it.
 */
export * from './discord-text.js';
export { boardMarkdownToDiscord, MAX_INPUT } from './board-markdown.js';
export { wellFormed } from '../../philomena/tags.js';
