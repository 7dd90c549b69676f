/**
 * The tag card (tagCard) in the pseudo-locale (src/i18n/pseudo.ts: English about 40% longer and accented)
 * and in every shipped language: every field name and every sentence of the card's own comes from the
 * catalogue, the tag's own name, category and the board's text stay as written, and a tag with long
 * descriptions, hundreds of aliases and implications stays within Discord's embed limits in each.
 */
import { describe, expect, it } from 'vitest';
import { tagCard, type TagCardContext } from '../../src/render/tag-card.js';
import { embedLength, EMBEDS_TOTAL_MAX } from '../../src/render/limits.js';
import { tagSchema, type Image, type Tag } from '../../src/philomena/schemas.js';
import { knownSite } from '../../src/philomena/sites.js';
import type { Say } from '../../src/i18n/index.js';
import { messageLimitIssues, schemaIssues } from '../fakes/discord/validate.js';
import { testImage } from '../support/images.js';
import { PSEUDO_MARK, pseudoSay, shippedSays } from '../support/locales.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site = derpi;

/** A tag with everything a card can show, each part long. */
function bigTag(overrides: Record<string, unknown> = {}): Tag {
  const many = (prefix: string) => Array.from({ length: 300 }, (_, i) => `${prefix} ${i} ${'n'.repeat(60)}`);
  return tagSchema.parse({
    id: 1,
    name: 'pony',
    slug: 'pony',
    category: 'species',
    images: 1234567,
    short_description: 's'.repeat(400),
    description: 'd'.repeat(5000),
    aliases: many('alias'),
    implied_tags: many('implied'),
    implied_by_tags: many('implier'),
    dnp_entries: [{}, {}, {}, {}, {}],
    spoiler_image_uri: 'https://derpicdn.net/spoiler.png',
    ...overrides,
  });
}

function example(fields: Record<string, unknown> = {}): Image {
  return testImage(
    ['safe', 'artist:painter'],
    { id: 99, view_url: 'https://derpicdn.net/img/view/99.png', spoilered: false, ...fields },
    'https://derpicdn.net/img/99',
  );
}

function card(say: Say, ctx: Partial<TagCardContext> = {}, tag: Tag = bigTag()) {
  return tagCard(tag, { site, ageRestricted: true, example: example(), say, ...ctx });
}

function expectWithinLimits(embed: ReturnType<typeof tagCard>): void {
  expect(embedLength(embed)).toBeLessThanOrEqual(EMBEDS_TOTAL_MAX);
  const body = { embeds: [embed] };
  expect([...schemaIssues('MessageCreateRequest', body), ...messageLimitIssues(body)]).toEqual([]);
}

describe('tagCard in the pseudo-locale', () => {
  const say = pseudoSay();

  it('GIVEN a tag with every part, in an age-restricted channel THEN every field name is the pseudo-locale, and the counts are numbers', () => {
    const embed = card(say);
    expectWithinLimits(embed);
    const names = (embed.fields ?? []).map((field) => field.name);
    expect(names).toHaveLength(7);
    for (const name of names) expect(name).toMatch(PSEUDO_MARK);
    expect(embed.title).toBe('pony');
    // The category is the board's word; the count and the DNP entries are ours around a number.
    expect(embed.fields?.[0]?.value).toBe('species');
    expect(embed.fields?.[1]?.value).toMatch(/^1,?234,?567$/);
    expect(embed.fields?.[2]?.value).toMatch(/^5 .*[·áéíóúŕšţ]/);
    const exampleValue = embed.fields?.at(-1)?.value ?? '';
    const [, credit, source] = exampleValue.split('\n');
    expect(credit).toMatch(/^\*\*[^*]*[·áéíóúŕšţ][^*]*\*\*/);
    expect(source).toMatch(/^\*\*[^*]*[·áéíóúŕšţ][^*]*\*\*/);
  });

  it('GIVEN an alias, an example withheld by a channel rule, a spoiler channel or not shown THEN each sentence of ours is the pseudo-locale', () => {
    const target = bigTag({ name: 'pony', slug: 'pony' });
    const asked = bigTag({ id: 2, name: 'horse', slug: 'horse', aliased_tag: 'pony' });
    const aliased = card(say, { aliasOf: target }, asked);
    expect(aliased.description?.split('\n\n')[0]).toMatch(/^\*\*horse\*\* .*[·áéíóúŕšţ]/);
    const alias = card(say, {}, bigTag({ aliased_tag: 'pony' }));
    expect(alias.description?.split('\n\n')[0]).toMatch(PSEUDO_MARK);

    // A channel's and a server's own spoilered tag: the sentence names whose rules, in the pseudo-locale.
    const byLayer = (layer: 'channel' | 'server') =>
      card(say, {
        example: example({ tags: ['safe', 'artist:painter', 'painter'] }),
        rules: { hidden: [], spoilered: [{ tag: 'painter', ratings: 'any', layer }] },
      });
    const [channel, server] = [byLayer('channel'), byLayer('server')];
    const channelLine = channel.fields?.at(-1)?.value.split('\n')[0] ?? '';
    const serverLine = server.fields?.at(-1)?.value.split('\n')[0] ?? '';
    expect(channelLine).toMatch(/^\[#99\]\(.*\) \(.*[·áéíóúŕšţ]/);
    expect(serverLine).toMatch(/^\[#99\]\(.*\) \(.*[·áéíóúŕšţ]/);
    expect(channelLine).not.toBe(serverLine);
    expect(channel.image).toBeUndefined();

    const spoilerChannel = card(say, { spoilerChannel: true, ageRestricted: false });
    const withheld = spoilerChannel.fields?.at(-1)?.value.split('\n')[0] ?? '';
    expect(withheld).toMatch(/^\[#99\]\(.*\) \(.*[·áéíóúŕšţ]/);
    expect(spoilerChannel.image).toBeUndefined();

    const notShown = card(say, { example: example({ spoilered: true }) });
    expect(notShown.fields?.at(-1)?.value.split('\n')[0]).toMatch(/^\[#99\]\(.*\) \(.*[·áéíóúŕšţ]/);
    for (const embed of [aliased, alias, channel, server, spoilerChannel, notShown])
      expectWithinLimits(embed);
  });
});

describe('tagCard in every shipped language', () => {
  it.each(shippedSays().map(({ locale, say }) => [locale, say] as const))(
    'GIVEN %s and a tag with every part THEN the card fits Discord’s embed limits, its field names the language’s',
    (_locale, say) => {
      for (const ageRestricted of [true, false]) {
        const embed = card(say, { ageRestricted });
        expectWithinLimits(embed);
        expect(embed.fields?.[0]?.name).toBe(say('tagcard.field.category'));
        expect(embed.fields?.[1]?.name).toBe(say('tagcard.field.images'));
      }
    },
  );

  it('GIVEN Polish and Russian THEN the DNP entries take the form for 1, 2 and 5', () => {
    const says = new Map(shippedSays().map(({ locale, say }) => [locale, say]));
    const entries = (locale: string, n: number) => {
      const say = says.get(locale);
      if (say === undefined) throw new Error(`no ${locale}`);
      const embed = card(say, {}, bigTag({ dnp_entries: Array.from({ length: n }, () => ({})) }));
      return embed.fields?.[2]?.value;
    };
    expect([1, 2, 5].map((n) => entries('pl', n))).toEqual(['1 wpis', '2 wpisy', '5 wpisów']);
    expect([1, 2, 5].map((n) => entries('ru', n))).toEqual(['1 запись', '2 записи', '5 записей']);
    expect(entries('de', 1234)).toBe('1.234 Einträge');
  });
});
