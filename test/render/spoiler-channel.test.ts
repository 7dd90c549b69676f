/**
 * Cards for a spoiler channel (CardContext.spoilerChannel, docs/spoiler-channels.md): every picture goes
 * behind Discord's spoiler, and the rating rule is the plain channel's. The media a V2 card shows is
 * marked spoiler; the embed, which cannot spoiler its image, carries none and says so (Reveal shows it to
 * one member); Reveal itself shows the picture unspoilered, to the clicker alone; the card keeps every
 * credit and source. Also the tag card (no picture) and the one place that picks a card's form
 * (cardMessage: V2 with the spoiler, else the embed without the picture, with a Reveal button).
 */
import { ComponentType, type APIContainerComponent, type APIMediaGalleryItem } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { imageCardV2, v2TextLength } from '../../src/render/card-v2.js';
import {
  imageCard,
  SPOILER_CHANNEL_NOTICE,
  type CardContext,
  type ImageCard,
} from '../../src/render/image-card.js';
import { tagCard } from '../../src/render/tag-card.js';
import { imageGrid } from '../../src/render/grid.js';
import { V2_TEXT_MAX } from '../../src/render/limits.js';
import { tagSchema, type VisibleImage } from '../../src/philomena/schemas.js';
import { knownSite, type Site } from '../../src/philomena/sites.js';
import { cardMessage, V2_ANSWER_TEXT_MAX } from '../../commands/shared/show-image.js';
import type { MessageBody } from '../../src/discord/contract.js';
import { testImage } from '../support/images.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site: Site = derpi;
const CDN = 'https://derpicdn.net/img/1';

function image(tags: readonly string[], fields: Record<string, unknown> = {}): VisibleImage {
  return testImage(
    tags,
    {
      id: 1,
      spoilered: false,
      description: 'A calm **picture**.',
      source_urls: ['https://www.deviantart.com/a/art/1', 'https://twitter.com/a/status/2'],
      ...fields,
    },
    CDN,
  );
}

const SAFE = ['safe', 'artist:alpha'];
const filter = { name: 'Default', spoileredTagIds: [2], hiddenTagIds: [9] };
const spoilerCtx = (extra: Partial<CardContext> = {}): CardContext => ({
  site,
  ageRestricted: false,
  spoilerChannel: true,
  filter,
  ...extra,
});

function galleryItems(container: APIContainerComponent): APIMediaGalleryItem[] {
  return container.components.flatMap((c) => (c.type === ComponentType.MediaGallery ? c.items : []));
}

function textsOf(container: APIContainerComponent): string {
  return container.components
    .flatMap((c) => (c.type === ComponentType.TextDisplay ? [c.content] : []))
    .join('\n');
}

/** Every credit and source a card must carry, in whatever form. */
function expectCreditedAndSourced(text: string): void {
  expect(text).toContain('[alpha](https://derpibooru.org/tags/artist-colon-alpha)');
  expect(text).toContain('<https://www.deviantart.com/a/art/1>');
  expect(text).toContain('<https://twitter.com/a/status/2>');
  expect(text).toContain('https://derpibooru.org/images/1');
}

describe('imageCard in a spoiler channel', () => {
  it('GIVEN a safe image THEN the media is behind a spoiler, the embed has no picture and says so, and Reveal may show it', () => {
    const card = imageCard(image(SAFE), spoilerCtx());
    expect(card.gate).toBe('full');
    expect(card.spoilerChannel).toBe(true);
    expect(card.media).toMatchObject({ url: `${CDN}/large.png`, spoiler: true });
    // Alt text of a safe picture: its tags, as anywhere.
    expect(card.media?.description).toBe('safe, artist:alpha');
    expect(card.embed.image).toBeUndefined();
    expect(card.embed.thumbnail).toBeUndefined();
    expect(card.embed.description?.startsWith(SPOILER_CHANNEL_NOTICE)).toBe(true);
    expect(card.embed.description).toContain('A calm **picture**.');
    expect(card.revealable).toBe(true);
    expectCreditedAndSourced(JSON.stringify(card.embed));
  });

  it('GIVEN the same image outside a spoiler channel THEN the picture as before (the table’s baseline)', () => {
    const card = imageCard(image(SAFE), { site, ageRestricted: false, filter });
    expect(card.embed.image?.url).toBe(`${CDN}/large.png`);
    expect(card.media?.spoiler).toBe(false);
    expect(card.revealable).toBe(false);
    expect(card.spoilerChannel).toBeUndefined();
  });

  it('GIVEN Reveal (ephemeral, to the clicker) THEN the picture unspoilered, still under the rating rule', () => {
    const safe = imageCard(image(SAFE), spoilerCtx({ reveal: true }));
    expect(safe.embed.image?.url).toBe(`${CDN}/large.png`);
    expect(safe.media?.spoiler).toBe(false);
    expect(safe.revealable).toBe(false);
    const explicit = imageCard(image(['explicit', 'artist:alpha']), spoilerCtx({ reveal: true }));
    expect(explicit.gate).toBe('rating-restricted');
    expect(explicit.media).toBeNull();
  });

  it.each(['suggestive', 'questionable', 'explicit', 'grimdark'])(
    'GIVEN a %s image, even with a context that also says age-restricted THEN the plain channel’s card: no picture at all',
    (rating) => {
      const card = imageCard(image([rating, 'artist:alpha']), spoilerCtx({ ageRestricted: true }));
      expect(card.gate).toBe('rating-restricted');
      expect(card.media).toBeNull();
      expect(card.embed.image).toBeUndefined();
      expect(card.revealable).toBe(false);
    },
  );

  it('GIVEN an image the filter spoilers THEN behind the spoiler as before, Reveal kept', () => {
    const card = imageCard(image(['safe', 'artist:alpha', 'spoiled'], { spoilered: true }), spoilerCtx());
    expect(card.gate).toBe('spoilered');
    expect(card.media?.spoiler).toBe(true);
    expect(card.embed.image).toBeUndefined();
    expect(card.revealable).toBe(true);
  });

  it('GIVEN an image still processing THEN no picture and no spoiler-channel notice (there is nothing to withhold)', () => {
    const card = imageCard(image(SAFE, { thumbnails_generated: false }), spoilerCtx());
    expect(card.gate).toBe('processing');
    expect(card.media).toBeNull();
    expect(card.embed.description).not.toContain(SPOILER_CHANNEL_NOTICE);
    expect(card.revealable).toBe(false);
  });

  it('GIVEN a video THEN the .mp4 plays behind the spoiler in V2, and the embed keeps only its link', () => {
    const base = image(SAFE);
    const video = image(SAFE, {
      format: 'webm',
      mime_type: 'video/webm',
      representations: { ...base.representations, full: `${CDN}/full.webm`, mp4: `${CDN}/full.mp4` },
    });
    const card = imageCard(video, spoilerCtx());
    expect(card.media).toMatchObject({ kind: 'video', spoiler: true });
    expect(card.embed.image).toBeUndefined();
  });
});

describe('the V2 form of a spoiler channel’s card', () => {
  it('GIVEN a safe image THEN its gallery item is spoilered, the embed’s notice is left out, the credits and sources all there', () => {
    const v2 = imageCardV2(imageCard(image(SAFE), spoilerCtx()));
    expect(v2.complete).toBe(true);
    expect(galleryItems(v2.container)).toEqual([
      expect.objectContaining({ media: { url: `${CDN}/large.png` }, spoiler: true }),
    ]);
    const text = textsOf(v2.container);
    expect(text).not.toContain(SPOILER_CHANNEL_NOTICE);
    expect(text).toContain('A calm **picture**.');
    expectCreditedAndSourced(text);
  });
});

describe('cardMessage in a spoiler channel', () => {
  const rowsOf = (body: MessageBody): readonly unknown[] =>
    'components' in body ? (body.components ?? []) : [];
  const revealIds = (body: MessageBody): string[] =>
    JSON.stringify(rowsOf(body)).match(/img:reveal:[^"]+/g) ?? [];

  it('GIVEN a card V2 holds whole THEN Components V2 with every media item spoilered and no Reveal (the spoiler is the way in)', () => {
    const body = cardMessage(imageCard(image(SAFE), spoilerCtx()), site, 1);
    expect('componentsV2' in body && body.componentsV2).toBe(true);
    const [container] = 'componentsV2' in body ? (body.components ?? []) : [];
    if (container?.type !== ComponentType.Container) throw new Error('no container');
    expect(galleryItems(container).every((item) => item.spoiler === true)).toBe(true);
    expect(galleryItems(container)).toHaveLength(1);
    expect(revealIds(body)).toEqual([]);
  });

  it('GIVEN credits and sources V2 cannot hold THEN the embed, without a picture, saying so, with a Reveal button, every source kept', () => {
    const sources = Array.from({ length: 30 }, (_, i) => `https://example.com/${'s'.repeat(70)}/${i}`);
    const roles = ['artist', 'colorist', 'editor', 'photographer', 'prompter', 'generator', 'commissioner'];
    const credits = roles.flatMap((role) =>
      Array.from({ length: 10 }, (_, i) => `${role}:name ${i} ${'n'.repeat(20)}`),
    );
    const card = imageCard(image(['safe', ...credits], { source_urls: sources }), spoilerCtx());
    // The text V2 would need is over its budget: the card cannot go out whole that way.
    expect(imageCardV2(card, { textMax: V2_ANSWER_TEXT_MAX }).complete).toBe(false);
    const body = cardMessage(card, site, 1);
    expect('embeds' in body).toBe(true);
    const embeds = 'embeds' in body ? (body.embeds ?? []) : [];
    expect(embeds).toHaveLength(1);
    expect(embeds[0]?.image).toBeUndefined();
    expect(embeds[0]?.thumbnail).toBeUndefined();
    expect(embeds[0]?.description?.startsWith(SPOILER_CHANNEL_NOTICE)).toBe(true);
    expect(revealIds(body)).toHaveLength(1);
    const fields = JSON.stringify(embeds[0]?.fields);
    for (const source of sources) expect(fields).toContain(source);
  });

  it('GIVEN paging an embed message (form embed) THEN still no picture', () => {
    const body = cardMessage(imageCard(image(SAFE), spoilerCtx()), site, 1, { form: 'embed' });
    const embeds = 'embeds' in body ? (body.embeds ?? []) : [];
    expect(embeds[0]?.image).toBeUndefined();
  });

  it('GIVEN a filter-spoilered card in V2 THEN its Reveal stays', () => {
    const card = imageCard(image(['safe', 'artist:alpha', 'spoiled'], { spoilered: true }), spoilerCtx());
    const body = cardMessage(card, site, 1);
    expect('componentsV2' in body).toBe(true);
    expect(revealIds(body)).toHaveLength(1);
  });
});

describe('tagCard in a spoiler channel', () => {
  const tag = tagSchema.parse({
    id: 1,
    name: 'pony',
    slug: 'pony',
    images: 10,
    spoiler_image_uri: 'https://derpicdn.net/spoiler.png',
    description: 'Long words.',
  });
  const example = image(SAFE, { id: 99 });

  it('GIVEN a safe example THEN no picture (an embed cannot spoiler it): linked, credited, sourced, and said', () => {
    const embed = tagCard(tag, { site, ageRestricted: false, spoilerChannel: true, example });
    expect(embed.image).toBeUndefined();
    expect(embed.thumbnail).toBeUndefined();
    const value = embed.fields?.find((f) => f.name === 'Example')?.value ?? '';
    expect(value).toContain('[#99](https://derpibooru.org/images/99)');
    expect(value).toMatch(/spoiler channel/);
    expect(value).toContain('[alpha](');
    expect(value).toContain('<https://www.deviantart.com/a/art/1>');
  });

  it('GIVEN a context that also says age-restricted THEN still the plain channel’s card: no spoiler image, no descriptions', () => {
    const embed = tagCard(tag, { site, ageRestricted: true, spoilerChannel: true, example });
    expect(embed.thumbnail).toBeUndefined();
    expect(embed.description ?? '').not.toContain('Long words.');
  });

  it('GIVEN the same outside a spoiler channel THEN the safe example is pictured (the baseline)', () => {
    expect(tagCard(tag, { site, ageRestricted: false, example }).image?.url).toBe(`${CDN}/large.png`);
  });
});

describe('imageGrid in a spoiler channel', () => {
  const images = [1, 2, 3].map((id) => image(SAFE, { id }));

  it('GIVEN safe images THEN every tile is behind a spoiler, each still listed with its credit and source', () => {
    const grid = imageGrid(images, {
      site,
      ageRestricted: false,
      spoilerChannel: true,
      heading: 'h',
      filter,
    });
    const items = galleryItems(grid.container);
    expect(items).toHaveLength(3);
    expect(items.every((item) => item.spoiler === true)).toBe(true);
    const text = textsOf(grid.container);
    for (const id of [1, 2, 3]) expect(text).toContain(`[#${id}](https://derpibooru.org/images/${id})`);
    expect(text.match(/<https:\/\/www\.deviantart\.com\/a\/art\/1> \(\+1 more source\)/g)).toHaveLength(3);
    expect(v2TextLength([grid.container])).toBeLessThanOrEqual(V2_TEXT_MAX);
  });

  it('GIVEN non-safe images and options that also say age-restricted THEN left out: a plain channel’s grid', () => {
    const grid = imageGrid([image(['explicit', 'artist:a'], { id: 5 }), ...images], {
      site,
      ageRestricted: true,
      spoilerChannel: true,
      heading: 'h',
    });
    expect(grid.shown.map((img) => img.id)).toEqual([1, 2, 3]);
  });
});

// Compile-time: the card type carries the flag the form chooser reads.
const flagged: ImageCard['spoilerChannel'] = true;
void flagged;
