import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from '@formatjs/icu-messageformat-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { createTranslator, loadCatalogues, resolveLocale } from '../../src/i18n/index.js';
import { PSEUDO_LOCALE, pseudoCatalogue } from '../../src/i18n/pseudo.js';

const SHIPPED = ['en-US', 'de', 'es-ES', 'fr', 'pl', 'pt-BR', 'ru'];

describe('whose language', () => {
  it.each([
    ['de', 'de'],
    ['DE', 'de'],
    ['es-419', 'es-ES'],
    ['en-GB', 'en-US'],
    ['pt-BR', 'pt-BR'],
    ['ja', 'en-US'],
    ['zh-TW', 'en-US'],
    [null, 'en-US'],
    [undefined, 'en-US'],
    ['', 'en-US'],
  ])('GIVEN Discord’s locale %s THEN the bot answers in %s', (locale, expected) => {
    expect(resolveLocale(locale, SHIPPED)).toBe(expected);
  });
});

describe('the translator', () => {
  const translator = createTranslator(
    new Map([
      [
        'en-US',
        {
          count: '{count, plural, one {# image} other {# images}}',
          only: 'Only in English',
          wait: 'Try again in {seconds} s',
        },
      ],
      [
        'pl',
        {
          count: '{count, plural, one {# obraz} few {# obrazy} many {# obrazów} other {# obrazu}}',
          wait: 'Spróbuj ponownie za {seconds} s',
        },
      ],
      ['de', { count: '{count, plural, one {# Bild} other {# Bilder}}', wait: 'In {seconds} s erneut' }],
    ]),
  );

  it('GIVEN plurals THEN each language’s own forms, numbers formatted for it', () => {
    expect(translator.t('pl', 'count', { count: 1 })).toBe('1 obraz');
    expect(translator.t('pl', 'count', { count: 3 })).toBe('3 obrazy');
    expect(translator.t('pl', 'count', { count: 5 })).toBe('5 obrazów');
    expect(translator.t('de', 'count', { count: 1234 })).toBe('1.234 Bilder');
    expect(translator.t('en-GB', 'count', { count: 1234 })).toBe('1,234 images');
  });

  it('GIVEN a key a language lacks THEN English, AND a key English lacks THEN a thrown bug', () => {
    expect(translator.t('pl', 'only')).toBe('Only in English');
    expect(() => translator.t('pl', 'missing')).toThrow(/no message "missing"/);
    expect(translator.has('only')).toBe(true);
    expect(translator.has('missing')).toBe(false);
  });
});

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(files: Readonly<Record<string, string>>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'locales-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

describe('loading the catalogues', () => {
  it('GIVEN a file named after no Discord locale THEN refused, naming it', async () => {
    const dir = await folder({ 'en-US.json': '{"a":"A"}', 'klingon.json': '{"a":"A"}' });
    expect(() => loadCatalogues(dir)).toThrow(/klingon.json/);
  });

  it('GIVEN a message that is not ICU MessageFormat THEN refused, naming file and key', async () => {
    const dir = await folder({ 'en-US.json': '{"a":"A"}', 'de.json': '{"a":"{count, plural, one {x}"}' });
    expect(() => loadCatalogues(dir)).toThrow(/de.json: "a"/);
  });

  it('GIVEN no English file THEN refused', async () => {
    const dir = await folder({ 'de.json': '{"a":"A"}' });
    expect(() => loadCatalogues(dir)).toThrow(/en-US/);
  });

  it('GIVEN a nested object THEN refused (catalogues are flat)', async () => {
    const dir = await folder({ 'en-US.json': '{"a":{"b":"c"}}' });
    expect(() => loadCatalogues(dir)).toThrow(/flat object/);
  });
});

describe('the pseudo-locale', () => {
  it('GIVEN English THEN longer and accented, with placeholders, plurals, code spans and links kept', () => {
    const source = {
      a: 'Hidden by `/settings tags` for {count, plural, one {# tag} other {# tags}}: see <https://x.test/a>, {name}.',
    };
    const pseudo = pseudoCatalogue(source)['a'] ?? '';
    expect(pseudo.length).toBeGreaterThan((source.a.length * 1.2) | 0);
    expect(pseudo).toContain('`/settings tags`');
    expect(pseudo).toContain('<https://x.test/a>');
    expect(pseudo).toMatch(/\{name\}/);
    expect(() => parse(pseudo, { ignoreTag: true })).not.toThrow();
    const translator = createTranslator(
      new Map([
        ['en-US', source],
        [PSEUDO_LOCALE, { a: pseudo }],
      ]),
    );
    expect(translator.t(PSEUDO_LOCALE, 'a', { count: 2, name: 'N' })).toMatch(/2 ţáĝš/);
  });
});
