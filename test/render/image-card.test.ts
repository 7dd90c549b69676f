import type { APIEmbed } from 'discord.js';
import { describe, expect, it, vi } from 'vitest';
import { createDescriptionMemo, type DescriptionMemo } from '../../src/render/description-memo.js';
import { imageCard, type CardContext } from '../../src/render/image-card.js';
import type { Gate } from '../../src/render/rating-rule.js';
import { NO_MENTIONS } from '../../src/render/mentions.js';
import { messageLimitIssues, schemaIssues } from '../fakes/discord/validate.js';
import {
  EMBED_FIELD_NAME_MAX,
  EMBED_FIELD_VALUE_MAX,
  EMBED_FIELDS_MAX,
  EMBED_TITLE_MAX,
  EMBEDS_TOTAL_MAX,
  embedLength,
} from '../../src/render/limits.js';
import {
  hiddenImageSchema,
  visibleImageSchema,
  type Image,
  type VisibleImage,
} from '../../src/philomena/schemas.js';
import { knownSite, resolveSite, type Site } from '../../src/philomena/sites.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site: Site = derpi;

const MENTION = /@everyone|@here|<@[!&]?\d+>|<#\d+>|<\/[\w -]+:\d+>/i;

interface ImageOptions {
  id?: number;
  tags?: string[];
  tagIds?: number[];
  sources?: string[];
  description?: string;
  format?: string;
  mime?: string;
  spoilered?: boolean;
  thumbnailsGenerated?: boolean;
  base?: string;
}

/** A visible image as the server sends it, parsed by the real schema. */
function image(options: ImageOptions = {}): Image {
  const id = options.id ?? 4242;
  const format = options.format ?? 'png';
  const ext = format === 'svg' ? 'png' : format;
  const cdn = options.base ?? 'https://derpicdn.net';
  const rep = (name: string): string => `${cdn}/img/2024/5/1/${id}/${name}.${ext}`;
  const tags = options.tags ?? ['safe', 'artist:somepony', 'pony'];
  return visibleImageSchema.parse({
    id,
    hidden_from_users: false,
    animated: format === 'gif' || format === 'webm',
    aspect_ratio: 1.5,
    comment_count: 3,
    created_at: '2024-05-01T12:00:00Z',
    updated_at: '2024-05-02T12:00:00Z',
    first_seen_at: '2024-05-01T12:00:00Z',
    description: options.description ?? 'A **nice** picture.',
    downvotes: 1,
    upvotes: 11,
    score: 10,
    faves: 5,
    format,
    width: 1200,
    height: 800,
    mime_type: options.mime ?? `image/${format}`,
    name: 'pic',
    representations: {
      full: `${cdn}/img/view/2024/5/1/${id}.${format}`,
      large: rep('large'),
      medium: rep('medium'),
      small: rep('small'),
      tall: rep('tall'),
      thumb: rep('thumb'),
      thumb_small: rep('thumb_small'),
      thumb_tiny: rep('thumb_tiny'),
      ...(format === 'gif' || format === 'webm'
        ? { webm: rep('full').replace(/\.\w+$/, '.webm'), mp4: rep('full').replace(/\.\w+$/, '.mp4') }
        : {}),
    },
    source_urls: options.sources ?? ['https://example.test/art/1'],
    spoilered: options.spoilered ?? false,
    tag_count: tags.length,
    tag_ids: options.tagIds ?? tags.map((_, i) => 1000 + i),
    tags,
    thumbnails_generated: options.thumbnailsGenerated ?? true,
    view_url: `${cdn}/img/view/2024/5/1/${id}__x.${format}`,
    wilson_score: 0.5,
  });
}

function ctx(overrides: Partial<CardContext> = {}): CardContext {
  return { site, ageRestricted: false, ...overrides };
}

/** Every string in the embed JSON. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

function allText(embed: APIEmbed): string {
  return strings(embed).join('\n');
}

function fieldNames(embed: APIEmbed): string[] {
  return (embed.fields ?? []).map((field) => field.name);
}

function field(embed: APIEmbed, name: string): string | undefined {
  return embed.fields?.find((f) => f.name === name || f.name.startsWith(`${name} `))?.value;
}

function expectWithinLimits(embed: APIEmbed): void {
  expect(embedLength(embed)).toBeLessThanOrEqual(EMBEDS_TOTAL_MAX);
  expect((embed.title ?? '').length).toBeLessThanOrEqual(EMBED_TITLE_MAX);
  expect((embed.description ?? '').length).toBeLessThanOrEqual(4096);
  expect((embed.fields ?? []).length).toBeLessThanOrEqual(EMBED_FIELDS_MAX);
  for (const f of embed.fields ?? []) {
    expect(f.name.length).toBeGreaterThan(0);
    expect(f.name.length).toBeLessThanOrEqual(EMBED_FIELD_NAME_MAX);
    expect(f.value.length).toBeGreaterThan(0);
    expect(f.value.length).toBeLessThanOrEqual(EMBED_FIELD_VALUE_MAX);
  }
  expect((embed.footer?.text ?? '').length).toBeLessThanOrEqual(2048);
}

/** Every URL anywhere in the embed is https, or http on the http site's own host. */
function expectHttpsOnly(embed: APIEmbed, httpHost?: string): void {
  for (const text of strings(embed)) {
    for (const url of text.match(/[a-z][a-z0-9+.-]*:\/\/[^\s)>\]]+/gi) ?? []) {
      if (httpHost !== undefined && url.startsWith(`http://${httpHost}/`)) continue;
      expect(url).toMatch(/^https:\/\//);
    }
  }
}

const RATING_SETS: readonly (readonly string[])[] = [
  ['safe'],
  ['suggestive'],
  ['questionable'],
  ['explicit'],
  ['semi-grimdark'],
  ['grimdark'],
  ['grotesque'],
  ['safe', 'explicit'],
  ['safe', 'semi-grimdark'],
  ['questionable', 'grimdark'],
  ['explicit', 'grimdark', 'grotesque'],
  [],
];

type Kind = 'plain' | 'spoilered' | 'processing' | 'revealed';

function expectedGate(kind: Kind, ratings: readonly string[], ageRestricted: boolean): Gate {
  const safe = ratings.length === 1 && ratings[0] === 'safe';
  if (!safe && !ageRestricted) return 'rating-restricted';
  if (kind === 'spoilered') return 'spoilered';
  if (kind === 'processing') return 'processing';
  return 'full';
}

const SECRET_DESCRIPTION = 'UNIQUE-DESCRIPTION-WORDS';
const SECRET_TAG = 'unique-tag-name';

describe('imageCard gate', () => {
  const cases = RATING_SETS.flatMap((ratings) =>
    (['plain', 'spoilered', 'processing', 'revealed'] as const).flatMap((kind) =>
      [true, false].map((ageRestricted) => ({ ratings, kind, ageRestricted })),
    ),
  );
  it.each(cases)(
    'GIVEN rating $ratings, a $kind image, age-restricted $ageRestricted THEN the gate and contents follow the rules',
    ({ ratings, kind, ageRestricted }) => {
      const img = image({
        tags: [...ratings, 'artist:somepony', SECRET_TAG],
        description: SECRET_DESCRIPTION,
        spoilered: kind === 'spoilered' || kind === 'revealed',
        thumbnailsGenerated: kind !== 'processing',
      });
      const card = imageCard(img, ctx({ ageRestricted, reveal: kind === 'revealed' }));
      const gate = expectedGate(kind, ratings, ageRestricted);
      expect(card.gate).toBe(gate);
      expect(card.revealable).toBe(gate === 'spoilered');
      const text = allText(card.embed);
      // Every card: link to the page, credit, source, the rating words.
      expect(card.embed.title).toBe(`#${img.id}`);
      expect(card.embed.url).toBe(`https://derpibooru.org/images/${img.id}`);
      expect(field(card.embed, 'Credit')).toContain('somepony');
      expect(text).toContain('https://example.test/art/1');
      expect(field(card.embed, 'Rating')).toBe(ratings.length === 0 ? 'no rating tag' : ratings.join(', '));
      expect(card.embed.footer?.text).toBe('Derpibooru');
      // Picture, tags and description only on a full card (processing: no picture).
      expect(card.embed.image !== undefined).toBe(gate === 'full');
      expect(text.includes(SECRET_TAG)).toBe(gate === 'full' || gate === 'processing');
      expect(text.includes(SECRET_DESCRIPTION)).toBe(gate === 'full' || gate === 'processing');
      if (gate === 'rating-restricted')
        expect(card.embed.description).toMatch(/only be shown in age-restricted channels/);
      if (gate === 'processing') expect(card.embed.description).toMatch(/still processing/i);
      expectWithinLimits(card.embed);
      expectHttpsOnly(card.embed);
    },
  );

  it.each([
    [['safe'], 0x57f287],
    [['suggestive'], 0xfee75c],
    [['questionable'], 0xe67e22],
    [['explicit'], 0xed4245],
    [['grimdark'], 0x2b2d31],
    [['explicit', 'grimdark'], 0x2b2d31],
    [[], 0x99aab5],
  ])('GIVEN rating %j THEN the colour is %i', (ratings, colour) => {
    expect(imageCard(image({ tags: ratings }), ctx({ ageRestricted: true })).embed.color).toBe(colour);
  });
});

describe('imageCard spoilers', () => {
  const tags = ['safe', 'artist:a', 'spoiler:s01e01', 'pony', 'hidden thing'];
  const tagIds = [10, 11, 12, 13, 14];

  it('GIVEN a filter whose tags hit THEN the card names them and shows neither picture nor description', () => {
    const card = imageCard(
      image({ tags, tagIds, spoilered: true, description: SECRET_DESCRIPTION }),
      ctx({ filter: { name: 'Default', spoileredTagIds: [12, 99], hiddenTagIds: [14] } }),
    );
    expect(card.gate).toBe('spoilered');
    expect(card.revealable).toBe(true);
    expect(card.embed.description).toContain('**spoiler:s01e01**');
    expect(card.embed.description).toContain('hidden thing');
    expect(card.embed.description).toContain('Default');
    expect(card.embed.description).not.toContain('pony');
    expect(card.embed.image).toBeUndefined();
    expect(allText(card.embed)).not.toContain(SECRET_DESCRIPTION);
    expect(fieldNames(card.embed).some((name) => name.startsWith('Tags'))).toBe(false);
  });

  it('GIVEN no filter tag hits THEN the card says it matches the filter rules', () => {
    const card = imageCard(
      image({ tags, tagIds, spoilered: true }),
      ctx({ filter: { name: 'Mine', spoileredTagIds: [1], hiddenTagIds: [2] } }),
    );
    expect(card.embed.description).toMatch(/matches the filter “Mine”'s rules/);
  });

  it('GIVEN a hostile filter name THEN it is escaped', () => {
    const card = imageCard(
      image({ tags, tagIds, spoilered: true }),
      ctx({ filter: { name: '@everyone **x**', spoileredTagIds: [], hiddenTagIds: [] } }),
    );
    expect(card.embed.description).not.toMatch(MENTION);
    expect(card.embed.description).toContain('\\*\\*x\\*\\*');
  });
});

describe('imageCard stubs', () => {
  it('GIVEN a deleted image THEN the card says so with the escaped reason', () => {
    const stub = hiddenImageSchema.parse({
      id: 5,
      hidden_from_users: true,
      deletion_reason: 'Rule #2 @everyone **x**',
    });
    const card = imageCard(stub, ctx({ ageRestricted: true }));
    expect(card.gate).toBe('deleted');
    expect(card.revealable).toBe(false);
    expect(card.embed.description).toBe('This image was deleted: Rule #2 @\u200beveryone \\*\\*x\\*\\*');
    expect(card.embed.url).toBe('https://derpibooru.org/images/5');
  });

  it('GIVEN a deleted image without a reason THEN the card still says it was deleted', () => {
    const stub = hiddenImageSchema.parse({ id: 5, hidden_from_users: true });
    expect(imageCard(stub, ctx()).embed.description).toBe('This image was deleted.');
  });

  it('GIVEN a merged image THEN the card points to the target', () => {
    const stub = hiddenImageSchema.parse({
      id: 5,
      hidden_from_users: true,
      duplicate_of: 77,
      deletion_reason: 'dupe',
    });
    const card = imageCard(stub, ctx());
    expect(card.gate).toBe('merged');
    expect(card.embed.description).toBe(
      'This image was merged into [#77](https://derpibooru.org/images/77).',
    );
  });
});

describe('imageCard credits', () => {
  it.each([
    [
      ['safe', 'artist:alpha', 'artist:beta'],
      [
        '**Artists:** [alpha](https://derpibooru.org/tags/artist-colon-alpha), [beta](https://derpibooru.org/tags/artist-colon-beta)',
      ],
    ],
    [
      ['safe', 'colorist:c', 'editor:e', 'prompter:p', 'artist:a'],
      ['**Artist:** [a]', '**Colorist:** [c]', '**Editor:** [e]', '**Prompter:** [p]'],
    ],
    [
      ['safe', 'photographer:ph', 'generator:stable diffusion', 'commissioner:buyer'],
      [
        '**Photographer:** [ph]',
        '**Generator:** [stable diffusion](https://derpibooru.org/tags/generator-colon-stable+diffusion)',
        '**Commissioner:** [buyer]',
      ],
    ],
    [['safe', 'pony'], ['artist unknown']],
    [['safe', 'artist needed'], ['artist needed']],
    [['safe', 'anonymous artist'], ['anonymous artist']],
    [['safe', 'artist:under_score*'], ['[under\\_score\\*]']],
  ])('GIVEN tags %j THEN the credit shows %j', (tags, parts) => {
    const value = field(imageCard(image({ tags }), ctx()).embed, 'Credit') ?? '';
    for (const part of parts) expect(value).toContain(part);
  });

  it('GIVEN a hundred prompters THEN the artist is still credited and the field fits', () => {
    const tags = [
      'safe',
      ...Array.from({ length: 100 }, (_, i) => `prompter:person number ${i}`),
      'artist:the artist',
    ];
    const value = field(imageCard(image({ tags }), ctx()).embed, 'Credit') ?? '';
    expect(value).toContain('[the artist]');
    expect(value).toMatch(/and \d+ more/);
    expect(value.length).toBeLessThanOrEqual(EMBED_FIELD_VALUE_MAX);
  });
});

describe('imageCard sources', () => {
  it.each([
    [[], 'no source given'],
    [['http://old.test/a'], '<https://old.test/a>'],
    [['https://a.test/1', 'https://b.test/2'], '<https://a.test/1>\n<https://b.test/2>'],
    [['just some text'], 'just some text'],
    [['javascript:alert(1)'], 'javascript:alert(1)'],
    [['data:text/html,<@1>'], 'data:text/html,\\<\u200b@1>'],
    [['ftp://files.test/x'], 'ftp\\://files.test/x'],
    [['https://real.test@evil.test/'], 'https\\://real.test@evil.test/'],
    [['https://x.test/a_(b)'], '<https://x.test/a_%28b%29>'],
  ])('GIVEN sources %j THEN the source field is %j', (sources, value) => {
    const card = imageCard(image({ sources }), ctx());
    expect(card.embed.fields?.find((f) => f.name.startsWith('Source'))?.value).toBe(value);
    expectHttpsOnly(card.embed);
  });

  it('GIVEN 200 sources THEN they spread over fields, the rest is counted, and the card fits', () => {
    const sources = Array.from(
      { length: 200 },
      (_, i) => `https://source-${i}.example.test/path/to/a/fairly/long/page/${i}`,
    );
    const card = imageCard(image({ sources, description: 'd'.repeat(4000) }), ctx());
    const values = (card.embed.fields ?? []).filter((f) => f.name.startsWith('Source')).map((f) => f.value);
    expect(values.length).toBeGreaterThan(1);
    expect(values.join('\n')).toContain('<https://source-0.example.test/');
    expect(values.at(-1)).toMatch(/and \d+ more on the image page/);
    expectWithinLimits(card.embed);
  });
});

describe('imageCard pictures', () => {
  it.each([
    ['png', 'image/png', 'https://derpicdn.net/img/2024/5/1/4242/large.png', null],
    ['jpg', 'image/jpeg', 'https://derpicdn.net/img/2024/5/1/4242/large.jpg', null],
    ['gif', 'image/gif', 'https://derpicdn.net/img/2024/5/1/4242/large.gif', null],
    ['svg', 'image/svg+xml', 'https://derpicdn.net/img/2024/5/1/4242/large.png', null],
    [
      'webm',
      'video/webm',
      'https://derpicdn.net/img/2024/5/1/4242/thumb.gif',
      '<https://derpicdn.net/img/2024/5/1/4242/full.webm>',
    ],
  ])('GIVEN a %s image THEN the picture is %s and the video link %s', (format, mime, picture, video) => {
    const card = imageCard(image({ format, mime }), ctx());
    expect(card.embed.image?.url).toBe(picture);
    expect(field(card.embed, 'Video') ?? null).toBe(video);
  });

  it('GIVEN a webm smaller than the thumb size THEN the still rendered.png is the picture', () => {
    const img = image({ format: 'webm', mime: 'video/webm' });
    if (img.kind !== 'image') throw new Error('expected a visible image');
    const small = {
      ...img,
      representations: { ...img.representations, thumb: 'https://derpicdn.net/img/2024/5/1/4242/full.webm' },
    };
    expect(imageCard(small, ctx()).embed.image?.url).toBe(
      'https://derpicdn.net/img/2024/5/1/4242/rendered.png',
    );
  });

  it('GIVEN protocol-relative and http representations THEN the picture is https', () => {
    const img = image({ base: 'http://derpicdn.net' });
    expect(imageCard(img, ctx()).embed.image?.url).toBe('https://derpicdn.net/img/2024/5/1/4242/large.png');
    const rel = image({ base: '//derpicdn.net' });
    expect(imageCard(rel, ctx()).embed.image?.url).toBe('https://derpicdn.net/img/2024/5/1/4242/large.png');
  });

  it('GIVEN a local site with an http base THEN its own links keep http and other URLs are https', () => {
    const local = resolveSite('http://127.0.0.1:8080');
    const img = image({
      base: 'http://127.0.0.1:8080',
      sources: ['http://elsewhere.test/x'],
      description: '>>1 [t](/tags/x)',
    });
    const card = imageCard(img, { site: local, ageRestricted: true });
    expect(card.embed.url).toBe('http://127.0.0.1:8080/images/4242');
    expect(card.embed.image?.url).toBe('http://127.0.0.1:8080/img/2024/5/1/4242/large.png');
    expect(allText(card.embed)).toContain('<https://elsewhere.test/x>');
    expectHttpsOnly(card.embed, '127.0.0.1:8080');
  });
});

describe('imageCard hostile text and limits', () => {
  const hostileTags = [
    'safe',
    'artist:@everyone',
    'artist:<@123>',
    'colorist:[click](https://evil.test)',
    'editor:**bold**',
    '<@&1>',
    '<#1>',
    '@here',
    '||spoiler||',
    '# heading',
  ];
  const hostileDescription =
    '@everyone <@123> <@&456> <#789> [free nitro](http://evil.test) ![x](javascript:alert(1)) **ok** `<@1>`';

  it('GIVEN hostile tags, credits and description THEN nothing renders as a mention or an unwanted link', () => {
    const card = imageCard(
      image({
        tags: hostileTags,
        description: hostileDescription,
        sources: ['<@1> @everyone', 'http://src.test/a'],
      }),
      ctx({ ageRestricted: true, footerExtra: '3 of 120' }),
    );
    const text = allText(card.embed);
    expect(text).not.toMatch(MENTION);
    // The only masked links are ours: credits to tag pages and the board's own link (made https).
    const targets = [...text.matchAll(/(?<!\\)\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
    for (const target of targets) {
      expect(target.startsWith('https://derpibooru.org/') || target === 'https://evil.test/').toBe(true);
    }
    expect(text).not.toContain('javascript:');
    expect(field(card.embed, 'Credit')).toContain(
      '[\\[click\\](https\\://evil.test)](https://derpibooru.org/tags/',
    );
    expect(card.embed.footer?.text).toBe('Derpibooru · 3 of 120');
    expectHttpsOnly(card.embed);
  });

  it('GIVEN thousands of tags, a 4000-character description and 200 sources THEN every limit holds', () => {
    const tags = ['safe', ...Array.from({ length: 3000 }, (_, i) => `some fairly long tag name ${i}`)];
    const sources = Array.from({ length: 200 }, (_, i) => `https://s${i}.test/${'p'.repeat(80)}`);
    for (const ageRestricted of [true, false]) {
      const card = imageCard(
        image({ tags, sources, description: `**${'word '.repeat(800)}**` }),
        ctx({ ageRestricted }),
      );
      expectWithinLimits(card.embed);
      expect(field(card.embed, 'Tags')).toMatch(/^safe, /);
      expect(field(card.embed, 'Tags')).toMatch(/and \d+ more$/);
      expect(field(card.embed, 'Credit')).toBe('artist unknown');
    }
  });

  it('GIVEN a huge description with a spoiler at the cut THEN the spoiler text never shows unspoilered', () => {
    const description = `${'intro '.repeat(250)}||${'secret '.repeat(400).trim()}||`;
    const card = imageCard(image({ description }), ctx());
    const shown = card.embed.description ?? '';
    const outside = shown.replace(/\|\|[\s\S]*?\|\|/g, '');
    expect(outside).not.toContain('secret');
    expectWithinLimits(card.embed);
  });
});

describe('imageCard against Discord’s own schema', () => {
  const images: [string, Image, boolean][] = [
    ['a full card', image(), false],
    ['a rating-restricted card', image({ tags: ['explicit', 'artist:x'] }), false],
    ['a spoilered card', image({ spoilered: true }), true],
    ['a processing card', image({ thumbnailsGenerated: false }), true],
    ['a webm card', image({ format: 'webm', mime: 'video/webm' }), true],
    [
      'a deleted stub',
      hiddenImageSchema.parse({ id: 1, hidden_from_users: true, deletion_reason: 'x' }),
      true,
    ],
    ['a merged stub', hiddenImageSchema.parse({ id: 1, hidden_from_users: true, duplicate_of: 2 }), true],
    [
      'a huge card',
      image({
        tags: ['safe', ...Array.from({ length: 2000 }, (_, i) => `tag ${i}`)],
        sources: Array.from({ length: 200 }, (_, i) => `https://s${i}.test/${'p'.repeat(60)}`),
        description: 'x '.repeat(3000),
      }),
      false,
    ],
  ];
  it.each(images)(
    'GIVEN %s THEN Discord’s schema and limits accept it as a message',
    (_name, img, ageRestricted) => {
      const { embed } = imageCard(img, ctx({ ageRestricted, footerExtra: '1 of 2' }));
      const body = { embeds: [embed], allowed_mentions: NO_MENTIONS };
      expect([...schemaIssues('MessageCreateRequest', body), ...messageLimitIssues(body)]).toEqual([]);
    },
  );
});

describe('imageCard sources on a rating-restricted card (review L5)', () => {
  const explicit = (sources: string[]): Image => image({ tags: ['explicit', 'artist:x'], sources });
  const sourceText = (embed: APIEmbed): string =>
    (embed.fields ?? [])
      .filter((f) => f.name.startsWith('Source'))
      .map((f) => f.value)
      .join('\n');

  it.each([
    [
      ['https://a.test/1', 'my lewd words', 'http://b.test/2'],
      '<https://a.test/1>\n<https://b.test/2>\n… and 1 more on the image page',
    ],
    [['my lewd words'], '1 source on the image page'],
    [['my lewd words', 'javascript:lewd()', 'https://real.test@lewd.test/'], '3 sources on the image page'],
    [['https://a.test/1'], '<https://a.test/1>'],
    [[], 'no source given'],
  ])('GIVEN sources %j in a plain channel THEN only the links show: %j', (sources, value) => {
    const card = imageCard(explicit(sources), ctx({ ageRestricted: false }));
    expect(card.gate).toBe('rating-restricted');
    expect(sourceText(card.embed)).toBe(value);
    expect(allText(card.embed)).not.toContain('lewd');
  });

  it('GIVEN the same sources in an age-restricted channel THEN every source shows, text too', () => {
    const card = imageCard(explicit(['https://a.test/1', 'my lewd words']), ctx({ ageRestricted: true }));
    expect(card.gate).toBe('full');
    expect(sourceText(card.embed)).toBe('<https://a.test/1>\nmy lewd words');
  });

  it('GIVEN hundreds of link and text sources THEN the links fill the fields, every left-out source is counted, and the card fits', () => {
    const links = Array.from({ length: 150 }, (_, i) => `https://source-${i}.example.test/a/long/page/${i}`);
    const texts = Array.from({ length: 50 }, (_, i) => `lewd text ${i}`);
    const card = imageCard(explicit([...texts, ...links]), ctx({ ageRestricted: false }));
    const shown = sourceText(card.embed);
    expect(shown).not.toContain('lewd');
    const listed = shown.split('\n').filter((line) => line.startsWith('<https://')).length;
    const more = Number(/… and (\d+) more on the image page$/.exec(shown)?.[1]);
    expect(listed + more).toBe(200);
    expectWithinLimits(card.embed);
  });

  it('GIVEN links that exactly fill the fields and a text source THEN the text source is still counted', () => {
    for (let count = 1; count <= 40; count += 1) {
      const links = Array.from({ length: count }, (_, i) => `https://s${i}.test/${'p'.repeat(400)}`);
      const card = imageCard(explicit([...links, 'lewd text']), ctx({ ageRestricted: false }));
      const shown = sourceText(card.embed);
      const listed = shown.split('\n').filter((line) => line.startsWith('<https://')).length;
      const more = Number(/… and (\d+) more on the image page$/.exec(shown)?.[1]);
      expect(listed + more).toBe(count + 1);
      expectWithinLimits(card.embed);
    }
  });
});

describe('imageCard description memo (review H2)', () => {
  it('GIVEN a card built twice with a memo THEN the description is rendered once and the cards are equal', () => {
    const descriptions = createDescriptionMemo();
    const img = image({ description: 'A **nice** picture, https://a.test/))))' });
    const first = imageCard(img, ctx({ descriptions }));
    expect(descriptions.size).toBe(1);
    expect(imageCard(img, ctx({ descriptions }))).toEqual(first);
    expect(descriptions.size).toBe(1);
    expect(first.embed.description).toBe('A **nice** picture, <https://a.test/>))))');
  });

  it('GIVEN a memo that knows the description THEN the card shows what it remembers, not a new rendering', () => {
    const remembered: DescriptionMemo = { get: () => 'remembered text', size: 1 };
    const card = imageCard(image({ description: 'fresh text' }), ctx({ descriptions: remembered }));
    expect(card.embed.description).toBe('remembered text');
  });

  it.each([
    ['a rating-restricted card', image({ tags: ['explicit'] }), ctx({ ageRestricted: false })],
    ['a spoilered card', image({ spoilered: true }), ctx()],
    ['an image without a description', image({ description: '  ' }), ctx()],
  ])('GIVEN %s THEN the memo is not asked', (_name, img, context) => {
    const get = vi.fn(() => 'x');
    imageCard(img, { ...context, descriptions: { get, size: 0 } });
    expect(get).not.toHaveBeenCalled();
  });

  const version = (fields: Record<string, unknown> = {}): VisibleImage => {
    const img = image({ description: 'text' });
    if (img.kind !== 'image') throw new Error('visible image expected');
    return { ...img, ...fields };
  };

  it('GIVEN the same image, site and room THEN the memo renders once; a new version, description, room or site renders again', () => {
    const memo = createDescriptionMemo(10);
    const render = vi.fn(() => 'rendered');
    const other = resolveSite('https://other-booru.test');
    memo.get(version(), site, 100, render);
    memo.get(version(), site, 100, render);
    expect(render).toHaveBeenCalledTimes(1);
    memo.get(version({ updated_at: '2025-01-01T00:00:00.000Z' }), site, 100, render);
    memo.get(version({ description: 'edited without a new updated_at' }), site, 100, render);
    memo.get(version(), site, 200, render);
    memo.get(version(), other, 100, render);
    memo.get(version({ id: 1 }), site, 100, render);
    expect(render).toHaveBeenCalledTimes(6);
  });

  it('GIVEN more images than it holds THEN the memo stays at its capacity and forgets the least recently used', () => {
    const memo = createDescriptionMemo(2);
    const render = vi.fn(() => 'rendered');
    memo.get(version({ id: 1 }), site, 100, render);
    memo.get(version({ id: 2 }), site, 100, render);
    memo.get(version({ id: 1 }), site, 100, render); // 1 is now the most recently used
    memo.get(version({ id: 3 }), site, 100, render); // 2 goes
    expect(memo.size).toBe(2);
    expect(render).toHaveBeenCalledTimes(3);
    memo.get(version({ id: 1 }), site, 100, render);
    expect(render).toHaveBeenCalledTimes(3);
    memo.get(version({ id: 2 }), site, 100, render);
    expect(render).toHaveBeenCalledTimes(4);
    for (let id = 10; id < 1_000; id += 1) memo.get(version({ id }), site, 100, render);
    expect(memo.size).toBe(2);
  });

  it('GIVEN no memo in the context THEN the description renders (through the shared memo), the same each time', () => {
    const img = image({ id: 987_654, description: 'shared *memo*' });
    const first = imageCard(img, ctx());
    expect(imageCard(img, ctx())).toEqual(first);
    expect(first.embed.description).toBe('shared *memo*');
  });
});
