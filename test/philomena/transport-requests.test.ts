/**
 * Per-request transport options (for requests whose time a member chooses): one attempt, timeouts that
 * are not the site's, a request's own timeout; streamed bodies (never held whole in memory): opened only
 * once the budget slot is granted, sent with a Content-Length or chunked, a failing source reaching the
 * caller untouched; the requester handed to the budget.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createCircuitBreaker } from '../../src/philomena/breaker.js';
import {
  createRequestBudget,
  type AcquireOptions,
  type RequestBudget,
} from '../../src/philomena/budget/index.js';
import {
  createTransport,
  multipartFileBody,
  type StreamedBody,
  type TransportOptions,
} from '../../src/philomena/transport.js';
import { SiteUnavailableError } from '../../src/philomena/errors.js';
import { closeServers, empty, hang, json, multipartFile, serve, type Served } from './local-server.js';
import { fakeClock, flush } from './timer-clock.js';

afterEach(closeServers);

const REVERSE = '/api/v1/json/search/reverse';
const POST = { method: 'POST' as const, path: REVERSE, idempotent: true };

function transportFor(served: Served, overrides: Partial<TransportOptions> = {}) {
  return createTransport({
    site: 'test',
    baseUrl: served.url,
    redact: (t) => t,
    random: () => 0.5,
    sleep: async () => undefined,
    ...overrides,
  });
}

/** Waits (for I/O, not for time) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** Deterministic bytes: the same every run, no two chunks alike. */
function bytes(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i += 1) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

async function* chunksOf(data: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.byteLength; at += size) yield data.subarray(at, at + size);
}

/** A body whose every `open` is counted. */
function countedBody(data: Uint8Array, options: { length?: boolean } = {}) {
  const opens: number[] = [];
  const body: StreamedBody = {
    contentType: 'application/octet-stream',
    ...(options.length === false ? {} : { length: data.byteLength }),
    open() {
      opens.push(opens.length + 1);
      return Promise.resolve(chunksOf(data, 16 * 1024));
    },
  };
  return { body, opens };
}

describe('transport: per-request options', () => {
  it('GIVEN retry: false and a 503 THEN one attempt, and the 503 is the error', async () => {
    const served = await serve(empty(503));
    const error = await transportFor(served)
      .send({ ...POST, retry: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'server-error', status: 503 });
    expect(served.requests).toHaveLength(1);
  });

  it('GIVEN countTimeouts: false THEN timeouts and resets leave the breaker closed, while a 5xx still counts', async () => {
    const hanging = await serve(hang);
    const breaker = createCircuitBreaker({ site: 'test', failureThreshold: 1 });
    const transport = transportFor(hanging, { breaker, attemptTimeoutMs: 30 });
    for (let i = 0; i < 3; i += 1) {
      const error = await transport.send({ ...POST, countTimeouts: false }).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: 'timeout' });
    }
    const resetting = await serve((req) => req.socket.destroy());
    const reset = transportFor(resetting, { breaker });
    await expect(reset.send({ ...POST, countTimeouts: false })).rejects.toMatchObject({ reason: 'network' });
    expect(breaker.state()).toBe('closed');

    const failing = await serve(empty(500));
    await expect(
      transportFor(failing, { breaker }).send({ ...POST, retry: false, countTimeouts: false }),
    ).rejects.toMatchObject({ reason: 'server-error' });
    expect(breaker.state()).toBe('open');
    await Promise.all([transport.close(), reset.close()]);
  });

  it('GIVEN a request timeoutMs THEN it replaces the attempt timeout, and stretches a shorter deadline', async () => {
    const served = await serve(hang);
    // Without the request's own timeout this would hang for a minute.
    const transport = transportFor(served, { attemptTimeoutMs: 60_000, deadlineMs: 60_000, maxAttempts: 1 });
    const error = await transport.send({ ...POST, timeoutMs: 40 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(error).toMatchObject({ reason: 'timeout' });
    expect((error as Error).message).toContain('40 ms');

    const late = await serve((req, res) => {
      req.resume();
      setTimeout(() => res.end('{}'), 50);
    });
    // The call's deadline (10 ms) is shorter than the request's own timeout: the request's wins.
    const short = transportFor(late, { deadlineMs: 10 });
    await expect(short.send({ ...POST, timeoutMs: 5_000 })).resolves.toMatchObject({ status: 200 });
    await Promise.all([transport.close(), short.close()]);
  });

  it('GIVEN a requester THEN the budget is asked with it', async () => {
    const served = await serve(json(200, {}));
    const seen: (AcquireOptions | undefined)[] = [];
    const real = createRequestBudget({ site: 'test' });
    const budget: RequestBudget = {
      acquire(path, options) {
        seen.push(options);
        return real.acquire(path, options);
      },
      stats: () => real.stats(),
    };
    const requester = { priority: 'unfurl', server: 'g1', member: 'm1' } as const;
    await transportFor(served, { budget }).send({ ...POST, requester });
    await transportFor(served, { budget }).send(POST);
    expect(seen[0]?.requester).toEqual(requester);
    expect(seen[1]?.requester).toBeUndefined();
  });
});

describe('transport: streamed bodies', () => {
  it('GIVEN a streamed body with a length THEN it goes with Content-Length, not chunked, and arrives intact', async () => {
    const served = await serve(json(200, {}));
    const data = bytes(300_000);
    const { body } = countedBody(data);
    await transportFor(served).send({ ...POST, body });
    const [request] = served.requests;
    expect(request?.headers['content-length']).toBe(String(data.byteLength));
    expect(request?.headers['transfer-encoding']).toBeUndefined();
    expect(sha256(await (request?.body ?? Promise.resolve(Buffer.alloc(0))))).toBe(sha256(data));
  });

  it('GIVEN a streamed body of unknown length THEN it goes chunked and arrives intact', async () => {
    const served = await serve(json(200, {}));
    const data = bytes(200_000, 7);
    const { body } = countedBody(data, { length: false });
    await transportFor(served).send({ ...POST, body });
    const [request] = served.requests;
    expect(request?.headers['transfer-encoding']).toBe('chunked');
    expect(request?.headers['content-length']).toBeUndefined();
    expect(sha256(await (request?.body ?? Promise.resolve(Buffer.alloc(0))))).toBe(sha256(data));
  });

  it('GIVEN a full budget THEN the body is opened only once the slot is granted, once per attempt', async () => {
    const served = await serve(empty(503), json(200, {}));
    const clock = fakeClock();
    const budget = createRequestBudget({ site: 'test', overall: { limit: 1, windowMs: 1000 }, ...clock });
    (await budget.acquire(REVERSE)).release();
    const { body, opens } = countedBody(bytes(1000));
    const sent = transportFor(served, { budget }).send({ ...POST, body });
    await flush();
    expect(budget.stats().queued).toBe(1);
    expect(opens).toEqual([]);
    await clock.advance(1000);
    // The 503 attempt releases its slot; the retry waits for the window again, and opens the body anew.
    await until(() => budget.stats().queued === 1 && budget.stats().inFlight === 0);
    expect(opens).toEqual([1]);
    await clock.advance(1000);
    await expect(sent).resolves.toMatchObject({ status: 200, attempts: 2 });
    expect(opens).toEqual([1, 2]);
    expect(served.requests).toHaveLength(2);
  });

  it.each([
    ['open() rejects', 'open'],
    ['the stream throws midway', 'stream'],
  ] as const)(
    'GIVEN %s THEN the caller gets that very error, no retry, and the breaker counts nothing',
    async (_name, where) => {
      const served = await serve(json(200, {}));
      const breaker = createCircuitBreaker({ site: 'test', failureThreshold: 1 });
      const failure = new Error('the download from Discord failed');
      let opens = 0;
      const body: StreamedBody = {
        contentType: 'application/octet-stream',
        open() {
          opens += 1;
          if (where === 'open') return Promise.reject(failure);
          return Promise.resolve(
            (async function* () {
              yield bytes(50_000);
              await flush();
              throw failure;
            })(),
          );
        },
      };
      const error = await transportFor(served, { breaker })
        .send({ ...POST, body })
        .catch((e: unknown) => e);
      expect(error).toBe(failure);
      expect(opens).toBe(1);
      expect(breaker.state()).toBe('closed');
      // Nothing reached the site when the source could not even be opened.
      if (where === 'open') expect(served.requests).toHaveLength(0);
    },
  );

  it('GIVEN a source that stalls THEN the attempt times out as the source’s fault: a TimeoutError, no retry, nothing counted', async () => {
    const served = await serve(json(200, {}));
    const breaker = createCircuitBreaker({ site: 'test', failureThreshold: 1 });
    let opens = 0;
    let sawAbort = false;
    const body: StreamedBody = {
      contentType: 'application/octet-stream',
      open(signal) {
        opens += 1;
        signal.addEventListener('abort', () => (sawAbort = true));
        return Promise.resolve(
          (async function* () {
            yield bytes(1000);
            // A download that never delivers its next chunk, and ignores the signal.
            await new Promise(() => undefined);
          })(),
        );
      },
    };
    const error = await transportFor(served, { breaker, attemptTimeoutMs: 40 })
      .send({ ...POST, body })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(opens).toBe(1);
    expect(sawAbort).toBe(true);
    expect(breaker.state()).toBe('closed');
  });
});

describe('multipartFileBody', () => {
  const fileOf = (data: Uint8Array, extra: object = {}) =>
    multipartFileBody({
      field: 'image[image]',
      filename: 'a "b"\r\nX-Evil: 1.png',
      contentType: 'image/png\r\nX-Evil: 1',
      open: () => Promise.resolve(chunksOf(data, 10_000)),
      ...extra,
    });

  it('GIVEN a file with a size THEN the part holds the bytes, the length is exact, and names cannot break the headers', async () => {
    const served = await serve(json(200, {}));
    const data = bytes(123_457, 3);
    const body = fileOf(data, { size: data.byteLength });
    await transportFor(served).send({ ...POST, body });
    const [request] = served.requests;
    const raw = await (request?.body ?? Promise.resolve(Buffer.alloc(0)));
    expect(raw.byteLength).toBe(body.length);
    expect(request?.headers['content-type']).toBe(body.contentType);
    const part = multipartFile(raw, request?.headers['content-type'], 'image[image]');
    expect(part?.filename).toBe('a %22b%22%0D%0AX-Evil: 1.png');
    expect(part?.contentType).toBe('image/pngX-Evil: 1');
    expect(sha256(part?.data ?? Buffer.alloc(0))).toBe(sha256(data));
    expect(raw.toString('latin1')).not.toMatch(/\r\nX-Evil/);
  });

  it.each([
    ['over maxBytes', { maxBytes: 50_000 }],
    ['longer than its size', { size: 60_000 }],
    ['shorter than its size', { size: 200_000 }],
  ])('GIVEN a file %s THEN a RangeError, and the breaker counts nothing', async (_name, extra) => {
    const served = await serve(json(200, {}));
    const breaker = createCircuitBreaker({ site: 'test', failureThreshold: 1 });
    const error = await transportFor(served, { breaker })
      .send({ ...POST, body: fileOf(bytes(100_000), extra) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect(breaker.state()).toBe('closed');
  });
});
