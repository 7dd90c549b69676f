/**
 * The bot's words in one language: `say(key, params)` is the shipped translator's `t` bound to a locale.
 * Text builders (renderers and features alike) take a `Say` rather than a locale, so the tests can hand
 * them the pseudo-locale's translator (long, accented text) and check Discord's limits.
 */
import type { MessageParams, Translator } from './catalogue.js';

export type Say = (key: string, params?: MessageParams) => string;

/**
 * A `Say` over a translator that is made on first use (the shipped one is read from disk once per process:
 * importing a renderer must not read it).
 */
export function sayWith(translator: () => Translator, locale: string | null | undefined): Say {
  return (key, params) => translator().t(locale, key, params);
}
