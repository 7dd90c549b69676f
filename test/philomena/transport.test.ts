import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createRedactor } from '../../src/philomena/redact.js';
import {
  createTransport,
  DEFAULT_USER_AGENT,
  parseRetryAfter,
  type TransportOptions,
} from '../../src/philomena/transport.js';
import { createCircuitBreaker } from '../../src/philomena/breaker.js';
import { RateLimitedError, SiteUnavailableError } from '../../src/philomena/errors.js';

const KEY = 'sEcReTkEy123456';

type Step = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface Served {
  readonly url: string;
  readonly requests: {
    method: string;
    url: string;
    headers: http.IncomingHttpHeaders;
    remotePort: number | undefined;
  }[];
  close(): Promise<void>;
}

const servers: Served[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server answering with `steps` in order, the last one for every further request. */
async function serve(...steps: Step[]): Promise<Served> {
  const requests: Served['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      remotePort: req.socket.remotePort,
    });
    const step = steps[Math.min(requests.length - 1, steps.length - 1)];
    step?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const served: Served = {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(served);
  return served;
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const empty =
  (status: number, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end();
  };

function transportFor(served: Served, overrides: Partial<TransportOptions> = {}) {
  const delays: number[] = [];
  const transport = createTransport({
    site: 'test',
    baseUrl: served.url,
    redact: createRedactor([KEY]),
    random: () => 0.5,
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...overrides,
  });
  return { transport, delays };
}

const GET = { method: 'GET' as const, path: `/api/v1/json/images/1?key=${KEY}`, idempotent: true };

describe('transport', () => {
  it('GIVEN two 503s then a 200 THEN it retries with full-jitter exponential backoff and returns the 200', async () => {
    const served = await serve(empty(503), empty(503), json(200, { ok: 1 }));
    const { transport, delays } = transportFor(served, { baseDelayMs: 500 });
    const response = await transport.send(GET);
    expect(response).toMatchObject({ status: 200, attempts: 3 });
    expect(JSON.parse(response.body)).toEqual({ ok: 1 });
    // random() = 0.5 of min(max, 500 * 2^(n-1))
    expect(delays).toEqual([250, 500]);
    await transport.close();
  });

  it('GIVEN the backoff would exceed maxDelayMs THEN the jitter range is capped', async () => {
    const served = await serve(empty(500));
    const { transport, delays } = transportFor(served, {
      baseDelayMs: 1000,
      maxDelayMs: 1500,
      maxAttempts: 4,
      random: () => 1,
    });
    await expect(transport.send(GET)).rejects.toBeInstanceOf(SiteUnavailableError);
    expect(delays).toEqual([1000, 1500, 1500]);
  });

  it('GIVEN the server always fails THEN attempts are bounded and the error says server-error with the status', async () => {
    const served = await serve(empty(502));
    const { transport } = transportFor(served);
    const error = await transport.send(GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(error).toMatchObject({ reason: 'server-error', status: 502 });
    expect(served.requests).toHaveLength(3);
  });

  it('GIVEN a 429 with Retry-After in seconds THEN it waits that long before the retry', async () => {
    const served = await serve(empty(429, { 'retry-after': '3' }), json(200, {}));
    const { transport, delays } = transportFor(served);
    await transport.send(GET);
    expect(delays).toEqual([3000]);
    expect(served.requests).toHaveLength(2);
  });

  it('GIVEN a 503 with Retry-After THEN the retry waits that long, not the shorter backoff', async () => {
    const served = await serve(empty(503, { 'retry-after': '2' }), json(200, {}));
    const { transport, delays } = transportFor(served);
    await transport.send(GET);
    expect(delays).toEqual([2000]);
  });

  it('GIVEN a 429 without Retry-After THEN it backs off with jitter and retries', async () => {
    const served = await serve(empty(429), json(200, {}));
    const { transport, delays } = transportFor(served, { baseDelayMs: 400 });
    await expect(transport.send(GET)).resolves.toMatchObject({ status: 200, attempts: 2 });
    expect(delays).toEqual([200]);
  });

  it('GIVEN a 429 with Retry-After as an HTTP date THEN it waits until that date', async () => {
    const at = new Date(Date.now() + 4000).toUTCString();
    const served = await serve(empty(429, { 'retry-after': at }), json(200, {}));
    const { transport, delays } = transportFor(served);
    await transport.send(GET);
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThan(2000);
    expect(delays[0]).toBeLessThanOrEqual(4000);
  });

  it('GIVEN a Retry-After longer than the deadline THEN it fails at once with RateLimitedError carrying the wait', async () => {
    const served = await serve(empty(429, { 'retry-after': '120' }));
    const { transport, delays } = transportFor(served, { deadlineMs: 10_000 });
    const error = await transport.send(GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterMs: 120_000, status: 429 });
    expect(delays).toEqual([]);
    expect(served.requests).toHaveLength(1);
  });

  it('GIVEN an anti-bot 501 with HTML THEN it backs off at least 5 s', async () => {
    const served = await serve(
      (_req, res) => {
        res.writeHead(501, { 'content-type': 'text/html' });
        res.end('<html>checking your browser</html>');
      },
      json(200, {}),
    );
    const { transport, delays } = transportFor(served);
    await transport.send(GET);
    expect(delays).toEqual([5000]);
  });

  it('GIVEN POST /images meets a 500 THEN it is never retried', async () => {
    const served = await serve(empty(500), json(200, {}));
    const { transport } = transportFor(served);
    const error = await transport
      .send({ method: 'POST', path: `/api/v1/json/images?key=${KEY}`, body: '{}', idempotent: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(served.requests).toHaveLength(1);
    expect(served.requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('GIVEN a server that never answers THEN each attempt times out and the error says timeout', async () => {
    const served = await serve(() => undefined);
    const { transport } = transportFor(served, { attemptTimeoutMs: 50, maxAttempts: 2 });
    const error = await transport.send(GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(error).toMatchObject({ reason: 'timeout' });
    expect(served.requests).toHaveLength(2);
  });

  it('GIVEN the connection is reset THEN the error says network and the key is nowhere in it', async () => {
    const served = await serve((req) => req.socket.destroy());
    const { transport } = transportFor(served, { maxAttempts: 2 });
    const error = await transport.send(GET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(error).toMatchObject({ reason: 'network' });
    const err = error as SiteUnavailableError;
    const everything = JSON.stringify({ m: err.message, p: err.path, c: String(err.cause), s: err.stack });
    expect(everything).not.toContain(KEY);
    expect(err.path).toContain('key=[REDACTED]');
  });

  it('GIVEN any request THEN it names the project in User-Agent and asks for JSON', async () => {
    const served = await serve(json(200, {}));
    const { transport } = transportFor(served, { userAgent: 'philomena-bot/9.9 (+https://example.test)' });
    await transport.send(GET);
    expect(served.requests[0]?.headers['user-agent']).toBe('philomena-bot/9.9 (+https://example.test)');
    expect(served.requests[0]?.headers.accept).toBe('application/json');
  });

  it('GIVEN a 404 THEN it is handed back untouched, without a retry', async () => {
    const served = await serve(empty(404));
    const { transport } = transportFor(served);
    await expect(transport.send(GET)).resolves.toMatchObject({ status: 404, body: '', attempts: 1 });
    expect(served.requests).toHaveLength(1);
  });

  it('GIVEN the caller aborts during the backoff THEN it rejects with the abort reason and sends no more', async () => {
    const served = await serve(empty(503));
    const controller = new AbortController();
    const transport = createTransport({
      site: 'test',
      baseUrl: served.url,
      redact: (t) => t,
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason));
          controller.abort(new Error('user left'));
        }),
    });
    await expect(transport.send({ ...GET, signal: controller.signal })).rejects.toThrow('user left');
    expect(served.requests).toHaveLength(1);
  });

  it('GIVEN a breaker that opens on the second failure THEN the third attempt is refused without a request', async () => {
    // A 503 (an empty 500 would be the anti-bot block, which stops the call sooner: anti-bot-block.test.ts).
    const served = await serve(empty(503));
    const breaker = createCircuitBreaker({ site: 'test', failureThreshold: 2 });
    const { transport } = transportFor(served, { breaker });
    const error = await transport.send(GET).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'circuit-open' });
    expect(served.requests).toHaveLength(2);
  });

  it('GIVEN a debug logger THEN each attempt is logged with method, redacted path, status, ms and attempt', async () => {
    const served = await serve(empty(503), json(200, {}));
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'debug', secrets: [KEY], destination });
    const { transport } = transportFor(served, { logger, redact: (t) => t });
    await transport.send(GET);
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries.map((e) => [e.status, e.attempt, e.method])).toEqual([
      [503, 1, 'GET'],
      [200, 2, 'GET'],
    ]);
    expect(typeof entries[0]?.ms).toBe('number');
    expect(lines.join('\n')).not.toContain(KEY);
  });
});

describe('transport: connections, deadline, User-Agent', () => {
  it('GIVEN sequential requests THEN they reuse keep-alive connections instead of opening one each', async () => {
    const served = await serve(json(200, {}));
    const { transport } = transportFor(served);
    for (let i = 0; i < 10; i += 1) await transport.send(GET);
    // Client ports tell the TCP connections apart. undici may open a second one while the first is being
    // released, but ten requests never need more than two.
    const connections = new Set(served.requests.map((r) => r.remotePort)).size;
    expect(served.requests).toHaveLength(10);
    expect(connections).toBeLessThanOrEqual(2);
    expect(served.requests.every((r) => r.headers.connection !== 'close')).toBe(true);
    await transport.close();
  });

  it('GIVEN a hanging server and an overall deadline shorter than the attempt timeout THEN the call ends at the deadline', async () => {
    const served = await serve(() => undefined);
    const { transport } = transportFor(served, { attemptTimeoutMs: 10_000, deadlineMs: 150 });
    const started = performance.now();
    const error = await transport.send(GET).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(error).toMatchObject({ reason: 'timeout' });
    expect(elapsed).toBeLessThan(2_000);
    await transport.close();
  });

  // The bot's own, versioned User-Agent (from its package.json) is test/app/user-agent.test.ts's.
  it('GIVEN no User-Agent option THEN the library default names the project and what it is', async () => {
    expect(DEFAULT_USER_AGENT).toBe('philomena-bot (Discord bot for Philomena image boards)');
    expect(DEFAULT_USER_AGENT).not.toMatch(/github/i);
    const served = await serve(json(200, {}));
    const { transport } = transportFor(served);
    await transport.send(GET);
    expect(served.requests[0]?.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
    await transport.close();
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['5', 5000],
    ['0', 0],
    ['1.5', 1500],
    ['soon', undefined],
    [undefined, undefined],
  ])('GIVEN %s THEN %s ms', (value, expected) => {
    expect(parseRetryAfter(value, 0)).toBe(expected);
  });

  it('GIVEN an HTTP date THEN the ms until it, never negative', () => {
    const now = Date.parse('2026-07-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jul 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 01 Jul 2026 00:00:00 GMT', now + 5000)).toBe(0);
  });
});
