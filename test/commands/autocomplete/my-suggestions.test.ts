/**
 * `my:` terms in the query autocomplete (issue 22 §2, commands/shared/query-autocomplete.ts): offered while
 * the term being typed starts like one, to a member who linked the site only, completing the query as a
 * tag suggestion would (the negation and what came before kept), labelled in the member's language, and
 * never asked of the board.
 */
import { describe, expect, it } from 'vitest';
import { MY_LISTS, queryChoices, typedMyLists } from '../../../commands/shared/query-autocomplete.js';
import type { PhilomenaClient } from '../../../src/philomena/client/types.js';
import { tagSchema } from '../../../src/philomena/schemas.js';
import { sayIn } from '../../../src/i18n/index.js';
import { shippedSays } from '../../support/locales.js';

/** A board that counts its tag searches and finds `pony`-like tags for anything else. */
function countingBoard(): { readonly client: PhilomenaClient; readonly calls: string[] } {
  const calls: string[] = [];
  const client: Pick<PhilomenaClient, 'searchTags'> = {
    searchTags: (options) => {
      calls.push(options.q);
      return Promise.resolve({
        items: [
          tagSchema.parse({
            id: 1,
            name: 'my little pony',
            slug: 'my+little+pony',
            images: 3,
            description: '',
            short_description: '',
          }),
        ],
        total: 1,
      });
    },
  };
  // Only the tag search is ever used by suggestions.
  return { client: client as PhilomenaClient, calls };
}

const signal = new AbortController().signal;

async function choices(typed: string, ownLists: boolean, locale = 'en-US') {
  const board = countingBoard();
  const found = await queryChoices(board.client, typed, {
    ageRestricted: false,
    signal,
    say: sayIn(locale),
    ownLists,
  });
  return { found, calls: board.calls };
}

describe('which typed terms are my: terms', () => {
  it.each([
    ['my', MY_LISTS],
    ['MY', MY_LISTS],
    ['my:', MY_LISTS],
    ['my :', MY_LISTS],
    ['pony, my:f', ['faves']],
    ['pony, -my:u', ['upvotes', 'uploads']],
    ['!my:w', ['watched']],
    ['NOT my:do', ['downvotes']],
    ['my:faves', ['faves']],
  ] as const)('GIVEN %j typed THEN %j', (typed, lists) => {
    expect(typedMyLists(typed)).toEqual(lists);
  });

  it.each(['m', 'mya', 'my:x', 'pony', 'my:faves, pony', 'army:f', '"my:f'])(
    'GIVEN %j typed THEN no my: term',
    (typed) => {
      expect(typedMyLists(typed)).toEqual([]);
    },
  );
});

describe('my: suggestions', () => {
  it('GIVEN a linked member typing "pony, -my:f" THEN my:faves completes the query, negation kept, and the board is not asked', async () => {
    const { found, calls } = await choices('pony, -my:f', true);
    expect(found).toEqual([{ name: 'my:faves: your favourites', value: 'pony, -my:faves' }]);
    expect(calls).toEqual([]);
  });

  it('GIVEN a linked member typing "my" THEN the five my: terms come first, then the board’s tags', async () => {
    const { found, calls } = await choices('my', true);
    expect(found.map((c) => c.value)).toEqual([
      'my:faves',
      'my:upvotes',
      'my:downvotes',
      'my:uploads',
      'my:watched',
      'my little pony',
    ]);
    expect(calls).toHaveLength(1);
  });

  it('GIVEN a member who linked nothing THEN no my: suggestion, and "my:f" asks the board nothing', async () => {
    expect((await choices('my', false)).found.map((c) => c.value)).toEqual(['my little pony']);
    const typedTerm = await choices('pony, my:f', false);
    expect(typedTerm.found).toEqual([]);
    expect(typedTerm.calls).toEqual([]);
  });

  it('GIVEN a query with no room left for my:faves in Discord’s 100 characters THEN it is not offered', async () => {
    const lead = `${'a'.repeat(92)}, `;
    const { found } = await choices(`${lead}my:f`, true);
    expect(found).toEqual([]);
    const { found: fits } = await choices(`${'a'.repeat(88)}, my:f`, true);
    expect(fits.map((c) => c.value)).toEqual([`${'a'.repeat(88)}, my:faves`]);
  });

  it('GIVEN every shipped language THEN each label keeps the term as the board writes it, within 100 characters', async () => {
    for (const { locale } of shippedSays()) {
      const { found } = await choices('my:', true, locale);
      expect(found, locale).toHaveLength(MY_LISTS.length);
      for (const [i, choice] of found.entries()) {
        expect(choice.name, locale).toContain(`my:${MY_LISTS[i] ?? ''}`);
        expect(choice.name.length, locale).toBeLessThanOrEqual(100);
      }
    }
  });
});
