/**
 * The bot's words in every language it ships (catalogue.ts: the files and the translator; locales.ts:
 * whose language a text goes out in; pseudo.ts: the stretched pseudo-locale of the tests).
 */
import { createTranslator, loadCatalogues, type Translator } from './catalogue.js';

export {
  createTranslator,
  loadCatalogues,
  type Catalogue,
  type MessageParams,
  type Translator,
} from './catalogue.js';
export { resolveLocale, SOURCE_LOCALE } from './locales.js';

let shipped: Translator | undefined;

/** The translator over the shipped catalogues (`locales/*.json`), read once per process on first use. */
export function shippedTranslator(): Translator {
  shipped ??= createTranslator(loadCatalogues());
  return shipped;
}
