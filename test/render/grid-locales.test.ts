/**
 * The search grid (imageGrid) in the pseudo-locale (src/i18n/pseudo.ts: English about 40% longer and
 * accented) and in every shipped language: each of the grid's own words comes from the catalogue (none
 * left in plain English), and a grid of ten images with a hundred long credits each, long sources and a
 * long heading stays within Discord's Components V2 limits, every listed image still with its credit and
 * sources. What the board wrote (names, sources) stays as written.
 */
import { ComponentType, type APIContainerComponent, type APIMediaGalleryItem } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { countComponents, v2TextLength } from '../../src/render/card-v2.js';
import { imageGrid, type GridOptions } from '../../src/render/grid.js';
import {
  GALLERY_ITEMS_MAX,
  MEDIA_DESCRIPTION_MAX,
  V2_COMPONENTS_MAX,
  V2_TEXT_MAX,
} from '../../src/render/limits.js';
import { NO_MENTIONS } from '../../src/render/mentions.js';
import type { VisibleImage } from '../../src/philomena/schemas.js';
import { knownSite } from '../../src/philomena/sites.js';
import type { Say } from '../../src/i18n/index.js';
import { messageLimitIssues, schemaIssues } from '../fakes/discord/validate.js';
import { testImage } from '../support/images.js';
import { PSEUDO_MARK, pseudoSay, shippedSays } from '../support/locales.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site = derpi;
const IS_COMPONENTS_V2 = 1 << 15;
const CDN = 'https://derpicdn.net';

function image(id: number, tags: readonly string[], fields: Record<string, unknown> = {}): VisibleImage {
  return testImage(tags, { id, spoilered: false, ...fields }, `${CDN}/img/2024/1/1/${id}`);
}

/** Ten images, each with a hundred long credits and two long sources. */
function crowded(): VisibleImage[] {
  return Array.from({ length: GALLERY_ITEMS_MAX }, (_, i) =>
    image(
      i + 1,
      ['safe', ...Array.from({ length: 100 }, (_, n) => `artist:a rather long artist name ${i}-${n}`)],
      { source_urls: [`https://a.example/${'s'.repeat(600)}/${i}`, 'https://b.example/'] },
    ),
  );
}

function options(say: Say, overrides: Partial<GridOptions> = {}): GridOptions {
  return {
    site,
    ageRestricted: false,
    heading: `**${'h'.repeat(3000)}**`,
    footer: 'f'.repeat(3000),
    say,
    ...overrides,
  };
}

function texts(container: APIContainerComponent): string[] {
  return container.components.flatMap((c) => (c.type === ComponentType.TextDisplay ? [c.content] : []));
}

function items(container: APIContainerComponent): APIMediaGalleryItem[] {
  return container.components.flatMap((c) => (c.type === ComponentType.MediaGallery ? c.items : []));
}

function expectWithinLimits(container: APIContainerComponent): void {
  expect(countComponents([container])).toBeLessThanOrEqual(V2_COMPONENTS_MAX);
  expect(v2TextLength([container])).toBeLessThanOrEqual(V2_TEXT_MAX);
  for (const item of items(container)) {
    expect((item.description ?? '').length).toBeLessThanOrEqual(MEDIA_DESCRIPTION_MAX);
  }
  const body = { flags: IS_COMPONENTS_V2, components: [container], allowed_mentions: NO_MENTIONS };
  expect([...schemaIssues('MessageCreateRequest', body), ...messageLimitIssues(body)]).toEqual([]);
}

/** The list's lines: the numbered ones, and the last line counting what had no room. */
function listLines(container: APIContainerComponent): string[] {
  return texts(container)
    .join('\n')
    .split('\n')
    .filter((line) => /^\d+\. /.test(line) || line.startsWith('…'));
}

describe('imageGrid in the pseudo-locale', () => {
  const say = pseudoSay();

  it('GIVEN no image that may be shown here THEN the one line the grid says is the pseudo-locale', () => {
    const grid = imageGrid([image(1, ['explicit', 'artist:x'])], options(say, { heading: '', footer: '' }));
    expect(grid.shown).toEqual([]);
    expect(texts(grid.container).join('\n')).toMatch(PSEUDO_MARK);
    expectWithinLimits(grid.container);
  });

  it('GIVEN an image without sources, one processing and one spoilered with no filter THEN their notes and "no source" are the pseudo-locale', () => {
    const grid = imageGrid(
      [
        image(1, ['safe', 'artist:painter']),
        image(2, ['safe', 'artist:painter'], {
          thumbnails_generated: false,
          source_urls: ['https://a.example/'],
        }),
        image(3, ['safe', 'artist:painter'], {
          spoilered: true,
          source_urls: ['https://a.example/', 'https://b.example/'],
        }),
      ],
      options(say, { heading: 'Search', footer: 'Derpibooru' }),
    );
    const [none, processing, spoilered] = listLines(grid.container);
    expect(none).not.toContain('no source given');
    expect(none?.split(' · ').at(-1)).toMatch(PSEUDO_MARK);
    expect(processing?.split(' · ').at(-1)).toMatch(PSEUDO_MARK);
    expect(processing).not.toContain('still processing');
    expect(spoilered?.split(' · ').at(-1)).toMatch(PSEUDO_MARK);
    // "(+1 more source)": the count of the other sources is ours too.
    expect(spoilered?.split(' · ').at(-2)).toMatch(/^<https:\/\/a\.example\/> \(\+1 .*[·áéíóúŕšţ]/);
    // The picture's alt text ("#1 by painter") is ours around the board's name.
    expect(items(grid.container)[0]?.description).toMatch(/^#1 .*[·áéíóúŕšţ].* painter$/);
    expectWithinLimits(grid.container);
  });

  it('GIVEN ten images with a hundred long credits each, long sources and a long heading THEN the shortened credits, the counts and the last line are the pseudo-locale, within the limits', () => {
    for (const textMax of [undefined, 3000, 500]) {
      const grid = imageGrid(crowded(), options(say, textMax === undefined ? {} : { textMax }));
      expectWithinLimits(grid.container);
      const lines = listLines(grid.container);
      // Every image of the page is listed or counted on the last line.
      expect(grid.shown.length + grid.unlisted.length).toBe(GALLERY_ITEMS_MAX);
      for (const line of lines.filter((l) => /^\d+\. /.test(l))) {
        // Every listed image keeps its first credited name and its first source.
        expect(line).toMatch(/a rather long artist name \d+-0/);
        expect(line).toContain('<https://a.example/');
        expect(line).not.toMatch(/\band \d+ more\b|more source/);
        expect(line).toMatch(PSEUDO_MARK);
      }
      if (grid.unlisted.length > 0) {
        const last = lines.at(-1) ?? '';
        expect(last).toMatch(/^…/);
        expect(last).toMatch(PSEUDO_MARK);
        expect(last).toContain(String(grid.unlisted.length));
      }
      for (const item of items(grid.container)) expect(item.description).toMatch(PSEUDO_MARK);
    }
  });
});

describe('imageGrid in every shipped language', () => {
  it.each(shippedSays().map(({ locale, say }) => [locale, say] as const))(
    'GIVEN %s and ten crowded images THEN the grid fits Discord’s limits, each listed image with its credit and source',
    (_locale, say) => {
      for (const textMax of [undefined, 500]) {
        const grid = imageGrid(crowded(), options(say, textMax === undefined ? {} : { textMax }));
        expectWithinLimits(grid.container);
        expect(grid.shown.length + grid.unlisted.length).toBe(GALLERY_ITEMS_MAX);
        if (textMax === undefined) expect(grid.shown.length).toBeGreaterThan(0);
        for (const line of listLines(grid.container).filter((l) => /^\d+\. /.test(l))) {
          expect(line).toMatch(/a rather long artist name \d+-0/);
          expect(line).toContain('<https://a.example/');
        }
      }
      const empty = imageGrid([image(1, ['explicit'])], options(say, { heading: '', footer: '' }));
      expect(texts(empty.container).join('\n')).toBe(say('grid.none-shown'));
    },
  );

  it('GIVEN German THEN the count of other sources and the note are German, and differ from English', () => {
    const german = shippedSays().find(({ locale }) => locale === 'de')?.say;
    if (german === undefined) throw new Error('no German');
    const grid = imageGrid(
      [
        image(5, ['safe', 'artist:maler'], {
          thumbnails_generated: false,
          source_urls: ['https://a.example/', 'https://b.example/', 'https://c.example/'],
        }),
      ],
      options(german, { heading: 'Suche', footer: 'Derpibooru' }),
    );
    const [line] = listLines(grid.container);
    expect(line).toContain('<https://a.example/> (+2 weitere Quellen) · wird noch verarbeitet');
  });
});
