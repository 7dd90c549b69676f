/**
 * The translators the localisation tests run with: the shipped catalogues plus the pseudo-locale
 * (src/i18n/pseudo.ts: English about 40% longer and accented), and `Say`s bound to one language of them.
 */
import { createTranslator, loadCatalogues, type Say, type Translator } from '../../src/i18n/index.js';
import { sayIn } from '../../src/i18n/index.js';
import { PSEUDO_LOCALE, pseudoCatalogue } from '../../src/i18n/pseudo.js';

/** Every word of a pseudo-locale message carries one of these (accents, or the padding dots). */
export const PSEUDO_MARK = /[·áéíóúŕšţ]/;

let made: Translator | undefined;

/** The shipped catalogues and the pseudo-locale (`PSEUDO_LOCALE`), made once per test file. */
export function translatorWithPseudo(): Translator {
  if (made !== undefined) return made;
  const catalogues = new Map(loadCatalogues());
  const english = catalogues.get('en-US');
  if (english === undefined) throw new Error('no English catalogue');
  catalogues.set(PSEUDO_LOCALE, pseudoCatalogue(english));
  made = createTranslator(catalogues);
  return made;
}

/** The pseudo-locale's words. */
export function pseudoSay(): Say {
  return sayIn(PSEUDO_LOCALE, translatorWithPseudo());
}

/** The shipped languages (the source language first), each with its words. */
export function shippedSays(): { readonly locale: string; readonly say: Say }[] {
  const translator = translatorWithPseudo();
  return translator.locales
    .filter((locale) => locale !== PSEUDO_LOCALE)
    .map((locale) => ({ locale, say: sayIn(locale, translator) }));
}

export { PSEUDO_LOCALE };
