/**
 * The glossary (docs/glossary.md) names one word for each of the board's and Discord's terms in every
 * shipped language; its "Words to avoid" list names the variants a catalogue must not use, so that a card,
 * an error and the settings panel all call a thing by one name. Every message of each shipped catalogue is
 * checked against that list.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogues } from '../../src/i18n/index.js';

const GLOSSARY = path.resolve(import.meta.dirname, '../../docs/glossary.md');

interface Avoid {
  readonly locale: string;
  readonly word: string;
  readonly instead: string;
  readonly pattern: RegExp;
}

/** The "Words to avoid" lines: `- <locale>: <word> → <instead>`, a trailing `…` for any ending. */
function avoidList(markdown: string): Avoid[] {
  const section = markdown.split('## Words to avoid')[1] ?? '';
  return [...section.matchAll(/^- ([\w-]+): (.+?) → (.+)$/gmu)].map(
    ([, locale = '', word = '', instead = '']) => {
      const stem = word.endsWith('…');
      const base = word.replace(/…$/u, '');
      // Letters only count as a word's own: `(?<!\p{L})` keeps "verborgen" from matching inside another word.
      const pattern = new RegExp(`(?<!\\p{L})${base}${stem ? '\\p{L}*' : '(?!\\p{L})'}`, 'iu');
      return { locale, word, instead, pattern };
    },
  );
}

describe('the glossary', () => {
  const catalogues = loadCatalogues();
  const avoid = avoidList(readFileSync(GLOSSARY, 'utf8'));

  it('GIVEN the glossary THEN it lists words to avoid, each for a shipped language', () => {
    expect(avoid.length).toBeGreaterThan(5);
    // Every list line is read: a line in another shape would be skipped without a word.
    const section = readFileSync(GLOSSARY, 'utf8').split('## Words to avoid')[1] ?? '';
    expect(section.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(avoid.length);
    for (const line of avoid) expect([...catalogues.keys()], line.word).toContain(line.locale);
  });

  it('GIVEN every shipped catalogue THEN no message uses a word the glossary says to avoid', () => {
    const found: string[] = [];
    for (const { locale, word, instead, pattern } of avoid) {
      for (const [key, message] of Object.entries(catalogues.get(locale) ?? {})) {
        const hit = pattern.exec(message);
        if (hit) found.push(`${locale} ${key}: "${hit[0]}" (${word}; say ${instead})`);
      }
    }
    expect(found).toEqual([]);
  });

  it('GIVEN a message with an avoided word THEN the check finds it (the check can fail)', () => {
    const german = avoid.find((line) => line.locale === 'de' && line.word === 'verborgen…');
    expect(german?.pattern.test('Die Liste der verborgenen Tags')).toBe(true);
    expect(german?.pattern.test('Die Liste der ausgeblendeten Tags')).toBe(false);
  });
});
