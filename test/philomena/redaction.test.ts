import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Keyv from 'keyv';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createResponseCache } from '../../src/philomena/cache.js';
import { createPhilomenaClient, type PhilomenaClientOptions } from '../../src/philomena/client/index.js';
import { knownSite, resolveSite, type Site } from '../../src/philomena/sites.js';
import { InvalidResponseError, isPhilomenaError, SiteUnavailableError } from '../../src/philomena/errors.js';

const KEY = 'Zq9-redaction+key/with=odd&chars';

let server: http.Server;
let site: Site;
/** A site on a port nothing listens on: undici's own connection error. */
let closedSite: Site;

/** Each path answers one way; most echo the request URL (key included) back, as a hostile server could. */
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? '';
    const path = url.split('?')[0] ?? '';
    const key = new URL(url, 'http://x').searchParams.get('key') ?? '';
    const send = (status: number, body: string, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
    // Only the owner's own calls carry the key (userFilters, submitImage), so the faults are chosen by
    // the `page` of a userFilters call: /filters/user?page=500 answers like a broken /images/500 would.
    const fault = path.endsWith('/filters/user')
      ? (new URL(url, 'http://x').searchParams.get('page') ?? '403')
      : undefined;
    if (fault === '500') send(500, JSON.stringify({ error: `Internal Error at ${url}` }));
    else if (fault === '404') send(404, '');
    else if (fault === '400')
      send(400, JSON.stringify({ error: `cannot parse ${decodeURIComponent(url)} (${key})` }));
    else if (fault === '200') send(200, '{"filters": [{"id": "not a number"}], "total": 1}');
    // Not JSON, starting with the key: JSON.parse quotes the start of the body in its message.
    else if (fault === '201') send(200, `${key} ${url}`);
    else if (fault === '429')
      send(429, `<html>slow down ${url} ${key}</html>`, {
        'retry-after': '120',
        'content-type': 'text/html',
      });
    else if (fault === '501') send(501, `<html>checking ${url} ${key}</html>`);
    else if (fault === '408')
      return; // never answers
    else if (fault === '403') send(403, `forbidden ${url} ${key}`);
    else if (path.endsWith('/images') && req.method === 'POST') send(401, `no ${url} ${key}`);
    else req.socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = resolveSite(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const spare = http.createServer();
  await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
  const sparePort = (spare.address() as AddressInfo).port;
  await new Promise<void>((resolve) => spare.close(() => resolve()));
  closedSite = resolveSite(`http://127.0.0.1:${sparePort}`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Everything an error carries: message, stack, own fields, and the same for its whole cause chain. */
function everything(error: unknown, depth = 0): string {
  if (!(error instanceof Error) || depth > 10) return String(error);
  const fields = Object.fromEntries(Object.entries(error));
  return [
    error.name,
    error.message,
    error.stack,
    JSON.stringify(fields),
    error.cause === undefined ? '' : everything(error.cause, depth + 1),
    error instanceof AggregateError
      ? error.errors.map((e: unknown) => everything(e, depth + 1)).join('\n')
      : '',
  ].join('\n');
}

const forms = [KEY, encodeURIComponent(KEY), new URLSearchParams({ k: KEY }).toString().slice(2)];

type Client = ReturnType<typeof createPhilomenaClient>;
interface Case {
  readonly name: string;
  readonly call: (c: Client) => Promise<unknown>;
  readonly options?: Partial<PhilomenaClientOptions> & { readonly closed?: boolean };
  /** Calls before the one that must fail (to open the breaker, spend the budget). */
  readonly before?: (c: Client) => Promise<unknown>;
}

const CASES: readonly Case[] = [
  { name: 'a 500 that quotes the URL', call: (c) => c.userFilters({ page: 500 }) },
  { name: 'a 404 (remembered in the negative cache)', call: (c) => c.userFilters({ page: 404 }) },
  { name: 'a 400 that echoes the query', call: (c) => c.userFilters({ page: 400 }) },
  { name: 'a body that breaks the schema', call: (c) => c.userFilters({ page: 200 }) },
  { name: 'a body that is not JSON and starts with the key', call: (c) => c.userFilters({ page: 201 }) },
  { name: 'a 429 whose Retry-After is beyond the deadline', call: (c) => c.userFilters({ page: 429 }) },
  {
    name: 'an anti-bot 501 with a short deadline',
    call: (c) => c.userFilters({ page: 501 }),
    options: { transport: { deadlineMs: 1000 } },
  },
  {
    name: 'a timeout',
    call: (c) => c.userFilters({ page: 408 }),
    options: { transport: { attemptTimeoutMs: 30, maxAttempts: 2 } },
  },
  { name: 'a connection reset', call: (c) => c.userFilters({ page: 7 }) },
  {
    name: 'a refused connection (undici error)',
    call: (c) => c.userFilters({ page: 7 }),
    options: { closed: true },
  },
  { name: 'a 403 on the key owner filters', call: (c) => c.userFilters() },
  {
    name: 'a 401 on submission',
    call: (c) => c.submitImage({ url: 'https://example.test/a.png', tagInput: 'safe, pony, artist:x' }),
  },
  {
    name: 'an open circuit breaker',
    call: (c) => c.userFilters({ page: 500 }),
    options: { breaker: { failureThreshold: 1 } },
    before: (c) => c.userFilters({ page: 500 }).catch(() => undefined),
  },
  {
    name: 'a spent request budget',
    call: (c) => c.userFilters({ page: 404 }),
    options: { budget: { overall: { limit: 1, windowMs: 60_000 }, maxQueue: 0 } },
    before: (c) => c.userFilters({ page: 500 }).catch(() => undefined),
  },
];

describe('key redaction', () => {
  it.each(CASES)(
    'GIVEN $name THEN neither the error (cause chain included), any log line nor the cache holds the key',
    async ({ call, options = {}, before }) => {
      const lines: string[] = [];
      const destination = new Writable({
        write(chunk: Buffer, _e, done) {
          lines.push(chunk.toString());
          done();
        },
      });
      // The logger is given no secrets: the client must redact on its own.
      const logger = createLogger({ level: 'debug', destination });
      const map = new Map<string, unknown>();
      const { closed, ...clientOptions } = options;
      const client = createPhilomenaClient({
        site: closed ? closedSite : site,
        apiKey: KEY,
        logger,
        cache: createResponseCache({ store: new Keyv({ store: map }), logger }),
        transport: { maxAttempts: 2, baseDelayMs: 1 },
        sleep: async () => undefined,
        ...clientOptions,
      });
      await before?.(client);
      const error = await call(client).catch((e: unknown) => e);
      // A failure logged the way the bot logs unexpected errors goes through the same scrubbing.
      logger.error({ err: error }, 'call failed');
      await client.close();
      expect(isPhilomenaError(error)).toBe(true);
      const text = `${everything(error)}\n${lines.join('\n')}\n${JSON.stringify([...map.entries()])}`;
      for (const form of forms) expect(text).not.toContain(form);
      if (isPhilomenaError(error) && error.path !== undefined) expect(error.path).toContain('key=[REDACTED]');
      expect(lines.length).toBeGreaterThan(0);
    },
  );
});

describe('errors from below the client that quote the key', () => {
  const derpibooru = knownSite('derpibooru') as Site;

  function mocked(reply: (pool: ReturnType<MockAgent['get']>) => void): MockAgent {
    const agent = new MockAgent();
    agent.disableNetConnect();
    reply(agent.get(derpibooru.baseUrl));
    return agent;
  }

  it('GIVEN undici fails with the URL in its message and down its cause chain THEN the error the client throws has none of it', async () => {
    const agent = mocked((pool) =>
      pool
        .intercept({ path: /images/ })
        .replyWithError(
          Object.assign(
            new Error(`connect failed for https://derpibooru.org/api/v1/json/images/1?key=${KEY}`, {
              cause: new Error(`socket to derpibooru.org for ${encodeURIComponent(KEY)}`),
            }),
            { code: 'UND_ERR_SOCKET' },
          ),
        )
        .persist(),
    );
    const client = createPhilomenaClient({
      site: derpibooru,
      apiKey: KEY,
      dispatcher: agent,
      transport: { maxAttempts: 1 },
    });
    const error = await client.image(1).catch((e: unknown) => e);
    await agent.close();
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(error).toMatchObject({ reason: 'network', cause: { code: 'UND_ERR_SOCKET' } });
    const text = everything(error);
    expect(text).toContain('connect failed');
    for (const form of forms) expect(text).not.toContain(form);
  });

  it('GIVEN a short key and a 200 body that is the key itself THEN the JSON.parse cause does not quote it', async () => {
    const shortKey = 'k3y-2024';
    const agent = mocked((pool) =>
      pool.intercept({ path: /images/ }).reply(200, shortKey, { headers: { 'content-type': 'text/plain' } }),
    );
    const client = createPhilomenaClient({ site: derpibooru, apiKey: shortKey, dispatcher: agent });
    const error = await client.image(1).catch((e: unknown) => e);
    await agent.close();
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ fieldPath: '(body)', cause: { name: 'SyntaxError' } });
    expect(everything(error)).not.toContain(shortKey);
  });
});
