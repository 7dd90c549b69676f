/**
 * Tag autocomplete outside age-restricted channels (no adult text there): no rating tag but `safe`, and
 * no tag that implies one, is offered with its count; inside them, every tag as before.
 */
import { describe, expect, it } from 'vitest';
import { suggestTags } from '../../../commands/shared/tag-suggestions.js';
import type { PhilomenaClient } from '../../../src/philomena/client/types.js';
import { tagSchema } from '../../../src/philomena/schemas.js';

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
  // A term long enough to go to the board as typed (the stub board answers the same list to anything).
  const suggestions = await suggestTags(board(TAGS), 'sss', { ageRestricted });
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

describe('suggestTags and short prefixes', () => {
  /** A board that records what it is asked and answers the tags whose name starts with the prefix. */
  function recordingBoard() {
    const asked: string[] = [];
    const client: Pick<PhilomenaClient, 'searchTags'> = {
      searchTags: ({ q, perPage }) => {
        asked.push(`${q} per_page=${String(perPage)}`);
        const prefix = q.replace(/^name:/, '').replace(/\*$/, '');
        const items = TAGS.filter((tag) => tag.name.toLowerCase().startsWith(prefix)).map((tag, i) =>
          tagSchema.parse({ id: i + 1, images: 100 - i, ...tag }),
        );
        return Promise.resolve({ items, total: items.length });
      },
    };
    return { asked, client };
  }

  it('GIVEN one- and two-character prefixes THEN both are answered from the one search of the first character, filtered to the prefix', async () => {
    const { asked, client } = recordingBoard();
    const one = await suggestTags(client, 'T', { ageRestricted: true });
    const two = await suggestTags(client, 'tw', { ageRestricted: true });
    expect(asked).toEqual(['name:t* per_page=50', 'name:t* per_page=50']);
    expect(one.map((s) => s.name)).toEqual(['twilight sparkle']);
    expect(two.map((s) => s.name)).toEqual(['twilight sparkle']);
    const none = await suggestTags(client, 'tx', { ageRestricted: true });
    expect(none).toEqual([]);
  });

  it('GIVEN three characters or more THEN the prefix itself is asked', async () => {
    const { asked, client } = recordingBoard();
    await suggestTags(client, 'twi', { ageRestricted: true });
    expect(asked).toEqual(['name:twi* per_page=25']);
  });
});
