/**
 * The bot's words in every language it ships (catalogue.ts: the files and the translator; locales.ts:
 * whose language a text goes out in; say.ts: words bound to one language; pseudo.ts: the stretched
 * pseudo-locale of the tests).
 */
import { createTranslator, loadCatalogues, type Translator } from './catalogue.js';
import { SOURCE_LOCALE } from './locales.js';
import { sayWith, type Say } from './say.js';

export {
  createTranslator,
  loadCatalogues,
  type Catalogue,
  type MessageParams,
  type Translator,
} from './catalogue.js';
export { resolveLocale, SOURCE_LOCALE } from './locales.js';
export type { Say } from './say.js';

let shipped: Translator | undefined;

/** The translator over the shipped catalogues (`locales/*.json`), read once per process on first use. */
export function shippedTranslator(): Translator {
  shipped ??= createTranslator(loadCatalogues());
  return shipped;
}

/** `locale`'s words (the closest shipped language), from `translator` (the shipped one by default). */
export function sayIn(locale: string | null | undefined, translator?: Translator): Say {
  return translator === undefined ? sayWith(shippedTranslator, locale) : sayWith(() => translator, locale);
}

/** English: for callers that have no language to write in. */
export const sayEnglish: Say = sayWith(shippedTranslator, SOURCE_LOCALE);
