/**
 * A card a server's or a channel's spoilered tag puts behind Discord's spoiler, in both forms: the embed
 * (which cannot spoiler a picture, so it leaves it out and says so) and Components V2 (src/render/card-v2.ts
 * `splitDescription`), which pictures it behind the native spoiler, keeps the rule's reason as the card's
 * notice and drops the embed's "the picture is not in this card" sentence.
 */
import { describe, expect, it } from 'vitest';
import { imageCardV2 } from '../../src/render/card-v2.js';
import { spoileredNotice, type ContentRules, type TagRule } from '../../src/render/content-rules.js';
import { DEFAULT_FLOOR } from '../../src/render/floor.js';
import {
  imageCard,
  PROCESSING_NOTICE,
  SPOILER_CHANNEL_NOTICE,
  SPOILERED_PICTURE_NOTICE,
  type CardContext,
} from '../../src/render/image-card.js';
import { knownSite, type Site } from '../../src/philomena/sites.js';
import { galleryItemsOf, textOf } from '../fakes/discord/v2.js';
import { testImage } from '../support/images.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site: Site = derpi;

const DESCRIPTION = 'The board’s own words about the picture.';
const gore: TagRule = { tag: 'gore', ratings: 'any', layer: 'server' };
const channelGore: TagRule = { ...gore, layer: 'channel' };
const rules = (spoilered: readonly TagRule[]): ContentRules => ({ hidden: DEFAULT_FLOOR, spoilered });

function image(options: { description?: string; processing?: boolean } = {}) {
  return testImage(
    ['safe', 'artist:someone', 'gore'],
    {
      id: 7,
      description: options.description ?? DESCRIPTION,
      spoilered: false,
      thumbnails_generated: options.processing !== true,
    },
    'https://derpicdn.net/img/7',
  );
}

function v2Text(
  ctx: CardContext,
  options: { textMax?: number; processing?: boolean; description?: string } = {},
) {
  const card = imageCard(image(options), ctx);
  const v2 = imageCardV2(card, options.textMax === undefined ? {} : { textMax: options.textMax });
  return { card, text: textOf([v2.container]), items: galleryItemsOf([v2.container]) };
}

const base = { site, ageRestricted: false } as const;

describe('a card a spoilered rule covers, as Components V2', () => {
  it('GIVEN a server’s spoilered tag THEN the embed leaves the picture out and says why and that it did', () => {
    const card = imageCard(image(), { ...base, rules: rules([gore]) });
    expect(card.gate).toBe('full');
    expect(card.embed.image).toBeUndefined();
    expect(card.revealable).toBe(true);
    expect(card.ruleNotice).toBe(spoileredNotice(gore));
    expect(card.embed.description).toBe(
      `${spoileredNotice(gore)}\n\n${SPOILERED_PICTURE_NOTICE}\n\n${DESCRIPTION}`,
    );
  });

  it.each([
    ['the server’s', gore],
    ['the channel’s', channelGore],
  ])(
    'GIVEN %s spoilered tag THEN V2 pictures it behind the spoiler, keeps the reason, drops the "not in this card" sentence',
    (_w, rule) => {
      const { card, text, items } = v2Text({ ...base, rules: rules([rule]) });
      expect(card.media?.spoiler).toBe(true);
      expect(items).toHaveLength(1);
      expect(items[0]?.spoiler).toBe(true);
      expect(text).toContain(spoileredNotice(rule));
      expect(text).not.toContain(SPOILERED_PICTURE_NOTICE);
      expect(text).not.toContain('not in this card');
      expect(text).toContain(DESCRIPTION);
      // The reason is the card's notice, shown before the board's text.
      expect(text.indexOf(spoileredNotice(rule))).toBeLessThan(text.indexOf(DESCRIPTION));
    },
  );

  it('GIVEN a spoiler channel and a spoilered tag THEN V2 keeps the rule’s reason and drops the channel’s withheld sentence', () => {
    const { text, items } = v2Text({ ...base, spoilerChannel: true, rules: rules([gore]) });
    expect(items[0]?.spoiler).toBe(true);
    expect(text).toContain(spoileredNotice(gore));
    expect(text).not.toContain(SPOILER_CHANNEL_NOTICE);
    expect(text).not.toContain(SPOILERED_PICTURE_NOTICE);
    expect(text).toContain(DESCRIPTION);
  });

  it('GIVEN a spoiler channel and no rule THEN V2 has no notice at all (as before the layers)', () => {
    const { card, text } = v2Text({ ...base, spoilerChannel: true, rules: rules([]) });
    expect(card.ruleNotice).toBeUndefined();
    expect(text).not.toContain('Behind a spoiler');
    expect(text).not.toContain(SPOILER_CHANNEL_NOTICE);
  });

  it('GIVEN the card is revealed to one member THEN neither spoiler nor notice', () => {
    const { card, text, items } = v2Text({ ...base, reveal: true, rules: rules([gore]) });
    expect(card.ruleNotice).toBeUndefined();
    expect(items[0]?.spoiler).toBeUndefined();
    expect(text).not.toContain('Behind a spoiler');
  });

  it('GIVEN a tight text budget and a long description THEN the rule’s reason outlives the board’s text', () => {
    const { text } = v2Text(
      { ...base, rules: rules([gore]) },
      { textMax: 300, description: 'words '.repeat(400) },
    );
    expect(text).toContain(spoileredNotice(gore));
    expect(text).not.toContain(SPOILERED_PICTURE_NOTICE);
  });

  it('GIVEN a picture still processing under a spoilered tag THEN V2 keeps both notices as notices, ahead of the board’s text', () => {
    const { card, text } = v2Text(
      { ...base, rules: rules([gore]) },
      { processing: true, textMax: 300, description: 'words '.repeat(400) },
    );
    expect(card.gate).toBe('processing');
    expect(text).toContain(spoileredNotice(gore));
    expect(text).toContain(PROCESSING_NOTICE);
    expect(text.indexOf(spoileredNotice(gore))).toBeLessThan(text.indexOf(PROCESSING_NOTICE));
  });
});
