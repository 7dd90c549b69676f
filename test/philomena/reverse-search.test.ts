/**
 * Reverse search: by URL, the board's wait on a member's URL is not the site's failure;
 * by file, the bytes are streamed to the board from their source, opened only once the budget lets the
 * request go, and a failing source is the caller's error, not the site's.
 */
import { useFakeBoard } from '../support/board.js';
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { IDS, type FakePhilomena } from '../fakes/philomena/index.js';
import {
  BOARD_UPLOAD_MAX_BYTES,
  createPhilomenaClient,
  type PhilomenaClientOptions,
} from '../../src/philomena/client/index.js';
import { createRequestBudget } from '../../src/philomena/budget/index.js';
import type { ReverseSearchUpload } from '../../src/philomena/client/types.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';
import { SiteUnavailableError } from '../../src/philomena/errors.js';
import { closeServers, json, multipartFile, serve, type Served } from './local-server.js';
import { fakeClock, flush } from './timer-clock.js';

let booru: FakePhilomena;
let site: Site;
useFakeBoard((started, startedSite) => {
  booru = started;
  site = startedSite;
});
afterEach(closeServers);

function client(options: Partial<PhilomenaClientOptions> = {}) {
  return createPhilomenaClient({
    site,
    transport: { baseDelayMs: 1 },
    sleep: async () => undefined,
    ...options,
  });
}

const reverseCalls = () => booru.requests.filter((r) => r.path === '/api/v1/json/search/reverse');
const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** Deterministic bytes: the same every run. */
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

/** An upload of `data` whose opens are counted. */
function uploadOf(data: Uint8Array, extra: Partial<ReverseSearchUpload> = {}) {
  let opens = 0;
  const upload: ReverseSearchUpload = {
    filename: 'pic.png',
    contentType: 'image/png',
    key: `https://cdn.example.test/attachments/1/${sha256(data).slice(0, 12)}/pic.png`,
    maxBytes: 25 * 1024 * 1024,
    open() {
      opens += 1;
      return Promise.resolve(chunksOf(data, 16 * 1024));
    },
    ...extra,
  };
  return { upload, opens: () => opens };
}

/** A board that reads the multipart upload whole and remembers the file part. */
async function readingBoard(): Promise<{ served: Served; site: Site }> {
  const served = await serve(json(200, { images: [], interactions: [], total: 0 }));
  return { served, site: resolveSite(served.url) };
}

describe('reverse search by URL (M3)', () => {
  it("GIVEN a board that hangs on members' URLs THEN two searches open no breaker, each is one attempt, and /images/1 still works", async () => {
    booru.inject({ fault: { kind: 'hang' }, path: '/api/v1/json/search/reverse' });
    // The breaker's numbers: 5 failures open it, and each search used to be 3 counted attempts.
    const c = client({ transport: { baseDelayMs: 1, reverseUrlTimeoutMs: 50 } });
    for (const n of [1, 2]) {
      const error = await c
        .reverseSearch({ url: `https://attacker.example.test/slow.png?n=${n}` })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SiteUnavailableError);
      expect(error).toMatchObject({ reason: 'timeout' });
    }
    // The board records a request once it has read it, which for one the client gave up on can come a
    // little after the client's error: wait for it here rather than have it land in the next test.
    await expect.poll(() => reverseCalls().length).toBe(2);
    expect(c.stats().breaker).toBe('closed');
    await expect(c.image(IDS.safe)).resolves.toMatchObject({ id: IDS.safe });
    await c.close();
  });

  it('GIVEN many slow URLs THEN the breaker stays closed however many there are', async () => {
    booru.inject({ fault: { kind: 'hang' }, path: '/api/v1/json/search/reverse' });
    const c = client({ transport: { reverseUrlTimeoutMs: 20 }, breaker: { failureThreshold: 1 } });
    for (let n = 0; n < 4; n += 1) {
      await c.reverseSearch({ url: `https://attacker.example.test/${n}.png` }).catch(() => undefined);
    }
    expect(c.stats().breaker).toBe('closed');
    await expect.poll(() => reverseCalls().length).toBe(4);
    await c.close();
  });

  it("GIVEN the board answers a URL search with a 5xx THEN that is the board's failure: counted, and not retried", async () => {
    booru.inject({ fault: { kind: 'empty-500' }, path: '/api/v1/json/search/reverse' });
    const c = client({ breaker: { failureThreshold: 1 } });
    await expect(c.reverseSearch({ url: 'https://example.test/a.png' })).rejects.toMatchObject({
      reason: 'server-error',
    });
    expect(reverseCalls()).toHaveLength(1);
    expect(c.stats().breaker).toBe('open');
    await c.close();
  });

  it('GIVEN a board slower than a plain attempt timeout but within the reverse URL timeout THEN the search succeeds', async () => {
    booru.inject({ fault: { kind: 'latency', ms: 80 }, path: '/api/v1/json/search/reverse', times: 1 });
    const c = client({ transport: { attemptTimeoutMs: 20, reverseUrlTimeoutMs: 10_000 } });
    await expect(c.reverseSearch({ url: 'https://example.test/a.png' })).resolves.toMatchObject({ total: 0 });
    await c.close();
  });
});

describe("reverse search by file: the board's time is the member's (N4)", () => {
  it('GIVEN a board that hangs on file searches THEN each search is one attempt, none is counted, and the site still answers', async () => {
    booru.inject({ fault: { kind: 'hang' }, path: '/api/v1/json/search/reverse' });
    const c = client({
      transport: { baseDelayMs: 1, reverseFileTimeoutMs: 50 },
      breaker: { failureThreshold: 1 },
    });
    const { upload } = uploadOf(bytes(5_000, 3));
    for (const search of [
      () => c.reverseSearch({ upload }),
      () => c.reverseSearch({ file: bytes(4_000, 4), filename: 'b.png' }),
    ]) {
      await expect(search()).rejects.toMatchObject({ reason: 'timeout' });
    }
    // The board records a request once it has read it, which for one the client gave up on can come a
    // little after the client's error: wait for it here rather than have it land in the next test.
    await expect.poll(() => reverseCalls().length).toBe(2);
    expect(c.stats().breaker).toBe('closed');
    await expect(c.image(IDS.safe)).resolves.toMatchObject({ id: IDS.safe });
    await c.close();
  });

  it('GIVEN a board slower than a plain attempt but within the file timeout THEN the file search succeeds', async () => {
    booru.inject({ fault: { kind: 'latency', ms: 80 }, path: '/api/v1/json/search/reverse', times: 1 });
    const c = client({ transport: { attemptTimeoutMs: 20, reverseFileTimeoutMs: 10_000 } });
    await expect(c.reverseSearch({ file: bytes(2_000, 5), filename: 'c.png' })).resolves.toMatchObject({
      total: 0,
    });
    expect(reverseCalls()).toHaveLength(1);
    await c.close();
  });

  it("GIVEN the board answers a file search with a 503 THEN that is the board's failure: counted, and the file is not sent again", async () => {
    booru.inject({ fault: { kind: 'status', status: 503 }, path: '/api/v1/json/search/reverse' });
    const c = client({ breaker: { failureThreshold: 1 } });
    const { upload, opens } = uploadOf(bytes(3_000, 6));
    await expect(c.reverseSearch({ upload })).rejects.toMatchObject({ reason: 'server-error', status: 503 });
    expect(reverseCalls()).toHaveLength(1);
    expect(opens()).toBe(1);
    expect(c.stats().breaker).toBe('open');
    await c.close();
  });
});

describe('reverse search by file, streamed (M4)', () => {
  it('GIVEN an upload THEN its bytes reach the board intact in the image[image] part, chunked', async () => {
    const board = await readingBoard();
    const data = bytes(1_000_003);
    const { upload, opens } = uploadOf(data);
    const c = client({ site: board.site });
    await c.reverseSearch({ upload });
    const [call] = board.served.requests;
    expect(call?.headers['transfer-encoding']).toBe('chunked');
    const part = multipartFile(
      await (call?.body ?? Promise.resolve(Buffer.alloc(0))),
      call?.headers['content-type'],
      'image[image]',
    );
    expect(part).toMatchObject({ filename: 'pic.png', contentType: 'image/png' });
    expect(sha256(part?.data ?? Buffer.alloc(0))).toBe(sha256(data));
    expect(opens()).toBe(1);
    await c.close();
  });

  it('GIVEN an upload with its size THEN it goes with a Content-Length instead', async () => {
    const board = await readingBoard();
    const data = bytes(70_000, 5);
    const c = client({ site: board.site });
    await c.reverseSearch({ upload: uploadOf(data, { size: data.byteLength }).upload });
    const [call] = board.served.requests;
    expect(call?.headers['transfer-encoding']).toBeUndefined();
    const raw = await (call?.body ?? Promise.resolve(Buffer.alloc(0)));
    expect(call?.headers['content-length']).toBe(String(raw.byteLength));
    expect(
      sha256(multipartFile(raw, call?.headers['content-type'], 'image[image]')?.data ?? Buffer.alloc(0)),
    ).toBe(sha256(data));
    await c.close();
  });

  it('GIVEN the file form THEN it is streamed too, with a Content-Length, and arrives intact', async () => {
    const board = await readingBoard();
    const file = bytes(333_333, 9);
    const c = client({ site: board.site });
    await c.reverseSearch({ file, filename: 'x.jpg', contentType: 'image/jpeg' });
    const [call] = board.served.requests;
    expect(call?.headers['transfer-encoding']).toBeUndefined();
    const raw = await (call?.body ?? Promise.resolve(Buffer.alloc(0)));
    expect(call?.headers['content-length']).toBe(String(raw.byteLength));
    const part = multipartFile(raw, call?.headers['content-type'], 'image[image]');
    expect(part).toMatchObject({ filename: 'x.jpg', contentType: 'image/jpeg' });
    expect(sha256(part?.data ?? Buffer.alloc(0))).toBe(sha256(file));
    await c.close();
  });

  it('GIVEN the local Philomena THEN a chunked upload of an image file finds that image', async () => {
    const image = await client().image(IDS.safe);
    if (image.kind !== 'image') throw new Error('expected a visible image');
    const file = new Uint8Array(await (await request(image.representations.full)).body.arrayBuffer());
    const c = client();
    const result = await c.reverseSearch({ upload: uploadOf(file).upload });
    expect(result.items.map((i) => i.id)).toContain(IDS.safe);
    expect(reverseCalls()[0]?.headers['transfer-encoding']).toBe('chunked');
    await c.close();
  });

  it('GIVEN a full budget THEN open() is called only once a slot is granted', async () => {
    const board = await readingBoard();
    const clock = fakeClock();
    const budget = createRequestBudget({
      site: 'local',
      overall: { limit: 1, windowMs: 1000 },
      ...clock,
    });
    (await budget.acquire('/api/v1/json/images/1')).release();
    const { upload, opens } = uploadOf(bytes(5000));
    const c = client({ site: board.site, budget });
    const searching = c.reverseSearch({ upload });
    await flush();
    expect(budget.stats().queued).toBe(1);
    expect(opens()).toBe(0);
    await clock.advance(1000);
    await searching;
    expect(opens()).toBe(1);
    await c.close();
  });

  it.each([
    ['open() rejects', 'open'],
    ['the download breaks midway', 'stream'],
  ] as const)(
    'GIVEN %s THEN the caller gets that error, nothing is retried or counted, and nothing is cached',
    async (_name, where) => {
      const board = await readingBoard();
      const failure = new Error('the download from Discord failed');
      let opens = 0;
      const upload: ReverseSearchUpload = {
        filename: 'pic.png',
        key: 'https://cdn.example.test/attachments/1/2/pic.png',
        maxBytes: 1_000_000,
        open() {
          opens += 1;
          if (where === 'open') return Promise.reject(failure);
          return Promise.resolve(
            (async function* () {
              yield bytes(40_000);
              await flush();
              throw failure;
            })(),
          );
        },
      };
      const c = client({ site: board.site, breaker: { failureThreshold: 1 } });
      await expect(c.reverseSearch({ upload })).rejects.toBe(failure);
      expect(opens).toBe(1);
      expect(c.stats().breaker).toBe('closed');
      // Not cached: the next search opens the file again.
      await expect(c.reverseSearch({ upload })).rejects.toBe(failure);
      expect(opens).toBe(2);
      await c.close();
    },
  );

  it('GIVEN a file past maxBytes THEN the stream is cut with a RangeError, and the site is not blamed', async () => {
    const board = await readingBoard();
    const c = client({ site: board.site, breaker: { failureThreshold: 1 } });
    const { upload } = uploadOf(bytes(100_000), { maxBytes: 64_000 });
    await expect(c.reverseSearch({ upload })).rejects.toBeInstanceOf(RangeError);
    expect(c.stats().breaker).toBe('closed');
    await c.close();
  });

  it('GIVEN two searches of one upload key at once, then a third THEN one board request and one open; the third is cached', async () => {
    const board = await readingBoard();
    const { upload, opens } = uploadOf(bytes(10_000));
    const c = client({ site: board.site });
    await Promise.all([c.reverseSearch({ upload }), c.reverseSearch({ upload })]);
    await c.reverseSearch({ upload });
    expect(board.served.requests).toHaveLength(1);
    expect(opens()).toBe(1);
    await c.close();
  });

  it.each([
    ['an empty key', { key: '' }],
    ['maxBytes 0', { maxBytes: 0 }],
    ['a size over maxBytes', { size: 2000, maxBytes: 1000 }],
  ])('GIVEN %s THEN RangeError before anything is opened or sent', async (_name, extra) => {
    const { upload, opens } = uploadOf(bytes(10), extra);
    await expect(client().reverseSearch({ upload })).rejects.toBeInstanceOf(RangeError);
    expect(opens()).toBe(0);
    expect(booru.requests).toHaveLength(0);
  });

  it("GIVEN the board's upload limit THEN it is Philomena's 125 MiB image_size bound", () => {
    expect(BOARD_UPLOAD_MAX_BYTES).toBe(131_072_000);
  });
});
