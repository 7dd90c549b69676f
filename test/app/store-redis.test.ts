/**
 * STORE_URL=redis://… against a real redis-server (test/support/redis.ts): the start-up probe, a bad or
 * unreachable URL, lifetimes that Redis enforces itself (so no sweeper), and a password that never reaches
 * a log line. Every Redis here is on 127.0.0.1 and stopped after the file.
 */
import { createClient } from '@keyv/redis';
import type Keyv from 'keyv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createResponseCache } from '../../src/philomena/cache.js';
import {
  closeStore,
  createStore,
  openStore,
  REDIS_NAMESPACE,
  startStoreSweeper,
  storeSecretsOf,
  storeUrlProblem,
  StoreOpenError,
} from '../../src/store/index.js';
import { parseLogLines } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';

const PASSWORD = 'p@ss/w0rd-never-logged';

let redis: TestRedis;
let locked: TestRedis;
beforeAll(async () => {
  [redis, locked] = await Promise.all([startRedis(), startRedis({ password: PASSWORD })]);
});
afterAll(async () => {
  await Promise.all([redis?.stop(), locked?.stop()]);
});

const stores: Keyv[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await closeStore(store).catch(() => undefined);
});
function keep(store: Keyv): Keyv {
  stores.push(store);
  return store;
}

const testClient = (url: string) => createClient({ url });

/** A client of the test's own, to look at what the bot left in Redis. */
async function inspect<T>(
  url: string,
  look: (client: ReturnType<typeof testClient>) => Promise<T>,
): Promise<T> {
  const client = testClient(url);
  await client.connect();
  try {
    return await look(client);
  } finally {
    client.destroy();
  }
}

/** A port nothing listens on: one a Redis just left. */
async function closedPortUrl(): Promise<string> {
  const gone = await startRedis();
  await gone.stop();
  return `redis://127.0.0.1:${gone.port}`;
}

function captureLogs() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => lines.push(line) } };
}

describe('openStore(redis://…)', () => {
  it('GIVEN a running Redis THEN it opens after the probe, leaves no probe key, and keys carry the bot namespace', async () => {
    const store = keep(await openStore(`${redis.url}/3`));
    await store.set('settings:guild:1', { siteId: 'furbooru' });
    const keys = await inspect(`${redis.url}/3`, (client) => client.keys('*'));
    expect(keys).toEqual([`${REDIS_NAMESPACE}::settings:guild:1`]);
    const other = keep(createStore(`${redis.url}/3`));
    expect(await other.get('settings:guild:1')).toEqual({ siteId: 'furbooru' });
    // db 3 is its own: db 0 saw nothing.
    expect(await inspect(redis.url, (client) => client.dbSize())).toBe(0);
  });

  it('GIVEN a password in the URL THEN it authenticates', async () => {
    const store = keep(await openStore(locked.url));
    await store.set('a', 1);
    expect(await store.get('a')).toBe(1);
  });

  it('GIVEN no Redis at the address THEN it fails within seconds with one line naming STORE_URL, the cause and the fix', async () => {
    const url = await closedPortUrl();
    const started = performance.now();
    const error = await openStore(url).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(6_000);
    expect(error).toBeInstanceOf(StoreOpenError);
    const message = (error as StoreOpenError).message;
    expect(message).toMatch(
      /^could not open the store at STORE_URL \(.*ECONNREFUSED.*\): check that Redis runs/,
    );
    expect(message).not.toContain('\n');
    expect((error as StoreOpenError).code).toBe('STORE_UNAVAILABLE');
  });

  it('GIVEN a wrong password THEN it fails with one line that does not hold the password', async () => {
    const wrong = 'wrong-secret-value';
    const error = await openStore(`redis://:${wrong}@127.0.0.1:${locked.port}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreOpenError);
    const message = (error as StoreOpenError).message;
    expect(message).toMatch(
      /^could not open the store at STORE_URL \(.*(WRONGPASS|invalid).*\): check that Redis/i,
    );
    expect(message).not.toContain(wrong);
    expect(message).not.toContain('\n');
  });

  it.each([
    ['redis://127.0.0.1:6379/zero', /db that is not a number/],
    ['redis://', /names no Redis host/],
    ['redis:127.0.0.1', /names no Redis host/],
    ['redis://127.0.0.1:99999', /not a valid Redis URL/],
    ['redis://127.0.0.1:6379/0?timeout=1', /query/],
  ])('GIVEN the malformed %j THEN it fails at once with one line naming STORE_URL', async (url, why) => {
    const error = await openStore(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreOpenError);
    const message = (error as StoreOpenError).message;
    expect(message).toMatch(
      /^could not open the store at STORE_URL \(.+\): use sqlite:\/\/<path>, redis:\/\//,
    );
    expect(message).toMatch(why);
    expect(message).not.toContain('\n');
  });

  it.each([
    'redis://127.0.0.1:6379',
    'redis://127.0.0.1',
    'rediss://user:pa%40ss@redis.example:6380/2',
    'redis://redis/0',
  ])('GIVEN the well-formed %j THEN the URL check takes it', (url) => {
    expect(storeUrlProblem(url)).toBeUndefined();
  });
  it('GIVEN Redis gone while the store is open THEN closeStore still resolves at once (a shutdown never waits on it)', async () => {
    const server = await startRedis();
    try {
      const store = await openStore(server.url);
      store.on('error', () => undefined);
      await server.kill();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      await closeStore(store);
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      await server.stop();
    }
  });
});

describe('lifetimes in Redis', () => {
  it('GIVEN an entry with a lifetime THEN Redis holds it with that PX and deletes it itself, unread', async () => {
    const store = keep(createStore(redis.url));
    await store.set('paging:1', { page: 2 }, 400);
    await store.set('settings:guild:2', { siteId: 'tantabus' });
    const key = (name: string) => `${REDIS_NAMESPACE}::${name}`;
    const ttl = await inspect(redis.url, (client) => client.pTTL(key('paging:1')));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(400);
    expect(await inspect(redis.url, (client) => client.pTTL(key('settings:guild:2')))).toBe(-1);
    await new Promise((resolve) => setTimeout(resolve, 700));
    // Nobody read it: Redis itself let it go (a SQLite row would still be there for the sweeper).
    expect(await inspect(redis.url, (client) => client.exists(key('paging:1')))).toBe(0);
    expect(await inspect(redis.url, (client) => client.exists(key('settings:guild:2')))).toBe(1);
  });

  it('GIVEN the response cache over Redis THEN its entries carry a Redis lifetime', async () => {
    const store = keep(createStore(redis.url));
    const cache = createResponseCache({ store, memoryEntries: 0 });
    await cache.fetch('philomena:derpibooru:image:1', async () => ({ id: 1 }), { ttlMs: 60_000 });
    const keys = await inspect(redis.url, (client) => client.keys(`${REDIS_NAMESPACE}::philomena:*`));
    expect(keys).toHaveLength(1);
    const ttl = await inspect(redis.url, (client) => client.pTTL(keys[0] ?? ''));
    expect(ttl).toBeGreaterThan(0);
    expect(
      await createResponseCache({ store, memoryEntries: 0 }).fetch(
        'philomena:derpibooru:image:1',
        async () => ({ id: 2 }),
        { ttlMs: 60_000 },
      ),
    ).toEqual({ value: { id: 1 }, source: 'store' });
  });

  it('GIVEN a Redis store THEN the sweeper is a no-op, said at debug', async () => {
    const { lines, destination } = captureLogs();
    const logger = createLogger({ level: 'debug', destination });
    const store = keep(createStore(redis.url));
    await store.set('expired-soon', 1, 60_000);
    const sweeper = startStoreSweeper(store, { logger, intervalMs: 1_000 });
    expect(await sweeper.sweep()).toBe(0);
    const logged = parseLogLines(lines);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 20 });
    expect(String(logged[0]?.['msg'])).toMatch(/not needed, Redis expires/);
    await sweeper.stop();
    expect(await store.get('expired-soon')).toBe(1);
  });
});

describe('the Redis password', () => {
  it('GIVEN a URL with a password THEN storeSecretsOf gives it as written and decoded', () => {
    expect(storeSecretsOf('redis://user:p%40ss-word@h:1/0').sort()).toEqual(['p%40ss-word', 'p@ss-word']);
    expect(storeSecretsOf('redis://h:1')).toEqual([]);
    expect(storeSecretsOf('sqlite://data/bot.sqlite')).toEqual([]);
  });

  it('GIVEN the logger main.ts builds AND Redis going away under a store in use THEN no line holds the password', async () => {
    const server = await startRedis({ password: PASSWORD });
    try {
      const { lines, destination } = captureLogs();
      const logger = createLogger({ level: 'trace', secrets: storeSecretsOf(server.url), destination });
      const store = keep(await openStore(server.url));
      store.on('error', (error: unknown) => logger.error({ err: error }, 'store error'));
      logger.info({ storeUrl: server.url }, 'a careless line quoting the URL');
      await server.kill();
      expect(await store.get('anything')).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const failed = await openStore(
        `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}`,
      ).catch((e: unknown) => e);
      logger.fatal(failed instanceof Error ? failed.message : String(failed));
      const text = lines.join('');
      expect(parseLogLines(lines).some((line) => line['msg'] === 'store error')).toBe(true);
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(encodeURIComponent(PASSWORD));
    } finally {
      await server.stop();
    }
  });
});

describe('the Redis fixture', () => {
  it('GIVEN no redis-server program THEN starting one fails (never skips) and says which package to install', async () => {
    const error = await startRedis({ binary: '/nonexistent/redis-server' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/not installed.*apt-get install redis-server/);
  });
});
