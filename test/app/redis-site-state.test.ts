/**
 * Two client registries ("two processes", each with its own store connection, as main.ts wires them) share
 * one real redis-server (test/support/redis.ts) and one local board that counts what arrives: a 429 with
 * Retry-After answered to one pauses the site for the other, a breaker opened by one makes the other
 * refuse at once, and with Redis stopped both go on serving on their own state, saying so in one line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { RateLimitedError, SiteBlockedError, SiteUnavailableError } from '../../src/philomena/errors.js';
import { createClientRegistry } from '../../src/philomena/registry.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';
import { createRedisSiteState } from '../../src/redis/redis-site-state.js';
import { redisClientOfStore } from '../../src/redis/scripts.js';
import { createStore } from '../../src/store/index.js';
import { parseLogLines } from '../support/harness.js';
import { useRedisProcesses } from '../support/redis.js';
import { closeServers, serve, type Served, type Step } from '../philomena/local-server.js';

const processes = useRedisProcesses();
afterEach(closeServers);

/** A board whose answer the test sets; it counts every request that arrives. */
async function board(): Promise<{ served: Served; site: Site; answer: (step: Step) => void }> {
  let current: Step = ok;
  const served = await serve((req, res, index) => current(req, res, index));
  return { served, site: resolveSite(served.url), answer: (step) => (current = step) };
}

const empty500: Step = (req, res) => {
  req.resume();
  res.writeHead(500, { 'content-length': '0' });
  res.end();
};
const antiBot: Step = (req, res) => {
  req.resume();
  res.writeHead(501, { 'content-type': 'text/html' });
  res.end('<html><body>Just a moment...</body></html>');
};

const ok: Step = (req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ images: [], interactions: [], total: 0 }));
};
const status =
  (code: number, headers: Record<string, string> = {}): Step =>
  (req, res) => {
    req.resume();
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end('{}');
  };

/** One bot process: its own store connection to the shared Redis, its own registry. */
function processOn(site: Site, url = processes.redis.url, antiBotDelayMs?: number) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } });
  const store = createStore(url);
  const client = redisClientOfStore(store);
  if (client === undefined) throw new Error('a redis:// store has a Redis client');
  const registry = createClientRegistry({
    defaultSite: site,
    cache: store,
    logger,
    shared: createRedisSiteState({ client, logger }),
    // pauseWaitMs 0: a call refuses during a pause rather than wait out a short one (test/philomena/
    // short-pause.test.ts), so these tests see the pause itself.
    transport: {
      maxAttempts: 1,
      pauseWaitMs: 0,
      ...(antiBotDelayMs === undefined ? {} : { antiBotDelayMs }),
    },
    breaker: { failureThreshold: 2, coolDownMs: 1_000 },
  });
  processes.track({ registry, store });
  return { registry, client: registry.client(site), redis: client, logs: () => parseLogLines(lines) };
}

let query = 0;
/** A search nobody asked before (so no cache answers it). */
const search = (p: ReturnType<typeof processOn>) => p.client.searchImages({ q: `fresh-${++query}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createRedisSiteState', () => {
  it('GIVEN pauses and openings THEN they are plain keys under philomena-bot::site: whose PX is the time left, a longer one kept', async () => {
    const store = createStore(processes.redis.url);
    processes.track({
      registry: createClientRegistry({
        defaultSite: resolveSite('derpibooru'),
        cache: store,
        logger: createLogger({ level: 'silent' }),
      }),
      store,
    });
    const client = redisClientOfStore(store);
    if (client === undefined) throw new Error('a redis:// store has a Redis client');
    const state = createRedisSiteState({ client, logger: createLogger({ level: 'silent' }) });
    await state.pause('derpibooru', 5_000);
    await state.pause('derpibooru', 1_000); // shorter: the 5 s stay
    await state.open('derpibooru', 2_000);
    const hold = await state.read('derpibooru');
    expect(hold.pausedMs).toBeGreaterThan(4_000);
    expect(hold.pausedMs).toBeLessThanOrEqual(5_000);
    expect(hold.openMs).toBeGreaterThan(1_000);
    expect(hold.openMs).toBeLessThanOrEqual(2_000);
    await state.open('derpibooru', 3_000); // longer: extended
    expect((await state.read('derpibooru')).openMs).toBeGreaterThan(2_000);
    expect(await state.read('furbooru')).toEqual({ pausedMs: 0, openMs: 0, blockedMs: 0, challengedMs: 0 });
    await state.block('derpibooru', 60_000);
    await state.challenge('derpibooru', 120_000);
    await state.challenge('derpibooru', 1_000); // shorter: kept
    const held = await state.read('derpibooru');
    expect(held.blockedMs).toBeGreaterThan(59_000);
    expect(held.challengedMs).toBeGreaterThan(119_000);
    const redisClient = await client();
    const ttl = await redisClient.eval(`return redis.call('PTTL', KEYS[1])`, {
      keys: ['philomena-bot::site:derpibooru:paused'],
      arguments: [],
    });
    expect(ttl).toBeGreaterThan(4_000);
  });
});

describe('one board pause and breaker across processes (Redis)', () => {
  it('GIVEN a 429 with Retry-After answered to one process THEN the other makes no call to the site until it ends', async () => {
    const { served, site, answer } = await board();
    const a = processOn(site);
    const b = processOn(site);
    await search(b); // b has read the shared state just now: its remembered copy is fresh
    answer(status(429, { 'retry-after': '1' }));
    await expect(search(a)).rejects.toBeInstanceOf(RateLimitedError);
    const pausedAt = performance.now();
    answer(ok);
    const arrived = served.requests.length;
    // Within the pause: b refuses without a call, however fresh its remembered copy was.
    await expect(search(b)).rejects.toBeInstanceOf(RateLimitedError);
    await sleep(300);
    const refused = await search(b).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterMs).toBeGreaterThan(300);
    expect(served.requests.length).toBe(arrived);
    // After it: b calls the site again.
    await sleep(Math.max(0, 1_000 - (performance.now() - pausedAt)) + 100);
    await expect(search(b)).resolves.toMatchObject({ total: 0 });
    expect(served.requests.length).toBe(arrived + 1);
  });

  it('GIVEN one process opens its breaker THEN the other refuses at once (circuit-open) until the cool-down ends', async () => {
    const { served, site, answer } = await board();
    const a = processOn(site);
    const b = processOn(site);
    answer(status(503));
    for (let i = 0; i < 2; i += 1) await expect(search(a)).rejects.toMatchObject({ status: 503 });
    expect(a.registry.clients()[0]?.stats().breaker).toBe('open');
    const openedAt = performance.now();
    answer(ok);
    const arrived = served.requests.length;
    const refused = await search(b).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SiteUnavailableError);
    expect(refused).toMatchObject({ reason: 'circuit-open' });
    expect(b.registry.clients()[0]?.stats().breaker).toBe('open');
    expect(served.requests.length).toBe(arrived);
    await sleep(Math.max(0, 1_000 - (performance.now() - openedAt)) + 100);
    await expect(search(b)).resolves.toMatchObject({ total: 0 });
    expect(served.requests.length).toBe(arrived + 1);
  });

  it("GIVEN the 501 met by one process and an empty 500 by the other THEN that is the board's block: neither sends anything more, and the block is a Redis key of 16 min", async () => {
    const { served, site, answer } = await board();
    const a = processOn(site, processes.redis.url, 100);
    const b = processOn(site, processes.redis.url, 100);
    answer(antiBot);
    await expect(search(a)).rejects.toBeInstanceOf(RateLimitedError);
    await sleep(150); // the (scaled) pause after the 501 is over
    answer(empty500);
    const blocked = await search(b).catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(SiteBlockedError);
    answer(ok);
    const arrived = served.requests.length;
    await expect(search(a)).rejects.toBeInstanceOf(SiteBlockedError);
    await expect(search(b)).rejects.toBeInstanceOf(SiteBlockedError);
    expect(served.requests.length).toBe(arrived);
    const ttl = await (
      await a.redis()
    ).eval(`return redis.call('PTTL', KEYS[1])`, {
      keys: [`philomena-bot::site:${site.id}:blocked`],
      arguments: [],
    });
    expect(ttl).toBeGreaterThan(15 * 60_000);
  });

  it('GIVEN Redis stops THEN both keep serving on their own state with one log line each, and share again when it is back', async () => {
    const { served, site, answer } = await board();
    const a = processOn(site);
    const b = processOn(site);
    await Promise.all([search(a), search(b)]);
    await processes.redis.shutdown();
    try {
      for (let i = 0; i < 5; i += 1) {
        await expect(search(a)).resolves.toMatchObject({ total: 0 });
        await expect(search(b)).resolves.toMatchObject({ total: 0 });
        await sleep(260); // past the refresh interval: each call reads Redis again, and fails
      }
      // A pause seen by a holds for a alone meanwhile.
      answer(status(429, { 'retry-after': '1' }));
      await expect(search(a)).rejects.toBeInstanceOf(RateLimitedError);
      answer(ok);
      await expect(search(a)).rejects.toBeInstanceOf(RateLimitedError);
      await expect(search(b)).resolves.toMatchObject({ total: 0 });
    } finally {
      await processes.redis.start();
    }
    for (const p of [a, b]) {
      const away = p.logs().filter((line) => String(line['msg']).includes('Redis unreachable'));
      expect(away).toHaveLength(1);
      expect(away[0]).toMatchObject({ level: 40 });
    }
    // Back: the store's clients reconnect by themselves (backing off up to 2 s); sharing resumes.
    await expect
      .poll(
        async () => {
          await Promise.all([search(a), search(b)].map((call) => call.catch(() => undefined)));
          return [a, b].every((p) =>
            p.logs().some((line) => String(line['msg']).includes('Redis answers again')),
          );
        },
        { timeout: 8_000, interval: 300 },
      )
      .toBe(true);
    // a's own pause from before ends (its count of failures then starts afresh).
    await expect
      .poll(async () => (await search(a).catch(() => undefined)) !== undefined, {
        timeout: 3_000,
        interval: 100,
      })
      .toBe(true);
    answer(status(429, { 'retry-after': '1' }));
    await expect(search(a)).rejects.toBeInstanceOf(RateLimitedError);
    answer(ok);
    const arrived = served.requests.length;
    await expect(search(b)).rejects.toBeInstanceOf(RateLimitedError);
    expect(served.requests.length).toBe(arrived);
  }, 30_000);
});
