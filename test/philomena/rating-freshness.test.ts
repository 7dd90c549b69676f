/**
 * A re-rated image must not stay visible where only safe images may show: the rating is the
 * tag list the board sent, and new uploads are often mis-rated and corrected within minutes. Answers that
 * hold an image uploaded in the last 24 h are cached for 1 minute; older images keep the normal lifetimes.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Keyv from 'keyv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createResponseCache, LIFETIMES } from '../../src/philomena/cache.js';
import { createPhilomenaClient } from '../../src/philomena/client/index.js';
import { resolveSite } from '../../src/philomena/sites.js';
import { isSafe } from '../../src/philomena/tags.js';
import { philomenaFixture } from '../support/shared.js';

const HOUR = 3_600_000;
const FIXTURE = JSON.parse(
  readFileSync(philomenaFixture('derpibooru_2020_image_2028858_show_response.json'), 'utf8'),
) as { image: Record<string, unknown> & { tags: string[] } };

let server: http.Server;
let calls: string[];
/** What the board says right now: the rating tag and the upload time of the image. */
let board: { rating: string; uploaded: number };
let wall: number;

function imageJson(): Record<string, unknown> {
  const tags = FIXTURE.image.tags.filter((t) => t !== 'safe').concat(board.rating);
  const at = new Date(board.uploaded).toISOString();
  return { ...FIXTURE.image, tags, created_at: at, first_seen_at: at };
}

beforeEach(async () => {
  calls = [];
  wall = Date.parse('2026-11-24T12:00:00Z');
  board = { rating: 'safe', uploaded: wall - HOUR };
  server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    calls.push(path);
    res.writeHead(200, { 'content-type': 'application/json' });
    if (path.endsWith('/search/images') || path.endsWith('/search/reverse'))
      res.end(JSON.stringify({ images: [imageJson()], total: 1 }));
    else res.end(JSON.stringify({ image: imageJson() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client() {
  const now = () => wall;
  return createPhilomenaClient({
    site: resolveSite(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    cache: createResponseCache({ store: new Keyv(), now }),
    wallNow: now,
  });
}

type Read = (c: ReturnType<typeof client>) => Promise<readonly string[]>;
const READS: readonly { name: string; read: Read; normal: number }[] = [
  {
    name: 'an image by id',
    read: async (c) => {
      const image = await c.image(2028858);
      return image.kind === 'image' ? image.tags : [];
    },
    normal: LIFETIMES.image,
  },
  {
    name: 'the featured image',
    read: async (c) => {
      const image = await c.featuredImage();
      return image.kind === 'image' ? image.tags : [];
    },
    normal: LIFETIMES.featured,
  },
  {
    name: 'an image search',
    read: async (c) => (await c.searchImages({ q: 'pony' })).items[0]?.tags ?? [],
    normal: LIFETIMES.imageSearch,
  },
  {
    name: 'a reverse search',
    read: async (c) => {
      const first = (await c.reverseSearch({ url: 'https://example.test/a.png' })).items[0];
      return first?.kind === 'image' ? first.tags : [];
    },
    normal: LIFETIMES.reverseSearch,
  },
];

describe('the rating of a new upload is at most a minute old', () => {
  it.each(READS)(
    'GIVEN $name uploaded an hour ago and re-rated explicit THEN the cached safe rating is used for at most 60 s',
    async ({ read }) => {
      const c = client();
      expect(isSafe(await read(c))).toBe(true);
      board.rating = 'explicit';
      wall += 59_000;
      expect(isSafe(await read(c))).toBe(true);
      expect(calls).toHaveLength(1);
      wall += 2_000;
      expect(isSafe(await read(c))).toBe(false);
      expect(calls).toHaveLength(2);
      await c.close();
    },
  );

  it.each(READS)(
    'GIVEN $name uploaded a month ago THEN it keeps its normal lifetime',
    async ({ read, normal }) => {
      board.uploaded = wall - 30 * 24 * HOUR;
      const c = client();
      await read(c);
      wall += normal - 1_000;
      await read(c);
      expect(calls).toHaveLength(1);
      wall += 2_000;
      await read(c);
      expect(calls).toHaveLength(2);
      await c.close();
    },
  );

  it('GIVEN an image uploaded 23 h ago THEN it still counts as new; at 25 h it does not', async () => {
    board.uploaded = wall - 23 * HOUR;
    let c = client();
    await c.image(2028858);
    wall += 61_000;
    await c.image(2028858);
    expect(calls).toHaveLength(2);
    await c.close();
    calls = [];
    board.uploaded = wall - 25 * HOUR;
    c = client();
    await c.image(2028858);
    wall += 61_000;
    await c.image(2028858);
    expect(calls).toHaveLength(1);
    await c.close();
  });
});
