/**
 * Feeds and who may see what, end to end (the real bot, the local Discord and board). The test names keep
 * the labels an outside security review (2026-11-26) gave these cases: N3 lost channels, N5 where a new
 * feed starts, N7 Manage Server.
 *
 * - feeds of a server the bot is not in: Discord answers 403 to every read of their channels, so each
 *   feed is read once and paused, never again at every tick (403s count toward Discord's IP ban);
 * - `/feed` autocomplete answers only members the command serves (it lists queries and channels);
 * - `/feed add` needs the member, not only the bot, to see and post in the channel;
 * - a new feed starts from the site's newest image, even for a query with no match yet;
 * - the bot removed from a server (GUILD_DELETE): its feeds pause and its channels are not read again;
 * - a spoiler channel's feed posts its safe pictures behind Discord's spoiler.
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFeedStore } from '../../commands/feed/feed-store.js';
import { galleryItemsOf, isComponentsV2, textOf } from '../fakes/discord/v2.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(): Promise<Harness> {
  h = await startHarness({
    env: { FEED_INTERVAL: '1m', FEED_SETTLE: '0' },
    registry: { budget: ROOMY_BUDGET },
    feedTickMs: 3_600_000,
  });
  return h;
}

/** `/feed add` by the server's owner, from its plain channel; resolves with the reply. */
function addFeed(harness: Harness, query: string, channel: string) {
  const g = harness.discord.guild;
  return harness.discord
    .sendCommand({
      name: 'feed',
      subcommand: 'add',
      options: { query, channel },
      channel: 'plain',
      userId: g.ownerId,
    })
    .finalReply();
}

describe('feeds of a server the bot is not in (N3)', () => {
  it('GIVEN three feeds whose channels Discord refuses (403) THEN each is read once, paused, and not read again', async () => {
    const harness = await start();
    const gone = harness.discord.foreignGuild;
    const feeds = createFeedStore(harness.store);
    for (let i = 0; i < 3; i += 1) {
      await feeds.add(
        {
          guildId: gone.id,
          channelId: gone.channels.plain,
          siteId: harness.config.site.id,
          query: `leftfeed${i}`,
          createdBy: 'u',
          createdAt: 0,
          cursor: 0,
        },
        10,
      );
      harness.booru.addImage({ tags: ['safe', `leftfeed${i}`] });
    }
    const before = harness.discord.requests.length;
    for (let i = 0; i < 6; i += 1) {
      harness.botClock.advance(61_000);
      await harness.pollFeeds();
    }
    const reads = harness.discord.requests
      .slice(before)
      .filter((r) => r.method === 'GET' && r.route.startsWith('/channels/:channel'));
    expect(reads.length).toBeLessThanOrEqual(3);
    expect(reads.every((r) => r.status === 403)).toBe(true);
    const list = await feeds.list(gone.id);
    expect(list.map((feed) => feed.paused?.reason)).toEqual(['forbidden', 'forbidden', 'forbidden']);
    // Nothing was posted there.
    expect(harness.discord.requests.slice(before).filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('/feed and Manage Server (N7)', () => {
  it('GIVEN a member without Manage Server THEN the feed autocomplete offers nothing', async () => {
    const harness = await start();
    const g = harness.discord.guild;
    await addFeed(harness, 'secret staff query', g.channels.ageRestricted);
    const feedChoices = (userId: string) =>
      harness.discord
        .sendAutocomplete({
          name: 'feed',
          subcommand: 'remove',
          options: { feed: '' },
          focused: 'feed',
          channel: 'plain',
          userId,
        })
        .autocompleteChoices();
    expect(await feedChoices(g.memberId)).toEqual([]);
    const forOwner = await feedChoices(g.ownerId);
    expect(forOwner).toHaveLength(1);
    expect(forOwner[0]?.name).toContain('secret staff query');
  });

  it('GIVEN an admin who may not post in the channel THEN /feed add refuses, for the picked channel and for this one', async () => {
    const harness = await start();
    const g = harness.discord.guild;
    const manageOnly = (PermissionFlagsBits.ManageGuild | PermissionFlagsBits.ViewChannel).toString();
    const picked = await harness.discord
      .sendCommand({
        name: 'feed',
        subcommand: 'add',
        options: { query: 'pony', channel: g.channels.ageRestricted },
        channel: 'plain',
        userId: g.ownerId,
        permissions: manageOnly,
      })
      .finalReply();
    expect(picked.content).toMatch(
      /^You can't post in <#\d+> yourself \(Send Messages\), so a feed can't either\.$/,
    );
    const here = await harness.discord
      .sendCommand({
        name: 'feed',
        subcommand: 'add',
        options: { query: 'pony' },
        channel: 'plain',
        userId: g.ownerId,
        permissions: PermissionFlagsBits.ManageGuild.toString(),
      })
      .finalReply();
    expect(here.content).toMatch(/yourself \(View Channel, Send Messages\)/);
    expect(await createFeedStore(harness.store).list(g.id)).toEqual([]);
  });

  it('GIVEN a feed query with a my: term THEN refused in one sentence, nothing added, and the term never reaches the board', async () => {
    const harness = await start();
    const g = harness.discord.guild;
    const mark = harness.booru.requests.length;
    for (const query of ['my:faves', 'pony, -my:upvotes']) {
      const reply = await harness.discord
        .sendCommand({
          name: 'feed',
          subcommand: 'add',
          options: { query },
          channel: 'plain',
          userId: g.ownerId,
        })
        .finalReply();
      expect(reply.content).toBe(
        "A feed belongs to the server, so it cannot search anyone's own lists (`my:`). Nothing was added.",
      );
    }
    expect(
      harness.booru.requests.slice(mark).filter((r) => /my:/i.test(`${r.path}?${r.query.toString()}`)),
    ).toEqual([]);
    expect(await createFeedStore(harness.store).list(g.id)).toEqual([]);
  });
});

describe('where a new feed starts (N5)', () => {
  it('GIVEN a query with no match yet THEN the feed starts from the newest image, and posts only what comes after', async () => {
    const harness = await start();
    const g = harness.discord.guild;
    const older = harness.booru.addImage({ tags: ['safe', 'pony'] });
    const reply = await addFeed(harness, 'nomatchyet', g.channels.plain);
    expect(reply.content).toMatch(/^Feed `[a-z0-9]{6}` added/);
    const [feed] = await createFeedStore(harness.store).list(g.id);
    expect(feed?.cursor).toBeGreaterThanOrEqual(older);
    const later = harness.booru.addImage({ tags: ['safe', 'nomatchyet'] });
    harness.botClock.advance(61_000);
    await harness.pollFeeds();
    const posted = harness.discord
      .channelMessages(g.channels.plain)
      .filter((m) => m.interactionId === undefined)
      .map((m) => /\/images\/(\d+)/.exec(JSON.stringify(m.embeds))?.[1]);
    expect(posted).toEqual([String(later)]);
  });
});

describe('the bot removed from a server (N3)', () => {
  it('GIVEN GUILD_DELETE for a server with feeds THEN they pause, the server leaves the poll index, and nothing reads its channels', async () => {
    const harness = await start();
    const g = harness.discord.guild;
    const feeds = createFeedStore(harness.store);
    for (const query of ['removed1', 'removed2']) await addFeed(harness, query, g.channels.plain);
    harness.discord.removeBot();
    // The poller hears of it from the gateway (discord.js's guildDelete) and retires the server.
    await vi.waitFor(async () => {
      expect(Object.keys(await feeds.dormant())).toEqual([g.id]);
    });
    expect(await feeds.guilds()).not.toContain(g.id);
    expect((await feeds.list(g.id)).map((feed) => feed.paused?.reason)).toEqual(['forbidden', 'forbidden']);
    harness.booru.addImage({ tags: ['safe', 'removed1'] });
    const before = harness.discord.requests.length;
    for (let i = 0; i < 3; i += 1) {
      harness.botClock.advance(61_000);
      await harness.pollFeeds();
    }
    expect(harness.discord.requests.slice(before).filter((r) => r.route.startsWith('/channels/'))).toEqual(
      [],
    );
  });
});

describe('a feed in a spoiler channel', () => {
  it('GIVEN a new safe image THEN its card goes out as Components V2 with the picture behind the spoiler, credited', async () => {
    const harness = await start();
    const g = harness.discord.guild;
    const reply = await addFeed(harness, 'spoilerfeed', g.channels.spoiler);
    expect(reply.content).toMatch(/^Feed `[a-z0-9]{6}` added/);
    const id = harness.booru.addImage({ tags: ['safe', 'spoilerfeed', 'artist:spoiler painter'] });
    harness.booru.addImage({ tags: ['explicit', 'spoilerfeed'] });
    harness.botClock.advance(61_000);
    await harness.pollFeeds();
    const posted = harness.discord
      .channelMessages(g.channels.spoiler)
      .filter((m) => m.interactionId === undefined);
    expect(posted).toHaveLength(1);
    const [card] = posted;
    if (card === undefined) throw new Error('no card');
    expect(isComponentsV2(card)).toBe(true);
    const items = galleryItemsOf(card);
    expect(items).toHaveLength(1);
    expect(items.every((item) => item.spoiler === true)).toBe(true);
    expect(textOf(card)).toContain(`/images/${id})`);
    expect(textOf(card)).toContain('spoiler painter');
  });
});
