/**
 * The bot's words in every language it ships: one catalogue file per language, `locales/<locale>.json`, a
 * flat JSON object of message keys to ICU MessageFormat strings (the format translation platforms such as
 * Crowdin, Weblate and Lokalise read: placeholders `{name}`, plurals `{count, plural, one {# image} other
 * {# images}}`, selects). A translator adds a language by adding one file named after its Discord locale
 * code; a key a file lacks falls back to English (the tests refuse a shipped file that lacks one).
 *
 * Messages are compiled once per locale and key, on first use, with `intl-messageformat`: numbers in
 * placeholders are formatted for the message's language (`Intl.NumberFormat`), plurals follow its CLDR
 * rules (`Intl.PluralRules`). What the board wrote (tags, names, descriptions) is never a key: it goes in
 * a placeholder, escaped by the caller as Discord text.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { IntlMessageFormat, type Formatters } from 'intl-messageformat';
import { z } from 'zod';
import { DISCORD_LOCALES, resolveLocale, SOURCE_LOCALE } from './locales.js';

/** One language's messages: key → ICU MessageFormat string. */
export type Catalogue = Readonly<Record<string, string>>;

/** What a placeholder may carry. */
export type MessageParams = Readonly<Record<string, string | number>>;

/**
 * `<...>` is Discord's (`<https://...>` without a preview, `<#channel>`, `<t:...:R>` timestamps), not ICU's
 * rich-text tags: read as text.
 */
export const ICU_OPTIONS = { ignoreTag: true } as const;

const catalogueSchema = z.record(z.string().min(1).max(200), z.string().max(4000));

/** The folder holding `<locale>.json`: found upward from this file (the source tree and the build alike). */
function localesDirectory(from: string = import.meta.dirname): string {
  let dir = from;
  for (;;) {
    const candidate = path.join(dir, 'locales');
    if (existsSync(path.join(candidate, `${SOURCE_LOCALE}.json`))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no locales/${SOURCE_LOCALE}.json above ${from}`);
    dir = parent;
  }
}

/**
 * Every catalogue in `dir`, by locale. Throws, naming the file (and key), for a file whose name is not a
 * Discord locale, that is not a flat object of strings, or holding a message that is not valid ICU
 * MessageFormat: a broken translation is found at start, not when a member first meets it.
 */
export function loadCatalogues(dir: string = localesDirectory()): ReadonlyMap<string, Catalogue> {
  const out = new Map<string, Catalogue>();
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const locale = file.slice(0, -'.json'.length);
    if (!DISCORD_LOCALES.has(locale)) {
      throw new Error(`locales/${file}: "${locale}" is not one of Discord's locale codes`);
    }
    const parsed = catalogueSchema.safeParse(JSON.parse(readFileSync(path.join(dir, file), 'utf8')));
    if (!parsed.success) throw new Error(`locales/${file}: not a flat object of message strings`);
    for (const [key, message] of Object.entries(parsed.data)) {
      try {
        new IntlMessageFormat(message, locale, undefined, ICU_OPTIONS);
      } catch (error) {
        throw new Error(`locales/${file}: "${key}" is not valid ICU MessageFormat`, { cause: error });
      }
    }
    out.set(locale, parsed.data);
  }
  if (!out.has(SOURCE_LOCALE)) throw new Error(`locales/${SOURCE_LOCALE}.json is missing`);
  return out;
}

export interface Translator {
  /** The shipped locales, the source language first. */
  readonly locales: readonly string[];
  /** The shipped locale a Discord locale gets (locales.ts `resolveLocale`). */
  resolve(locale: string | null | undefined): string;
  /**
   * `key` in `locale`'s language (resolved), with `params` in its placeholders; English when that
   * catalogue lacks the key. Throws for a key English lacks (a bug, caught by the tests).
   */
  t(locale: string | null | undefined, key: string, params?: MessageParams): string;
  /** Whether English has `key`. */
  has(key: string): boolean;
}

/**
 * The Intl formatters every compiled message of one translator shares, kept by locale and by the options
 * object the message's own syntax holds (the same object at every call). intl-messageformat's default
 * memoizes by serialising its arguments to JSON at every call, which cost a card more than the rest of
 * its words together (bench/languages.bench.ts).
 */
function sharedFormatters(): Formatters {
  const numbers = new Map<string, Intl.NumberFormat>();
  const styled = new Map<string, WeakMap<object, Intl.NumberFormat>>();
  const dates = new Map<string, Intl.DateTimeFormat>();
  const styledDates = new Map<string, WeakMap<object, Intl.DateTimeFormat>>();
  const plurals = new Map<string, Intl.PluralRules>();
  const localeOf = (locales: string | readonly string[] | undefined): string =>
    Array.isArray(locales) ? locales.join(',') : String(locales ?? '');
  function kept<F>(
    plain: Map<string, F>,
    byOptions: Map<string, WeakMap<object, F>>,
    locales: string | readonly string[] | undefined,
    options: object | undefined,
    make: () => F,
  ): F {
    const locale = localeOf(locales);
    if (options === undefined) {
      let format = plain.get(locale);
      if (format === undefined) plain.set(locale, (format = make()));
      return format;
    }
    let forLocale = byOptions.get(locale);
    if (forLocale === undefined) byOptions.set(locale, (forLocale = new WeakMap()));
    let format = forLocale.get(options);
    if (format === undefined) forLocale.set(options, (format = make()));
    return format;
  }
  return {
    getNumberFormat: (locales?: string | string[], options?: Intl.NumberFormatOptions) =>
      kept(numbers, styled, locales, options, () => new Intl.NumberFormat(locales, options)),
    getDateTimeFormat: (locales?: string | string[], options?: Intl.DateTimeFormatOptions) =>
      kept(dates, styledDates, locales, options, () => new Intl.DateTimeFormat(locales, options)),
    // Its options are made afresh at each call ({ type }): kept by their one field instead.
    getPluralRules: (locales?: string | string[], options?: Intl.PluralRulesOptions) => {
      const id = `${localeOf(locales)}\u0000${options?.type ?? 'cardinal'}`;
      let rules = plurals.get(id);
      if (rules === undefined) plurals.set(id, (rules = new Intl.PluralRules(locales, options)));
      return rules;
    },
  };
}

export function createTranslator(catalogues: ReadonlyMap<string, Catalogue>): Translator {
  const source = catalogues.get(SOURCE_LOCALE);
  if (source === undefined) throw new Error(`the ${SOURCE_LOCALE} catalogue is missing`);
  const locales = [SOURCE_LOCALE, ...[...catalogues.keys()].filter((locale) => locale !== SOURCE_LOCALE)];
  // Compiled messages by locale and key: bounded by the catalogues themselves.
  const compiled = new Map<string, IntlMessageFormat>();
  const formatters = sharedFormatters();

  function formatOf(locale: string, key: string): IntlMessageFormat {
    const id = `${locale}\u0000${key}`;
    let format = compiled.get(id);
    if (format === undefined) {
      const own = catalogues.get(locale)?.[key];
      const message = own ?? source?.[key];
      if (message === undefined) throw new Error(`no message "${key}" in the ${SOURCE_LOCALE} catalogue`);
      format = new IntlMessageFormat(message, own === undefined ? SOURCE_LOCALE : locale, undefined, {
        ...ICU_OPTIONS,
        formatters,
      });
      compiled.set(id, format);
    }
    return format;
  }

  const resolve = (locale: string | null | undefined) => resolveLocale(locale, locales);
  // A message without placeholders formats to the same text every time (most labels of a card): kept once
  // formatted, so a card's labels cost a map read. Bounded by the catalogues themselves.
  const fixed = new Map<string, string>();
  return {
    locales,
    resolve,
    t(locale, key, params) {
      const resolved = resolve(locale);
      const id = params === undefined ? `${resolved}\u0000${key}` : undefined;
      const known = id === undefined ? undefined : fixed.get(id);
      if (known !== undefined) return known;
      const formatted = formatOf(resolved, key).format(params);
      if (typeof formatted !== 'string') throw new Error(`message "${key}" did not format to text`);
      if (id !== undefined) fixed.set(id, formatted);
      return formatted;
    },
    has: (key) => source[key] !== undefined,
  };
}
