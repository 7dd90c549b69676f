/**
 * The search grid (imageGrid): the rating rule per image (what may not be shown here is left out
 * entirely), spoilers behind Discord's native spoiler, processing images listed without a picture, and
 * Discord's limits for the container (text, components, gallery items, URLs).
 */
import {
  ComponentType,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type APIContainerComponent,
  type APIMediaGalleryItem,
} from 'discord.js';
import { describe, expect, it } from 'vitest';
import { countComponents, v2TextLength } from '../../src/render/card-v2.js';
import { GRID_TEXT_MIN, imageGrid, type GridOptions } from '../../src/render/grid.js';
import { NO_MENTIONS } from '../../src/render/mentions.js';
import {
  GALLERY_ITEMS_MAX,
  MEDIA_DESCRIPTION_MAX,
  V2_COMPONENTS_MAX,
  V2_TEXT_MAX,
} from '../../src/render/limits.js';
import { hiddenImageSchema, type Image, type VisibleImage } from '../../src/philomena/schemas.js';
import { knownSite, resolveSite, type Site } from '../../src/philomena/sites.js';
import { messageLimitIssues, schemaIssues } from '../fakes/discord/validate.js';
import { testImage } from '../support/images.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site: Site = derpi;

const MENTION = /@everyone|@here|<@[!&]?\d+>|<#\d+>|<\/[\w -]+:\d+>/i;
const IS_COMPONENTS_V2 = 1 << 15;
const CDN = 'https://derpicdn.net';

/** A visible image with representations under the CDN folder of its id. */
function image(
  id: number,
  tags: readonly string[] = ['safe', `artist:painter ${id}`],
  fields: Record<string, unknown> = {},
): VisibleImage {
  return testImage(tags, { id, spoilered: false, ...fields }, `${CDN}/img/2024/1/1/${id}`);
}

function options(overrides: Partial<GridOptions> = {}): GridOptions {
  return {
    site,
    ageRestricted: false,
    heading: 'Search: pony · 1–10 of 1,234',
    footer: 'Derpibooru',
    ...overrides,
  };
}

function texts(container: APIContainerComponent): string[] {
  return container.components.flatMap((component) =>
    component.type === ComponentType.TextDisplay ? [component.content] : [],
  );
}

function items(container: APIContainerComponent): APIMediaGalleryItem[] {
  return container.components.flatMap((component) =>
    component.type === ComponentType.MediaGallery ? component.items : [],
  );
}

/** The numbered lines of the list: their image ids in order. */
function listedIds(container: APIContainerComponent): number[] {
  const text = texts(container).join('\n');
  return [...text.matchAll(/^\d+\. \[#(\d+)\]/gm)].map((match) => Number(match[1]));
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

function expectHttpsOnly(value: unknown, httpHost?: string): void {
  for (const text of strings(value)) {
    for (const url of text.match(/[a-z][a-z0-9+.-]*:\/\/[^\s)>\]]+/gi) ?? []) {
      if (httpHost !== undefined && url.startsWith(`http://${httpHost}/`)) continue;
      expect(url).toMatch(/^https:\/\//);
    }
  }
}

function expectWithinLimits(container: APIContainerComponent): void {
  expect(countComponents([container])).toBeLessThanOrEqual(V2_COMPONENTS_MAX);
  expect(v2TextLength([container])).toBeLessThanOrEqual(V2_TEXT_MAX);
  for (const text of texts(container)) expect(text.trim().length).toBeGreaterThan(0);
  const galleries = container.components.filter((component) => component.type === ComponentType.MediaGallery);
  expect(galleries.length).toBeLessThanOrEqual(1);
  for (const gallery of galleries) {
    if (gallery.type !== ComponentType.MediaGallery) continue;
    expect(gallery.items.length).toBeGreaterThanOrEqual(1);
    expect(gallery.items.length).toBeLessThanOrEqual(GALLERY_ITEMS_MAX);
  }
  for (const item of items(container)) {
    expect(item.media.url.length).toBeLessThanOrEqual(2048);
    expect((item.description ?? '').length).toBeLessThanOrEqual(MEDIA_DESCRIPTION_MAX);
  }
  const body = { flags: IS_COMPONENTS_V2, components: [container], allowed_mentions: NO_MENTIONS };
  expect([...schemaIssues('MessageCreateRequest', body), ...messageLimitIssues(body)]).toEqual([]);
}

const RATINGS: readonly (readonly string[])[] = [
  ['safe'],
  ['suggestive'],
  ['questionable'],
  ['explicit'],
  ['semi-grimdark'],
  ['grimdark'],
  ['grotesque'],
  ['safe', 'explicit'],
  [],
];

describe('imageGrid and the rating rule', () => {
  const mixed = RATINGS.map((ratings, i) => image(10 + i, [...ratings, `artist:painter ${i}`]));

  it('GIVEN mixed ratings in a plain channel THEN only the image rated exactly safe is listed or pictured', () => {
    const grid = imageGrid(mixed, options());
    expect(grid.shown.map((img) => img.id)).toEqual([10]);
    expect(listedIds(grid.container)).toEqual([10]);
    expect(items(grid.container).map((item) => item.media.url)).toEqual([
      `${CDN}/img/2024/1/1/10/medium.png`,
    ]);
    const json = JSON.stringify(grid.container);
    for (const left of mixed.slice(1)) {
      expect(json).not.toContain(`/${left.id}/`);
      expect(json).not.toContain(`#${left.id}`);
      expect(json).not.toContain(`painter ${left.id - 10}`);
    }
    expectWithinLimits(grid.container);
  });

  it('GIVEN mixed ratings in an age-restricted channel THEN every image is listed and pictured, in order', () => {
    const grid = imageGrid(mixed, options({ ageRestricted: true }));
    expect(grid.shown.map((img) => img.id)).toEqual(mixed.map((img) => img.id));
    expect(listedIds(grid.container)).toEqual(mixed.map((img) => img.id));
    expect(items(grid.container)).toHaveLength(mixed.length);
    expectWithinLimits(grid.container);
  });

  it('GIVEN deleted and merged stubs THEN they are left out', () => {
    const stubs: Image[] = [
      hiddenImageSchema.parse({ id: 1, hidden_from_users: true, deletion_reason: 'gone' }),
      hiddenImageSchema.parse({ id: 2, hidden_from_users: true, duplicate_of: 3 }),
      image(4),
    ];
    for (const ageRestricted of [true, false]) {
      const grid = imageGrid(stubs, options({ ageRestricted }));
      expect(grid.shown.map((img) => img.id)).toEqual([4]);
      expect(listedIds(grid.container)).toEqual([4]);
    }
  });

  it('GIVEN nothing that may be shown here THEN the grid says so, with no gallery', () => {
    const grid = imageGrid([image(1, ['explicit'])], options());
    expect(grid.shown).toEqual([]);
    expect(items(grid.container)).toEqual([]);
    expect(texts(grid.container).join('\n')).toContain('No image here can be shown in this channel.');
    expectWithinLimits(grid.container);
  });
});

describe('imageGrid and the filter', () => {
  // testImage gives tag ids by position: 0 is the rating, 1 the artist, 2 the filter's tag.
  const filter = { name: 'Default', spoileredTagIds: [2], hiddenTagIds: [3] };
  const spoiled = image(1, ['safe', 'artist:a', 'spoiled tag'], { spoilered: true });
  const hidden = image(2, ['safe', 'artist:b', 'other', 'hidden tag'], { spoilered: true });
  const plain = image(3);

  it('GIVEN a spoilered image and the filter known THEN it is pictured behind a spoiler', () => {
    const grid = imageGrid([spoiled, plain], options({ filter }));
    expect(grid.shown.map((img) => img.id)).toEqual([1, 3]);
    expect(items(grid.container).map((item) => item.spoiler ?? false)).toEqual([true, false]);
    expectWithinLimits(grid.container);
  });

  it('GIVEN an image one of the filter’s hidden tags hits THEN it is left out entirely', () => {
    for (const ageRestricted of [true, false]) {
      const grid = imageGrid([hidden, plain], options({ filter, ageRestricted }));
      expect(grid.shown.map((img) => img.id)).toEqual([3]);
      expect(JSON.stringify(grid.container)).not.toContain('/2/');
    }
  });

  it('GIVEN a spoilered image and no filter known THEN it is listed without a picture', () => {
    const grid = imageGrid([spoiled, plain], options());
    expect(grid.shown.map((img) => img.id)).toEqual([1, 3]);
    expect(items(grid.container).map((item) => item.media.url)).toEqual([`${CDN}/img/2024/1/1/3/medium.png`]);
    expect(texts(grid.container).join('\n')).toMatch(/^1\. \[#1\].* · spoilered$/m);
  });
});

describe('imageGrid pictures', () => {
  it('GIVEN processing images THEN they are listed without a picture, and a gallery with no item is left out', () => {
    const processing = [1, 2].map((id) => image(id, ['safe', 'artist:a'], { thumbnails_generated: false }));
    const grid = imageGrid(processing, options());
    expect(listedIds(grid.container)).toEqual([1, 2]);
    expect(grid.container.components.some((c) => c.type === ComponentType.MediaGallery)).toBe(false);
    expect(texts(grid.container).join('\n')).toMatch(/^2\. \[#2\].* · still processing$/m);
    expectWithinLimits(grid.container);

    const mixed = imageGrid([processing[0]!, image(3)], options());
    expect(listedIds(mixed.container)).toEqual([1, 3]);
    expect(items(mixed.container)).toHaveLength(1);
  });

  it('GIVEN more than ten images THEN the first ten that may be shown are listed', () => {
    const images = Array.from({ length: 15 }, (_, i) => image(i + 1, i % 3 === 0 ? ['explicit'] : ['safe']));
    const grid = imageGrid(images, options());
    expect(grid.shown).toHaveLength(GALLERY_ITEMS_MAX);
    expect(grid.shown.map((img) => img.id)).toEqual([2, 3, 5, 6, 8, 9, 11, 12, 14, 15]);
    expect(items(grid.container)).toHaveLength(GALLERY_ITEMS_MAX);
    expectWithinLimits(grid.container);
  });

  it.each([
    ['png', 'image/png', {}, 'medium.png'],
    ['svg', 'image/svg+xml', { medium: `${CDN}/img/2024/1/1/1/medium.svg` }, 'medium.png'],
    ['webm', 'video/webm', { thumb: `${CDN}/img/2024/1/1/1/thumb.webm` }, 'thumb.gif'],
    ['png', 'image/png', { medium: 'javascript:x' }, 'thumb.png'],
    ['png', 'image/png', { medium: 'http://derpicdn.net/img/2024/1/1/1/medium.png' }, 'medium.png'],
  ])('GIVEN a %s (%s) with %j THEN its tile is %s over https', (format, mime, reps, file) => {
    const base = image(1);
    const img = { ...base, format, mime_type: mime, representations: { ...base.representations, ...reps } };
    const grid = imageGrid([img], options());
    expect(items(grid.container)[0]?.media.url).toBe(`${CDN}/img/2024/1/1/1/${file}`);
    expectHttpsOnly(grid.container);
  });

  it('GIVEN a local board with an http base THEN its own links keep http, all else is https', () => {
    const local = resolveSite('http://127.0.0.1:8080');
    const img = testImage(['safe', 'artist:a'], { id: 1, spoilered: false }, 'http://127.0.0.1:8080/img/1');
    const grid = imageGrid([img], options({ site: local }));
    expect(items(grid.container)[0]?.media.url).toBe('http://127.0.0.1:8080/img/1/medium.png');
    expectHttpsOnly(grid.container, '127.0.0.1:8080');
  });
});

describe('imageGrid text', () => {
  it('GIVEN images THEN each line is its number, its page link, its credit and its sources, under the heading, over the footer', () => {
    // Changed on purpose (no picture without its sources, a tile neither): every line now carries the
    // first source and a count.
    const grid = imageGrid(
      [
        image(1, ['safe', 'artist:alpha', 'colorist:beta'], {
          source_urls: ['http://www.deviantart.com/alpha/art/1', 'https://x.com/alpha/2', 'prose'],
        }),
        image(2, ['safe'], { source_urls: ['not a link'] }),
        image(3, ['safe', 'artist:gamma']),
      ],
      options(),
    );
    const [top, footer] = texts(grid.container);
    expect(top).toBe(
      [
        'Search: pony · 1–10 of 1,234',
        '1. [#1](https://derpibooru.org/images/1) · **Artist:** [alpha](https://derpibooru.org/tags/artist-colon-alpha) · **Colorist:** [beta](https://derpibooru.org/tags/colorist-colon-beta) · <https://www.deviantart.com/alpha/art/1> (+2 more sources)',
        '2. [#2](https://derpibooru.org/images/2) · artist unknown · not a link',
        '3. [#3](https://derpibooru.org/images/3) · **Artist:** [gamma](https://derpibooru.org/tags/artist-colon-gamma) · no source given',
      ].join('\n'),
    );
    expect(grid.unlisted).toEqual([]);
    expect(footer).toBe('-# Derpibooru');
    expect(items(grid.container).map((item) => item.description)).toEqual([
      '#1 by alpha',
      '#2, artist unknown',
      '#3 by gamma',
    ]);
    expect(grid.container.components.map((c) => c.type)).toEqual([
      ComponentType.TextDisplay,
      ComponentType.MediaGallery,
      ComponentType.TextDisplay,
    ]);
  });

  it('GIVEN rows THEN they close the container', () => {
    const row: APIActionRowComponent<APIComponentInMessageActionRow> = {
      type: ComponentType.ActionRow,
      components: [
        {
          type: ComponentType.StringSelect,
          custom_id: 'pick',
          options: [{ label: '#1', value: '1' }],
        },
      ],
    };
    const grid = imageGrid([image(1)], options({ rows: [row] }));
    expect(grid.container.components.at(-1)).toEqual(row);
    expectWithinLimits(grid.container);
  });

  describe('ten images with a hundred credits each, a long heading and footer', () => {
    const crowd = (id: number): string[] => [
      'safe',
      ...Array.from({ length: 100 }, (_, i) => `artist:a rather long artist name ${id}-${i}`),
    ];
    const images = Array.from({ length: 10 }, (_, i) => image(i + 1, crowd(i)));
    const long = { heading: `**${'h'.repeat(3000)}**`, footer: 'f'.repeat(3000) };

    it('GIVEN no budget THEN the text fits 4,000', () => {
      const grid = imageGrid(images, options(long));
      expect(listedIds(grid.container)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(v2TextLength([grid.container])).toBeLessThanOrEqual(V2_TEXT_MAX);
      // More than the budget below, so that budget is what bounds it there.
      expect(v2TextLength([grid.container])).toBeGreaterThan(3000);
      for (const item of items(grid.container)) expect(item.description).toMatch(/^#\d+ by a rather long/);
      expectWithinLimits(grid.container);
    });

    it('GIVEN a text budget (room left for a note above it) THEN every image still listed within it', () => {
      const grid = imageGrid(images, options({ ...long, textMax: 3000 }));
      expect(listedIds(grid.container)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(v2TextLength([grid.container])).toBeLessThanOrEqual(3000);
      for (const item of items(grid.container)) expect(item.description).toMatch(/^#\d+ by a rather long/);
    });

    it('GIVEN a budget over 4,000 THEN 4,000 still bounds it', () => {
      const grid = imageGrid(images, options({ ...long, textMax: 10_000 }));
      expect(v2TextLength([grid.container])).toBeLessThanOrEqual(V2_TEXT_MAX);
    });
  });

  describe('sources on every line (security review N11)', () => {
    /** The numbered lines of the list, by image id. */
    const lineOf = (grid: ReturnType<typeof imageGrid>, id: number): string =>
      texts(grid.container)
        .join('\n')
        .split('\n')
        .find((line) => line.includes(`[#${id}](`)) ?? '';
    const longSource = (id: number, length: number): string =>
      `https://example.com/${id}/${'s'.repeat(length)}`;

    it('GIVEN ten images with a hundred credits and many sources each THEN every line keeps a credit, its first source and the count', () => {
      const images = Array.from({ length: 10 }, (_, i) =>
        image(
          i + 1,
          ['safe', ...Array.from({ length: 100 }, (_, n) => `artist:a rather long artist name ${i}-${n}`)],
          { source_urls: Array.from({ length: 40 }, (_, n) => `https://site${n}.example/${i}/${n}`) },
        ),
      );
      for (const textMax of [V2_TEXT_MAX, 3000]) {
        const grid = imageGrid(
          images,
          options({ heading: `**${'h'.repeat(3000)}**`, footer: 'f'.repeat(3000), textMax }),
        );
        expect(listedIds(grid.container)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        expect(v2TextLength([grid.container])).toBeLessThanOrEqual(textMax);
        for (let i = 0; i < 10; i += 1) {
          const line = lineOf(grid, i + 1);
          expect(line).toContain(`a rather long artist name ${i}-0`);
          expect(line).toMatch(/… and \d+ more/);
          expect(line).toContain(`<https://site0.example/${i}/0> (+39 more sources)`);
        }
        expectWithinLimits(grid.container);
      }
    });

    it('GIVEN sources too long for ten lines THEN fewer images are listed and pictured, each whole, and a last line counts the rest', () => {
      const images = Array.from({ length: 10 }, (_, i) =>
        image(i + 1, ['safe', `artist:painter ${i}`], {
          source_urls: [longSource(i + 1, 800), 'https://b.example/'],
        }),
      );
      const grid = imageGrid(images, options({ textMax: 3000 }));
      const listed = listedIds(grid.container);
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.length).toBeLessThan(10);
      expect(listed).toEqual(images.slice(0, listed.length).map((img) => img.id));
      expect(grid.shown.map((img) => img.id)).toEqual(listed);
      expect(grid.unlisted.map((img) => img.id)).toEqual(images.slice(listed.length).map((img) => img.id));
      // A picture never goes out without its sources: only the listed ones are pictured.
      expect(items(grid.container).map((item) => item.description)).toEqual(
        listed.map((id) => `#${id} by painter ${id - 1}`),
      );
      for (const id of listed) {
        expect(lineOf(grid, id)).toContain(`<${longSource(id, 800)}> (+1 more source)`);
        expect(lineOf(grid, id)).toContain(`painter ${id - 1}`);
      }
      const unlisted = 10 - listed.length;
      expect(texts(grid.container).join('\n')).toContain(`…and ${unlisted} more on this page, not listed`);
      expect(v2TextLength([grid.container])).toBeLessThanOrEqual(3000);
      expectWithinLimits(grid.container);
    });

    it('GIVEN a budget smaller than the heading and footer need THEN they shrink, and the grid keeps within the budget', () => {
      const images = Array.from({ length: 10 }, (_, i) => image(i + 1, ['safe', `artist:p ${i}`]));
      const long = { heading: `**${'h'.repeat(3000)}**`, footer: 'f'.repeat(3000) };
      for (const textMax of [GRID_TEXT_MIN, 800]) {
        const grid = imageGrid(images, options({ ...long, textMax }));
        expect(v2TextLength([grid.container])).toBeLessThanOrEqual(textMax);
        expect(grid.shown.length + grid.unlisted.length).toBe(10);
        for (const shown of grid.shown) expect(texts(grid.container).join('\n')).toContain(`[#${shown.id}](`);
      }
      // Below the least a grid needs, it is cut to that least.
      expect(
        v2TextLength([imageGrid(images, options({ ...long, textMax: 10 })).container]),
      ).toBeLessThanOrEqual(GRID_TEXT_MIN);
    });

    it('GIVEN sources that fit THEN nothing is unlisted', () => {
      const grid = imageGrid([image(1, ['safe'], { source_urls: [longSource(1, 100)] })], options());
      expect(grid.unlisted).toEqual([]);
      expect(texts(grid.container).join('\n')).not.toContain('not listed');
    });
  });

  it('GIVEN hostile credits, heading and footer THEN no mention and no http URL survives', () => {
    const img = image(1, [
      'safe',
      'artist:@everyone',
      'artist:<@123>',
      'artist:http://evil.test/',
      'artist:<\\@&1>',
    ]);
    const grid = imageGrid(
      [img],
      options({ heading: 'Search: @here <@1>', footer: '@everyone <@&1> http://x.test/' }),
    );
    for (const text of strings(grid.container)) {
      expect(text).not.toMatch(MENTION);
      expect(text.replace(/\\([\s\S])/g, '$1')).not.toMatch(MENTION);
    }
    expect(JSON.stringify(grid.container)).not.toMatch(/(?<!\\)http:\/\//);
    expectWithinLimits(grid.container);
  });
});
