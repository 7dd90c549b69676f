/**
 * The feed store (commands/feed/feed-store.ts) over the bot's real stores: a feed added is listed and
 * indexed, the per-server limit holds even when admins add at once, removing the last feed takes the
 * server out of the index, and a cursor only ever grows, whoever writes last (two connections to one
 * SQLite file stand for two processes).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { createFeedStore, FeedLimitError, type Feed } from '../../../commands/feed/feed-store.js';
import { closeStore, createStore } from '../../../src/store/index.js';

const opened: Keyv[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await closeStore(store);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function open(url: string): Keyv {
  const store = createStore(url);
  opened.push(store);
  return store;
}

async function sqliteUrl(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'philomena-bot-feeds-'));
  dirs.push(dir);
  return `sqlite://${path.join(dir, 'bot.sqlite')}`;
}

const base = (guildId: string, query = 'pony'): Omit<Feed, 'id'> => ({
  guildId,
  channelId: '100',
  siteId: 'derpibooru',
  query,
  createdBy: '7',
  createdAt: 1,
  cursor: 10,
});

describe('the feed store', () => {
  it('GIVEN feeds added in two servers THEN each lists its own, oldest first, and both are in the index', async () => {
    const feeds = createFeedStore(open('memory://'));
    const a = await feeds.add(base('1', 'a'), 10);
    const b = await feeds.add(base('1', 'b'), 10);
    await feeds.add(base('2'), 10);
    expect((await feeds.list('1')).map((f) => f.id)).toEqual([a.id, b.id]);
    expect(a.id).toMatch(/^[a-z0-9]{6}$/);
    expect(a.id).not.toBe(b.id);
    expect([...(await feeds.guilds())].sort()).toEqual(['1', '2']);
  });

  it('GIVEN admins adding at once past the limit THEN exactly the limit is stored and the rest are refused', async () => {
    const url = await sqliteUrl();
    const one = createFeedStore(open(url));
    const two = createFeedStore(open(url));
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? one : two).add(base('5', `q${i}`), 3)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(FeedLimitError);
    expect(await one.list('5')).toHaveLength(3);
  });

  it('GIVEN the last feed of a server removed THEN the server leaves the index; an unknown feed removes nothing', async () => {
    const feeds = createFeedStore(open('memory://'));
    const feed = await feeds.add(base('3'), 10);
    expect(await feeds.remove('3', 'nosuch')).toBeUndefined();
    expect(await feeds.guilds()).toEqual(['3']);
    expect((await feeds.remove('3', feed.id))?.id).toBe(feed.id);
    expect(await feeds.guilds()).toEqual([]);
    expect(await feeds.list('3')).toEqual([]);
  });

  it('GIVEN two writers moving one cursor, the later with a lower value THEN the cursor keeps the highest', async () => {
    const url = await sqliteUrl();
    const one = createFeedStore(open(url));
    const two = createFeedStore(open(url));
    const feed = await one.add(base('4'), 10);
    await Promise.all([
      one.update('4', feed.id, (f) => ({ ...f, cursor: 50 })),
      two.update('4', feed.id, (f) => ({ ...f, cursor: 30, lastPostAt: 99 })),
    ]);
    const [stored] = await one.list('4');
    expect(stored?.cursor).toBe(50);
    expect(await two.update('4', 'gone', (f) => f)).toBeUndefined();
  });
});
