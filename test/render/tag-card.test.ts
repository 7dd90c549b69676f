import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tagCard } from '../../src/render/tag-card.js';
import { embedLength, EMBEDS_TOTAL_MAX } from '../../src/render/limits.js';
import {
  hiddenImageSchema,
  tagResponseSchema,
  tagSchema,
  type Image,
  type Tag,
} from '../../src/philomena/schemas.js';
import { knownSite } from '../../src/philomena/sites.js';
import { philomenaFixture } from '../support/shared.js';
import { testImage } from '../support/images.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site = derpi;

const MENTION = /@everyone|@here|<@[!&]?\d+>|<#\d+>/i;

const recorded = JSON.parse(
  readFileSync(
    philomenaFixture('derpibooru_2020_tags_oc-colon-littlepip_and_aliased_littlepip.json'),
    'utf8',
  ),
) as Record<string, unknown>;
const littlepip = tagResponseSchema.parse(recorded['oc-colon-littlepip']).tag;
const alias = tagResponseSchema.parse(recorded['littlepip']).tag;

function tag(overrides: Record<string, unknown> = {}): Tag {
  return tagSchema.parse({ id: 1, name: 'pony', slug: 'pony', images: 10, ...overrides });
}

function example(tags: string[], extra: Record<string, unknown> = {}): Image {
  return testImage(
    tags,
    { id: 99, view_url: 'https://derpicdn.net/img/view/99.png', spoilered: false, ...extra },
    'http://derpicdn.net/img/99',
  );
}

function fieldValue(embed: ReturnType<typeof tagCard>, prefix: string): string | undefined {
  return embed.fields?.find((f) => f.name.startsWith(prefix))?.value;
}

describe('tagCard', () => {
  it('GIVEN the recorded oc:littlepip in an age-restricted channel THEN name, category, count, links, aliases and implications show', () => {
    const embed = tagCard(littlepip, { site, ageRestricted: true });
    expect(embed.title).toBe('oc:littlepip');
    expect(embed.url).toBe('https://derpibooru.org/tags/oc-colon-littlepip');
    expect(embed.color).toBe(0xb157b7);
    expect(fieldValue(embed, 'Category')).toBe('oc');
    expect(fieldValue(embed, 'Images')).toBe('3,663');
    expect(fieldValue(embed, 'Aliases')).toBe('littlepip');
    expect(fieldValue(embed, 'Implies')).toBe(
      '[fallout equestria](https://derpibooru.org/tags/fallout+equestria), [oc](https://derpibooru.org/tags/oc)',
    );
    expect(fieldValue(embed, 'Implied by')).toContain(
      '[futa oc:littlepip](https://derpibooru.org/tags/futa+oc-colon-littlepip)',
    );
    // Textile link, >>610341s reference and \r\n line ends.
    expect(embed.description).toContain(
      '[Fallout: Equestria series](https://www.fimfiction.net/story/119190/fallout-equestria)',
    );
    expect(embed.description).toContain('[>>610341](https://derpibooru.org/images/610341)');
    expect(embed.description).not.toContain('\r');
    expect(embed.footer?.text).toBe('Derpibooru');
  });

  it('GIVEN the target with the alias the user asked for THEN the card says the alias leads here', () => {
    const embed = tagCard(littlepip, { site, ageRestricted: false, aliasOf: alias });
    expect(embed.title).toBe('oc:littlepip');
    expect(embed.description).toMatch(/^\*\*littlepip\*\* is an alias of this tag\./);
  });

  it('GIVEN the alias with its target THEN the card shows the target', () => {
    const embed = tagCard(alias, { site, ageRestricted: false, aliasOf: littlepip });
    expect(embed.title).toBe('oc:littlepip');
    expect(embed.description).toMatch(/^\*\*littlepip\*\* is an alias of this tag\./);
  });

  it('GIVEN only the alias THEN the card links to its target', () => {
    const embed = tagCard(alias, { site, ageRestricted: false });
    expect(embed.description).toBe(
      'This tag is an alias of [oc:littlepip](https://derpibooru.org/tags/oc-colon-littlepip).',
    );
  });

  it.each([
    ['rating', 0x418dd9],
    ['spoiler', 0xd8415a],
    ['origin', 0x6f66d6],
    [null, 0x99aab5],
    ['something-new', 0x99aab5],
  ])('GIVEN category %j THEN colour %i and the word', (category, colour) => {
    const embed = tagCard(tag({ category }), { site, ageRestricted: false });
    expect(embed.color).toBe(colour);
    expect(fieldValue(embed, 'Category')).toBe(category ?? 'none');
  });

  it('GIVEN a spoiler image in an age-restricted channel THEN it is the https thumbnail', () => {
    const embed = tagCard(tag({ spoiler_image_uri: '//derpicdn.net/media/spoiler.png' }), {
      site,
      ageRestricted: true,
    });
    expect(embed.thumbnail?.url).toBe('https://derpicdn.net/media/spoiler.png');
    const none = tagCard(tag({ spoiler_image_uri: 'data:image/png;base64,xx' }), {
      site,
      ageRestricted: true,
    });
    expect(none.thumbnail).toBeUndefined();
  });

  it('GIVEN short and long descriptions with relative links and spoilers in an age-restricted channel THEN both show, converted', () => {
    const embed = tagCard(
      tag({
        short_description: 'A *pony*',
        description: 'See [the wiki](/pages/tags) ||ending||\r\nline two',
      }),
      { site, ageRestricted: true },
    );
    expect(embed.description).toBe(
      '*A \\*pony\\**\n\n' + 'See [the wiki](https://derpibooru.org/pages/tags) ||ending||\nline two',
    );
  });

  it.each<[string, Image, boolean, boolean]>([
    ['a safe example', example(['safe']), false, true],
    ['an explicit example outside age-restricted channels', example(['explicit']), false, false],
    ['an explicit example in an age-restricted channel', example(['explicit']), true, true],
    ['an unrated example', example([]), false, false],
    ['a spoilered example', example(['safe'], { spoilered: true }), true, false],
    ['a processing example', example(['safe'], { thumbnails_generated: false }), true, false],
  ])('GIVEN %s THEN the picture shows: %s / %s', (_name, img, ageRestricted, shown) => {
    const embed = tagCard(tag(), { site, ageRestricted, example: img });
    expect(embed.image?.url).toBe(shown ? 'https://derpicdn.net/img/99/large.png' : undefined);
    expect(fieldValue(embed, 'Example')).toBe(
      [
        shown
          ? '[#99](https://derpibooru.org/images/99)'
          : '[#99](https://derpibooru.org/images/99) (not shown here)',
        '**Credit:** artist unknown',
        '**Source:** no source given',
      ].join('\n'),
    );
  });

  it('GIVEN a credited, sourced example THEN its artists and every source are on the card', () => {
    const img = example(['safe', 'artist:some painter', 'colorist:other one'], {
      source_urls: ['http://example.com/a', 'https://example.com/b'],
    });
    const value = fieldValue(tagCard(tag(), { site, ageRestricted: false, example: img }), 'Example') ?? '';
    expect(value).toContain('some painter');
    expect(value).toContain('other one');
    expect(value).toContain('https://example.com/a');
    expect(value).toContain('https://example.com/b');
    expect(value).not.toContain('http://');
  });

  it('GIVEN a deleted example THEN no example is shown', () => {
    const stub = hiddenImageSchema.parse({ id: 3, hidden_from_users: true });
    const embed = tagCard(tag(), { site, ageRestricted: true, example: stub });
    expect(embed.image).toBeUndefined();
    expect(fieldValue(embed, 'Example')).toBeUndefined();
  });

  it('GIVEN hostile and huge tag data THEN nothing pings and the card fits', () => {
    const embed = tagCard(
      tag({
        name: '@everyone **x**',
        description: `<@123> ${'long text '.repeat(900)}`,
        short_description: '<@&1> [a](javascript:alert(1))',
        aliases: Array.from({ length: 500 }, (_, i) => `alias-dash-${i}+@here`),
        implied_tags: Array.from({ length: 500 }, (_, i) => `implied+${i}`),
        implied_by_tags: Array.from({ length: 500 }, (_, i) => `by+${i}`),
      }),
      { site, ageRestricted: true },
    );
    const text = JSON.stringify(embed);
    expect(text).not.toMatch(MENTION);
    expect(text).not.toMatch(/(?<!\\\\)\]\(javascript:/);
    expect(embed.description).toContain('\\[a\\](javascript:alert(1))');
    expect(embed.title).toBe('@\u200beveryone \\*\\*x\\*\\*');
    expect(embedLength(embed)).toBeLessThanOrEqual(EMBEDS_TOTAL_MAX);
    for (const f of embed.fields ?? []) expect(f.value.length).toBeLessThanOrEqual(1024);
    expect(fieldValue(embed, 'Aliases')).toMatch(/^alias-0 @\u200bhere, /);
    expect(fieldValue(embed, 'Implies')).toMatch(/and \d+ more$/);
  });

  describe('outside age-restricted channels (review L5)', () => {
    const adult = tag({
      name: 'explicit',
      slug: 'explicit',
      category: 'rating',
      images: 5000,
      short_description: 'adult words',
      description: 'More **adult words** and [a link](https://a.test/)',
      aliases: ['nsfw'],
      implied_tags: ['adult+implied'],
      implied_by_tags: ['adult+implier'],
      spoiler_image_uri: '//derpicdn.net/media/spoiler.png',
      dnp_entries: [{}],
    });

    it('GIVEN a rating tag in a plain channel THEN only name, category, count, link and do-not-post show', () => {
      const embed = tagCard(adult, { site, ageRestricted: false });
      expect(embed.title).toBe('explicit');
      expect(embed.url).toBe('https://derpibooru.org/tags/explicit');
      expect(embed.fields?.map((f) => [f.name, f.value])).toEqual([
        ['Category', 'rating'],
        ['Images', '5,000'],
        ['Do-not-post', '1 entry'],
      ]);
      expect(embed.description).toBeUndefined();
      expect(embed.thumbnail).toBeUndefined();
      expect(JSON.stringify(embed)).not.toMatch(/adult|nsfw|spoiler\.png/);
    });

    it('GIVEN the same tag in an age-restricted channel THEN everything shows', () => {
      const embed = tagCard(adult, { site, ageRestricted: true });
      expect(embed.description).toContain('adult words');
      expect(fieldValue(embed, 'Aliases')).toBe('nsfw');
      expect(fieldValue(embed, 'Implies')).toContain('adult implied');
      expect(fieldValue(embed, 'Implied by')).toContain('adult implier');
      expect(embed.thumbnail?.url).toBe('https://derpicdn.net/media/spoiler.png');
    });

    it('GIVEN the recorded oc:littlepip in a plain channel THEN no description, aliases or implications', () => {
      const embed = tagCard(littlepip, { site, ageRestricted: false });
      expect(embed.title).toBe('oc:littlepip');
      expect(fieldValue(embed, 'Category')).toBe('oc');
      expect(fieldValue(embed, 'Images')).toBe('3,663');
      expect(embed.description).toBeUndefined();
      for (const name of ['Aliases', 'Implies', 'Implied by'])
        expect(fieldValue(embed, name)).toBeUndefined();
    });

    it('GIVEN the alias asked for in a plain channel THEN the card still says where it leads', () => {
      const embed = tagCard(littlepip, { site, ageRestricted: false, aliasOf: alias });
      expect(embed.description).toBe('**littlepip** is an alias of this tag.');
    });

    it('GIVEN a safe example in a plain channel THEN its picture still shows', () => {
      const embed = tagCard(adult, { site, ageRestricted: false, example: example(['safe']) });
      expect(embed.image?.url).toBe('https://derpicdn.net/img/99/large.png');
    });

    it('GIVEN an example that may not be shown here THEN of its sources only the links are listed', () => {
      const img = example(['explicit'], { source_urls: ['https://a.test/1', 'adult words'] });
      const plain = fieldValue(tagCard(adult, { site, ageRestricted: false, example: img }), 'Example');
      expect(plain).toContain('**Source:** <https://a.test/1> · … and 1 more on the image page');
      expect(plain).not.toContain('adult');
      const restricted = fieldValue(tagCard(adult, { site, ageRestricted: true, example: img }), 'Example');
      expect(restricted).toContain('**Source:** <https://a.test/1> · adult words');
    });
  });
});
