/**
 * Tag autocomplete through the real bot: an alias is offered as its target's name (the board gives the
 * target as a slug), labelled `alias → target`, once; and /search choices, which carry everything typed
 * before the term, stay within Discord's 100 characters a value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagSlug } from '../../src/philomena/tags.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const TAG_SEARCH = '/api/v1/json/search/tags';

async function choicesOf(command: 'search' | 'tag', text: string) {
  const option = command === 'search' ? 'query' : 'name';
  return h.discord
    .sendAutocomplete({ name: command, options: { [option]: text }, focused: option, channel: 'plain' })
    .autocompleteChoices();
}

describe('an alias among the suggestions', () => {
  it('GIVEN "littlep" typed in /tag THEN the alias is shown as "littlepip → oc:littlepip" and its value is the target name', async () => {
    const choices = await choicesOf('tag', 'littlep');
    expect(choices).toContainEqual({ name: 'littlepip → oc:littlepip', value: 'oc:littlepip' });
    expect(choices.map((c) => String(c.value))).not.toContain('oc-colon-littlepip');
  });

  it('GIVEN "safe, littlep" typed in /search THEN the choice keeps the earlier terms and inserts the target name', async () => {
    const choices = await choicesOf('search', 'safe, littlep');
    expect(choices).toContainEqual({ name: 'littlepip → oc:littlepip', value: 'safe, oc:littlepip' });
    for (const choice of choices) expect(String(choice.value)).not.toMatch(/-colon-/);
  });

  it('GIVEN a prefix matching both an alias and its target THEN the target is offered once, with its count', async () => {
    // `twi` is an alias of `twilight sparkle`: both start with "tw".
    const choices = await choicesOf('tag', 'tw');
    const twilight = choices.filter((c) =>
      ['twilight sparkle', tagSlug('twilight sparkle')].includes(String(c.value)),
    );
    expect(twilight).toHaveLength(1);
    expect(twilight[0]?.value).toBe('twilight sparkle');
    expect(twilight[0]?.name).toMatch(/^twilight sparkle \(\d+\)$/);
    expect(choices.some((c) => c.name.startsWith('twi →'))).toBe(false);
  });
});

describe('/search choices and the 100-character value limit', () => {
  // 90 characters before the term being typed.
  const prefix = `${'a'.repeat(88)}, `;

  it('GIVEN 90 characters before the term THEN the tags that fit are offered, every value within 100', async () => {
    const choices = await choicesOf('search', `${prefix}pon`);
    expect(choices.map((c) => c.value)).toContain(`${prefix}pony`);
    for (const choice of choices) expect(String(choice.value).length).toBeLessThanOrEqual(100);
  });

  it('GIVEN exactly room for the tag THEN a 100-character value is offered', async () => {
    const exact = `${'b'.repeat(94)}, `;
    const choices = await choicesOf('search', `${exact}pon`);
    expect(choices).toContainEqual({ name: expect.stringMatching(/^pony \(\d+\)$/), value: `${exact}pony` });
    expect(`${exact}pony`).toHaveLength(100);
  });

  it('GIVEN 100 characters before the term THEN no choices, and the board is not asked', async () => {
    const full = `${'c'.repeat(98)}, `;
    const tagSearches = (mark: number) => h.booru.requests.slice(mark).filter((r) => r.path === TAG_SEARCH);
    const mark = h.booru.requests.length;
    expect(await choicesOf('search', `${full}alic`)).toEqual([]);
    expect(tagSearches(mark)).toEqual([]);
    // The same term with room to spare does reach the board (it was not simply cached).
    expect((await choicesOf('search', `pony, alic`)).map((c) => c.value)).toContain('pony, alicorn');
    expect(tagSearches(mark)).toHaveLength(1);
  });
});
