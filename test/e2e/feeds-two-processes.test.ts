/**
 * Feeds on two bot processes with one Redis (issue 10, "two processes poll each key once"): two real bot
 * processes (src/main.ts, shards 0 and 1 of 2) with FEED_INTERVAL=1m, whose pollers look for due groups
 * every 3 s. Three feeds share one query (one group); new images are posted once each, the board gets
 * one feed search for the group in the interval (the lease in Redis), and no second one while it lasts,
 * however often both processes look.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type RecordedMessage } from '../fakes/discord/index.js';
import { startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { startBotProcess, type BotProcess } from '../lifecycle/bot-process.js';
import { startRedis, type TestRedis } from '../support/redis.js';

let discord: FakeDiscord;
let booru: FakePhilomena;
let redis: TestRedis;
const bots: BotProcess[] = [];

beforeAll(async () => {
  discord = await startFakeDiscord({ shards: 2, maxConcurrency: 2 });
  booru = await startFakePhilomena();
  redis = await startRedis();
  const env = {
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    BOORU_URL: booru.url,
    STORE_URL: redis.url,
    LOG_LEVEL: 'info',
    UNFURL: 'off',
    SHARD_COUNT: '2',
    FEED_INTERVAL: '1m',
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
    for (const channel of [plain, plain, threadInPlain]) {
      const reply = await discord
        .sendCommand({
          name: 'feed',
          subcommand: 'add',
          options: { query: 'twoproc', channel },
          channel: plain,
          userId: guild.ownerId,
        })
        .finalReply(15_000);
      expect(reply.content).toMatch(/^Feed `[a-z0-9]+` added/);
    }
    const images = [
      booru.addImage({ tags: ['safe', 'twoproc'] }),
      booru.addImage({ tags: ['safe', 'twoproc'] }),
    ];
    // Both pollers look every 3 s; the first that takes the group's lease searches and posts. (A look that
    // came between the feeds and the images took the lease with nothing to post: then the next interval.)
    await discord.waitFor(
      () => (posts(threadInPlain).length === 2 && posts(plain).length === 4 ? true : undefined),
      80_000,
    );
    // More looks by both processes: the lease holds for the interval, so no search comes sooner.
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    const times = feedSearches().map((r) => r.at);
    expect(times.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < times.length; i += 1) {
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(59_000);
    }
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
