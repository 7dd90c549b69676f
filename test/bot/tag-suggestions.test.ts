/**
 * Tag autocomplete outside age-restricted channels (review L5): no rating tag but `safe`, and no tag that
 * implies one, is offered with its count; inside them, every tag as before.
 */
import { describe, expect, it } from 'vitest';
import { suggestTags } from '../../src/bot/tag-suggestions.js';
import type { PhilomenaClient } from '../../src/philomena/client-types.js';
import { tagSchema } from '../../src/philomena/schemas.js';

/** A board whose tag search answers `tags` (parsed like a board answer) whatever is asked. */
function board(tags: readonly Record<string, unknown>[]): Pick<PhilomenaClient, 'searchTags'> {
  const items = tags.map((tag, i) => tagSchema.parse({ id: i + 1, images: 10 * (i + 1), ...tag }));
  return { searchTags: () => Promise.resolve({ items, total: items.length }) };
}

const TAGS = [
  { name: 'safe', slug: 'safe', category: 'rating' },
  { name: 'suggestive', slug: 'suggestive', category: 'rating' },
  { name: 'explicit', slug: 'explicit', category: 'rating' },
  { name: 'semi-grimdark', slug: 'semi-dash-grimdark', category: 'rating' },
  { name: 'Grotesque', slug: 'grotesque', category: 'rating' },
  { name: 'sex', slug: 'sex', implied_tags: ['explicit'] },
  { name: 'blood', slug: 'blood', implied_tags: ['semi-dash-grimdark', 'injured'] },
  { name: 'nsfw', slug: 'nsfw', aliased_tag: 'explicit' },
  { name: 'pony', slug: 'pony', implied_tags: ['safe'] },
  { name: 'twilight sparkle', slug: 'twilight+sparkle', implied_tags: ['pony', 'unicorn'] },
  { name: 'twi', slug: 'twi', aliased_tag: 'twilight+sparkle' },
];

async function names(ageRestricted: boolean): Promise<string[]> {
  const suggestions = await suggestTags(board(TAGS), 's', { ageRestricted });
  return suggestions.map((s) => (s.alias === undefined ? s.name : `${s.alias} → ${s.name}`));
}

describe('suggestTags and adult tags', () => {
  it('GIVEN a plain channel THEN no rating tag but safe, no tag implying one and no alias of one is offered', async () => {
    expect(await names(false)).toEqual(['safe', 'pony', 'twilight sparkle']);
  });

  it('GIVEN an age-restricted channel THEN every tag is offered', async () => {
    expect(await names(true)).toEqual([
      'safe',
      'suggestive',
      'explicit',
      'semi-grimdark',
      'Grotesque',
      'sex',
      'blood',
      'pony',
      'twilight sparkle',
    ]);
  });
});
