/**
 * Which language a text goes out in. Discord tells the bot each member's locale (`interaction.locale`) and,
 * in servers, the server's preferred one (`guild_locale`); the bot ships a catalogue per language
 * (`locales/<locale>.json`, see catalogue.ts) and answers in the closest one it has:
 *
 * - a locale it ships, as it is;
 * - a regional variant, the shipped variant of its language (`es-419` → `es-ES`, `en-GB` → `en-US`,
 *   `pt-PT` would be `pt-BR`);
 * - anything else (or none), English (`en-US`, the language the bot is written in).
 *
 * Discord's locale codes: https://discord.com/developers/docs/reference#locales (docs/discord-platform.md).
 */

/** The language the bot is written in: every catalogue has its keys, and it is the last fallback. */
export const SOURCE_LOCALE = 'en-US';

/** The language part of a locale code (`es` of `es-419`), lowercase. */
function languageOf(locale: string): string {
  return (locale.split('-')[0] ?? '').toLowerCase();
}

/**
 * The shipped locale for `locale` among `shipped` (which holds SOURCE_LOCALE): the locale itself, else the
 * first shipped one of its language, else SOURCE_LOCALE. Case-insensitive, as Discord's codes vary in case
 * between its docs and its payloads.
 */
export function resolveLocale(locale: string | null | undefined, shipped: readonly string[]): string {
  if (locale === null || locale === undefined || locale === '') return SOURCE_LOCALE;
  const wanted = locale.toLowerCase();
  const exact = shipped.find((candidate) => candidate.toLowerCase() === wanted);
  if (exact !== undefined) return exact;
  const language = languageOf(locale);
  return shipped.find((candidate) => languageOf(candidate) === language) ?? SOURCE_LOCALE;
}

/**
 * Discord's locales (its reference's list): the only names a catalogue file may have, besides the
 * pseudo-locale the tests make (pseudo.ts), so that every shipped language is one Discord can ask for.
 */
export const DISCORD_LOCALES: ReadonlySet<string> = new Set([
  'id',
  'da',
  'de',
  'en-GB',
  'en-US',
  'es-ES',
  'es-419',
  'fr',
  'hr',
  'it',
  'lt',
  'hu',
  'nl',
  'no',
  'pl',
  'pt-BR',
  'ro',
  'fi',
  'sv-SE',
  'vi',
  'tr',
  'cs',
  'el',
  'bg',
  'ru',
  'uk',
  'hi',
  'th',
  'zh-CN',
  'ja',
  'zh-TW',
  'ko',
]);
