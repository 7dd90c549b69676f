/**
 * One board budget across processes: two client registries ("two processes", each with its own store
 * connection, as main.ts wires them) share one real redis-server (test/support/redis.ts) and one local
 * board that records when each request arrives and from which process. However many calls both make at
 * once, the board never sees more than the limit in any span of the window; with Redis stopped each keeps
 * to a quarter of it on its own and says so in one line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { SiteUnavailableError } from '../../src/philomena/errors.js';
import { createClientRegistry } from '../../src/philomena/registry.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';
import { runWithRequestContext } from '../../src/philomena/request-context.js';
import { createRedisBudgetSlots } from '../../src/redis/redis-budget-slots.js';
import { redisClientOfStore } from '../../src/redis/scripts.js';
import { openStore } from '../../src/store/index.js';
import { parseLogLines } from '../support/harness.js';
import { useRedisProcesses } from '../support/redis.js';
import { closeServers, serve } from '../philomena/local-server.js';
import { mostInAnySpan } from '../support/arrivals.js';

const LIMIT = 4;
const budgetBack = 'board request budget: Redis answers again, shared across processes once more';
const WINDOW_MS = 500;
/** Autocomplete's small share of each window, for every process together. */
const AUTOCOMPLETE_LIMIT = 2;

const processes = useRedisProcesses();
afterEach(closeServers);

interface Arrival {
  readonly at: number;
  readonly from: string;
}

/** A board that answers every request after 30 ms and records when it arrived and from which process. */
async function board(): Promise<{ site: Site; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const served = await serve((req, res) => {
    arrivals.push({ at: performance.now(), from: String(req.headers['user-agent']) });
    req.resume();
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ images: [], interactions: [], total: 0 }));
    }, 30);
  });
  return { site: resolveSite(served.url), arrivals };
}

/**
 * One bot process: its own store connection to the shared Redis (opened, so connected, as main.ts does),
 * its own registry, one shared budget.
 */
async function processOn(site: Site, name: string) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } });
  const store = await openStore(processes.redis.url);
  const client = redisClientOfStore(store);
  if (client === undefined) throw new Error('a redis:// store has a Redis client');
  const registry = createClientRegistry({
    defaultSite: site,
    cache: store,
    logger,
    userAgent: name,
    transport: { maxAttempts: 1 },
    budget: {
      overall: { limit: LIMIT, windowMs: WINDOW_MS },
      search: { limit: LIMIT, windowMs: WINDOW_MS },
      maxWaitMs: 1_500,
      autocompleteLimit: AUTOCOMPLETE_LIMIT,
      autocompleteSearchLimit: AUTOCOMPLETE_LIMIT,
      shared: createRedisBudgetSlots({ client, logger }),
    },
  });
  processes.track({ registry, store });
  return { name, client: registry.client(site), logs: () => parseLogLines(lines) };
}

let query = 0;
type Process = Awaited<ReturnType<typeof processOn>>;
/** A search nobody asked before (so no cache answers it). */
const search = (p: Process) => p.client.searchImages({ q: `fresh-${++query}` });

/** `n` searches at once from each process; every one is served or refused with budget-exhausted. */
async function burst(processes: readonly Process[], n: number): Promise<{ served: number }> {
  const calls = processes.flatMap((p) => Array.from({ length: n }, () => search(p)));
  const settled = await Promise.allSettled(calls);
  for (const result of settled) {
    if (result.status === 'rejected') {
      expect(result.reason).toBeInstanceOf(SiteUnavailableError);
      expect(result.reason).toMatchObject({ reason: 'budget-exhausted' });
    }
  }
  return { served: settled.filter((r) => r.status === 'fulfilled').length };
}

describe('one board budget across processes (Redis)', () => {
  it('GIVEN two processes calling at once, many times each THEN the board never sees more than the limit in any window', async () => {
    const { site, arrivals } = await board();
    const a = await processOn(site, 'process-a');
    const b = await processOn(site, 'process-b');
    const { served } = await burst([a, b], 12);
    expect(arrivals).toHaveLength(served);
    // Each alone may send LIMIT per window; together they still keep to it.
    expect(served).toBeGreaterThan(LIMIT);
    expect(
      mostInAnySpan(
        arrivals.map((x) => x.at),
        WINDOW_MS,
      ),
    ).toBeLessThanOrEqual(LIMIT);
    expect(new Set(arrivals.map((x) => x.from))).toEqual(new Set(['process-a', 'process-b']));
  }, 10_000);

  it('GIVEN both processes autocompleting at once THEN autocomplete’s small share holds for both together, and the rest are refused at once', async () => {
    const { site, arrivals } = await board();
    const a = await processOn(site, 'process-a');
    const b = await processOn(site, 'process-b');
    const typing = (p: Process, n: number) =>
      Array.from({ length: n }, (_, i) =>
        runWithRequestContext({ priority: 'autocomplete', server: p.name, member: `m${i}` }, () => search(p)),
      );
    const settled = await Promise.allSettled([...typing(a, 6), ...typing(b, 6)]);
    const served = settled.filter((r) => r.status === 'fulfilled').length;
    // Alone, each process would take its own share (AUTOCOMPLETE_LIMIT each); shared, both together take it.
    expect(served).toBe(AUTOCOMPLETE_LIMIT);
    expect(arrivals).toHaveLength(AUTOCOMPLETE_LIMIT);
    for (const result of settled) {
      if (result.status === 'rejected') expect(result.reason).toMatchObject({ reason: 'budget-exhausted' });
    }
    // A member's command still finds the window open: autocomplete took only its share.
    await expect(search(a)).resolves.toMatchObject({ total: 0 });
  }, 10_000);

  it('GIVEN one process filled the window just before Redis stopped THEN the other grants nothing alone until that window has passed: the board never sees more than the limit', async () => {
    const { site, arrivals } = await board();
    const a = await processOn(site, 'process-a');
    const b = await processOn(site, 'process-b');
    // A takes the whole shared window; B has nothing in its own windows.
    expect((await burst([a], LIMIT)).served).toBe(LIMIT);
    const aLast = Math.max(...arrivals.map((x) => x.at));
    await processes.redis.shutdown();
    try {
      await burst([b], 2);
    } finally {
      await processes.redis.start();
    }
    // Alone, B would have added its quarter to A's full window (5 in 500 ms against 4).
    expect(
      mostInAnySpan(
        arrivals.map((x) => x.at),
        WINDOW_MS,
      ),
    ).toBeLessThanOrEqual(LIMIT);
    const bFirst = Math.min(...arrivals.filter((x) => x.from === b.name).map((x) => x.at));
    expect(bFirst - aLast).toBeGreaterThanOrEqual(WINDOW_MS);
  });

  it('GIVEN Redis stops mid-way THEN both keep serving within a quarter of the budget each, one log line each', async () => {
    const { site, arrivals } = await board();
    const a = await processOn(site, 'process-a');
    const b = await processOn(site, 'process-b');
    await burst([a, b], 3);
    await processes.redis.shutdown();
    const stoppedAt = performance.now();
    let during: { served: number };
    try {
      during = await burst([a, b], 5);
    } finally {
      await processes.redis.start();
    }
    expect(
      mostInAnySpan(
        arrivals.map((x) => x.at),
        WINDOW_MS,
      ),
    ).toBeLessThanOrEqual(LIMIT);
    const quarter = Math.max(1, Math.floor(LIMIT / 4));
    for (const p of [a, b]) {
      const own = arrivals.filter((x) => x.from === p.name && x.at >= stoppedAt).map((x) => x.at);
      expect(own.length).toBeGreaterThan(0);
      expect(mostInAnySpan(own, WINDOW_MS)).toBeLessThanOrEqual(quarter);
      // (The response cache on the same Redis says so in its own line.)
      const away = p
        .logs()
        .filter((line) => String(line['msg']).startsWith('board request budget: Redis unreachable'));
      expect(away).toHaveLength(1);
      expect(away[0]).toMatchObject({ level: 40 });
    }
    expect(during.served).toBeGreaterThanOrEqual(2);
    // Back: the store's clients reconnect by themselves; the budget is shared again.
    await expect
      .poll(
        async () => {
          await Promise.all([search(a), search(b)].map((call) => call.catch(() => undefined)));
          return [a, b].every((p) => p.logs().some((line) => String(line['msg']) === budgetBack));
        },
        { timeout: 8_000, interval: 300 },
      )
      .toBe(true);
    expect(
      mostInAnySpan(
        arrivals.map((x) => x.at),
        WINDOW_MS,
      ),
    ).toBeLessThanOrEqual(LIMIT);
  }, 20_000);
});
