/**
 * The feed poller against the local board, with a channel poster the test controls (what Discord says of
 * the channel at each read, what each post does). The cases keep the labels an outside security review
 * (2026-11-26) gave them; each label says here what it stands for:
 *
 * - N1: a channel that stops being age-restricted (or a filter changed) mid-round ends the round before the
 *   next post, and the cursor stays before the image not posted;
 * - N2: outside age-restricted channels an image waits until FEED_SETTLE old and is read fresh just before
 *   it goes; one re-rated meanwhile is not posted;
 * - N3: a channel Discord refuses to show (403) pauses its feed at the first read; any other failed read is
 *   not retried within an interval; a server the bot was removed from pauses its feeds and leaves the
 *   poll index; feeds lost for 30 days are removed;
 * - N5: feeds of one search but far-apart cursors each get the images above their own cursor;
 * - N6: the "more" line keeps its link in <...> and within Discord's 2,000 characters;
 * - N8: a process reads no channel of a server it does not hold to group feeds.
 */
import { ChannelType } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFeedStore, type Feed } from '../../../commands/feed/feed-store.js';
import { createFeedPoller, FORGET_AFTER_MS } from '../../../commands/feed/poller.js';
import { createGuildSettings } from '../../../commands/shared/guild-settings.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import {
  ChannelForbiddenError,
  type ChannelFacts,
  type ChannelPoster,
} from '../../../src/discord/channel-poster.js';
import type { MessageBody } from '../../../src/discord/contract.js';
import { createLogger } from '../../../src/logger.js';
import { createClientRegistry, type ClientRegistry } from '../../../src/philomena/registry.js';
import { resolveSite } from '../../../src/philomena/sites.js';
import { createLocalLeases } from '../../../commands/feed/leases.js';
import { createStore } from '../../../src/store/index.js';
import { FILTER_IDS, startFakePhilomena, type FakePhilomena } from '../../fakes/philomena/index.js';
import { createMovableClock } from '../../support/clock.js';
import { ROOMY_BUDGET } from '../../support/harness.js';

const INTERVAL_MS = 60_000;
const SETTLE_MS = 30 * 60_000;

let booru: FakePhilomena;
beforeAll(async () => {
  booru = await startFakePhilomena();
});
afterAll(async () => {
  await booru.close();
});

interface ChannelState {
  nsfw: boolean;
  flags?: number;
  /** What a read does instead of answering. */
  fails?: 'forbidden' | 'error' | 'gone';
}

interface Post {
  readonly channel: string;
  readonly body: MessageBody;
  /** Whether the channel was age-restricted when the post went out. */
  readonly ageRestrictedThen: boolean;
}

const registries: ClientRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((registry) => registry.close()));
});

/** A poller over the local board and a memory store; channels and posts are the test's. */
async function setup(options: { settleMs?: number; maxPerPoll?: number; holds?: boolean } = {}) {
  const site = resolveSite(booru.url);
  const store = createStore('memory://');
  const logger = createLogger({ level: 'silent', secrets: [] });
  const registry = createClientRegistry({ defaultSite: site, cache: store, logger, budget: ROOMY_BUDGET });
  registries.push(registry);
  const feeds = createFeedStore(store);
  const settings = createGuildSettings({ store, logger });
  // Everything: the feeds' searches see every rating; the rating rule is the bot's to apply.
  const sites = createSiteDirectory({ defaultSite: site, defaultFilterId: FILTER_IDS.everything });
  const clock = createMovableClock(Date.now);
  const channels = new Map<string, ChannelState>();
  const reads: string[] = [];
  const posts: Post[] = [];
  /** Servers the bot is no longer in (this process's cache has them no more). */
  const left = new Set<string>();
  let afterPost: (post: Post) => void | Promise<void> = () => undefined;
  const poster: ChannelPoster = {
    holds: (guildId) => !left.has(guildId) && (options.holds ?? true),
    channel(id): Promise<ChannelFacts | null> {
      reads.push(id);
      const state = channels.get(id) ?? { nsfw: false };
      if (state.fails === 'forbidden') return Promise.reject(new ChannelForbiddenError('403 Missing Access'));
      if (state.fails === 'error') return Promise.reject(new Error('503 Service Unavailable'));
      if (state.fails === 'gone') return Promise.resolve(null);
      return Promise.resolve({
        id,
        type: ChannelType.GuildText,
        nsfw: state.nsfw,
        flags: state.flags ?? 0,
        parent: null,
      });
    },
    async post(channel, body) {
      const post = { channel, body, ageRestrictedThen: channels.get(channel)?.nsfw === true };
      posts.push(post);
      await afterPost(post);
      return { ok: true, messageId: String(posts.length) };
    },
  };
  const poller = createFeedPoller({
    feeds,
    registry,
    sites,
    settings,
    leases: createLocalLeases(clock.now),
    logger,
    intervalMs: INTERVAL_MS,
    maxPerPoll: options.maxPerPoll ?? 10,
    settleMs: options.settleMs ?? 0,
    tickMs: 3_600_000,
    now: clock.now,
  });
  poller.start(poster);
  // The round that start() begins, over before the test adds anything.
  await poller.pollNow();
  return {
    site,
    feeds,
    settings,
    clock,
    channels,
    reads,
    posts,
    poller,
    /** Discord's GUILD_DELETE: the server leaves this process's cache, the poller is told. */
    removeBot(guildId: string) {
      left.add(guildId);
      poller.serverRemoved?.(guildId);
    },
    addBotBack(guildId: string) {
      left.delete(guildId);
    },
    onPost(hook: (post: Post) => void | Promise<void>) {
      afterPost = hook;
    },
    async addFeed(feed: Partial<Feed> & Pick<Feed, 'guildId' | 'channelId' | 'query' | 'cursor'>) {
      return feeds.add({ siteId: site.id, createdBy: 'u', createdAt: 0, ...feed }, 10);
    },
    /** One round, one interval after the last (leases last an interval). */
    async round() {
      clock.advance(INTERVAL_MS + 1_000);
      await poller.pollNow();
    },
    async feed(guildId: string) {
      const [feed] = await feeds.list(guildId);
      if (feed === undefined) throw new Error('no feed');
      return feed;
    },
  };
}

function cardIds(posts: readonly Post[]): number[] {
  return posts
    .filter((post) => post.body.content === undefined || post.body.content === '')
    .map((post) => Number(/\/images\/(\d+)/.exec(JSON.stringify(post.body))?.[1]));
}

function hasPicture(body: MessageBody): boolean {
  return /"image":\{"url"|"media":\{"url"|"thumbnail":\{"url"/.test(JSON.stringify(body));
}

const moreLines = (posts: readonly Post[]) =>
  posts.map((post) => post.body.content).filter((content): content is string => !!content);

describe('N1: the channel and the server read before every post', () => {
  it('GIVEN an age-restricted channel made plain after the first post THEN no further picture goes out and the cursor stays before the next image', async () => {
    const t = await setup();
    const start = booru.addImage({ tags: ['explicit', 'flipn1'] });
    await t.addFeed({ guildId: 'g1', channelId: 'c1', query: 'flipn1', cursor: start, ageRestricted: true });
    t.channels.set('c1', { nsfw: true });
    const explicit = [1, 2, 3, 4, 5].map(() => booru.addImage({ tags: ['explicit', 'flipn1'] }));
    t.onPost((post) => {
      if (post.channel === 'c1') t.channels.set('c1', { nsfw: false });
    });
    await t.round();
    expect(t.posts).toHaveLength(1);
    expect(t.posts[0]?.ageRestrictedThen).toBe(true);
    expect((await t.feed('g1')).cursor).toBe(explicit[0]);
    // The next round searches for a plain channel: explicit images are not among the results.
    await t.round();
    expect(t.posts.filter((post) => !post.ageRestrictedThen && hasPicture(post.body))).toEqual([]);
    expect(t.posts).toHaveLength(1);
    expect((await t.feed('g1')).ageRestricted).toBe(false);
  });

  it("GIVEN the server's filter changed after the first post THEN the round ends there", async () => {
    const t = await setup();
    const start = booru.addImage({ tags: ['safe', 'filtern1'] });
    await t.addFeed({ guildId: 'g2', channelId: 'c2', query: 'filtern1', cursor: start });
    const added = [1, 2, 3].map(() => booru.addImage({ tags: ['safe', 'filtern1'] }));
    t.onPost(async () => {
      await t.settings.setFilter('g2', t.site.id, FILTER_IDS.maximumSpoilers);
    });
    await t.round();
    expect(cardIds(t.posts)).toEqual([added[0]]);
    expect((await t.feed('g2')).cursor).toBe(added[0]);
    await t.round();
    expect(cardIds(t.posts)).toEqual(added);
  });
});

describe('N2: plain-channel feeds wait for ratings to settle and read each image fresh', () => {
  it('GIVEN a new upload THEN a plain channel gets it only once FEED_SETTLE has passed, an age-restricted one at once', async () => {
    const t = await setup({ settleMs: SETTLE_MS });
    const start = booru.addImage({ tags: ['safe', 'settlen2'] });
    await t.addFeed({ guildId: 'g3', channelId: 'plain3', query: 'settlen2', cursor: start });
    await t.addFeed({
      guildId: 'g4',
      channelId: 'adult4',
      query: 'settlen2',
      cursor: start,
      ageRestricted: true,
    });
    t.channels.set('adult4', { nsfw: true });
    const image = booru.addImage({ tags: ['safe', 'settlen2'] });
    await t.round();
    expect(t.posts.map((post) => post.channel)).toEqual(['adult4']);
    t.clock.advance(SETTLE_MS / 2);
    await t.round();
    expect(t.posts.map((post) => post.channel)).toEqual(['adult4']);
    t.clock.advance(SETTLE_MS / 2);
    await t.round();
    expect(t.posts.map((post) => post.channel)).toEqual(['adult4', 'plain3']);
    expect(cardIds(t.posts)).toEqual([image, image]);
  });

  it('GIVEN an image re-rated explicit after the search THEN the plain channel does not get it', async () => {
    const t = await setup({ settleMs: SETTLE_MS });
    const long = Date.now() - 2 * SETTLE_MS;
    const start = booru.addImage({ tags: ['safe', 'reraten2'], at: long });
    await t.addFeed({ guildId: 'g5', channelId: 'c5', query: 'reraten2', cursor: start });
    const first = booru.addImage({ tags: ['safe', 'reraten2'], at: long });
    const second = booru.addImage({ tags: ['safe', 'reraten2'], at: long });
    const third = booru.addImage({ tags: ['safe', 'reraten2'], at: long });
    // The community corrects the second image's rating while the first is being posted.
    t.onPost((post) => {
      if (cardIds([post])[0] === first) booru.updateImage(second, { tags: ['explicit', 'reraten2'] });
    });
    await t.round();
    expect(cardIds(t.posts)).toEqual([first, third]);
    expect(t.posts.every((post) => !JSON.stringify(post.body).includes('explicit'))).toBe(true);
  });

  it('GIVEN the fresh read fails THEN the round ends before that image and the next round posts it (nothing skipped)', async () => {
    const t = await setup({ settleMs: SETTLE_MS });
    const long = Date.now() - 2 * SETTLE_MS;
    const start = booru.addImage({ tags: ['safe', 'failreadn2'], at: long });
    await t.addFeed({ guildId: 'g16', channelId: 'c16', query: 'failreadn2', cursor: start });
    const first = booru.addImage({ tags: ['safe', 'failreadn2'], at: long });
    const second = booru.addImage({ tags: ['safe', 'failreadn2'], at: long });
    booru.inject({ path: `/api/v1/json/images/${second}`, fault: { kind: 'status', status: 503 }, times: 3 });
    await t.round();
    expect(cardIds(t.posts)).toEqual([first]);
    expect((await t.feed('g16')).cursor).toBe(first);
    await t.round();
    expect(cardIds(t.posts)).toEqual([first, second]);
  });

  it('GIVEN FEED_SETTLE 0 THEN a plain channel gets a new upload at once', async () => {
    const t = await setup({ settleMs: 0 });
    const start = booru.addImage({ tags: ['safe', 'nosettle'] });
    await t.addFeed({ guildId: 'g6', channelId: 'c6', query: 'nosettle', cursor: start });
    const image = booru.addImage({ tags: ['safe', 'nosettle'] });
    await t.round();
    expect(cardIds(t.posts)).toEqual([image]);
  });
});

describe('N3: channels the bot lost are not read again and again', () => {
  it('GIVEN a channel Discord refuses to show (403) THEN its feed pauses at the first read and is not read again', async () => {
    const t = await setup({ holds: false });
    const start = booru.addImage({ tags: ['safe', 'leftn3'] });
    for (let i = 0; i < 3; i += 1) {
      await t.addFeed({
        guildId: 'gone',
        channelId: `lost${i}`,
        query: `leftn3 || nomatch${i}`,
        cursor: start,
      });
      t.channels.set(`lost${i}`, { nsfw: false, fails: 'forbidden' });
    }
    booru.addImage({ tags: ['safe', 'leftn3'] });
    for (let i = 0; i < 6; i += 1) await t.round();
    expect(t.reads).toHaveLength(3);
    const list = await t.feeds.list('gone');
    expect(list.map((feed) => feed.paused?.reason)).toEqual(['forbidden', 'forbidden', 'forbidden']);
  });

  it('GIVEN a channel read that fails otherwise THEN it is not read again within an interval', async () => {
    const t = await setup();
    const start = booru.addImage({ tags: ['safe', 'failn3'] });
    await t.addFeed({ guildId: 'g7', channelId: 'c7', query: 'failn3', cursor: start });
    t.channels.set('c7', { nsfw: false, fails: 'error' });
    await t.poller.pollNow();
    expect(t.reads).toHaveLength(1);
    for (let i = 0; i < 5; i += 1) {
      t.clock.advance(INTERVAL_MS / 10);
      await t.poller.pollNow();
    }
    expect(t.reads).toHaveLength(1);
    t.clock.advance(INTERVAL_MS);
    await t.poller.pollNow();
    expect(t.reads).toHaveLength(2);
    expect((await t.feed('g7')).paused).toBeUndefined();
  });

  it('GIVEN the bot removed from a server THEN its feeds pause, it leaves the poll index, and resume brings it back', async () => {
    const t = await setup();
    const start = booru.addImage({ tags: ['safe', 'removedn3'] });
    await t.addFeed({ guildId: 'g8', channelId: 'c8', query: 'removedn3', cursor: start });
    t.removeBot('g8');
    await t.poller.pollNow();
    expect(await t.feeds.guilds()).not.toContain('g8');
    expect(Object.keys(await t.feeds.dormant())).toContain('g8');
    expect((await t.feed('g8')).paused?.reason).toBe('forbidden');
    booru.addImage({ tags: ['safe', 'removedn3'] });
    await t.round();
    expect(t.reads).toEqual([]);
    await t.feeds.update('g8', (await t.feed('g8')).id, (feed) => ({ ...feed, paused: undefined }));
    await t.feeds.reindex('g8');
    expect(await t.feeds.guilds()).toContain('g8');
    expect(Object.keys(await t.feeds.dormant())).not.toContain('g8');
  });

  it('GIVEN the bot added back to a server it had left THEN the server is polled again, its feeds wait for /feed resume, and their 30 days start again', async () => {
    const t = await setup();
    const start = booru.addImage({ tags: ['safe', 'backn3'] });
    await t.addFeed({ guildId: 'g15', channelId: 'c15', query: 'backn3', cursor: start });
    t.removeBot('g15');
    await t.poller.pollNow();
    t.clock.advance(FORGET_AFTER_MS - 3_600_000);
    t.addBotBack('g15');
    const backAt = t.clock.now();
    await t.poller.pollNow();
    expect(await t.feeds.guilds()).toContain('g15');
    expect(Object.keys(await t.feeds.dormant())).not.toContain('g15');
    const [feed] = await t.feeds.list('g15');
    expect(feed?.paused?.reason).toBe('forbidden');
    expect(feed?.paused?.at).toBeGreaterThanOrEqual(backAt);
    // Past the 30 days since the removal, but not since the bot came back: the feed stays.
    t.clock.advance(2 * 3_600_000);
    await t.poller.pollNow();
    expect(await t.feeds.list('g15')).toHaveLength(1);
    expect(t.posts).toEqual([]);
  });

  it('GIVEN feeds lost for 30 days THEN they are removed, and a server left 30 days ago is forgotten', async () => {
    const t = await setup();
    const start = booru.addImage({ tags: ['safe', 'forgetn3'] });
    await t.addFeed({ guildId: 'g9', channelId: 'c9', query: 'forgetn3', cursor: start });
    await t.addFeed({ guildId: 'g9', channelId: 'c9b', query: 'forgetn3 || x', cursor: start });
    await t.addFeed({ guildId: 'g10', channelId: 'c10', query: 'forgetn3', cursor: start });
    t.channels.set('c9', { nsfw: false, fails: 'gone' });
    t.removeBot('g10');
    await t.poller.pollNow();
    expect((await t.feeds.list('g9')).map((feed) => feed.paused?.reason)).toEqual([
      'channel-missing',
      undefined,
    ]);
    t.clock.advance(FORGET_AFTER_MS - 60_000);
    await t.poller.pollNow();
    expect(await t.feeds.list('g9')).toHaveLength(2);
    expect(await t.feeds.list('g10')).toHaveLength(1);
    t.clock.advance(2 * 3_600_000);
    await t.poller.pollNow();
    expect((await t.feeds.list('g9')).map((feed) => feed.channelId)).toEqual(['c9b']);
    expect(await t.feeds.list('g10')).toEqual([]);
    expect(Object.keys(await t.feeds.dormant())).not.toContain('g10');
  });
});

describe('N5: each feed from its own cursor', () => {
  it('GIVEN two feeds of one search 58 images apart THEN the up-to-date one gets its 3 new cards and the lagging one a true count', async () => {
    const t = await setup();
    const start = booru.addImage({ tags: ['safe', 'groupn5'] });
    let last = start;
    for (let i = 0; i < 55; i += 1) last = booru.addImage({ tags: ['safe', 'groupn5'] });
    await t.addFeed({ guildId: 'gA', channelId: 'cA', query: 'groupn5', cursor: start });
    await t.addFeed({ guildId: 'gB', channelId: 'cB', query: 'groupn5', cursor: last });
    const fresh = [1, 2, 3].map(() => booru.addImage({ tags: ['safe', 'groupn5'] }));
    await t.round();
    const toB = t.posts.filter((post) => post.channel === 'cB');
    expect(cardIds(toB)).toEqual(fresh);
    expect(moreLines(toB)).toEqual([]);
    expect((await t.feed('gB')).cursor).toBe(fresh[2]);
    const toA = t.posts.filter((post) => post.channel === 'cA');
    expect(cardIds(toA)).toHaveLength(10);
    expect(cardIds(toA)[0]).toBe(start + 1);
    // 58 new for A: 10 cards, 48 counted.
    expect(moreLines(toA)).toEqual([expect.stringContaining('…and 48 more new images')]);
    expect((await t.feed('gA')).cursor).toBe(fresh[2]);
  });
});

describe('N6: the "more" line', () => {
  it('GIVEN a long non-ASCII query THEN the line fits 2,000 characters and never shows a bare or cut link', async () => {
    const t = await setup({ maxPerPoll: 2 });
    const query = `moren6 || "${'ü'.repeat(900)}"`;
    const start = booru.addImage({ tags: ['safe', 'moren6'] });
    await t.addFeed({ guildId: 'g11', channelId: 'c11', query, cursor: start });
    for (let i = 0; i < 4; i += 1) booru.addImage({ tags: ['safe', 'moren6'] });
    await t.round();
    const [line] = moreLines(t.posts);
    expect(line).toMatch(/^…and 2 more new images for `moren6/);
    expect(line?.length).toBeLessThanOrEqual(2_000);
    expect(line).not.toMatch(/https?:\/\//);
  });

  it('GIVEN a short query THEN the line links the search inside <...>', async () => {
    const t = await setup({ maxPerPoll: 2 });
    const start = booru.addImage({ tags: ['safe', 'linkn6'] });
    await t.addFeed({ guildId: 'g12', channelId: 'c12', query: 'linkn6', cursor: start });
    for (let i = 0; i < 4; i += 1) booru.addImage({ tags: ['safe', 'linkn6'] });
    await t.round();
    const [line] = moreLines(t.posts);
    expect(line).toMatch(/: <https?:\/\/[^\s<>]+\/search\?q=[^\s<>]+>$/);
  });
});

describe('N8: only the channels of servers this process holds are read to group feeds', () => {
  it('GIVEN a server another process holds and nothing new THEN no channel is read', async () => {
    const t = await setup({ holds: false });
    const start = booru.addImage({ tags: ['safe', 'heldn8'] });
    await t.addFeed({ guildId: 'g13', channelId: 'c13', query: 'heldn8', cursor: start });
    for (let i = 0; i < 3; i += 1) await t.round();
    expect(t.reads).toEqual([]);
    const image = booru.addImage({ tags: ['safe', 'heldn8'] });
    await t.round();
    // Read once, by the process that posts, just before the post.
    expect(t.reads).toEqual(['c13']);
    expect(cardIds(t.posts)).toEqual([image]);
  });

  it('GIVEN a server another process holds whose channel is stored as age-restricted THEN it is searched as such and read before posting', async () => {
    const t = await setup({ holds: false });
    const start = booru.addImage({ tags: ['safe', 'storedn8'] });
    await t.addFeed({
      guildId: 'g14',
      channelId: 'c14',
      query: 'storedn8',
      cursor: start,
      ageRestricted: true,
    });
    t.channels.set('c14', { nsfw: true });
    const image = booru.addImage({ tags: ['questionable', 'storedn8'] });
    await t.round();
    expect(cardIds(t.posts)).toEqual([image]);
    expect(t.posts[0]?.ageRestrictedThen).toBe(true);
  });
});
