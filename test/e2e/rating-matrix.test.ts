/**
 * The rating rule end to end: every rating the local Philomena has × every kind of channel × (/image and
 * an unfurled link). A picture, tags or a description only for images rated exactly `safe`, except in
 * age-restricted channels and their threads; DMs are never age-restricted. Spoiler channels (and their
 * threads) are plain channels for the rule, and the one picture they may show goes behind Discord's
 * spoiler (a Components V2 card). Every card, whatever the gate, credits the artist, lists the source and
 * links to the image page.
 *
 * The bot's default filter is Everything (BOORU_FILTER_ID), so no spoiler gets in the way of the rule under
 * test. The last block switches the server to the Default filter (hides explicit and grotesque, spoilers
 * questionable): single images the filter hides or spoilers come back `spoilered`, so they show no picture
 * even in age-restricted channels, with a Reveal button; DMs keep the bot's default filter.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelTarget, RecordedMessage } from '../fakes/discord/index.js';
import { FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import { setServerFilter } from '../support/board.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { cardUrl, customIds, embedField, embedOf, type Embed } from '../support/messages.js';
import { unfurlReply } from '../support/waiting.js';
import { galleryItemsOf, isComponentsV2, textOf } from '../fakes/discord/v2.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { BOORU_FILTER_ID: String(FILTER_IDS.everything) } });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

const CHANNELS = [
  'plain',
  'ageRestricted',
  'threadInPlain',
  'threadInAgeRestricted',
  'spoiler',
  'threadInSpoiler',
  'dm',
] as const;
type Channel = (typeof CHANNELS)[number];

/** [name, id, the Rating field as the card words it, the credited artist]. */
const IMAGES = [
  ['safe', IDS.safe, 'safe', 'fake artist'],
  ['suggestive', IDS.suggestive, 'suggestive', 'fake artist'],
  ['questionable', IDS.questionable, 'questionable', 'fake artist'],
  ['explicit', IDS.explicit, 'explicit', 'fake artist'],
  ['semiGrimdark', IDS.semiGrimdark, 'semi-grimdark', 'grim artist'],
  ['grimdark', IDS.grimdark, 'grimdark', 'grim artist'],
  ['grotesque', IDS.grotesque, 'grotesque', 'grim artist'],
  ['questionableGrimdark', IDS.questionableGrimdark, 'questionable, grimdark', 'grim artist'],
  ['suggestiveSemiGrimdark', IDS.suggestiveSemiGrimdark, 'suggestive, semi-grimdark', 'grim artist'],
  ['noRating', IDS.noRating, 'no rating tag', 'fake artist'],
] as const;
type ImageCase = (typeof IMAGES)[number];

function ageRestricted(channel: Channel): boolean {
  return channel === 'ageRestricted' || channel === 'threadInAgeRestricted';
}

function spoilerChannel(channel: Channel): boolean {
  return channel === 'spoiler' || channel === 'threadInSpoiler';
}

/**
 * A card where the picture may show in a spoiler channel: Components V2, its one picture behind the
 * spoiler, no embed; tags, description, credit, source and link as on any full card.
 */
function expectSpoileredCard(reply: RecordedMessage, [, id, words, artist]: ImageCase): void {
  expect(isComponentsV2(reply)).toBe(true);
  expect(reply.embeds).toEqual([]);
  const items = galleryItemsOf(reply);
  expect(items).toHaveLength(1);
  expect(items[0]?.media.url).toMatch(/\/img\//);
  expect(items[0]?.spoiler).toBe(true);
  const text = textOf(reply);
  expect(cardUrl(reply)).toBe(`${h.booru.url}/images/${id}`);
  expect(text).toContain(`[${artist}](`);
  expect(text).toContain(`<https://www.deviantart.com/fake/art/image-${id}>`);
  expect(text).toContain(`**Rating:** ${words}`);
  expect(text).toMatch(/\*\*Tags \(/);
  expect(text).toContain('A calm picture of Twilight reading.');
}

/** The reply's card, whichever form the channel gives it, checked against the rule. */
function expectCard(reply: RecordedMessage, channel: Channel, image: ImageCase): void {
  if (spoilerChannel(channel) && image[0] === 'safe') {
    expectSpoileredCard(reply, image);
    return;
  }
  const embed = embedOf(reply);
  expectCredited(embed, image);
  expectGated(embed, channel, image);
}

function channelOf(channel: Channel): ChannelTarget {
  return channel === 'dm' ? h.discord.dmChannelId : channel;
}

/** What every card shows, whatever its gate: the canonical link, the credit, the source, the rating. */
function expectCredited(embed: Embed, [, id, words, artist]: ImageCase): void {
  expect(embed.title).toBe(`#${id}`);
  expect(embed.url).toBe(`${h.booru.url}/images/${id}`);
  expect(embedField(embed, 'Credit')).toMatch(new RegExp(`^\\*\\*Artist:\\*\\* \\[${artist}\\]\\(`));
  expect(embedField(embed, 'Source')).toBe(`<https://www.deviantart.com/fake/art/image-${id}>`);
  expect(embedField(embed, 'Rating')).toBe(words);
}

/** The rule itself: picture, tags and description only where the image may be shown. */
function expectGated(embed: Embed, channel: Channel, image: ImageCase): void {
  const [name] = image;
  if (name === 'safe' || ageRestricted(channel)) {
    expect(embed.image?.url).toMatch(/\/img\//);
    // Tags with the rating first (an image without a rating tag simply lists its tags).
    const first = image[2] === 'no rating tag' ? 'artist:fake artist' : image[2].split(', ')[0];
    expect(embedField(embed, /^Tags \(/)?.startsWith(`${first},`)).toBe(true);
    if (name === 'safe') expect(embed.description).toContain('A calm picture of Twilight reading.');
  } else {
    expect(embed.image).toBeUndefined();
    expect(embed.thumbnail).toBeUndefined();
    expect(embedField(embed, /^Tags/)).toBeUndefined();
    expect(embed.description).toMatch(/can only be shown in age-restricted channels\.$/);
  }
}

const cases = CHANNELS.flatMap((channel) => IMAGES.map((image) => [channel, image[0], image] as const));

describe('rating matrix under the Everything filter', () => {
  it.each(cases)(
    'GIVEN /image in %s of a %s image THEN the picture, tags and description show only where allowed, and the card is credited',
    async (channel, _name, image) => {
      const reply = await h.discord
        .sendCommand({ name: 'image', options: { id: String(image[1]) }, channel: channelOf(channel) })
        .finalReply();
      expectCard(reply, channel, image);
      expect(customIds(reply)).toEqual([]);
      expect(reply.allowedMentions).toEqual({ parse: [] });
    },
  );

  it.each(cases)(
    'GIVEN a link posted in %s to a %s image THEN the unfurl follows the same rule',
    async (channel, _name, image) => {
      const reply = await unfurlReply(
        h.discord,
        channelOf(channel),
        `look ${h.booru.url}/images/${image[1]}`,
      );
      expectCard(reply, channel, image);
      expect(customIds(reply)).toEqual([]);
      expect(reply.allowedMentions).toEqual({ parse: [], replied_user: false });
    },
  );

  it('GIVEN /search outside age-restricted channels THEN only safe images are searched', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'search', options: { query: 'explicit' }, channel: 'plain' })
      .finalReply();
    expect(reply.content).toMatch(/No images matched/);
    const q = h.booru.requests.filter((r) => r.path.endsWith('/search/images')).at(-1);
    expect(q?.query.get('q')).toBe('(explicit), safe');
  });
});

describe('under the Default filter (set for the server)', () => {
  beforeAll(async () => {
    const set = await setServerFilter(h, FILTER_IDS.default);
    expect(set.content).toContain('Default');
  });

  const byName = (name: ImageCase[0]): ImageCase => IMAGES.find((image) => image[0] === name)!;

  /** [channel, image, how the Default filter treats it in the card's words]. */
  const SPOILERED = [
    ['ageRestricted', 'explicit', 'hidden by the filter “Default” for **explicit**'],
    ['ageRestricted', 'grotesque', 'hidden by the filter “Default” for **grotesque**'],
    ['threadInAgeRestricted', 'questionable', 'spoilered by the filter “Default” for **questionable**'],
    [
      'threadInAgeRestricted',
      'questionableGrimdark',
      'spoilered by the filter “Default” for **questionable**',
    ],
  ] as const;

  it.each(SPOILERED)(
    'GIVEN /image in %s of a %s image THEN hidden: no picture, or spoilered: the picture behind a native spoiler; no tags, the filter tag named, a Reveal button',
    async (channel, name, why) => {
      const image = byName(name);
      const before = h.booru.requests.length;
      const reply = await h.discord
        .sendCommand({ name: 'image', options: { id: String(image[1]) }, channel })
        .finalReply();
      if (why.startsWith('spoilered')) {
        // A picture the rating rule allows here, spoilered by the filter: Components V2 shows it behind
        // Discord's own spoiler (an embed could show none), still without tags or description.
        expect(isComponentsV2(reply)).toBe(true);
        const text = textOf(reply);
        expect(cardUrl(reply)).toBe(`${h.booru.url}/images/${image[1]}`);
        expect(text).toContain(`[${image[3]}](`);
        expect(text).toContain(`https://www.deviantart.com/fake/art/image-${image[1]}`);
        expect(text).toContain(why);
        expect(text).not.toMatch(/\*\*Tags/);
        const items = galleryItemsOf(reply);
        expect(items).toHaveLength(1);
        expect(items[0]?.spoiler).toBe(true);
      } else {
        // Hidden by the filter: no picture at all, not even behind a spoiler (the embed card).
        const embed = embedOf(reply);
        expectCredited(embed, image);
        expect(embed.image).toBeUndefined();
        expect(embedField(embed, /^Tags/)).toBeUndefined();
        expect(embed.description).toContain(why);
      }
      expect(customIds(reply)).toHaveLength(1);
      expect(customIds(reply)[0]).toMatch(new RegExp(`^img:reveal:[^:]+:${image[1]}$`));
      const asked = h.booru.requests.slice(before).find((r) => r.path.endsWith(`/images/${image[1]}`));
      expect(asked?.query.get('filter_id')).toBe(String(FILTER_IDS.default));
    },
  );

  it.each([
    ['ageRestricted', 'suggestive'],
    ['ageRestricted', 'grimdark'],
    ['plain', 'safe'],
  ] as const)(
    'GIVEN /image in %s of a %s image the filter leaves alone THEN the full card',
    async (channel, name) => {
      const image = byName(name);
      const reply = await h.discord
        .sendCommand({ name: 'image', options: { id: String(image[1]) }, channel })
        .finalReply();
      const embed = embedOf(reply);
      expectCredited(embed, image);
      expectGated(embed, channel, image);
      expect(customIds(reply)).toEqual([]);
    },
  );

  it('GIVEN a link to an explicit image in a plain channel THEN the rating rule wins: minimal card, no Reveal', async () => {
    const image = byName('explicit');
    const reply = await unfurlReply(h.discord, 'plain', `${h.booru.url}/images/${image[1]}`);
    const embed = embedOf(reply);
    expectCredited(embed, image);
    expectGated(embed, 'plain', image);
    expect(customIds(reply)).toEqual([]);
  });

  it('GIVEN a link to a grotesque image in an age-restricted thread THEN the unfurl is spoilered with a Reveal button', async () => {
    const image = byName('grotesque');
    const reply = await unfurlReply(h.discord, 'threadInAgeRestricted', `${h.booru.url}/images/${image[1]}`);
    const embed = embedOf(reply);
    expectCredited(embed, image);
    expect(embed.image).toBeUndefined();
    expect(embed.description).toContain('hidden by the filter “Default” for **grotesque**');
    expect(customIds(reply)).toHaveLength(1);
    expect(customIds(reply)[0]).toMatch(/^img:reveal:/);
  });

  it('GIVEN a DM THEN the server\u2019s filter does not apply: the bot\u2019s default filter (Everything) does', async () => {
    const before = h.booru.requests.length;
    const reply = await h.discord
      .sendCommand({
        name: 'image',
        options: { id: String(IDS.spoilerTagged) },
        channel: h.discord.dmChannelId,
      })
      .finalReply();
    expect(embedOf(reply).image?.url).toMatch(/\/img\//);
    const asked = h.booru.requests.slice(before).find((r) => r.path.endsWith(`/images/${IDS.spoilerTagged}`));
    expect(asked?.query.get('filter_id')).toBe(String(FILTER_IDS.everything));
  });
});
