/**
 * What a board filter does (describeFilter) in the pseudo-locale (src/i18n/pseudo.ts: English about 40%
 * longer and accented) and in every shipped language: the heading and the two count lines are the
 * catalogue's, the filter's name, tag names and rules stay as the board wrote them, and the longest
 * summary (40 long tag names, long rules and description) keeps within its bound in each.
 */
import { describe, expect, it } from 'vitest';
import { describeFilter } from '../../src/render/filter-summary.js';
import type { Filter } from '../../src/philomena/schemas.js';
import { knownSite } from '../../src/philomena/sites.js';
import { PSEUDO_MARK, pseudoSay, shippedSays } from '../support/locales.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site = derpi;

const ids = Array.from({ length: 40 }, (_, i) => i + 1);
const names = new Map(ids.map((id) => [id, `tag ${String(id).padStart(2, '0')} ${'x'.repeat(40)}`]));
const big: Filter = {
  id: 100073,
  name: 'Big filter',
  description: 'd'.repeat(1000),
  user_id: null,
  user_count: 0,
  system: false,
  public: true,
  hidden_tag_ids: ids,
  spoilered_tag_ids: ids.slice(0, 1),
  hidden_complex: Array.from({ length: 12 }, (_, i) => `rule ${i} ${'y'.repeat(80)}`).join('\n'),
  spoilered_complex: null,
};

describe('describeFilter in the pseudo-locale', () => {
  it('GIVEN a filter with 40 long tag names, complex rules and a long description THEN the heading and both count lines are the pseudo-locale, within the bound', () => {
    const text = describeFilter(big, site, names, { say: pseudoSay() });
    expect(text.length).toBeLessThanOrEqual(1_700);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^\*\*Big filter\*\* .*100073.*Derpibooru/);
    expect(lines[0]).toMatch(PSEUDO_MARK);
    const hides = lines[1] ?? '';
    expect(hides).toMatch(PSEUDO_MARK);
    expect(hides).toContain('40');
    expect(hides).toContain('tag 01');
    // "and 25 more": the count of the names left out is ours too.
    expect(hides).not.toMatch(/ and \d+ more/);
    const spoilers = lines.find((line) => line.includes('tag 01') && line !== hides) ?? '';
    expect(spoilers).toMatch(PSEUDO_MARK);
    expect(text).toContain('rule 0 ');
  });

  it('GIVEN a bound as a bare number (the old call) THEN it is still the bound, in English', () => {
    const text = describeFilter(big, site, names, 600);
    expect(text.length).toBeLessThanOrEqual(600);
    expect(text).toContain('Hides 40 tags and 12 complex rules: ');
  });
});

describe('describeFilter in every shipped language', () => {
  it.each(shippedSays().map(({ locale, say }) => [locale, say] as const))(
    'GIVEN %s and the biggest filter THEN the summary keeps within its bound, the names and rules as written',
    (_locale, say) => {
      for (const max of [1_700, 900]) {
        const text = describeFilter(big, site, names, { say, max });
        expect(text.length).toBeLessThanOrEqual(max);
        expect(text).toContain('**Big filter**');
        expect(text).toContain('tag 01');
      }
      // Without names, counts alone; the count of tags takes the language's plural.
      const counted = describeFilter({ ...big, hidden_complex: null }, site, undefined, { say });
      expect(counted.split('\n')[1]).toBe(
        say('filter.counted', { counts: say('filter.hides', { tags: 40 }) }),
      );
    },
  );

  it('GIVEN Polish and Russian THEN 2 and 5 hidden tags take their own forms', () => {
    const says = new Map(shippedSays().map(({ locale, say }) => [locale, say]));
    const line = (locale: string, n: number) =>
      describeFilter({ ...big, hidden_tag_ids: ids.slice(0, n), hidden_complex: null }, site, undefined, {
        say: says.get(locale) ?? pseudoSay(),
      }).split('\n')[1];
    expect([line('pl', 2), line('pl', 5)]).toEqual(['Ukrywa 2 tagi.', 'Ukrywa 5 tagów.']);
    expect([line('ru', 2), line('ru', 5)]).toEqual(['Скрывает 2 тега.', 'Скрывает 5 тегов.']);
  });
});
