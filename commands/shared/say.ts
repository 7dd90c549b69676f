/**
 * A feature's words in one member's language: `say(key, params)` is the shipped translator's `t` bound to
 * a locale (src/i18n). Text builders take a `Say` rather than a locale, so the tests can hand them the
 * pseudo-locale's translator (long, accented text) and check Discord's limits.
 */
import {
  shippedTranslator,
  SOURCE_LOCALE,
  type MessageParams,
  type Translator,
} from '../../src/i18n/index.js';

export type Say = (key: string, params?: MessageParams) => string;

/** `locale`'s words (the closest shipped language), from `translator` (the shipped one by default). */
export function sayIn(locale: string | null | undefined, translator?: Translator): Say {
  return (key, params) => (translator ?? shippedTranslator()).t(locale, key, params);
}

/** English: for callers that have no member's locale to answer in. */
export const sayEnglish: Say = (key, params) => shippedTranslator().t(SOURCE_LOCALE, key, params);
