/**
 * The local Philomena's runtime images, what feeds are built on: `booru.addImage` puts a new upload on the
 * board (next id, now, searchable with the board's query syntax, filters and sorting, files served),
 * `booru.updateImage` changes it the way the real board does after an upload, and `reset()` takes it
 * away again. Over plain HTTP on 127.0.0.1, like ../philomena.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { imageResponseSchema, imagesResponseSchema } from '../../../src/philomena/schemas.js';
import { FILTER_IDS, IDS, OWNER, sha512, startFakePhilomena, tagSlugOf } from './index.js';
import type { FakePhilomena } from './index.js';

// Response bodies are JSON of many shapes; the assertions below say what each must hold.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

let booru: FakePhilomena;

beforeAll(async () => {
  booru = await startFakePhilomena();
});
afterEach(() => booru.reset());
afterAll(async () => {
  await booru.close();
});

async function get(path: string, query: Record<string, string | number> = {}): Promise<Response> {
  const url = new URL(path.startsWith('http') ? path : `${booru.url}/api/v1/json${path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  return fetch(url);
}

async function getJson(path: string, query: Record<string, string | number> = {}): Promise<Loose> {
  const res = await get(path, query);
  expect(res.status, `${path} ${JSON.stringify(query)}`).toBe(200);
  return res.json();
}

async function search(
  q: string,
  extra: Record<string, string | number> = {},
): Promise<{ ids: number[]; total: number; body: Loose }> {
  const body = await getJson('/search/images', { q, ...extra });
  return { ids: (body.images as { id: number }[]).map((i) => i.id), total: body.total as number, body };
}

/** The highest id search can see (Everything filter), before anything is added. */
async function newestId(): Promise<number> {
  const { ids } = await search('id.gte:0', {
    sf: 'id',
    sd: 'desc',
    per_page: 1,
    filter_id: FILTER_IDS.everything,
  });
  return ids[0] ?? 0;
}

describe('booru.addImage', () => {
  it('GIVEN a new image THEN it gets the next id above every image, now as its times, and answers at its id', async () => {
    const before = await newestId();
    const started = Date.now();
    const id = booru.addImage({
      tags: ['safe', 'pony', 'artist:feed artist'],
      description: 'Fresh from the feed',
      sourceUrls: ['https://example.com/source'],
      uploader: OWNER,
    });
    expect(id).toBeGreaterThan(before);
    expect(id).toBeGreaterThan(IDS.fixture2020);
    expect(booru.addImage({ tags: ['safe'] })).toBe(id + 1);

    const body = await getJson(`/images/${id}`);
    expect(imageResponseSchema.safeParse(body).success).toBe(true);
    const image = body.image;
    expect(image).toMatchObject({
      id,
      description: 'Fresh from the feed',
      source_urls: ['https://example.com/source'],
      source_url: 'https://example.com/source',
      uploader: OWNER.name,
      uploader_id: OWNER.id,
      thumbnails_generated: true,
      processed: true,
      format: 'png',
      spoilered: false,
      upvotes: 0,
      faves: 0,
    });
    expect(image.tags).toEqual(['safe', 'pony', 'artist:feed artist']);
    expect(image.first_seen_at).toBe(image.created_at);
    expect(Date.parse(image.created_at)).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
    expect(Date.parse(image.created_at)).toBeLessThanOrEqual(Date.now());
    // A new tag becomes a real tag, with an id in tag_ids.
    expect(image.tag_ids).not.toContain(0);
    const tag = await getJson(`/tags/${encodeURIComponent(tagSlugOf('artist:feed artist'))}`);
    expect(tag.tag).toMatchObject({ name: 'artist:feed artist', images: 1 });
  });

  it('GIVEN an added image THEN its files are served like any image and hash to orig_sha512_hash', async () => {
    const id = booru.addImage({ tags: ['safe', 'pony'] });
    const image = (await getJson(`/images/${id}`)).image;
    for (const url of [image.representations.full, image.representations.thumb, image.view_url]) {
      const res = await get(url as string);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
    }
    const full = Buffer.from(await (await get(image.representations.full as string)).arrayBuffer());
    expect(sha512(full)).toBe(image.orig_sha512_hash);
    // Its own bytes: no other image shares its hash.
    expect(image.orig_sha512_hash).not.toBe((await getJson(`/images/${IDS.safe}`)).image.orig_sha512_hash);
  });

  it('GIVEN three added images, one explicit THEN id.gt:<before> sorted by id asc lists them in order, and ", safe" leaves the explicit one out', async () => {
    const before = await newestId();
    const a = booru.addImage({ tags: ['safe', 'pony'] });
    const b = booru.addImage({ tags: ['explicit', 'pony'] });
    const c = booru.addImage({ tags: ['safe', 'unicorn'] });
    expect([b - a, c - b]).toEqual([1, 1]);
    const q = `id.gt:${before}`;
    const everything = { sf: 'id', sd: 'asc', per_page: 50, filter_id: FILTER_IDS.everything };

    const all = await search(q, everything);
    expect(all.ids).toEqual([a, b, c]);
    expect(all.total).toBe(3);
    expect(imagesResponseSchema.safeParse(all.body).success).toBe(true);

    const safe = await search(`(${q}), safe`, everything);
    expect(safe.ids).toEqual([a, c]);
    expect(safe.total).toBe(2);

    expect((await search(`id.gte:${b}`, everything)).ids).toEqual([b, c]);
    expect((await search(`id.gt:${c}`, everything)).ids).toEqual([]);
    expect((await search(q, { ...everything, sd: 'desc' })).ids).toEqual([c, b, a]);
    // The anonymous Default filter hides explicit images by itself.
    expect((await search(q, { sf: 'id', sd: 'asc' })).ids).toEqual([a, c]);
    // Default order (first_seen_at desc; same second, so the id decides).
    expect((await search(q, { filter_id: FILTER_IDS.everything })).ids).toEqual([c, b, a]);
  });

  it('GIVEN more new images than a page THEN per_page goes up to 50, pages follow in id order and total counts them all', async () => {
    const before = await newestId();
    const ids = Array.from({ length: 53 }, (_, i) => booru.addImage({ tags: ['safe', `feed ${i}`] }));
    const query = { sf: 'id', sd: 'asc', filter_id: FILTER_IDS.everything };
    const first = await search(`id.gt:${before}`, { ...query, per_page: 50 });
    expect(first.ids).toEqual(ids.slice(0, 50));
    expect(first.total).toBe(53);
    const capped = await search(`id.gt:${before}`, { ...query, per_page: 100 });
    expect(capped.ids).toHaveLength(50);
    const second = await search(`id.gt:${before}`, { ...query, per_page: 50, page: 2 });
    expect(second.ids).toEqual(ids.slice(50));
    expect(second.total).toBe(53);
    // A poller that remembers the last id it saw gets the rest with the next query.
    const last = first.ids.at(-1) ?? 0;
    expect((await search(`id.gt:${last}`, { ...query, per_page: 50 })).ids).toEqual(ids.slice(50));
  });

  it('GIVEN a time THEN created_at and first_seen_at are that time and the image sorts by it', async () => {
    const at = new Date('2024-05-06T07:08:09Z');
    const id = booru.addImage({ tags: ['safe', 'backdated'], at });
    const image = (await getJson(`/images/${id}`)).image;
    expect(image).toMatchObject({
      created_at: '2024-05-06T07:08:09Z',
      first_seen_at: '2024-05-06T07:08:09Z',
    });
    expect(image.representations.full).toContain(`/img/view/2024/5/6/${id}.png`);
    const found = await search('created_at:2024-05-06', { filter_id: FILTER_IDS.everything });
    expect(found.ids).toContain(id);
    expect((await get(image.representations.full as string)).status).toBe(200);
  });

  it('GIVEN aliases and implications THEN an added image carries the targets and the implied tags, as an upload does', async () => {
    const id = booru.addImage({ tags: ['Safe', ' littlepip ', 'pony', 'pony'] });
    const image = (await getJson(`/images/${id}`)).image;
    expect(image.tags).toEqual(['safe', 'oc:littlepip', 'fallout equestria', 'oc', 'pony']);
    expect((await search('fallout equestria', { filter_id: FILTER_IDS.everything })).ids).toContain(id);
  });

  it('GIVEN no rating tag THEN addImage throws, and nothing is added', async () => {
    const before = await newestId();
    expect(() => booru.addImage({ tags: ['pony', 'unicorn'] })).toThrow(/rating tag/);
    expect(() => booru.addImage({ tags: ['safe'], at: 'not a time' })).toThrow(/not a time/);
    expect(booru.addImage({ tags: ['grimdark'] })).toBe(before + 1);
  });
});

describe('booru.updateImage', () => {
  it('GIVEN an image added without thumbnails THEN its files 404 and thumbnails_generated:true skips it until updateImage', async () => {
    const before = await newestId();
    const id = booru.addImage({ tags: ['safe', 'pony'], thumbnailsGenerated: false });
    const pending = (await getJson(`/images/${id}`)).image;
    expect(pending).toMatchObject({ thumbnails_generated: false, processed: false, intensities: null });
    expect((await get(pending.representations.full as string)).status).toBe(404);
    expect((await get(pending.representations.thumb as string)).status).toBe(404);
    const q = `id.gt:${before}, thumbnails_generated:true`;
    expect((await search(q, { filter_id: FILTER_IDS.everything })).ids).toEqual([]);

    booru.updateImage(id, { thumbnailsGenerated: true });
    const ready = (await getJson(`/images/${id}`)).image;
    expect(ready).toMatchObject({ thumbnails_generated: true, processed: true });
    expect(ready.intensities).not.toBeNull();
    expect((await get(ready.representations.full as string)).status).toBe(200);
    expect((await get(ready.representations.thumb as string)).status).toBe(200);
    expect((await search(q, { filter_id: FILTER_IDS.everything })).ids).toEqual([id]);
  });

  it('GIVEN a re-rating to explicit THEN ", safe" and the Default filter leave it out; a new description is searchable', async () => {
    const before = await newestId();
    const id = booru.addImage({ tags: ['safe', 'pony'], description: 'first words' });
    const q = `(id.gt:${before}), safe`;
    expect((await search(q, { filter_id: FILTER_IDS.everything })).ids).toEqual([id]);

    booru.updateImage(id, { tags: ['explicit', 'pony'], description: 'second thoughts' });
    const image = (await getJson(`/images/${id}`)).image;
    expect(image.tags).toEqual(['explicit', 'pony']);
    expect(image.description).toBe('second thoughts');
    expect(image.spoilered).toBe(true); // Default hides explicit: single images say spoilered.
    expect((await search(q, { filter_id: FILTER_IDS.everything })).ids).toEqual([]);
    expect((await search(`id.gt:${before}`)).ids).toEqual([]);
    expect(
      (await search(`id.gt:${before}, description:second`, { filter_id: FILTER_IDS.everything })).ids,
    ).toEqual([id]);
    expect((await search(`description:first`, { filter_id: FILTER_IDS.everything })).ids).not.toContain(id);
  });

  it('GIVEN a bad patch THEN updateImage throws: unknown id, or tags without a rating', () => {
    expect(() => booru.updateImage(999_999_999, { description: 'x' })).toThrow(/unknown image/);
    const id = booru.addImage({ tags: ['safe'] });
    expect(() => booru.updateImage(id, { tags: ['pony'] })).toThrow(/rating tag/);
  });
});

describe('booru.reset with runtime images', () => {
  it('GIVEN added images THEN reset drops them: 404 at their ids, gone from search, and ids start over', async () => {
    const before = await newestId();
    const id = booru.addImage({ tags: ['safe', 'pony'] });
    booru.addImage({ tags: ['safe', 'unicorn'] });
    expect((await search(`id.gt:${before}`, { filter_id: FILTER_IDS.everything })).total).toBe(2);
    const image = (await getJson(`/images/${id}`)).image;

    booru.reset();
    expect((await get(`/images/${id}`)).status).toBe(404);
    expect((await get(image.representations.full as string)).status).toBe(404);
    expect(await search(`id.gt:${before}`, { filter_id: FILTER_IDS.everything })).toMatchObject({
      ids: [],
      total: 0,
    });
    expect(booru.addImage({ tags: ['safe'] })).toBe(id);
  });
});
