/**
 * A feature's words in one member's language (src/i18n/say.ts): re-exported here so features keep one
 * import for them.
 */
export { sayEnglish, sayIn, type Say } from '../../src/i18n/index.js';
