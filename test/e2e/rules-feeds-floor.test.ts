/**
 * The rules in layers where nobody asks (feeds) and the floor under a channel's own filter, end to end.
 * A feed never posts an image the server's or the channel's hidden tags hide (nothing of it reaches
 * Discord), posts one the server spoilers behind Discord's spoiler, and posts the rest in the open. The
 * operator's floor holds in an age-restricted channel (and its thread) whose own filter, set with
 * `/settings channel filter_id:`, is the board's "Everything".
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { galleryItemsOf, textOf } from '../fakes/discord/v2.js';
import { FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import {
  addRuleImage,
  bodiesSince,
  expectNothingOf,
  expectPicturedBehindSpoiler,
  mark,
  pictureOf,
  settingsTags,
  showsPicture,
} from '../support/rules.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: { FEED_INTERVAL: '1m', FEED_MAX_PER_POLL: '10', FEED_SETTLE: '0' },
    registry: { budget: ROOMY_BUDGET },
    feedTickMs: 3_600_000,
  });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

const owner = () => h.discord.guild.ownerId;

/** The bot's messages in a channel outside interactions (what feeds post). */
const posts = (channel: string): RecordedMessage[] =>
  h.discord.channelMessages(channel).filter((m) => m.interactionId === undefined && !m.deleted);

describe('feeds', () => {
  it("GIVEN a feed in a plain channel THEN images the server's or the channel's hidden tags hide are not posted, a spoilered one is posted behind the spoiler, the rest in the open", async () => {
    const plain = h.discord.guild.channels.plain;
    // The tags exist on the board before they are listed (the lists check names with the board).
    h.booru.addImage({
      tags: ['safe', 'zq feed server hidden', 'zq feed channel hidden', 'zq feed spoiler'],
    });
    await settingsTags(h, 'hide', 'zq feed server hidden');
    await settingsTags(h, 'hide', 'zq feed channel hidden', 'plain');
    await settingsTags(h, 'spoiler', 'zq feed spoiler');
    const added = await h.discord
      .sendCommand({
        name: 'feed',
        subcommand: 'add',
        options: { query: 'zq rules', channel: plain },
        channel: 'plain',
        userId: owner(),
      })
      .finalReply();
    expect(added.content).toMatch(/^Feed `[a-z0-9]+` added/);
    const serverHidden = addRuleImage(h, 'zq feed server hidden');
    const channelHidden = addRuleImage(h, 'zq feed channel hidden');
    const spoilered = addRuleImage(h, 'zq feed spoiler');
    const open = addRuleImage(h, 'zq feed open');
    const before = posts(plain).length;
    const from = mark(h);
    h.botClock.advance(61_000);
    await h.pollFeeds();
    const posted = posts(plain).slice(before);
    const text = bodiesSince(h, from);
    expect(posted).toHaveLength(2);
    expect(text).toContain(`/images/${open.id}`);
    expect(text).not.toContain(`/images/${serverHidden.id}`);
    expect(text).not.toContain(`/images/${channelHidden.id}`);
    expectNothingOf(text, serverHidden, 'feed');
    expectNothingOf(text, channelHidden, 'feed');
    const spoileredPost = posted.find((message) =>
      JSON.stringify(message).includes(`/images/${spoilered.id}`),
    );
    const openPost = posted.find((message) => JSON.stringify(message).includes(`/images/${open.id}`));
    if (spoileredPost === undefined || openPost === undefined) throw new Error('a post is missing');
    expectPicturedBehindSpoiler(spoileredPost, spoilered.id);
    expect(showsPicture(openPost, open.id)).toBe(true);
  });
});

describe('feeds in a thread', () => {
  it('GIVEN a feed posting into a thread of a channel with its own hidden tag THEN the thread follows its parent: the image is not posted, others are', async () => {
    const thread = h.discord.guild.channels.threadInPlain;
    h.booru.addImage({ tags: ['safe', 'zq thread parent hidden'] });
    await settingsTags(h, 'hide', 'zq thread parent hidden', 'plain');
    const added = await h.discord
      .sendCommand({
        name: 'feed',
        subcommand: 'add',
        options: { query: 'zq rules', channel: thread },
        channel: 'plain',
        userId: owner(),
      })
      .finalReply();
    expect(added.content).toMatch(/^Feed `[a-z0-9]+` added/);
    const hidden = addRuleImage(h, 'zq thread parent hidden');
    const open = addRuleImage(h, 'zq thread open');
    const before = posts(thread).length;
    // The first round may only learn the thread's parent; the next posts.
    for (let round = 0; round < 3; round += 1) {
      h.botClock.advance(61_000);
      await h.pollFeeds();
    }
    const text = JSON.stringify(posts(thread).slice(before));
    expect(text).toContain(`/images/${open.id}`);
    expect(text).not.toContain(`/images/${hidden.id}`);
    expectNothingOf(text, hidden, 'feed');
  });
});

describe("the floor under a channel's own Everything filter", () => {
  it('GIVEN /settings channel filter_id:Everything on the age-restricted channel THEN its searches use it, AND the floor still hides there and in its thread', async () => {
    const set = await h.discord
      .sendCommand({
        name: 'settings',
        subcommand: 'channel',
        options: { channel: 'ageRestricted', filter_id: FILTER_IDS.everything },
        channel: 'plain',
        userId: owner(),
      })
      .finalReply();
    expect(set.content).toContain('Everything');
    for (const channel of ['ageRestricted', 'threadInAgeRestricted'] as const) {
      const boardFrom = h.booru.requests.length;
      const from = mark(h);
      const card = await h.discord
        .sendCommand({ name: 'image', options: { id: String(IDS.floorYoung) }, channel })
        .finalReply();
      expect(JSON.stringify(card)).toContain("hidden by the bot's own rules");
      const grid = await h.discord
        .sendCommand({
          name: 'search',
          options: { query: `floor test || zq ${channel}`, view: 'grid' },
          channel,
        })
        .finalReply();
      expect(galleryItemsOf(grid).some((item) => pictureOf(IDS.floorYoung).test(item.media.url))).toBe(false);
      expect(textOf(grid)).not.toContain('filly');
      const text = bodiesSince(h, from);
      expect(text).not.toMatch(pictureOf(IDS.floorYoung));
      expect(text).not.toContain('filly');
      // A search per channel (the query differs, so no cached answer): with the channel's filter.
      const filters = h.booru.requests.slice(boardFrom).map((request) => request.query.get('filter_id'));
      expect(filters, channel).toContain(String(FILTER_IDS.everything));
    }
    // Control: the same channel shows an explicit image without a floor tag.
    const explicit = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.explicit) }, channel: 'ageRestricted' })
      .finalReply();
    expect(showsPicture(explicit, IDS.explicit)).toBe(true);
  });
});
