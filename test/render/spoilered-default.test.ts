/**
 * `spoilered` left out of a board's image (an older or forked Philomena) reads as spoilered: the filter's
 * hides and spoilers fail closed. The boards the tests run against always send the field, so
 * nothing else changes for them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { imageCard } from '../../src/render/image-card.js';
import { visibleImageSchema } from '../../src/philomena/schemas.js';
import { knownSite } from '../../src/philomena/sites.js';
import { createDataset } from '../fakes/philomena/data.js';
import { imageJson } from '../fakes/philomena/render.js';
import { testImageJson } from '../support/images.js';
import { philomenaFixture } from '../support/shared.js';

const site = knownSite('derpibooru')!;

/** A board image as an older Philomena sends it: everything but `spoilered`. */
const BOARD_IMAGE = testImageJson(
  ['safe'],
  { id: 7, description: 'DESCRIPTION' },
  'https://derpicdn.net/img/7',
);

describe('an image without `spoilered`', () => {
  it('GIVEN a board image that leaves `spoilered` out THEN it reads as spoilered and its card shows no picture or description', () => {
    const image = visibleImageSchema.parse(BOARD_IMAGE);
    expect(image.spoilered).toBe(true);
    const card = imageCard(image, { site, ageRestricted: true });
    expect(card.gate).toBe('spoilered');
    expect(card.embed.image).toBeUndefined();
    expect(JSON.stringify(card.embed)).not.toContain('DESCRIPTION');
  });

  it.each([true, false])('GIVEN `spoilered: %s` THEN it is read as sent', (spoilered) => {
    expect(visibleImageSchema.parse({ ...BOARD_IMAGE, spoilered }).spoilered).toBe(spoilered);
  });

  it('GIVEN every image the fake board can send THEN each carries `spoilered`, so the default never applies there', () => {
    const data = createDataset();
    const ctx = {
      base: 'https://booru.test',
      style: 'derpibooru' as const,
      tagIdsByName: new Map<string, number>(),
    };
    let visible = 0;
    for (const record of data.images.values()) {
      for (const spoilered of [true, false]) {
        const json = imageJson(record, spoilered, ctx);
        if (json['hidden_from_users'] !== false) continue;
        visible += 1;
        expect(json['spoilered']).toBe(spoilered);
      }
    }
    expect(visible).toBeGreaterThan(10);
  });

  it.each([
    ['derpibooru_2020_image_2028858_show_response.json', (json: Record<string, unknown>) => [json['image']]],
    ['derpibooru_2024_search_images_response.json', (json: Record<string, unknown>) => json['images']],
  ])('GIVEN the recorded %s THEN every image in it sends `spoilered`', (file, images) => {
    const json = JSON.parse(readFileSync(philomenaFixture(file), 'utf8')) as Record<string, unknown>;
    const list = images(json) as readonly Record<string, unknown>[];
    expect(list.length).toBeGreaterThan(0);
    for (const image of list) expect(typeof image['spoilered']).toBe('boolean');
  });
});
