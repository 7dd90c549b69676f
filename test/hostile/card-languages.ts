/**
 * The languages the hostile card properties run in: English (the source, with each property's own number
 * of runs), every other shipped language and the pseudo-locale (longer and accented), each with a share of
 * them, so that a label or notice that only fits in English shows up without multiplying the suite's time.
 */
import type { Say } from '../../src/i18n/index.js';
import { PSEUDO_LOCALE, pseudoSay, shippedSays } from '../support/locales.js';

export interface CardLanguage {
  readonly locale: string;
  readonly say: Say;
  /** The runs a property gets in this language, out of the `runs` it gets in English. */
  readonly runs: (runs: number) => number;
}

/** Every shipped language (English first) and the pseudo-locale. */
export function cardLanguages(): CardLanguage[] {
  return [...shippedSays(), { locale: PSEUDO_LOCALE, say: pseudoSay() }].map(({ locale, say }) => ({
    locale,
    say,
    runs: (runs: number) => (locale === 'en-US' ? runs : Math.max(20, Math.ceil(runs / 6))),
  }));
}
