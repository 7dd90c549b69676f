import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestBudget } from '../../src/philomena/budget/index.js';
import { createTransport } from '../../src/philomena/transport.js';
import { mostInAnySpan } from '../support/arrivals.js';

/**
 * The budget as the site sees it: a real undici pool with fewer connections than the budget has slots, so
 * granted requests wait in undici's queue, and a local server that logs every arrival on its own clock.
 */

interface Site {
  readonly url: string;
  /** Arrival times (ms, the server's clock) of every request, retries included. */
  readonly arrivals: number[];
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** Answers request n (1-based, by arrival) after `delayMs(n)` with `status(n)`. */
async function startSite(delayMs: (n: number) => number, status: (n: number) => number): Promise<Site> {
  const arrivals: number[] = [];
  const server = http.createServer((req, res) => {
    arrivals.push(performance.now());
    const n = arrivals.length;
    req.resume();
    setTimeout(() => {
      res.writeHead(status(n), { 'content-type': 'application/json' });
      res.end('{}');
    }, delayMs(n));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const site: Site = {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  cleanups.push(site.close);
  return site;
}

describe('request budget against a real connection pool', () => {
  it('GIVEN 2 connections held by slow answers, a budget of 4 per 200 ms and a retried 503 THEN the site never sees more than 4 arrivals in any 200 ms', async () => {
    // The first two answers take 250 ms, longer than the window: the two requests granted with them wait
    // in undici's queue and reach the site only then, while a budget stamping grants would already have
    // handed out four more slots. The fifth arrival fails once with 503, so its retry takes a slot too.
    const site = await startSite(
      (n) => (n <= 2 ? 250 : 10),
      (n) => (n === 5 ? 503 : 200),
    );
    const dispatcher = new Agent({ connections: 2 });
    cleanups.push(() => dispatcher.close());
    const budget = createRequestBudget({ site: 't', overall: { limit: 4, windowMs: 200 } });
    const transport = createTransport({
      site: 't',
      baseUrl: site.url,
      dispatcher,
      budget,
      redact: (text) => text,
      maxAttempts: 2,
      baseDelayMs: 1,
      random: () => 0,
    });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        transport.send({ method: 'GET', path: `/api/v1/json/images/${i + 1}`, idempotent: true }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 8 }, () => 200));
    expect(site.arrivals).toHaveLength(9);
    expect(mostInAnySpan(site.arrivals, 200)).toBeLessThanOrEqual(4);
    expect(budget.stats()).toMatchObject({ queued: 0, inFlight: 0 });
  });

  it('GIVEN attempts that time out behind a hung connection and are retried THEN their slots stay taken until undici lets go of them, and the site sees at most the budget', async () => {
    // One connection, the first answer hangs past the 200 ms attempt timeout: the two requests granted
    // with it time out in undici's queue, the ones granted after them reach the site when the socket is
    // dropped, and every timed-out request is retried. None of it may bunch up at the site.
    const site = await startSite(
      (n) => (n === 1 ? 400 : 10),
      () => 200,
    );
    const dispatcher = new Agent({ connections: 1 });
    cleanups.push(() => dispatcher.close());
    const budget = createRequestBudget({ site: 't', overall: { limit: 3, windowMs: 150 } });
    const transport = createTransport({
      site: 't',
      baseUrl: site.url,
      dispatcher,
      budget,
      redact: (text) => text,
      attemptTimeoutMs: 200,
      maxAttempts: 2,
      baseDelayMs: 1,
      random: () => 0,
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        transport.send({ method: 'GET', path: `/api/v1/json/images/${i + 1}`, idempotent: true }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBeGreaterThan(0);
    expect(site.arrivals.length).toBeGreaterThan(6);
    expect(mostInAnySpan(site.arrivals, 150)).toBeLessThanOrEqual(3);
    expect(budget.stats()).toMatchObject({ queued: 0, inFlight: 0 });
  });
});
