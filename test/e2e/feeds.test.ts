/**
 * Feeds end to end (issue 10): the real bot with `/feed` and its poller, the local board adding images over
 * time, the local Discord. Rounds of the poller are run by the test (`h.pollFeeds()`), with the bot's clock
 * moved past the interval between them, so nothing waits on real minutes.
 *
 * - the right images, once each, oldest first, credited, with their sources and page link;
 * - an explicit image never reaches a plain-channel feed, and the server's filter hides or spoilers;
 * - more than FEED_MAX_PER_POLL new images: that many cards and one line with the count and a link;
 * - an image still processing holds its feed back, then goes out (ready, or after 10 minutes);
 * - a restart, and a cursor write lost after a send, post nothing twice (Discord's enforce_nonce);
 * - a deleted channel or lost permissions pause the feed, `/feed list` says why, and it is not retried;
 * - a query the board refuses pauses the feed with the board's words;
 * - one search per (site, query, filter) per interval, however many feeds share it.
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FILTER_IDS } from '../fakes/philomena/index.js';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { setServerFilter } from '../support/board.js';
import { ROOMY_BUDGET, startHarness, type Harness, type HarnessOptions } from '../support/harness.js';
import { createBotMetrics } from '../../src/metrics/index.js';

const INTERVAL_MS = 60_000;

let h: Harness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  h = undefined;
});

async function start(
  options: {
    store?: 'memory' | 'sqlite';
    env?: Record<string, string>;
    observers?: HarnessOptions['observers'];
  } = {},
): Promise<Harness> {
  h = await startHarness({
    ...(options.observers === undefined ? {} : { observers: options.observers }),
    ...(options.store === undefined ? {} : { store: options.store }),
    // No settle delay unless a test asks (its own tests are in test/commands/feed/poller.test.ts).
    env: { FEED_INTERVAL: '1m', FEED_MAX_PER_POLL: '3', FEED_SETTLE: '0', ...options.env },
    registry: { budget: ROOMY_BUDGET },
    // Rounds only when the test asks (and the one at start).
    feedTickMs: 3_600_000,
  });
  return h;
}

function feedCommand(
  harness: Harness,
  subcommand: string,
  options: Record<string, string> = {},
  userId?: string,
  channel: 'plain' | 'ageRestricted' = 'plain',
) {
  return harness.discord
    .sendCommand({
      name: 'feed',
      subcommand,
      options,
      channel,
      userId: userId ?? harness.discord.guild.ownerId,
    })
    .finalReply();
}

async function addFeed(harness: Harness, query: string, channel: string): Promise<string> {
  const reply = await feedCommand(harness, 'add', { query, channel });
  const id = /Feed `([a-z0-9]+)` added/.exec(reply.content)?.[1];
  if (id === undefined) throw new Error(`the feed was not added: ${reply.content}`);
  return id;
}

/** The next round, one interval later. */
async function nextRound(harness: Harness): Promise<void> {
  harness.botClock.advance(INTERVAL_MS + 1_000);
  await harness.pollFeeds();
}

/** The bot's messages in a channel outside interactions (what feeds post). */
function posts(harness: Harness, channel: string): RecordedMessage[] {
  return harness.discord.channelMessages(channel).filter((m) => m.interactionId === undefined && !m.deleted);
}

const imageIdOf = (message: RecordedMessage): number | undefined => {
  const url = String(message.embeds[0]?.['url'] ?? '');
  const id = /\/images\/(\d+)/.exec(url)?.[1];
  return id === undefined ? undefined : Number(id);
};

describe('/feed add, list, pause, resume, remove', () => {
  it('GIVEN an admin adding a feed THEN it is confirmed with its rule and listed; a member without Manage Server is refused', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    const reply = await feedCommand(harness, 'add', { query: 'pony', channel: plain });
    expect(reply.content).toMatch(
      /^Feed `[a-z0-9]{6}` added: new .* images matching `pony` go to <#\d+>, checked every minute, from now on\./,
    );
    expect(reply.content).toContain('only images rated safe are posted there');
    const list = await feedCommand(harness, 'list');
    expect(list.content).toMatch(/\*\*Feeds of this server\*\* \(1 of 10\):/);
    expect(list.content).toMatch(/<#\d+> · .* · `pony` · nothing posted yet · \*\*running\*\*/);
    const refused = await feedCommand(harness, 'list', {}, harness.discord.guild.memberId);
    expect(refused.content).toBe('Only members with the Manage Server permission can manage feeds.');
  });

  it('GIVEN a query the board refuses THEN the feed is not added and the admin reads why', async () => {
    const harness = await start();
    // In an age-restricted channel the query goes as typed (elsewhere it is made literal, so it parses).
    const reply = await feedCommand(harness, 'add', {
      query: 'pony, (cute',
      channel: harness.discord.guild.channels.ageRestricted,
    });
    expect(reply.content).toMatch(/does not accept that query/);
    expect((await feedCommand(harness, 'list')).content).toBe(
      'This server has no feeds. Add one with /feed add.',
    );
  });

  it('GIVEN a channel where the bot may not post THEN the feed is refused, naming what is missing', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    harness.discord.denyBot(plain, PermissionFlagsBits.EmbedLinks);
    await harness.discord.waitFor(() => (harness.logLines().length > 0 ? true : undefined));
    const reply = await harness.discord
      .sendCommand({
        name: 'feed',
        subcommand: 'add',
        options: { query: 'pony', channel: plain },
        channel: 'ageRestricted',
        userId: harness.discord.guild.ownerId,
      })
      .finalReply();
    expect(reply.content).toMatch(/I can't post cards in <#\d+>: I need Embed Links there\./);
  });

  it('GIVEN a feed paused THEN nothing is posted until it is resumed, then what came meanwhile goes out', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    const id = await addFeed(harness, 'feedtag', plain);
    expect((await feedCommand(harness, 'pause', { feed: id })).content).toMatch(/paused/);
    const image = harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    await nextRound(harness);
    expect(posts(harness, plain)).toHaveLength(0);
    expect((await feedCommand(harness, 'list')).content).toContain('**paused by an admin**');
    await feedCommand(harness, 'resume', { feed: id });
    await nextRound(harness);
    expect(posts(harness, plain).map(imageIdOf)).toEqual([image]);
    expect((await feedCommand(harness, 'remove', { feed: id })).content).toMatch(/removed/);
    harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    await nextRound(harness);
    expect(posts(harness, plain)).toHaveLength(1);
  });
});

describe('what a feed posts', () => {
  it('GIVEN new images THEN a plain-channel feed posts the safe ones, oldest first, once each, credited with sources and links; the explicit one never', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    const first = harness.booru.addImage({
      tags: ['safe', 'feedtag', 'artist:painter'],
      sourceUrls: ['https://example.com/art/1'],
    });
    const explicit = harness.booru.addImage({ tags: ['explicit', 'feedtag'] });
    const second = harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    harness.booru.addImage({ tags: ['safe', 'othertag'] });
    await nextRound(harness);
    const sent = posts(harness, plain);
    expect(sent.map(imageIdOf)).toEqual([first, second]);
    expect(sent.map(imageIdOf)).not.toContain(explicit);
    const card = JSON.stringify(sent[0]?.embeds[0]);
    expect(card).toContain('painter');
    expect(card).toContain('https://example.com/art/1');
    expect(String(sent[0]?.embeds[0]?.['url'])).toContain(`/images/${first}`);
    for (const message of sent) expect(message.allowedMentions).toEqual({ parse: [] });
    // Again: nothing new, nothing twice.
    await nextRound(harness);
    expect(posts(harness, plain)).toHaveLength(2);
  });

  it('GIVEN an age-restricted channel and the Everything filter THEN the explicit image is posted there', async () => {
    const harness = await start();
    await setServerFilter(harness, FILTER_IDS.everything);
    const adult = harness.discord.guild.channels.ageRestricted;
    await addFeed(harness, 'feedtag', adult);
    const explicit = harness.booru.addImage({ tags: ['explicit', 'feedtag'] });
    await nextRound(harness);
    const sent = posts(harness, adult);
    expect(sent.map(imageIdOf)).toEqual([explicit]);
    expect(sent[0]?.embeds[0]?.['image']).toBeDefined();
  });

  it('GIVEN the server filter hiding a rating THEN an age-restricted feed never posts those images', async () => {
    const harness = await start();
    // The Default filter hides explicit images.
    await setServerFilter(harness, FILTER_IDS.default);
    const adult = harness.discord.guild.channels.ageRestricted;
    await addFeed(harness, 'feedtag', adult);
    harness.booru.addImage({ tags: ['explicit', 'feedtag'] });
    const suggestive = harness.booru.addImage({ tags: ['suggestive', 'feedtag'] });
    await nextRound(harness);
    expect(posts(harness, adult).map(imageIdOf)).toEqual([suggestive]);
  });

  it('GIVEN the server filter spoilering a rating THEN the card comes without its picture and with Reveal', async () => {
    const harness = await start();
    await setServerFilter(harness, FILTER_IDS.maximumSpoilers);
    const adult = harness.discord.guild.channels.ageRestricted;
    await addFeed(harness, 'feedtag', adult);
    harness.booru.addImage({ tags: ['questionable', 'feedtag'] });
    await nextRound(harness);
    const [message] = posts(harness, adult);
    expect(message?.embeds[0]?.['image']).toBeUndefined();
    expect(JSON.stringify(message?.components)).toContain('Reveal');
  });

  it('GIVEN more new images than FEED_MAX_PER_POLL THEN that many cards and one line with the count and a link to the search', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    const ids = Array.from({ length: 5 }, () => harness.booru.addImage({ tags: ['safe', 'feedtag'] }));
    await nextRound(harness);
    const sent = posts(harness, plain);
    expect(sent.slice(0, 3).map(imageIdOf)).toEqual(ids.slice(0, 3));
    expect(sent).toHaveLength(4);
    // The link in <...>: Discord builds no preview of its own for a board page (docs/discord-platform.md,
    // "Link previews").
    expect(sent[3]?.content).toMatch(/^…and 2 more new images for `feedtag`: <http\S+\/search\?q=[^\s<>]+>$/);
    await nextRound(harness);
    expect(posts(harness, plain)).toHaveLength(4);
  });

  it('GIVEN an image still processing THEN the feed waits at it, and posts it and what follows once it is ready', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    const processing = harness.booru.addImage({ tags: ['safe', 'feedtag'], thumbnailsGenerated: false });
    const after = harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    await nextRound(harness);
    expect(posts(harness, plain)).toHaveLength(0);
    harness.booru.updateImage(processing, { thumbnailsGenerated: true });
    await nextRound(harness);
    expect(posts(harness, plain).map(imageIdOf)).toEqual([processing, after]);
  });

  it('GIVEN an image still processing after 10 minutes THEN it goes out with the processing card', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    const processing = harness.booru.addImage({ tags: ['safe', 'feedtag'], thumbnailsGenerated: false });
    await nextRound(harness);
    expect(posts(harness, plain)).toHaveLength(0);
    harness.botClock.advance(10 * 60_000);
    await nextRound(harness);
    expect(posts(harness, plain).map(imageIdOf)).toEqual([processing]);
  });
});

describe('exactly once', () => {
  it('GIVEN a restart between rounds THEN the next round goes on after the last image posted', async () => {
    const harness = await start({ store: 'sqlite' });
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    const first = harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    await nextRound(harness);
    await harness.restart();
    const second = harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    await nextRound(harness);
    expect(posts(harness, plain).map(imageIdOf)).toEqual([first, second]);
  });

  it('GIVEN the cursor write lost after a post (a crash in between) THEN the send is repeated with the same nonce and Discord keeps one message', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    const image = harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    // The store fails the feed record's next write (the cursor after the post), once.
    const map = harness.store.store as Map<unknown, unknown>;
    const set = Map.prototype.set;
    let failed = 0;
    vi.spyOn(map, 'set').mockImplementation(function (
      this: Map<unknown, unknown>,
      key: unknown,
      value: unknown,
    ) {
      if (failed === 0 && String(key).includes('feeds:guild:')) {
        failed += 1;
        throw new Error('SQLITE_IOERR: disk I/O error');
      }
      return set.call(this, key, value);
    });
    await nextRound(harness);
    expect(failed).toBe(1);
    await nextRound(harness);
    expect(posts(harness, plain).map(imageIdOf)).toEqual([image]);
    expect(harness.discord.nonceReplays.length).toBeGreaterThanOrEqual(1);
  });
});

describe('faults', () => {
  it('GIVEN the channel deleted THEN the feed pauses, /feed list says why, and it is not tried again', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    harness.discord.deleteChannel(plain);
    harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    await nextRound(harness);
    // Asked from another channel: this one is gone.
    expect((await feedCommand(harness, 'list', {}, undefined, 'ageRestricted')).content).toContain(
      'paused: the channel is gone',
    );
    const sends = () =>
      harness.discord.requests.filter(
        (r) => r.method === 'POST' && r.path.includes(`/channels/${plain}/messages`),
      ).length;
    const before = sends();
    harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    await nextRound(harness);
    expect(sends()).toBe(before);
  });

  it('GIVEN the bot losing Send Messages there THEN the feed pauses with why', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    harness.discord.denyBot(plain, PermissionFlagsBits.SendMessages);
    harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    await nextRound(harness);
    expect(posts(harness, plain)).toHaveLength(0);
    expect((await feedCommand(harness, 'list')).content).toContain(
      'paused: the bot may no longer post there (it needs View Channel, Send Messages, Embed Links)',
    );
  });

  it('GIVEN the board refusing the query at a poll THEN the feed pauses with the board’s words', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    harness.booru.inject({
      fault: { kind: 'status', status: 400, body: JSON.stringify({ error: 'Imbalanced parentheses.' }) },
      path: '/api/v1/json/search/images',
      times: 1,
    });
    await nextRound(harness);
    expect((await feedCommand(harness, 'list')).content).toContain('paused: the site refused the query');
  });

  it('GIVEN the board down THEN nothing is lost: the next round after it is back posts the images', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    const image = harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    harness.booru.inject({
      fault: { kind: 'status', status: 503 },
      path: '/api/v1/json/search/images',
      times: 10,
    });
    await nextRound(harness);
    expect(posts(harness, plain)).toHaveLength(0);
    harness.booru.clearFaults();
    // Backed off two intervals after one failure.
    await nextRound(harness);
    await nextRound(harness);
    expect(posts(harness, plain).map(imageIdOf)).toEqual([image]);
  });
});

describe('polling politely', () => {
  it('GIVEN three feeds with one query in two channels of one kind THEN one search per round serves them all', async () => {
    const harness = await start();
    const { plain, threadInPlain } = harness.discord.guild.channels;
    await addFeed(harness, 'feedtag', plain);
    await addFeed(harness, 'feedtag', threadInPlain);
    await addFeed(harness, 'feedtag', plain);
    harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    const mark = harness.booru.requests.length;
    await nextRound(harness);
    const searches = harness.booru.requests
      .slice(mark)
      .filter((r) => r.path === '/api/v1/json/search/images' && (r.query.get('q') ?? '').includes('id.gt:'));
    expect(searches).toHaveLength(1);
    expect(posts(harness, plain)).toHaveLength(2);
    expect(posts(harness, threadInPlain)).toHaveLength(1);
  });
});

describe('feed metrics', () => {
  it('GIVEN a round that posts THEN the feed poll and post counters say so, by site and outcome', async () => {
    const metrics = createBotMetrics();
    const harness = await start({ observers: { onFeedPoll: metrics.feedPoll } });
    const plain = harness.discord.guild.channels.plain;
    await addFeed(harness, 'feedtag', plain);
    harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    harness.booru.addImage({ tags: ['safe', 'feedtag'] });
    await nextRound(harness);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/philomena_bot_feed_polls_total\{site="custom:127\.0\.0\.1:\d+",outcome="ok"\} 1/);
    expect(text).toMatch(/philomena_bot_feed_posts_total\{site="custom:127\.0\.0\.1:\d+"\} 2/);
  });
});
