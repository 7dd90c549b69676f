/**
 * Identical requests of two processes make one board call (src/redis/redis-flights.ts under the response
 * cache's `flights`): two client registries ("two processes", each with its own store connection, as
 * main.ts wires them) share one real redis-server and one local board that counts what arrives and
 * answers slowly, so the requests overlap. A 404 is shared too; a failure lets the other process ask; with
 * Redis stopped each process asks for itself and says so in one line.
 */
import { describe, expect, it } from 'vitest';
import { afterEach } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { NotFoundError, SiteUnavailableError } from '../../src/philomena/errors.js';
import { createClientRegistry } from '../../src/philomena/registry.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';
import { createRedisFlights } from '../../src/redis/redis-flights.js';
import { redisClientOfStore } from '../../src/redis/scripts.js';
import { createStore } from '../../src/store/index.js';
import { parseLogLines } from '../support/harness.js';
import { useRedisProcesses } from '../support/redis.js';
import { closeServers, serve, type Step } from '../philomena/local-server.js';

const processes = useRedisProcesses();
afterEach(closeServers);

const SLOW_MS = 300;

/** A board whose answer the test sets, after SLOW_MS; it counts every request that arrives. */
async function board(first: Step) {
  let current: Step = first;
  const served = await serve((req, res, index) => {
    setTimeout(() => current(req, res, index), SLOW_MS);
  });
  return { served, site: resolveSite(served.url), answer: (step: Step) => (current = step) };
}

const searchAnswer: Step = (req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ images: [], interactions: [], total: 7 }));
};
const status =
  (code: number): Step =>
  (req, res) => {
    req.resume();
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(code === 404 ? '{"error":"not found"}' : '{}');
  };

function processOn(site: Site, url = processes.redis.url) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  const store = createStore(url);
  const client = redisClientOfStore(store);
  if (client === undefined) throw new Error('a redis:// store has a Redis client');
  const registry = createClientRegistry({
    defaultSite: site,
    cache: store,
    logger,
    flights: createRedisFlights({ client, logger }),
    transport: { maxAttempts: 1 },
    breaker: { failureThreshold: 10 },
  });
  processes.track({ registry, store });
  return { client: registry.client(site), logs: () => parseLogLines(lines) };
}

let query = 0;

describe('one board call for identical requests of two processes (Redis)', () => {
  it('GIVEN the same search from both at once THEN the board is asked once and both have the answer', async () => {
    const { served, site } = await board(searchAnswer);
    const a = processOn(site);
    const b = processOn(site);
    const q = `coalesced-${++query}`;
    const [fromA, fromB] = await Promise.all([a.client.searchImages({ q }), b.client.searchImages({ q })]);
    expect(fromA.total).toBe(7);
    expect(fromB.total).toBe(7);
    expect(served.requests).toHaveLength(1);
    // Different searches are not held up by each other's claims.
    await Promise.all([a.client.searchImages({ q: `${q}-a` }), b.client.searchImages({ q: `${q}-b` })]);
    expect(served.requests).toHaveLength(3);
  });

  it('GIVEN the same missing image from both THEN one 404 reaches the board and both say not found', async () => {
    const { served, site } = await board(status(404));
    const a = processOn(site);
    const b = processOn(site);
    const results = await Promise.allSettled([a.client.image(999_001), b.client.image(999_001)]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(NotFoundError);
    }
    expect(served.requests).toHaveLength(1);
  });

  it('GIVEN the loading process’s request failing THEN the waiting one asks the board itself', async () => {
    // The first request that arrives fails (a 500 is never cached); any later one is answered.
    const { served, site } = await board((req, res, index) =>
      (index === 0 ? status(500) : searchAnswer)(req, res, index),
    );
    const a = processOn(site);
    const b = processOn(site);
    const q = `failing-${++query}`;
    const first = a.client.searchImages({ q });
    // b starts while a's request is under way: it waits on a's claim, then takes its turn.
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS / 3));
    const second = b.client.searchImages({ q });
    await expect(first).rejects.toBeInstanceOf(SiteUnavailableError);
    await expect(second).resolves.toMatchObject({ total: 7 });
    expect(served.requests).toHaveLength(2);
  });

  it('GIVEN Redis stopped THEN each process asks the board for itself, says so once, and coalesces again when it is back', async () => {
    const { served, site } = await board(searchAnswer);
    const a = processOn(site);
    const b = processOn(site);
    await processes.redis.shutdown();
    try {
      const q = `alone-${++query}`;
      await Promise.all([a.client.searchImages({ q }), b.client.searchImages({ q })]);
      expect(served.requests).toHaveLength(2);
      const q2 = `alone-${++query}`;
      await Promise.all([a.client.searchImages({ q: q2 }), b.client.searchImages({ q: q2 })]);
      const down = a
        .logs()
        .filter(
          (l) =>
            l['msg'] ===
            'request coalescing across processes: Redis unreachable, each process asks the board for itself until it answers again',
        );
      expect(down).toHaveLength(1);
    } finally {
      await processes.redis.start();
    }
    const before = served.requests.length;
    const q3 = `back-${++query}`;
    // The store's client reconnects on its own; give it a moment, then identical requests share again.
    let shared = false;
    for (let attempt = 0; attempt < 20 && !shared; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const q = `${q3}-${attempt}`;
      const start = served.requests.length;
      await Promise.all([a.client.searchImages({ q }), b.client.searchImages({ q })]).catch(() => undefined);
      shared = served.requests.length - start === 1;
    }
    expect(shared).toBe(true);
    expect(served.requests.length).toBeGreaterThan(before);
    expect(
      a
        .logs()
        .some((l) => String(l['msg']).startsWith('request coalescing across processes: Redis answers again')),
    ).toBe(true);
  });
});
