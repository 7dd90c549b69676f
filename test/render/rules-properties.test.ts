/**
 * The rules in layers as properties (issue 20 "Proof"): random layer configurations built with the real
 * `makeView` (the floor on or off with extra never-show tags, the server's and the channel's hidden and
 * spoilered lists, the member's list) and random images (tags from a small pool that holds the listed
 * ones, random ratings, spoilered by the filter or not, processing or not, video or still) in random
 * channels (age-restricted or not, spoiler channel or not). Whenever a hidden rule's tag is on the image
 * (worked out here on its own, not with `hidingRule`), no picture, tag or description of it appears in
 * `imageCard`, either form of `cardMessage`, `imageGrid` or a tag card's example, and the card names the
 * outermost layer that hid it; whenever a spoilered rule's tag is on a shown image, every picture of it is
 * behind Discord's spoiler (or withheld where the form cannot spoiler it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cardContext, cardMessage } from '../../commands/shared/show-image.js';
import { createSiteDirectory } from '../../commands/shared/site-directory.js';
import { makeView } from '../../commands/shared/view.js';
import type { MessageBody } from '../../src/discord/contract.js';
import { tagSchema, type VisibleImage } from '../../src/philomena/schemas.js';
import { knownSite } from '../../src/philomena/sites.js';
import { hiddenNotice, type RuleDecision, type RuleLayer } from '../../src/render/content-rules.js';
import { SEXUALISED_MINOR_TAGS, YOUNG_CHARACTER_TAGS } from '../../src/render/floor.js';
import { imageCard, imageGrid, tagCard } from '../../src/render/index.js';
import { allComponents } from '../fakes/discord/v2.js';
import { testImage } from '../support/images.js';

const derpi = knownSite('derpibooru');
if (derpi === undefined) throw new Error('derpibooru missing from KNOWN_SITES');
const site = derpi;

/** Plain tags, distinctive enough that finding one in a body means the image's tags leaked. */
const POOL = ['zq alpha', 'zq beta', 'zq gamma', 'zq delta', 'zq epsilon', 'zq zeta'] as const;
/** Two of the floor's tags: one at any rating, one with a rating other than safe. */
const FLOOR_POOL = [SEXUALISED_MINOR_TAGS[0] ?? 'foalcon', YOUNG_CHARACTER_TAGS[1] ?? 'filly'] as const;
const RATING_CHOICES = ['safe', 'suggestive', 'questionable', 'explicit', 'grimdark', null] as const;

interface Layers {
  readonly floorOn: boolean;
  readonly neverShow: readonly string[];
  readonly serverHidden: readonly string[];
  readonly serverSpoilered: readonly string[];
  readonly channelHidden: readonly string[];
  readonly channelSpoilered: readonly string[];
  readonly memberHidden: readonly string[];
}

interface Place {
  readonly ageRestricted: boolean;
  readonly spoilerChannel: boolean;
  readonly filterKnown: boolean;
  readonly reveal: boolean;
}

interface Drawn {
  readonly tags: readonly string[];
  readonly rating: (typeof RATING_CHOICES)[number];
  readonly spoilered: boolean;
  readonly processing: boolean;
  readonly video: boolean;
}

const subset = fc.subarray([...POOL], { maxLength: 3 });
const layersArb: fc.Arbitrary<Layers> = fc.record({
  floorOn: fc.boolean(),
  neverShow: subset,
  serverHidden: subset,
  serverSpoilered: subset,
  channelHidden: subset,
  channelSpoilered: subset,
  memberHidden: subset,
});
const placeArb: fc.Arbitrary<Place> = fc.record({
  ageRestricted: fc.boolean(),
  spoilerChannel: fc.boolean(),
  filterKnown: fc.boolean(),
  reveal: fc.boolean(),
});
const drawnArb: fc.Arbitrary<Drawn> = fc.record({
  tags: fc.subarray([...POOL, ...FLOOR_POOL], { maxLength: 4 }),
  rating: fc.constantFrom(...RATING_CHOICES),
  spoilered: fc.boolean(),
  processing: fc.boolean(),
  video: fc.boolean(),
});

const ID = 4242;
const OTHER = 77;
const FILES = `https://cdn.test/i${ID}/`;
const DESCRIPTION = 'zqdescription of the drawn image';

function imageOf(drawn: Drawn): VisibleImage {
  const tags = [...(drawn.rating === null ? [] : [drawn.rating]), 'artist:zq painter', ...drawn.tags];
  return testImage(
    tags,
    {
      id: ID,
      description: DESCRIPTION,
      source_urls: ['https://source.example/art'],
      spoilered: drawn.spoilered,
      thumbnails_generated: !drawn.processing,
      view_url: `${FILES}view.${drawn.video ? 'webm' : 'png'}`,
      ...(drawn.video ? { format: 'webm', mime_type: 'video/webm' } : {}),
    },
    FILES.slice(0, -1),
  );
}

const other = testImage(['safe', 'artist:someone else', 'pony'], { id: OTHER, spoilered: false });

/** The outermost layer that hides the image, worked out from the lists themselves. */
function expectedHidingLayer(layers: Layers, drawn: Drawn): RuleLayer | undefined {
  const has = (tag: string): boolean => drawn.tags.includes(tag);
  const safe = drawn.rating === 'safe';
  const [anyRating, youngTag] = FLOOR_POOL;
  if (layers.floorOn && (has(anyRating) || (has(youngTag) && !safe))) return 'floor';
  if (layers.neverShow.some(has)) return 'floor';
  if (layers.serverHidden.some(has)) return 'server';
  if (layers.channelHidden.some(has)) return 'channel';
  if (layers.memberHidden.some(has)) return 'member';
  return undefined;
}

function viewOf(layers: Layers, place: Place, observed: [RuleDecision, RuleLayer][]) {
  const sites = createSiteDirectory({
    defaultSite: site,
    defaultFilterId: undefined,
    floor: { defaults: layers.floorOn, neverShow: [...layers.neverShow] },
  });
  return makeView({
    site,
    guildId: '1',
    ageRestricted: place.ageRestricted,
    spoilerChannel: place.spoilerChannel,
    guildFilters: {},
    sites,
    layers: {
      channelId: '2',
      server: { hidden: layers.serverHidden, spoilered: layers.serverSpoilered },
      channel: { hidden: layers.channelHidden, spoilered: layers.channelSpoilered },
      memberHidden: layers.memberHidden,
      observe: (decision, layer) => void observed.push([decision, layer]),
    },
  });
}

const FILTER = { name: 'Test filter', spoileredTagIds: [], hiddenTagIds: [] };

/** Every body a place could receive of the image: the card, both message forms, a grid, a tag card. */
function bodiesOf(image: VisibleImage, layers: Layers, place: Place, observed: [RuleDecision, RuleLayer][]) {
  const view = viewOf(layers, place, observed);
  const filter = place.filterKnown ? FILTER : undefined;
  const ctx = cardContext(view, filter, place.reveal ? { reveal: true } : {});
  const card = imageCard(image, ctx);
  const messages: MessageBody[] = [
    cardMessage(card, site, ID),
    cardMessage(card, site, ID, { form: 'v2' }),
    cardMessage(card, site, ID, { form: 'embed' }),
  ];
  const grid = imageGrid([other, image], {
    site,
    ageRestricted: view.ageRestricted,
    heading: 'Search: zq',
    rules: view.rules,
    ...(view.spoilerChannel ? { spoilerChannel: true } : {}),
    ...(filter === undefined ? {} : { filter }),
  });
  const tag = tagCard(tagSchema.parse({ id: 1, name: 'pony', slug: 'pony', images: 10 }), {
    site,
    ageRestricted: view.ageRestricted,
    example: image,
    rules: view.rules,
    ...(view.spoilerChannel ? { spoilerChannel: true } : {}),
  });
  return { card, messages, grid, tag };
}

/** Every picture of the drawn image in a body (its files all live under FILES): spoilered or not. */
function picturesIn(body: unknown): { url: string; spoiler: boolean }[] {
  const found: { url: string; spoiler: boolean }[] = [];
  const source = typeof body === 'object' && body !== null && 'components' in body ? body.components : [];
  const components = Array.isArray(source) ? allComponents(source) : [];
  for (const component of components) {
    const items = component['items'];
    if (!Array.isArray(items)) continue;
    for (const item of items as unknown[]) {
      const json = JSON.stringify(item);
      if (!json.includes(FILES)) continue;
      found.push({
        url: json,
        spoiler: typeof item === 'object' && item !== null && 'spoiler' in item && item.spoiler === true,
      });
    }
  }
  return found;
}

/** Embed images and thumbnails of the drawn image (an embed cannot spoiler them). */
function embedPictures(body: unknown): string[] {
  const json = JSON.stringify(body, (key, value: unknown) => (key === 'components' ? undefined : value));
  const pictures: string[] = [];
  for (const match of json.matchAll(/"(?:image|thumbnail)":\{"url":"([^"]*)"/g)) {
    if ((match[1] ?? '').includes(FILES)) pictures.push(match[1] ?? '');
  }
  return pictures;
}

describe('the rules in layers, for random layers, images and channels', () => {
  it('GIVEN a hidden rule whose tag is on the image THEN no picture, tag or description anywhere, and the outermost layer named', () => {
    fc.assert(
      fc.property(layersArb, placeArb, drawnArb, (layers, place, drawn) => {
        const layer = expectedHidingLayer(layers, drawn);
        fc.pre(layer !== undefined);
        if (layer === undefined) return;
        const image = imageOf(drawn);
        const observed: [RuleDecision, RuleLayer][] = [];
        const { card, messages, grid, tag } = bodiesOf(image, layers, place, observed);
        expect(card.gate).toBe('rule-hidden');
        expect(card.revealable).toBe(false);
        expect(card.embed.description).toBe(hiddenNotice(layer));
        expect(observed).toContainEqual(['hidden', layer]);
        expect(grid.shown.map((shown) => shown.id)).not.toContain(ID);
        const everything = JSON.stringify([card.embed, card.media, messages, grid.container, tag]);
        expect(everything, 'a picture or file of a hidden image').not.toContain(FILES);
        expect(everything, 'the description of a hidden image').not.toContain('zqdescription');
        for (const name of drawn.tags) expect(everything, `the tag ${name}`).not.toContain(name);
        for (const message of messages) {
          expect(JSON.stringify(message)).not.toContain('img:reveal:');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('GIVEN a spoilered rule whose tag is on an image no rule hides THEN every picture of it is behind a spoiler or withheld', () => {
    fc.assert(
      fc.property(layersArb, placeArb, drawnArb, (layers, place, drawn) => {
        const spoilering = [...layers.serverSpoilered, ...layers.channelSpoilered].some((name) =>
          drawn.tags.includes(name),
        );
        fc.pre(spoilering && expectedHidingLayer(layers, drawn) === undefined && !place.reveal);
        const image = imageOf(drawn);
        const observed: [RuleDecision, RuleLayer][] = [];
        const { card, messages, grid, tag } = bodiesOf(image, layers, place, observed);
        if (card.media !== null) expect(card.media.spoiler).toBe(true);
        expect(embedPictures(card.embed), 'an embed picture of a spoilered image').toEqual([]);
        for (const message of messages) {
          expect(embedPictures(message), 'an embed picture of a spoilered image').toEqual([]);
          for (const picture of picturesIn(message)) expect(picture.spoiler, picture.url).toBe(true);
          // No link to its files either (a video's link opens it unspoilered): only the gallery's items.
          const outsideGallery = JSON.stringify(message, (key, value: unknown) =>
            key === 'items' ? undefined : value,
          );
          expect(outsideGallery, 'a link to a file of a spoilered image').not.toContain(FILES);
        }
        for (const picture of picturesIn({ components: [grid.container] })) {
          expect(picture.spoiler, picture.url).toBe(true);
        }
        expect(embedPictures(tag), "the tag card's example picture").toEqual([]);
        if (card.gate === 'full') expect(observed.map(([decision]) => decision)).toContain('spoilered');
      }),
      { numRuns: 300 },
    );
  });
});
