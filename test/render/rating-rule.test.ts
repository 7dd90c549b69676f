/**
 * The rating rule's own functions (src/render/rating-rule.ts), each as a table. The cards, the grid and
 * the page cards that call them are tested end to end in their own files; `mayShow` is tested beside the
 * channel rules (test/commands/shared/safety.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  ageRestrictedFor,
  hiddenByFilter,
  isNotSafeRating,
  mayBeHidden,
  mayPictureSpoilered,
  unratedMayShow,
  wordsAboutImageMayShow,
  type Audience,
  type CardFilter,
  type Gate,
} from '../../src/render/rating-rule.js';
import { testImage } from '../support/images.js';

const filter = (fields: Partial<CardFilter> = {}): CardFilter => ({
  name: 'Default',
  spoileredTagIds: [],
  hiddenTagIds: [],
  ...fields,
});

describe('ageRestrictedFor', () => {
  it.each<[Audience, boolean]>([
    [{ ageRestricted: false }, false],
    [{ ageRestricted: true }, true],
    [{ ageRestricted: true, spoilerChannel: false }, true],
    [{ ageRestricted: true, spoilerChannel: true }, false],
    [{ ageRestricted: false, spoilerChannel: true }, false],
  ])('GIVEN %j THEN %s', (where, expected) => {
    expect(ageRestrictedFor(where)).toBe(expected);
  });
});

describe('hiddenByFilter and mayBeHidden', () => {
  // Tag ids are the tags' positions: `safe` is 0, `pony` is 1.
  const image = (spoilered: boolean) => testImage(['safe', 'pony'], { spoilered });
  it.each<[string, boolean, CardFilter | undefined, boolean, boolean]>([
    ['no filter known', true, undefined, false, true],
    ['a filter hiding none of its tags', true, filter(), false, false],
    ['a filter hiding one of its tags', true, filter({ hiddenTagIds: [1] }), true, true],
    ['a filter only spoilering its tags', true, filter({ spoileredTagIds: [1] }), false, false],
    ['a filter with a hidden search', true, filter({ hiddenComplex: 'pony' }), false, true],
    ['a filter with a blank hidden search', true, filter({ hiddenComplex: '  ' }), false, false],
    [
      'a filter with a hidden search, image not spoilered',
      false,
      filter({ hiddenComplex: 'x' }),
      false,
      false,
    ],
  ])('GIVEN %s THEN hidden %s, may be hidden %s', (_name, spoilered, known, hidden, maybe) => {
    expect(hiddenByFilter(image(spoilered), known)).toBe(hidden);
    expect(mayBeHidden(image(spoilered), known)).toBe(maybe);
  });
});

describe('mayPictureSpoilered', () => {
  it.each<[string[], boolean, CardFilter | undefined, boolean]>([
    [['safe'], false, filter(), true],
    [['safe'], false, undefined, false],
    [['safe'], false, filter({ hiddenTagIds: [0] }), false],
    [['explicit'], false, filter(), false],
    [['explicit'], true, filter(), true],
  ])('GIVEN tags %j, age-restricted %s, filter %j THEN %s', (tags, ageRestricted, known, expected) => {
    expect(mayPictureSpoilered(testImage(tags, { spoilered: true }), ageRestricted, known)).toBe(expected);
  });
});

describe('wordsAboutImageMayShow', () => {
  it.each<[Gate | undefined, boolean]>([
    ['full', true],
    ['rating-restricted', false],
    ['spoilered', false],
    ['processing', false],
    ['deleted', false],
    ['merged', false],
    [undefined, false],
  ])('GIVEN gate %s THEN %s', (gate, expected) => {
    expect(wordsAboutImageMayShow(gate)).toBe(expected);
  });
});

describe('unratedMayShow', () => {
  it.each([
    [true, true],
    [false, false],
  ])('GIVEN age-restricted %s THEN %s', (ageRestricted, expected) => {
    expect(unratedMayShow(ageRestricted)).toBe(expected);
  });
});

describe('isNotSafeRating', () => {
  it.each<[string, boolean]>([
    ['safe', false],
    ['suggestive', true],
    ['questionable', true],
    ['explicit', true],
    ['semi-grimdark', true],
    ['grimdark', true],
    ['grotesque', true],
    [' Explicit ', true],
    ['pony', false],
    ['explicit source', false],
  ])('GIVEN %j THEN %s', (name, expected) => {
    expect(isNotSafeRating(name)).toBe(expected);
  });
});
