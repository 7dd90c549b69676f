/**
 * The shipped catalogues stay whole: every English key in every language, the same placeholders as
 * English, every plural form the language needs, valid ICU MessageFormat, and file names that are Discord
 * locales. A translation that drifts fails here, not in front of a member.
 */
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { loadCatalogues, SOURCE_LOCALE } from '../../src/i18n/index.js';

const catalogues = loadCatalogues();
const source = catalogues.get(SOURCE_LOCALE) ?? {};
const translations = [...catalogues.entries()].filter(([locale]) => locale !== SOURCE_LOCALE);

/** The languages the issue asks for, at least. */
const REQUIRED = ['en-US', 'de', 'es-ES', 'fr', 'pl', 'pt-BR', 'ru'];

/** Every placeholder's name and kind in a message (plural and select branches included). */
function placeholders(elements: readonly MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const element of elements) {
    switch (element.type) {
      case TYPE.argument:
        into.add(`${element.value}:text`);
        break;
      case TYPE.number:
      case TYPE.date:
      case TYPE.time:
        into.add(`${element.value}:${TYPE[element.type]}`);
        break;
      case TYPE.plural:
      case TYPE.select:
        into.add(`${element.value}:${TYPE[element.type]}`);
        for (const option of Object.values(element.options)) placeholders(option.value, into);
        break;
      case TYPE.tag:
        placeholders(element.children, into);
        break;
      default:
        break;
    }
  }
  return into;
}

/** Every plural's selectors in a message. */
function pluralSelectors(elements: readonly MessageFormatElement[], out: string[][] = []): string[][] {
  for (const element of elements) {
    if (element.type === TYPE.plural) {
      out.push(Object.keys(element.options));
      for (const option of Object.values(element.options)) pluralSelectors(option.value, out);
    } else if (element.type === TYPE.select) {
      for (const option of Object.values(element.options)) pluralSelectors(option.value, out);
    }
  }
  return out;
}

describe('the shipped catalogues', () => {
  it('GIVEN the locales folder THEN it ships at least English, German, Spanish, French, Polish, Brazilian Portuguese and Russian', () => {
    expect([...catalogues.keys()]).toEqual(expect.arrayContaining(REQUIRED));
  });

  it.each(translations)(
    'GIVEN %s THEN it has every English key and no key English lacks',
    (_locale, catalogue) => {
      expect(Object.keys(source).filter((key) => catalogue[key] === undefined)).toEqual([]);
      expect(Object.keys(catalogue).filter((key) => source[key] === undefined)).toEqual([]);
    },
  );

  it.each(translations)(
    'GIVEN %s THEN every message has the placeholders of its English one',
    (_locale, catalogue) => {
      const drift = Object.entries(catalogue).flatMap(([key, message]) => {
        const english = source[key];
        if (english === undefined) return [];
        const want = [...placeholders(parse(english, { ignoreTag: true }))].sort();
        const got = [...placeholders(parse(message, { ignoreTag: true }))].sort();
        return JSON.stringify(want) === JSON.stringify(got) ? [] : [{ key, want, got }];
      });
      expect(drift).toEqual([]);
    },
  );

  it.each([...catalogues.entries()])(
    'GIVEN %s THEN every plural has each form the language needs and `other`',
    (locale, catalogue) => {
      const needed = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
      const missing = Object.entries(catalogue).flatMap(([key, message]) =>
        pluralSelectors(parse(message, { ignoreTag: true })).flatMap((selectors) => {
          const lacking = needed.filter((category) => !selectors.includes(category));
          return lacking.length === 0 ? [] : [{ key, lacking }];
        }),
      );
      expect(missing).toEqual([]);
    },
  );
});
