/**
 * Members' own settings over STORE_URL=redis://… against a real redis-server: two processes writing one
 * member at once, and Redis stopped under the bot (a member who turned unfurling off must never read as
 * "nothing set" then). The counterpart of member-settings.test.ts.
 */
import type Keyv from 'keyv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemberSettings } from '../../../commands/me/member-settings.js';
import { SettingsUnavailableError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import { closeStore, createStore } from '../../../src/store/index.js';
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

function open(url: string): Keyv {
  const store = createStore(url);
  store.on('error', () => undefined); // keyv's own misses while Redis is away; not what is tested here
  stores.push(store);
  return store;
}

describe('member settings on Redis', () => {
  it('GIVEN two processes writing one member at once THEN every confirmed change is there', async () => {
    const first = createMemberSettings({ store: open(redis.url), logger: quiet });
    const second = createMemberSettings({ store: open(redis.url), logger: quiet });
    const writes = Array.from({ length: 15 }, (_, i) => [
      first.setFilter('7', `a${i}`, i + 1),
      second.setFilter('7', `b${i}`, i + 1),
    ]).flat();
    const results = await Promise.allSettled([...writes, second.setUnfurl('7', false)]);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const record = await createMemberSettings({ store: open(redis.url), logger: quiet }).get('7');
    expect(record.unfurl).toBe(false);
    expect(Object.keys(record.filters)).toHaveLength(30);
  });

  it('GIVEN Redis stopped THEN reads, changes and forget fail with SettingsUnavailableError (never the defaults) AND once Redis is back the record is as it was', async () => {
    const server = await startRedis({ appendOnly: true });
    servers.push(server);
    const members = createMemberSettings({ store: open(server.url), logger: quiet });
    await members.setUnfurl('9', false);
    await server.shutdown();
    await expect(members.get('9')).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(members.setUnfurl('9', true)).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(members.forget('9')).rejects.toMatchObject({ operation: 'delete' });
    await server.start();
    const deadline = Date.now() + 8_000;
    for (;;) {
      try {
        expect((await members.get('9')).unfurl).toBe(false);
        break;
      } catch (error) {
        if (!(error instanceof SettingsUnavailableError) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
});
