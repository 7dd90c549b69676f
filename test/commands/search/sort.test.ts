/**
 * The /search `sort` choice → the board's `sf`/`sd`: each choice names one of the board's sort fields in the
 * direction a member means by the word, random carries the search's seed (so paging is stable), and the
 * command offers exactly these choices.
 */
import { ApplicationCommandOptionType } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { searchCommand } from '../../../commands/search/search.js';
import { SORTS, sortParams, type Sort } from '../../../commands/search/codec.js';

const EXPECTED: readonly (readonly [Sort, string, 'asc' | 'desc'])[] = [
  ['newest', 'first_seen_at', 'desc'],
  ['oldest', 'first_seen_at', 'asc'],
  ['score', 'score', 'desc'],
  ['wilson', 'wilson_score', 'desc'],
  ['faves', 'faves', 'desc'],
  ['random', 'random:12345', 'desc'],
  ['relevance', '_score', 'desc'],
];

describe('search sort → sf/sd', () => {
  it.each(EXPECTED)('GIVEN sort %s THEN sf=%s and sd=%s', (sort, sf, sd) => {
    expect(sortParams(sort, 12345)).toEqual({ sf, sd });
  });

  it('GIVEN the table THEN every sort choice is covered once', () => {
    expect(EXPECTED.map(([sort]) => sort)).toEqual([...SORTS]);
  });

  it.each([1, 7, 2 ** 31 - 2])('GIVEN random with seed %i THEN the seed is passed as random:SEED', (seed) => {
    expect(sortParams('random', seed)).toEqual({ sf: `random:${seed}`, sd: 'desc' });
  });

  it('GIVEN a sort other than random THEN the seed makes no difference', () => {
    for (const sort of SORTS.filter((s) => s !== 'random')) {
      expect(sortParams(sort, 1)).toEqual(sortParams(sort, 987654321));
    }
  });

  it('GIVEN two different seeds THEN random asks for two different orders', () => {
    expect(sortParams('random', 1).sf).not.toBe(sortParams('random', 2).sf);
  });

  it('GIVEN the /search command THEN its sort option offers exactly these choices, value = name', () => {
    const options = (searchCommand.data.options ?? []) as readonly {
      name: string;
      type: number;
      choices?: readonly { name: string; value: string | number }[];
    }[];
    const sort = options.find((option) => option.name === 'sort');
    expect(sort?.type).toBe(ApplicationCommandOptionType.String);
    expect(sort?.choices?.map((c) => c.value)).toEqual([...SORTS]);
    expect(sort?.choices?.map((c) => c.name)).toEqual([...SORTS]);
  });
});
