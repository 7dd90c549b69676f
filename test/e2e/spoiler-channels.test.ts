/**
 * Spoiler channels end to end (channel flag IS_SPOILER_CHANNEL, docs/spoiler-channels.md), against the
 * local Discord's seeded spoiler channel and its thread: for the rating rule they are plain channels,
 * and every picture the bot posts there sits behind Discord's spoiler. A card goes as Components V2 with
 * its media item spoilered; where a reply holds several cards (embeds, which cannot spoiler a picture)
 * each embed goes without its picture, says so, and has a Reveal button that shows it to the clicker
 * alone. Safe pictures are still shown (behind the spoiler), non-safe ones never, and every card keeps
 * its credits and sources. /image, /search (card and grid), unfurls of one and of two links, Show card,
 * /tag, a gallery link, a thread, a server the bot is not in, and a channel made a spoiler channel while
 * the bot runs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { IS_SPOILER_CHANNEL_FLAG, type ChannelTarget, type RecordedMessage } from '../fakes/discord/index.js';
import { componentsOfType, galleryItemsOf, isComponentsV2, textOf } from '../fakes/discord/v2.js';
import { FILTER_IDS, GALLERY_IDS, IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { customIds, embedsOf } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { unfurlReply } from '../support/waiting.js';
import { sourceEntry } from '../../src/render/index.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: { BOORU_FILTER_ID: String(FILTER_IDS.everything) },
    registry: { budget: ROOMY_BUDGET },
  });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

const THUMBNAIL = 11;
const SAFE_SOURCE = `<https://www.deviantart.com/fake/art/image-${IDS.safe}>`;

/** No bare picture anywhere in the message: no embed image or thumbnail, every V2 media item spoilered. */
function expectNoBarePicture(message: RecordedMessage): void {
  for (const embed of embedsOf(message)) {
    expect(embed.image, 'an embed picture in a spoiler channel').toBeUndefined();
    expect(embed.thumbnail, 'an embed thumbnail in a spoiler channel').toBeUndefined();
  }
  for (const item of galleryItemsOf(message)) expect(item.spoiler, item.media.url).toBe(true);
  for (const thumbnail of componentsOfType(message, THUMBNAIL)) expect(thumbnail['spoiler']).toBe(true);
}

/** The card of the safe image as V2: its picture present, behind the spoiler, credited and sourced. */
function expectSpoileredSafeCard(message: RecordedMessage): void {
  expect(isComponentsV2(message)).toBe(true);
  expectNoBarePicture(message);
  const items = galleryItemsOf(message);
  expect(items).toHaveLength(1);
  expect(items[0]?.media.url).toMatch(/\/img\//);
  const text = textOf(message);
  expect(text).toContain(`/images/${IDS.safe})`);
  expect(text).toContain('fake artist');
  expect(text).toContain(SAFE_SOURCE);
  // The spoiler is the way in: no Reveal needed.
  expect(customIds(message).filter((id) => id.startsWith('img:reveal:'))).toEqual([]);
}

const image = (id: number, channel: ChannelTarget) =>
  h.discord.sendCommand({ name: 'image', options: { id: String(id) }, channel }).finalReply();

describe('commands in a spoiler channel', () => {
  it('GIVEN /image of a safe image THEN Components V2, the picture behind the spoiler, credit and source', async () => {
    expectSpoileredSafeCard(await image(IDS.safe, 'spoiler'));
  });

  it('GIVEN /image in a thread of the spoiler channel THEN the same: the parent decides', async () => {
    expectSpoileredSafeCard(await image(IDS.safe, 'threadInSpoiler'));
  });

  it.each([
    ['suggestive', IDS.suggestive],
    ['explicit', IDS.explicit],
  ])(
    'GIVEN /image of a %s image THEN the plain channel’s minimal card: no picture at all, credited',
    async (_name, id) => {
      const reply = await image(id, 'spoiler');
      expectNoBarePicture(reply);
      expect(galleryItemsOf(reply)).toEqual([]);
      const [embed] = embedsOf(reply);
      expect(embed?.description).toMatch(/can only be shown in age-restricted channels\.$/);
      expect(JSON.stringify(embed?.fields)).toContain('fake artist');
    },
  );

  it('GIVEN /image of the board’s hostile-text image THEN its V2 card is spoilered, within Discord’s limits, pinging nobody', async () => {
    const reply = await image(IDS.hostileText, 'spoiler');
    expectNoBarePicture(reply);
    expect(textOf(reply)).not.toMatch(/@(?:everyone|here)(?!\u200b)/);
  });

  it('GIVEN /search as cards THEN each page V2 with its picture spoilered, Next too, safe only', async () => {
    const first = await h.discord
      .sendCommand({
        name: 'search',
        options: { query: 'artist:fake artist', sort: 'oldest' },
        channel: 'spoiler',
      })
      .finalReply();
    expect(isComponentsV2(first)).toBe(true);
    expectNoBarePicture(first);
    expect(galleryItemsOf(first).length).toBe(1);
    const q = h.booru.requests.filter((r) => r.path.endsWith('/search/images')).at(-1);
    expect(q?.query.get('q')).toBe('(artist:fake artist), safe');
    const next = customIds(first).find((id) => id.startsWith('srch:next:'));
    if (next === undefined) throw new Error('no Next button');
    const second = await h.discord.sendButton({ customId: next, message: first }).finalReply();
    expect(isComponentsV2(second)).toBe(true);
    expectNoBarePicture(second);
    expect(galleryItemsOf(second).length).toBe(1);
  });

  it('GIVEN /search as a grid THEN every tile spoilered, each listed image with its credit and first source', async () => {
    const grid = await h.discord
      .sendCommand({ name: 'search', options: { query: 'pony', view: 'grid' }, channel: 'spoiler' })
      .finalReply();
    expect(isComponentsV2(grid)).toBe(true);
    expectNoBarePicture(grid);
    const items = galleryItemsOf(grid);
    expect(items.length).toBeGreaterThan(1);
    const lines = textOf(grid)
      .split('\n')
      .filter((line) => /^\d+\. \[/.test(line));
    expect(lines.length).toBeGreaterThanOrEqual(items.length);
    // Each line carries its image's first source as the board has it, and a count of the others.
    for (const line of lines) {
      const id = Number(/^\d+\. \[\\?#(\d+)\]/.exec(line)?.[1]);
      const response = await fetch(`${h.booru.url}/api/v1/json/images/${id}`);
      const { image: board } = z
        .object({ image: z.object({ source_urls: z.array(z.string()) }) })
        .parse(await response.json());
      const sources = board.source_urls.filter((url) => url.trim() !== '');
      const [first] = sources;
      expect(line).toContain(first === undefined ? 'no source given' : sourceEntry(first));
      if (sources.length > 1) expect(line).toContain(`(+${sources.length - 1} more source`);
    }
  });

  it('GIVEN /tag THEN its card carries no picture, its example linked, credited and sourced', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'tag', options: { name: 'twilight sparkle' }, channel: 'spoiler' })
      .finalReply();
    expectNoBarePicture(reply);
    const example = embedsOf(reply)[0]?.fields?.find((f) => f.name === 'Example')?.value ?? '';
    expect(example).toMatch(/spoiler channel/);
    expect(example).toMatch(/\*\*Credit:\*\*/);
    expect(example).toMatch(/\*\*Source:\*\*/);
  });
});

describe('unfurls and Show card in a spoiler channel', () => {
  it('GIVEN one image link THEN one V2 card with its picture spoilered', async () => {
    expectSpoileredSafeCard(
      await unfurlReply(h.discord, 'spoiler', `look ${h.booru.url}/images/${IDS.safe}`),
    );
  });

  it('GIVEN two image links THEN embeds without pictures, saying so, a Reveal each; Reveal shows the picture to the clicker alone', async () => {
    const reply = await unfurlReply(
      h.discord,
      'spoiler',
      `${h.booru.url}/images/${IDS.safe} and ${h.booru.url}/images/${IDS.multiCredit}`,
    );
    expect(isComponentsV2(reply)).toBe(false);
    expectNoBarePicture(reply);
    const embeds = embedsOf(reply);
    expect(embeds).toHaveLength(2);
    for (const embed of embeds) {
      expect(embed.description).toMatch(/^Spoiler channel: the picture is not in this card/);
      expect(embed.fields?.some((f) => f.name === 'Credit')).toBe(true);
      expect(embed.fields?.some((f) => /^Sources?$/.test(f.name))).toBe(true);
    }
    expect(JSON.stringify(embeds[0]?.fields)).toContain(SAFE_SOURCE);
    const reveals = customIds(reply).filter((id) => id.startsWith('img:reveal:'));
    expect(reveals).toHaveLength(2);
    const revealed = await h.discord
      .sendButton({ customId: reveals[0] ?? '', message: reply, userId: h.discord.guild.otherMemberId })
      .finalReply();
    expect(revealed.flags & 64).toBe(64);
    // To the clicker alone: the picture, unspoilered.
    const pictured = isComponentsV2(revealed)
      ? galleryItemsOf(revealed).filter((item) => item.spoiler !== true).length
      : embedsOf(revealed).filter((embed) => embed.image?.url !== undefined).length;
    expect(pictured).toBe(1);
  });

  it('GIVEN a link to a gallery THEN its card and its cover’s, neither with a bare picture, the cover revealable', async () => {
    const reply = await unfurlReply(h.discord, 'spoiler', `${h.booru.url}/galleries/${GALLERY_IDS.owner}`);
    expectNoBarePicture(reply);
    const embeds = embedsOf(reply);
    expect(embeds.length).toBe(2);
    expect(embeds[0]?.title).toBe('Bot owner favourites');
    expect(customIds(reply).some((id) => id.startsWith('img:reveal:'))).toBe(true);
  });

  it('GIVEN Show card on one link and on two THEN V2 with the spoiler, and embeds without pictures', async () => {
    const one = await h.discord
      .sendMessageCommand({
        name: 'Show card',
        channel: 'spoiler',
        targetMessage: { content: `${h.booru.url}/images/${IDS.safe}` },
      })
      .finalReply();
    expectSpoileredSafeCard(one);
    const two = await h.discord
      .sendMessageCommand({
        name: 'Show card',
        channel: 'spoiler',
        targetMessage: { content: `${h.booru.url}/images/${IDS.safe} ${h.booru.url}/images/${IDS.explicit}` },
      })
      .finalReply();
    expectNoBarePicture(two);
    expect(embedsOf(two)).toHaveLength(2);
    // The explicit image's card is the plain channel's: no Reveal for it.
    expect(customIds(two).filter((id) => id.startsWith('img:reveal:'))).toHaveLength(1);
  });
});

describe('where the bot learns of spoiler channels', () => {
  it('GIVEN a spoiler channel of a server the bot is not in (a user install) THEN the interaction’s partial channel decides', async () => {
    const reply = await h.discord
      .sendCommand({
        name: 'image',
        options: { id: String(IDS.safe) },
        channel: h.discord.foreignGuild.channels.spoiler,
        install: 'user',
        userId: h.discord.foreignGuild.memberId,
      })
      .finalReply();
    expectSpoileredSafeCard(reply);
  });

  it('GIVEN a plain channel made a spoiler channel while the bot runs, and back THEN the next card follows each change', async () => {
    // CHANNEL_UPDATE and the next interaction go down the one gateway socket in order: no wait needed.
    const { plain } = h.discord.guild.channels;
    expect(isComponentsV2(await image(IDS.safe, plain))).toBe(false);
    h.discord.updateChannel(plain, { flags: IS_SPOILER_CHANNEL_FLAG });
    try {
      expectSpoileredSafeCard(await image(IDS.safe, plain));
    } finally {
      h.discord.updateChannel(plain, { flags: 0 });
    }
    const after = await image(IDS.safe, plain);
    expect(isComponentsV2(after)).toBe(false);
    expect(embedsOf(after)[0]?.image?.url).toMatch(/\/img\//);
  });
});
