/**
 * The image card in Components V2 form (imageCardV2) beside its embed form: the same gates decide what
 * each shows (`card.media` for the V2 media gallery), and the V2 container keeps Discord's limits and the
 * card's duties (credit, sources, the link to the image page) within its text budget.
 */
import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type APIContainerComponent,
  type APIMediaGalleryItem,
} from 'discord.js';
import { describe, expect, it } from 'vitest';
import {
  countComponents,
  imageCardV2,
  v2TextLength,
  V2_CARD_TEXT_MIN,
  type V2Card,
} from '../../src/render/card-v2.js';
import { imageCard, type CardContext, type ImageCard } from '../../src/render/image-card.js';
import { mediaUrl } from '../../src/render/media.js';
import type { Gate } from '../../src/render/rating-rule.js';
import { NO_MENTIONS } from '../../src/render/mentions.js';
import { MEDIA_DESCRIPTION_MAX, V2_COMPONENTS_MAX, V2_TEXT_MAX } from '../../src/render/limits.js';
import {
  hiddenImageSchema,
  visibleImageSchema,
  type Image,
  type VisibleImage,
} from '../../src/philomena/schemas.js';
import { knownSite, resolveSite, type Site } from '../../src/philomena/sites.js';
import { absolutiseImage } from '../../src/philomena/urls.js';
import { createDataset, IDS } from '../fakes/philomena/data.js';
import { imageJson } from '../fakes/philomena/render.js';
import { messageLimitIssues, schemaIssues } from '../fakes/discord/validate.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site: Site = derpi;

const MENTION = /@everyone|@here|<@[!&]?\d+>|<#\d+>|<\/[\w -]+:\d+>/i;
const IS_COMPONENTS_V2 = 1 << 15;
const CDN = 'https://derpicdn.net';

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
  /** Leave out the `mp4` representation key (as a webm upload's JSON may). */
  noMp4?: boolean;
}

/** A visible image as the server sends it (representations by format), parsed by the real schema. */
function image(options: ImageOptions = {}): VisibleImage {
  const id = options.id ?? 4242;
  const format = options.format ?? 'png';
  const ext = format === 'svg' ? 'png' : format;
  const cdn = options.base ?? CDN;
  const rep = (name: string): string => `${cdn}/img/2024/5/1/${id}/${name}.${ext}`;
  const tags = options.tags ?? ['safe', 'artist:somepony', 'pony'];
  const moving = format === 'gif' || format === 'webm';
  return visibleImageSchema.parse({
    id,
    hidden_from_users: false,
    animated: moving,
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
      ...(moving ? { webm: `${cdn}/img/2024/5/1/${id}/full.webm` } : {}),
      ...(moving && options.noMp4 !== true ? { mp4: `${cdn}/img/2024/5/1/${id}/full.mp4` } : {}),
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

/** Three buttons in one row, as the commands put under a card (custom ids unique in a message). */
function buttons(prefix = ''): APIActionRowComponent<APIComponentInMessageActionRow> {
  return {
    type: ComponentType.ActionRow,
    components: ['prev', 'next', 'reveal'].map((id) => ({
      type: ComponentType.Button,
      style: ButtonStyle.Secondary,
      custom_id: `${prefix}${id}`,
      label: id,
    })),
  };
}
const BUTTONS = buttons();

/** Every string in the value, keys aside. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

function texts(container: APIContainerComponent): string[] {
  const out: string[] = [];
  const visit = (components: readonly unknown[]): void => {
    for (const component of components as { type: number; content?: string; components?: unknown[] }[]) {
      if (component.type === ComponentType.TextDisplay && component.content !== undefined)
        out.push(component.content);
      if (component.components) visit(component.components);
    }
  };
  visit(container.components);
  return out;
}

function textOf(card: V2Card): string {
  return texts(card.container).join('\n');
}

function galleryItems(container: APIContainerComponent): APIMediaGalleryItem[] {
  return container.components.flatMap((component) =>
    component.type === ComponentType.MediaGallery ? component.items : [],
  );
}

/** Every URL in the JSON is https, or http on the http site's own host. */
function expectHttpsOnly(value: unknown, httpHost?: string): void {
  for (const text of strings(value)) {
    for (const url of text.match(/[a-z][a-z0-9+.-]*:\/\/[^\s)>\]]+/gi) ?? []) {
      if (httpHost !== undefined && url.startsWith(`http://${httpHost}/`)) continue;
      expect(url).toMatch(/^https:\/\//);
    }
  }
}

/** The container as one V2 message, checked against Discord's OpenAPI and its documented limits. */
function discordIssues(containers: readonly APIContainerComponent[]): unknown[] {
  const body = { flags: IS_COMPONENTS_V2, components: containers, allowed_mentions: NO_MENTIONS };
  return [...schemaIssues('MessageCreateRequest', body), ...messageLimitIssues(body)];
}

function expectWithinLimits(card: V2Card, textMax = V2_TEXT_MAX): void {
  const components = [card.container];
  expect(countComponents(components)).toBeLessThanOrEqual(V2_COMPONENTS_MAX);
  expect(v2TextLength(components)).toBeLessThanOrEqual(Math.max(textMax, V2_CARD_TEXT_MIN));
  for (const text of texts(card.container)) {
    expect(text.trim().length).toBeGreaterThan(0);
    expect(text.length).toBeLessThanOrEqual(V2_TEXT_MAX);
  }
  for (const item of galleryItems(card.container)) {
    expect(item.media.url.length).toBeLessThanOrEqual(2048);
    expect((item.description ?? 'x').length).toBeGreaterThan(0);
    expect((item.description ?? '').length).toBeLessThanOrEqual(MEDIA_DESCRIPTION_MAX);
  }
  expect(discordIssues(components)).toEqual([]);
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
  ['questionable', 'grimdark'],
  [],
];

type Kind = 'plain' | 'spoilered' | 'spoilered-hidden' | 'spoilered-no-filter' | 'processing' | 'revealed';
const KINDS: readonly Kind[] = [
  'plain',
  'spoilered',
  'spoilered-hidden',
  'spoilered-no-filter',
  'processing',
  'revealed',
];

function expectedGate(kind: Kind, ratings: readonly string[], ageRestricted: boolean): Gate {
  const safe = ratings.length === 1 && ratings[0] === 'safe';
  if (!safe && !ageRestricted) return 'rating-restricted';
  if (kind.startsWith('spoilered')) return 'spoilered';
  if (kind === 'processing') return 'processing';
  return 'full';
}

const SECRET_DESCRIPTION = 'UNIQUE-DESCRIPTION-WORDS';
const SECRET_TAG = 'unique-tag-name';
/** Tag ids of the gate table's images: the spoiler tag and the tag a filter hides. */
const SPOILER_TAG_ID = 7001;
const HIDDEN_TAG_ID = 7002;

describe('imageCard media and imageCardV2 over every gate', () => {
  const cases = RATING_SETS.flatMap((ratings) =>
    KINDS.flatMap((kind) => [true, false].map((ageRestricted) => ({ ratings, kind, ageRestricted }))),
  );
  it.each(cases)(
    'GIVEN rating $ratings, a $kind image, age-restricted $ageRestricted THEN the embed and the V2 card follow the same gate',
    ({ ratings, kind, ageRestricted }) => {
      const tags = [...ratings, 'artist:somepony', SECRET_TAG, 'spoiled thing', 'hidden thing'];
      const tagIds = tags.map((_, i) => 1000 + i);
      tagIds[tags.indexOf('spoiled thing')] = SPOILER_TAG_ID;
      tagIds[tags.indexOf('hidden thing')] = HIDDEN_TAG_ID;
      const img = image({
        tags,
        tagIds,
        description: SECRET_DESCRIPTION,
        spoilered: kind.startsWith('spoilered') || kind === 'revealed',
        thumbnailsGenerated: kind !== 'processing',
      });
      const filter =
        kind === 'spoilered-no-filter'
          ? undefined
          : {
              name: 'Default',
              spoileredTagIds: [SPOILER_TAG_ID],
              hiddenTagIds: kind === 'spoilered-hidden' ? [HIDDEN_TAG_ID] : [],
            };
      const card = imageCard(
        img,
        ctx({ ageRestricted, reveal: kind === 'revealed', ...(filter ? { filter } : {}) }),
      );
      const gate = expectedGate(kind, ratings, ageRestricted);
      expect(card.gate).toBe(gate);
      // The media: a picture on a full card; behind a spoiler on a spoilered one whose filter is known
      // and hides none of its tags; never otherwise.
      const pictured = gate === 'full' || (gate === 'spoilered' && kind === 'spoilered');
      expect(card.media !== null).toBe(pictured);
      expect(card.media?.spoiler ?? false).toBe(pictured && gate === 'spoilered');
      // The embed form is unchanged: a picture on a full card only.
      expect(card.embed.image !== undefined).toBe(gate === 'full');

      const v2 = imageCardV2(card, { rows: [BUTTONS] });
      const items = galleryItems(v2.container);
      expect(items).toHaveLength(pictured ? 1 : 0);
      if (card.media) {
        expect(items[0]?.media.url).toBe(card.media.url);
        expect(items[0]?.spoiler ?? false).toBe(card.media.spoiler);
      }
      const text = textOf(v2);
      const json = JSON.stringify(v2.container);
      // Every card: the heading links the page, credit, source, the rating words.
      expect(texts(v2.container)[0]).toMatch(/^### \[\\#4242\]\(https:\/\/derpibooru\.org\/images\/4242\)/);
      expect(text).toContain('[somepony](https://derpibooru.org/tags/artist-colon-somepony)');
      expect(text).toContain('<https://example.test/art/1>');
      expect(text).toContain(ratings.length === 0 ? 'no rating tag' : ratings.join(', '));
      expect(text).toContain('-# Derpibooru');
      expect(v2.complete).toBe(true);
      // Tags and description as on the embed: a full or processing card only.
      const open = gate === 'full' || gate === 'processing';
      expect(JSON.stringify(items).includes(SECRET_TAG)).toBe(gate === 'full');
      expect(text.includes(SECRET_TAG)).toBe(open);
      expect(text.includes(SECRET_DESCRIPTION)).toBe(open);
      if (!ageRestricted && gate !== 'full' && gate !== 'processing' && gate !== 'spoilered') {
        // Outside age-restricted channels a non-safe image shows no picture, tags or description.
        expect(json).not.toContain(CDN);
        expect(json).not.toContain(SECRET_TAG);
        expect(json).not.toContain(SECRET_DESCRIPTION);
      }
      if (gate === 'rating-restricted') expect(text).toMatch(/only be shown in age-restricted channels/);
      if (gate === 'processing') expect(text).toMatch(/still processing/i);
      if (gate === 'spoilered') {
        expect(text).toMatch(/This image is (?:hidden|spoilered)/);
        expect(text).toMatch(pictured ? /behind a spoiler/ : /picture and description are not shown/);
        // The spoilered alt text names no tags.
        expect(items[0]?.description ?? '').not.toContain('spoiled thing');
      }
      // Container, heading, gallery, body and a row of three buttons at most.
      expect(countComponents([v2.container])).toBeLessThanOrEqual(8);
      expect(v2.container.accent_color).toBe(card.embed.color);
      expect(v2.container.components.at(-1)).toEqual(BUTTONS);
      expect(text).not.toMatch(MENTION);
      expectHttpsOnly(v2.container);
      expectWithinLimits(v2);
    },
  );
});

describe('imageCardV2 of deleted and merged images', () => {
  it('GIVEN a deleted image with a hostile reason THEN the V2 card says so, escaped, with no media', () => {
    const stub = hiddenImageSchema.parse({
      id: 5,
      hidden_from_users: true,
      deletion_reason: 'Rule #2 @everyone **x**',
    });
    for (const ageRestricted of [true, false]) {
      const card = imageCard(stub, ctx({ ageRestricted }));
      expect(card.gate).toBe('deleted');
      expect(card.media).toBeNull();
      const v2 = imageCardV2(card);
      expect(texts(v2.container)).toEqual([
        '### [\\#5](https://derpibooru.org/images/5)\nThis image was deleted: Rule #2 @\u200beveryone \\*\\*x\\*\\*\n-# Derpibooru',
      ]);
      expect(v2.complete).toBe(true);
      expect(galleryItems(v2.container)).toEqual([]);
      expectWithinLimits(v2);
    }
  });

  it('GIVEN a merged image THEN the V2 card links the target', () => {
    const stub = hiddenImageSchema.parse({ id: 5, hidden_from_users: true, duplicate_of: 77 });
    const card = imageCard(stub, ctx());
    expect(card.gate).toBe('merged');
    expect(card.media).toBeNull();
    const v2 = imageCardV2(card);
    expect(textOf(v2)).toContain('This image was merged into [#77](https://derpibooru.org/images/77).');
    expect(galleryItems(v2.container)).toEqual([]);
    expectWithinLimits(v2);
  });
});

describe('card media by format', () => {
  it.each([
    ['png', 'image/png', {}, `${CDN}/img/2024/5/1/4242/large.png`, 'image'],
    ['jpg', 'image/jpeg', {}, `${CDN}/img/2024/5/1/4242/large.jpg`, 'image'],
    ['svg', 'image/svg+xml', {}, `${CDN}/img/2024/5/1/4242/large.png`, 'image'],
    ['gif', 'image/gif', {}, `${CDN}/img/view/2024/5/1/4242.gif`, 'animation'],
    ['webm', 'video/webm', {}, `${CDN}/img/2024/5/1/4242/full.mp4`, 'video'],
    ['webm', 'video/webm', { noMp4: true }, `${CDN}/img/view/2024/5/1/4242.mp4`, 'video'],
    ['mp4', 'video/mp4', {}, `${CDN}/img/view/2024/5/1/4242.mp4`, 'video'],
  ] as const)('GIVEN a %s upload (%s, %j) THEN the media is %s, a %s', (format, mime, extra, url, kind) => {
    const card = imageCard(image({ format, mime, ...extra }), ctx());
    expect(card.media?.url).toBe(url);
    expect(card.media?.kind).toBe(kind);
    expect(card.media?.still).toBe(card.embed.image?.url);
    const v2 = imageCardV2(card);
    expect(galleryItems(v2.container)[0]?.media.url).toBe(url);
    // A video also gets its link as text, for clients that do not play it.
    if (kind === 'video') expect(textOf(v2)).toContain(`**Video:** <${url}>`);
    else expect(textOf(v2)).not.toContain('**Video:**');
    expectWithinLimits(v2);
  });

  it('GIVEN a spoilered webm THEN the .mp4 is behind the spoiler and its link is not in the text', () => {
    const card = imageCard(
      image({ format: 'webm', mime: 'video/webm', spoilered: true }),
      ctx({ filter: { name: 'Default', spoileredTagIds: [1001], hiddenTagIds: [] } }),
    );
    expect(card.media).toMatchObject({ kind: 'video', spoiler: true });
    const v2 = imageCardV2(card);
    expect(galleryItems(v2.container)[0]?.spoiler).toBe(true);
    expect(textOf(v2)).not.toContain('.mp4');
  });

  it('GIVEN a spoilered image under a filter with a hidden search THEN no media: it may be one the search hides', () => {
    const spoilered = image({ spoilered: true });
    const withComplex = imageCard(
      spoilered,
      ctx({
        filter: { name: 'Mine', spoileredTagIds: [1001], hiddenTagIds: [], hiddenComplex: 'score.lte:-10' },
      }),
    );
    expect(withComplex.gate).toBe('spoilered');
    expect(withComplex.media).toBeNull();
    expect(galleryItems(imageCardV2(withComplex).container)).toEqual([]);
    // A blank hidden search hides nothing: the native spoiler again.
    const blank = imageCard(
      spoilered,
      ctx({ filter: { name: 'Mine', spoileredTagIds: [1001], hiddenTagIds: [], hiddenComplex: '  ' } }),
    );
    expect(blank.media?.spoiler).toBe(true);
  });

  it('GIVEN http and protocol-relative representations THEN the media is https', () => {
    for (const base of ['http://derpicdn.net', '//derpicdn.net']) {
      expect(imageCard(image({ base }), ctx()).media?.url).toBe(`${CDN}/img/2024/5/1/4242/large.png`);
      expect(imageCard(image({ base, format: 'webm', mime: 'video/webm' }), ctx()).media?.url).toBe(
        `${CDN}/img/2024/5/1/4242/full.mp4`,
      );
    }
  });

  it('GIVEN a local site with an http base THEN its own media keeps http and other URLs are https', () => {
    const local = resolveSite('http://127.0.0.1:8080');
    const card = imageCard(image({ base: 'http://127.0.0.1:8080', sources: ['http://elsewhere.test/x'] }), {
      site: local,
      ageRestricted: true,
    });
    expect(card.media?.url).toBe('http://127.0.0.1:8080/img/2024/5/1/4242/large.png');
    const v2 = imageCardV2(card);
    expect(textOf(v2)).toContain('<https://elsewhere.test/x>');
    expectHttpsOnly(v2.container, '127.0.0.1:8080');
  });

  it('GIVEN a picture URL over 2,048 characters THEN there is no media rather than a refused one', () => {
    const img = image();
    const long = `${CDN}/img/${'p'.repeat(2100)}/large.png`;
    const card = imageCard({ ...img, representations: { ...img.representations, large: long } }, ctx());
    expect(card.media).toBeNull();
    expectWithinLimits(imageCardV2(card));
  });

  describe('the local board’s animated images', () => {
    const data = createDataset();
    const local = resolveSite('https://booru.test');
    const boardImage = (id: number): Image => {
      const record = data.images.get(id);
      if (!record) throw new Error(`no image ${id}`);
      const json = imageJson(record, false, {
        base: local.baseUrl,
        style: 'derpibooru',
        tagIdsByName: new Map(),
      });
      return absolutiseImage(visibleImageSchema.parse(json), local);
    };

    it('GIVEN its webm THEN the media is its .mp4 rendition, a video', () => {
      const card = imageCard(boardImage(IDS.webm), { site: local, ageRestricted: false });
      expect(card.media?.kind).toBe('video');
      expect(card.media?.url).toMatch(/^https:\/\/booru\.test\/img\/.+\/full\.mp4$/);
      expect(card.media?.still).toMatch(/\.(?:gif|png)$/);
    });

    it('GIVEN its animated gif THEN the media is the gif itself, an animation', () => {
      const card = imageCard(boardImage(IDS.animatedGif), { site: local, ageRestricted: false });
      expect(card.media?.kind).toBe('animation');
      expect(card.media?.url).toMatch(/^https:\/\/booru\.test\/img\/view\/.+\.gif$/);
    });

    it('GIVEN its svg THEN the media is a png', () => {
      const card = imageCard(boardImage(IDS.svg), { site: local, ageRestricted: false });
      expect(card.media?.kind).toBe('image');
      expect(card.media?.url).toMatch(/\.png$/);
    });
  });
});

describe('mediaUrl', () => {
  it.each([
    ['https://derpicdn.net/img/1/large.png', 'https://derpicdn.net/img/1/large.png'],
    [
      'https://a.test/p|q^r/@everyone?x=<@1>&y=|#frag',
      'https://a.test/p%7Cq%5Er/%40everyone?x=%3C%401%3E&y=%7C',
    ],
    ['https://a.test/100%/%41', 'https://a.test/100%25/%41'],
    ['https://a.test/ü (1)', 'https://a.test/%C3%BC%20(1)'],
    ['http://127.0.0.1:8080/img/1.png', 'http://127.0.0.1:8080/img/1.png'],
    ['https://a{b}.test/x', null],
    ['data:image/png;base64,x', null],
    [`https://a.test/${'x'.repeat(2100)}`, null],
  ])('GIVEN %s THEN the media URL is %s', (url, expected) => {
    expect(mediaUrl(url)).toBe(expected);
  });
});

describe('card media alt text', () => {
  it('GIVEN tags THEN the alt text lists the rating first, then the rest', () => {
    const card = imageCard(image({ tags: ['pony', 'artist:a', 'safe'] }), ctx());
    expect(card.media?.description).toBe('safe, pony, artist:a');
  });

  it('GIVEN thousands of tags THEN the alt text fits and counts the rest', () => {
    const tags = ['safe', ...Array.from({ length: 3000 }, (_, i) => `long tag name ${i}`)];
    const description = imageCard(image({ tags }), ctx()).media?.description ?? '';
    expect(description.length).toBeLessThanOrEqual(MEDIA_DESCRIPTION_MAX);
    expect(description).toMatch(/^safe, .*… and \d+ more$/);
  });

  it('GIVEN hostile tags THEN the alt text holds no mention or http URL under any reading', () => {
    const tags = [
      'safe',
      '@everyone',
      '<@123>',
      '<\\@&1>',
      '@\\here',
      'http://evil.test/',
      'line\nbreak\u0000',
    ];
    const description = imageCard(image({ tags }), ctx()).media?.description ?? '';
    expect(description).not.toMatch(MENTION);
    expect(description.replace(/\\/g, '')).not.toMatch(MENTION);
    expect(description).not.toMatch(/http:\/\//);
    expect(description).not.toMatch(/[\n\p{Cc}]/u);
  });
});

describe('imageCardV2 limits and the text budget', () => {
  const manySources = Array.from(
    { length: 200 },
    (_, i) => `https://source-${i}.example.test/path/to/a/fairly/long/page/${i}`,
  );
  const manyTags = [
    'safe',
    'artist:somepony',
    ...Array.from({ length: 3000 }, (_, i) => `some long tag ${i}`),
  ];
  const huge = (): ImageCard =>
    imageCard(
      image({ tags: manyTags, sources: manySources, description: `**${'word '.repeat(3000)}**` }),
      ctx(),
    );

  /** Listed sources plus the counted rest. */
  function sourcesAccounted(text: string): number {
    const listed = text.split('\n').filter((line) => /^<https:\/\/source-\d+\./.test(line)).length;
    return listed + Number(/… and (\d+) more on the image page/.exec(text)?.[1] ?? 0);
  }

  it('GIVEN a huge description, 200 sources and 3000 tags THEN the card fits 4,000 and keeps every source line of the embed form', () => {
    const card = huge();
    const v2 = imageCardV2(card, { rows: [BUTTONS] });
    expectWithinLimits(v2);
    expect(v2TextLength([v2.container])).toBeLessThanOrEqual(V2_TEXT_MAX);
    expect(v2.complete).toBe(true);
    const text = textOf(v2);
    for (const field of card.embed.fields ?? []) {
      if (field.name === 'Credit' || field.name.startsWith('Source')) expect(text).toContain(field.value);
    }
    expect(sourcesAccounted(text)).toBe(200);
    // The description gave up its room first.
    expect(text).not.toContain('word word');
  });

  it.each([2000, 1000, 600, V2_CARD_TEXT_MIN])(
    'GIVEN a budget of %i THEN the text fits it, credit and heading stay, and the sources are counted',
    (textMax) => {
      const v2 = imageCardV2(huge(), { textMax, rows: [BUTTONS] });
      expectWithinLimits(v2, textMax);
      expect(v2.complete).toBe(false);
      const text = textOf(v2);
      expect(text).toMatch(/^### \[\\#4242\]/);
      expect(text).toContain('[somepony](https://derpibooru.org/tags/artist-colon-somepony)');
      expect(text).toMatch(/… and \d+ more on the image page|200 sources on the image page/);
      expect(sourcesAccounted(text)).toBe(200);
    },
  );

  it('GIVEN a budget below the least a card needs THEN it is read as that least', () => {
    const v2 = imageCardV2(huge(), { textMax: 10 });
    expect(v2TextLength([v2.container])).toBeLessThanOrEqual(V2_CARD_TEXT_MIN);
    expect(textOf(v2)).toContain('somepony');
  });

  it('GIVEN a budget the card nearly fits THEN the description is cut before the tags, the tags before the stats', () => {
    const img = image({
      tags: ['safe', 'artist:somepony', ...Array.from({ length: 40 }, (_, i) => `tag ${i}`)],
      description: 'lorem ipsum '.repeat(200),
    });
    const card = imageCard(img, ctx());
    const full = imageCardV2(card);
    expect(full.complete).toBe(true);
    const whole = v2TextLength([full.container]);
    const description = (card.embed.description ?? '').length;
    const tags = card.embed.fields?.find((field) => field.name.startsWith('Tags'))?.value ?? '';
    expect(tags).toContain('tag 39');

    const shorter = textOf(imageCardV2(card, { textMax: whole - 500 }));
    expect(shorter).toContain('lorem ipsum');
    expect(shorter).toContain(tags);

    const noDescription = textOf(imageCardV2(card, { textMax: whole - description }));
    expect(noDescription).not.toContain('lorem');
    expect(noDescription).toContain(tags);
    expect(noDescription).toContain('**Uploaded:**');

    const fewerTags = textOf(imageCardV2(card, { textMax: whole - description - tags.length / 2 }));
    expect(fewerTags).toContain('tag 1');
    expect(fewerTags).not.toContain('tag 39');
    expect(fewerTags).toContain('**Uploaded:**');
  });

  it('GIVEN a hundred prompters and a small budget THEN the artist is credited first and the card says it is not complete', () => {
    const tags = [
      'safe',
      ...Array.from({ length: 100 }, (_, i) => `prompter:person number ${i}`),
      'artist:the artist',
    ];
    const v2 = imageCardV2(imageCard(image({ tags }), ctx()), { textMax: 400 });
    expectWithinLimits(v2, 400);
    expect(v2.complete).toBe(false);
    expect(textOf(v2)).toContain('[the artist]');
  });

  it('GIVEN three full cards sharing one message THEN each keeps its share and the message is within Discord’s limits', () => {
    const cards = [1, 2, 3].map((id) =>
      imageCardV2(imageCard(image({ id, sources: manySources, tags: manyTags }), ctx()), {
        textMax: Math.floor(V2_TEXT_MAX / 3),
        rows: [buttons(`card${id}-`)],
      }),
    );
    const containers = cards.map((card) => card.container);
    expect(v2TextLength(containers)).toBeLessThanOrEqual(V2_TEXT_MAX);
    expect(countComponents(containers)).toBeLessThanOrEqual(V2_COMPONENTS_MAX);
    expect(discordIssues(containers)).toEqual([]);
  });
});

describe('countComponents and v2TextLength', () => {
  const tree = [
    {
      type: ComponentType.Container,
      components: [
        { type: ComponentType.TextDisplay, content: 'abc' },
        {
          type: ComponentType.Section,
          components: [{ type: ComponentType.TextDisplay, content: 'de' }],
          accessory: { type: ComponentType.Thumbnail, media: { url: 'https://a.test/x.png' } },
        },
        {
          type: ComponentType.MediaGallery,
          items: [{ media: { url: 'https://a.test/1.png' } }, { media: { url: 'https://a.test/2.png' } }],
        },
        BUTTONS,
      ],
    },
    { type: ComponentType.TextDisplay, content: 'f' },
  ];

  it('GIVEN nested components THEN every component counts, gallery items do not', () => {
    // container, text, section, its text, thumbnail, gallery, row, three buttons, top-level text
    expect(countComponents(tree)).toBe(11);
  });

  it('GIVEN nested text displays THEN their contents add up, button labels do not', () => {
    expect(v2TextLength(tree)).toBe(6);
  });

  it('GIVEN junk THEN nothing is counted', () => {
    expect(countComponents([null, 1, 'x', { components: [] }])).toBe(0);
    expect(v2TextLength([{ type: ComponentType.TextDisplay }])).toBe(0);
  });
});
