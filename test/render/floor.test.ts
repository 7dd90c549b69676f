import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { knownSite } from '../../src/philomena/sites.js';
import { RATINGS } from '../../src/philomena/tags.js';
import { imageCard, imageCardV2, imageGrid, tagCard } from '../../src/render/index.js';
import { FLOOR_ONLY, hidingRule, type ContentRules } from '../../src/render/content-rules.js';
import {
  DEFAULT_FLOOR,
  SEXUALISED_MINOR_TAGS,
  YOUNG_CHARACTER_TAGS,
  floorRules,
} from '../../src/render/floor.js';
import { mayShow } from '../../src/render/rating-rule.js';
import { testImage } from '../support/images.js';

const site = knownSite('derpibooru')!;

describe('the floor: which rule hides an image', () => {
  it.each(SEXUALISED_MINOR_TAGS)('GIVEN %s on a safe image THEN hidden (any rating)', (tag) => {
    expect(hidingRule(['safe', tag])).toMatchObject({ tag, ratings: 'any', layer: 'floor' });
  });

  it.each(YOUNG_CHARACTER_TAGS)(
    'GIVEN %s THEN shown when safe, hidden at every other rating and unrated',
    (tag) => {
      expect(hidingRule(['safe', tag])).toBeUndefined();
      for (const rating of RATINGS.filter((r) => r !== 'safe')) {
        expect(hidingRule([rating, tag]), rating).toMatchObject({ tag, ratings: 'not-safe' });
        expect(hidingRule(['safe', rating, tag]), `safe + ${rating}`).toMatchObject({ tag });
      }
      expect(hidingRule([tag]), 'unrated').toMatchObject({ tag });
    },
  );

  it('GIVEN an operator tag written with other case or blanks THEN it is kept as the board writes it, and holds', () => {
    const rules: ContentRules = { hidden: floorRules({ defaults: false, neverShow: ['  Hidden   TAG '] }) };
    expect(hidingRule(['safe', 'hidden tag'], rules)?.tag).toBe('hidden tag');
  });

  it('GIVEN the defaults off THEN only the operator tags, at every rating; on THEN both', () => {
    const own = floorRules({ defaults: false, neverShow: ['gore'] });
    expect(own).toEqual([{ tag: 'gore', ratings: 'any', layer: 'floor' }]);
    expect(hidingRule(['explicit', 'filly'], { hidden: own })).toBeUndefined();
    expect(hidingRule(['safe', 'gore'], { hidden: own })?.tag).toBe('gore');
    const both = floorRules({ defaults: true, neverShow: ['gore'] });
    expect(both).toHaveLength(DEFAULT_FLOOR.length + 1);
  });

  it('GIVEN no rules named THEN the defaults apply (fail closed)', () => {
    expect(FLOOR_ONLY.hidden).toBe(DEFAULT_FLOOR);
    expect(mayShow(testImage(['explicit', 'foal']), true)).toBe(false);
    expect(mayShow(testImage(['explicit', 'mare']), true)).toBe(true);
  });
});

describe('the floor on every card', () => {
  const young = testImage(['explicit', 'artist:someone', 'filly', 'mare'], {
    id: 9,
    description: 'words about it',
    source_urls: ['https://example.com/s'],
  });

  it('GIVEN an age-restricted channel, Reveal and a known filter THEN the hidden card: credit, sources, link only', () => {
    const card = imageCard(young, {
      site,
      ageRestricted: true,
      reveal: true,
      filter: { name: 'Everything', spoileredTagIds: [], hiddenTagIds: [] },
    });
    expect(card.gate).toBe('rule-hidden');
    expect(card.media).toBeNull();
    expect(card.revealable).toBe(false);
    const text = JSON.stringify(card.embed);
    expect(card.embed.image).toBeUndefined();
    expect(card.embed.url).toBe(`${site.baseUrl}/images/9`);
    expect(text).toContain('someone');
    expect(text).toContain('https://example.com/s');
    expect(text).not.toContain('words about it');
    expect(text).not.toContain('filly');
    expect(text, 'a picture or file link').not.toContain('cdn.test');
    const v2 = imageCardV2(card);
    expect(JSON.stringify(v2.container)).not.toMatch(/"media"/);
  });

  it('GIVEN a grid and a tag card example THEN the hidden image is left out and not pictured', () => {
    const grid = imageGrid([young], { site, ageRestricted: true, heading: 'h' });
    expect(JSON.stringify(grid.container)).not.toContain('cdn.test');
    const embed = tagCard({ ...tagOf('mare') }, { site, ageRestricted: true, example: young });
    expect(embed.image).toBeUndefined();
    expect(JSON.stringify(embed)).toContain('(not shown here)');
  });

  it('GIVEN random images carrying a floor tag THEN no card, grid or example ever pictures them', () => {
    const rating = fc.constantFrom(...RATINGS);
    const floorTag = fc.constantFrom(...DEFAULT_FLOOR.map((rule) => rule.tag));
    fc.assert(
      fc.property(
        fc.array(rating, { maxLength: 3 }),
        floorTag,
        fc.boolean(),
        fc.boolean(),
        (ratings, tag, adult, reveal) => {
          const image = testImage([...ratings, tag, 'artist:a'], { id: 5 });
          const rule = hidingRule(image.tags);
          const card = imageCard(image, { site, ageRestricted: adult, reveal });
          if (rule === undefined) {
            // Only a young character's tag on an exactly safe image is let through.
            expect(YOUNG_CHARACTER_TAGS).toContain(tag);
            expect(new Set(ratings)).toEqual(new Set(['safe']));
            return;
          }
          expect(card.media).toBeNull();
          expect(card.embed.image).toBeUndefined();
          const grid = imageGrid([image], { site, ageRestricted: adult, heading: 'h' });
          expect(JSON.stringify(grid.container)).not.toContain('cdn.test');
        },
      ),
    );
  });
});

function tagOf(name: string) {
  return {
    id: 1,
    name,
    slug: name,
    aliased_tag: null,
    aliases: [],
    category: null,
    description: '',
    dnp_entries: [],
    images: 1,
    implied_by_tags: [],
    implied_tags: [],
    name_in_namespace: null,
    namespace: null,
    short_description: '',
    spoiler_image_uri: null,
  };
}
