/**
 * Server settings over STORE_URL=redis://… against a real redis-server (test/support/redis.ts): two
 * processes (two keyv/@keyv/redis clients) writing one server's record at once, Redis stopped or hung under
 * the bot, and a Redis with an append-only file restarted. The counterpart of guild-settings-store.test.ts,
 * which does the same for SQLite.
 */
import { createClient } from '@keyv/redis';
import type Keyv from 'keyv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGuildSettings, type GuildSettings } from '../../../commands/shared/guild-settings.js';
import { userErrorText } from '../../../commands/shared/error-texts.js';
import { SettingsUnavailableError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import {
  closeStore,
  createStore,
  REDIS_NAMESPACE,
  REDIS_SOCKET_TIMEOUT_MS,
} from '../../../src/store/index.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

const quiet = createLogger({ level: 'silent' });

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const stores: Keyv[] = [];
const servers: TestRedis[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await closeStore(store).catch(() => undefined);
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

/** One "process": a store with a Redis connection of its own. */
function open(url: string): Keyv {
  const store = createStore(url);
  store.on('error', () => undefined); // keyv's own misses while Redis is away; not what is tested here
  stores.push(store);
  return store;
}

async function own(options: Parameters<typeof startRedis>[0]): Promise<TestRedis> {
  const server = await startRedis(options);
  servers.push(server);
  return server;
}

async function rawValue(url: string, key: string): Promise<string | null> {
  const client = createClient({ url });
  await client.connect();
  try {
    return await client.get(`${REDIS_NAMESPACE}::${key}`);
  } finally {
    client.destroy();
  }
}

/** The settings once Redis answers again (the client reconnects with a back-off of up to 2 s). */
async function whenBack(settings: GuildSettings, guildId: string): ReturnType<GuildSettings['get']> {
  const deadline = Date.now() + 8_000;
  for (;;) {
    try {
      return await settings.get(guildId);
    } catch (error) {
      if (!(error instanceof SettingsUnavailableError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function timed<T>(work: Promise<T>): Promise<{ settled: PromiseSettledResult<T>; ms: number }> {
  const started = performance.now();
  const [settled] = await Promise.allSettled([work]);
  return { settled: settled!, ms: performance.now() - started };
}

describe('two processes on one Redis', () => {
  it('GIVEN two processes (two keyv/Redis clients) writing one server at once THEN every confirmed write is there', async () => {
    const first = createGuildSettings({ store: open(redis.url), logger: quiet });
    const second = createGuildSettings({ store: open(redis.url), logger: quiet });
    const rounds = 25;
    const writes = Array.from({ length: rounds }, (_, i) => [
      first.setFilter('7', `a${i}`, i + 1),
      second.setFilter('7', `b${i}`, i + 1),
      ...(i === rounds - 1 ? [second.setSite('7', 'tantabus')] : []),
    ]).flat();
    const results = await Promise.allSettled(writes);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);

    const reader = createGuildSettings({ store: open(redis.url), logger: quiet });
    const record = await reader.get('7');
    expect(record.siteId).toBe('tantabus');
    for (let i = 0; i < rounds; i += 1) {
      expect(record.filters[`a${i}`]).toBe(i + 1);
      expect(record.filters[`b${i}`]).toBe(i + 1);
    }
    // keyv's own form, under the bot's namespace, with no lifetime.
    expect(JSON.parse((await rawValue(redis.url, 'settings:guild:7')) ?? 'null')).toEqual({
      value: { siteId: 'tantabus', filters: record.filters },
    });
  });

  it('GIVEN both processes changing the site and a filter at the same moment, many times THEN neither change is lost', async () => {
    const first = createGuildSettings({ store: open(redis.url), logger: quiet });
    const second = createGuildSettings({ store: open(redis.url), logger: quiet });
    for (let round = 0; round < 10; round += 1) {
      const guild = `8${round}`;
      await first.setFilter(guild, 'derpibooru', 100);
      await Promise.all([second.setFilter(guild, 'furbooru', 200), first.setSite(guild, 'furbooru')]);
      expect(await second.get(guild)).toEqual({
        siteId: 'furbooru',
        filters: { derpibooru: 100, furbooru: 200 },
      });
    }
  });

  it('GIVEN a record written by keyv itself THEN an update keeps its fields, and keyv reads the update', async () => {
    const store = open(redis.url);
    await store.set('settings:guild:3', { siteId: 'furbooru', filters: { furbooru: 5 } });
    const settings = createGuildSettings({ store, logger: quiet });
    await settings.setFilter('3', 'derpibooru', 9);
    expect(await open(redis.url).get('settings:guild:3')).toEqual({
      siteId: 'furbooru',
      filters: { furbooru: 5, derpibooru: 9 },
    });
  });
});

describe('Redis stopped or hung under the bot', () => {
  it('GIVEN Redis stopped THEN reads of a server never seen, changes and resets fail at once with SettingsUnavailableError (never the defaults), a server seen keeps its last confirmed settings, AND once Redis is back the settings are read as they were', async () => {
    const server = await own({ appendOnly: true });
    const store = open(server.url);
    const settings = createGuildSettings({ store, logger: quiet });
    // Another process (or this one after a restart): it never read server 9.
    const unseen = createGuildSettings({ store, logger: quiet });
    await settings.setSite('9', 'furbooru');
    await settings.setFilter('9', 'furbooru', 200);
    await server.shutdown();

    expect(await settings.get('9')).toEqual({ siteId: 'furbooru', filters: { furbooru: 200 } });
    const read = await timed(unseen.get('9'));
    expect(read.ms).toBeLessThan(1_000);
    expect(read.settled).toMatchObject({
      status: 'rejected',
      reason: { name: 'SettingsUnavailableError', operation: 'read', guildId: '9' },
    });
    if (read.settled.status === 'rejected') {
      expect(userErrorText(read.settled.reason).text).toBe(
        "Could not read this server's settings right now. Try again in a moment.",
      );
    }
    await expect(settings.setFilter('9', 'tantabus', 300)).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(settings.setSite('9', undefined)).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(settings.reset('9')).rejects.toMatchObject({
      name: 'SettingsUnavailableError',
      operation: 'delete',
    });

    await server.start();
    // Asked through settings that never saw it, so it answers only once Redis does.
    expect(await whenBack(unseen, '9')).toEqual({ siteId: 'furbooru', filters: { furbooru: 200 } });
    await settings.setFilter('9', 'tantabus', 300);
    expect(await settings.get('9')).toEqual({
      siteId: 'furbooru',
      filters: { furbooru: 200, tantabus: 300 },
    });
  });

  it('GIVEN Redis not reachable since start THEN a read fails with SettingsUnavailableError within seconds, AND works once Redis is there', async () => {
    const server = await own({});
    await server.kill();
    const settings = createGuildSettings({ store: open(server.url), logger: quiet });
    const read = await timed(settings.get('1'));
    expect(read.ms).toBeLessThan(6_000);
    expect(read.settled).toMatchObject({ status: 'rejected', reason: { operation: 'read' } });
    expect(read.settled.status === 'rejected' && read.settled.reason).toBeInstanceOf(
      SettingsUnavailableError,
    );
    await server.start();
    await settings.setFilter('1', 'derpibooru', 7);
    expect(await settings.get('1')).toEqual({ siteId: undefined, filters: { derpibooru: 7 } });
  });

  it('GIVEN Redis hung (connection up, no answer) THEN a read fails once the connection has been silent for REDIS_SOCKET_TIMEOUT_MS, instead of waiting for ever', async () => {
    const server = await own({});
    const store = open(server.url);
    const settings = createGuildSettings({ store, logger: quiet });
    await settings.setFilter('2', 'derpibooru', 1);
    server.freeze();
    try {
      // Settings that never read server 2: nothing to go on with, so the read fails once the link is silent.
      const read = await timed(createGuildSettings({ store, logger: quiet }).get('2'));
      expect(read.ms).toBeGreaterThanOrEqual(REDIS_SOCKET_TIMEOUT_MS - 100);
      expect(read.ms).toBeLessThan(REDIS_SOCKET_TIMEOUT_MS + 2_500);
      expect(read.settled).toMatchObject({ status: 'rejected', reason: { operation: 'read' } });
    } finally {
      server.thaw();
    }
    expect(await whenBack(createGuildSettings({ store, logger: quiet }), '2')).toEqual({
      siteId: undefined,
      filters: { derpibooru: 1 },
    });
  });
});

describe('Redis with an append-only file', () => {
  it('GIVEN --appendonly yes AND Redis shut down and started again on the same directory THEN the settings are there', async () => {
    const server = await own({ appendOnly: true });
    const before = open(server.url);
    const settings = createGuildSettings({ store: before, logger: quiet });
    await settings.setSite('5', 'tantabus');
    await settings.setFilter('5', 'tantabus', 42);
    await closeStore(before);
    await server.shutdown();
    expect(server.running()).toBe(false);

    await server.start();
    const after = createGuildSettings({ store: open(server.url), logger: quiet });
    expect(await after.get('5')).toEqual({ siteId: 'tantabus', filters: { tantabus: 42 } });
  });
});
