/**
 * Feeds on two bot processes with one Redis (issue 10, "two processes poll each key once"): two real bot
 * processes (src/main.ts, shards 0 and 1 of 2) with FEED_INTERVAL=1m, whose pollers look for due groups
 * every 3 s. Three feeds share one query (one group; stored before the processes start, as `/feed add`
 * stores them, so the first look already has the new images); each image is posted once, the board gets
 * one feed search for the group, and no second one within the interval (the lease in Redis), however
 * often both processes look.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type RecordedMessage } from '../fakes/discord/index.js';
import { startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { startBotProcess, type BotProcess } from '../lifecycle/bot-process.js';
import { createFeedStore } from '../../commands/feed/feed-store.js';
import { resolveSite } from '../../src/philomena/sites.js';
import { closeStore, openStore } from '../../src/store/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';

let discord: FakeDiscord;
let booru: FakePhilomena;
let redis: TestRedis;
const bots: BotProcess[] = [];
const images: number[] = [];

beforeAll(async () => {
  discord = await startFakeDiscord({ shards: 2, maxConcurrency: 2 });
  booru = await startFakePhilomena();
  redis = await startRedis();
  // Three feeds of one query in the server on shard 0, from image 0 on, and two new images to post.
  const guild = discord.guilds.find((g) => g.shard === 0) ?? discord.guild;
  const store = await openStore(redis.url);
  const feeds = createFeedStore(store);
  for (const channelId of [guild.channels.plain, guild.channels.plain, guild.channels.threadInPlain]) {
    const base = {
      guildId: guild.id,
      query: 'twoproc',
      createdBy: guild.ownerId,
      createdAt: Date.now(),
    };
    await feeds.add({ ...base, channelId, siteId: resolveSite(booru.url).id, cursor: 0 }, 10);
  }
  await closeStore(store);
  images.push(booru.addImage({ tags: ['safe', 'twoproc'] }), booru.addImage({ tags: ['safe', 'twoproc'] }));
  const env = {
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    BOORU_URL: booru.url,
    STORE_URL: redis.url,
    LOG_LEVEL: 'info',
    UNFURL: 'off',
    SHARD_COUNT: '2',
    FEED_INTERVAL: '1m',
    // The images are new: without this the plain-channel feeds would hold them for FEED_SETTLE.
    FEED_SETTLE: '0',
  };
  for (const shard of [0, 1]) bots.push(await startBotProcess({ ...env, SHARD_IDS: String(shard) }));
  await Promise.all(bots.map((bot) => bot.waitForLog((line) => line['msg'] === 'bot ready', 60_000)));
}, 90_000);

afterAll(async () => {
  for (const bot of bots) await bot.dispose();
  await redis?.stop();
  await booru?.close();
  await discord?.close();
});

const feedSearches = () =>
  booru.requests.filter(
    (r) => r.path === '/api/v1/json/search/images' && (r.query.get('q') ?? '').includes('id.gt:'),
  );

const posts = (channel: string): RecordedMessage[] =>
  discord.channelMessages(channel).filter((m) => m.interactionId === undefined && !m.deleted);

describe('feeds on two processes', () => {
  it('GIVEN three feeds of one query and both processes polling THEN one search per interval and each image posted once', async () => {
    const guild = discord.guilds.find((g) => g.shard === 0) ?? discord.guild;
    const { plain, threadInPlain } = guild.channels;
    // Both pollers look every 3 s; the first that takes the group's lease searches and posts.
    await discord.waitFor(
      () => (posts(threadInPlain).length === 2 && posts(plain).length === 4 ? true : undefined),
      30_000,
    );
    // More looks by both processes: the lease holds for the interval, so no search comes sooner.
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    expect(feedSearches()).toHaveLength(1);
    const ids = (channel: string) =>
      posts(channel).map((m) => /\/images\/(\d+)/.exec(String(m.embeds[0]?.['url']))?.[1]);
    expect(ids(threadInPlain)).toEqual(images.map(String));
    expect([...ids(plain)].sort()).toEqual([...images, ...images].map(String).sort());
    expect(discord.violations).toEqual([]);
    // Which process polled is not fixed, but exactly one logged no feed errors either way.
    for (const bot of bots) {
      expect(bot.logLines().filter((l) => Number(l['level']) >= 50)).toEqual([]);
    }
  }, 120_000);
});
