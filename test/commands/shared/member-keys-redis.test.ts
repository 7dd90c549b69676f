/**
 * Members' board keys over STORE_URL=redis://… against a real redis-server: what Redis holds (every value,
 * read with its own client, and the dump a SAVE writes) reveals no key without the secret, and another
 * process with the same secret reads the key back. The counterpart of member-keys.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createClient } from '@keyv/redis';
import type Keyv from 'keyv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemberKeys } from '../../../commands/shared/member-keys.js';
import { createLogger } from '../../../src/logger.js';
import { closeStore, createStore } from '../../../src/store/index.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { expectNoRunOf } from './member-keys-support.js';

const quiet = createLogger({ level: 'silent' });

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const stores: Keyv[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await closeStore(store).catch(() => undefined);
});

function open(): Keyv {
  const store = createStore(redis.url);
  stores.push(store);
  return store;
}

/** Every key and value in Redis, read with a client of its own, and the RDB file a SAVE writes. */
async function redisContents(): Promise<{ readonly keys: readonly string[]; readonly text: string }> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    const keys = await client.keys('*');
    const values = await Promise.all(keys.map((key) => client.get(key)));
    await client.sendCommand(['SAVE']);
    const dump = await readFile(path.join(redis.dir, 'dump.rdb'), 'latin1');
    return { keys, text: [...keys, ...values, dump].join('\n') };
  } finally {
    client.destroy();
  }
}

describe('member keys on Redis', () => {
  it('GIVEN keys linked by one process THEN Redis holds no run of 5 of their characters nor the secret AND another process with the secret reads them', async () => {
    const current = randomBytes(32).toString('base64');
    const first = createMemberKeys({ store: open(), logger: quiet, secrets: { current } });
    const key = randomBytes(15).toString('base64url');
    const other = randomBytes(15).toString('base64url');
    expect((await first.link('1001', 'derpibooru', key)).ok).toBe(true);
    expect((await first.link('1002', 'furbooru', other)).ok).toBe(true);

    const { keys, text } = await redisContents();
    expect(keys).toContain('philomena-bot::member-keys:1001');
    expect(text).toContain('member-keys:1002');
    expectNoRunOf(key, text);
    expectNoRunOf(other, text);
    expect(text).not.toContain(current);

    const second = createMemberKeys({ store: open(), logger: quiet, secrets: { current } });
    expect((await second.keyFor('1001', 'derpibooru'))?.reveal()).toBe(key);
    expect(await second.keyFor('1001', 'furbooru')).toBeUndefined();
  });

  it('GIVEN a member forgotten or their last site unlinked THEN Redis keeps no record of them', async () => {
    const keys = createMemberKeys({
      store: open(),
      logger: quiet,
      secrets: { current: randomBytes(32).toString('base64') },
    });
    await keys.link('2001', 'derpibooru', randomBytes(15).toString('base64url'));
    await keys.link('2002', 'derpibooru', randomBytes(15).toString('base64url'));
    await keys.forget('2001');
    expect(await keys.unlink('2002', 'derpibooru')).toBe(true);
    const { keys: left } = await redisContents();
    expect(left.filter((name) => /member-keys:200[12]$/.test(name))).toEqual([]);
  });
});
