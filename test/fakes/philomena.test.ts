/**
 * The local Philomena, checked over plain HTTP (undici `request`), endpoint by endpoint and behaviour by
 * behaviour, against docs/board-behaviour.md. The project's zod schemas must also parse every
 * kind of answer, so the fake never drifts from what the client accepts.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FormData, request } from 'undici';
import {
  COMMENT_IDS,
  FAKE_KEY,
  FILTER_IDS,
  FORUM,
  GALLERY_IDS,
  IDS,
  POST_IDS,
  PROFILE_IDS,
  TAG_SLUGS,
  parseQuery,
  startFakePhilomena,
} from './philomena/index.js';
import type { FakePhilomena } from './philomena/index.js';
import {
  commentResponseSchema,
  commentsResponseSchema,
  filterResponseSchema,
  filtersResponseSchema,
  forumResponseSchema,
  forumsResponseSchema,
  galleriesResponseSchema,
  imageResponseSchema,
  imagesResponseSchema,
  oembedSchema,
  postResponseSchema,
  postsResponseSchema,
  submitImageResponseSchema,
  tagResponseSchema,
  tagsResponseSchema,
  topicResponseSchema,
  topicsResponseSchema,
  userResponseSchema,
} from '../../src/philomena/schemas.js';

// Response bodies are JSON of many shapes; the assertions below say what each must hold.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytes: Buffer;
  json: () => Loose;
}

let booru: FakePhilomena;

beforeAll(async () => {
  booru = await startFakePhilomena();
});
afterEach(() => booru.reset());
afterAll(async () => {
  await booru.close();
});

async function call(
  path: string,
  query: Record<string, string | number> = {},
  init: { method?: 'GET' | 'POST' | 'HEAD'; body?: string | FormData; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const url = new URL(path.startsWith('http') ? path : `${booru.url}${path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const res = await request(url, {
    method: init.method ?? 'GET',
    ...(init.body === undefined ? {} : { body: init.body }),
    ...(init.headers === undefined ? {} : { headers: init.headers }),
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  const text = bytes.toString('utf8');
  return { status: res.statusCode, headers: res.headers, text, bytes, json: () => JSON.parse(text) as Loose };
}

const api = (path: string, query: Record<string, string | number> = {}): Promise<Answer> =>
  call(`/api/v1/json${path}`, query);

async function searchIds(q: string, extra: Record<string, string | number> = {}): Promise<number[]> {
  const res = await api('/search/images', { q, per_page: 50, filter_id: FILTER_IDS.everything, ...extra });
  expect(res.status).toBe(200);
  return (res.json().images as { id: number }[]).map((i) => i.id);
}

async function allIds(q: string, extra: Record<string, string | number> = {}): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page += 1) {
    const res = await api('/search/images', {
      q,
      per_page: 50,
      page,
      filter_id: FILTER_IDS.everything,
      ...extra,
    });
    const batch = (res.json().images as { id: number }[]).map((i) => i.id);
    ids.push(...batch);
    if (batch.length < 50) return ids;
  }
}

// ---------------------------------------------------------------------------------------------------

describe('images', () => {
  it('GIVEN a safe image id THEN it answers 200 with the image, interactions and no-store JSON headers', async () => {
    const res = await api(`/images/${IDS.safe}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store, no-cache');
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.interactions).toEqual([]);
    expect(body.image).toMatchObject({
      id: IDS.safe,
      hidden_from_users: false,
      spoilered: false,
      format: 'png',
      mime_type: 'image/png',
      score: body.image.upvotes - body.image.downvotes,
      tag_count: body.image.tags.length,
    });
    expect(body.image.tags).toContain('safe');
    expect(body.image.representations.full).toBe(`${booru.url}/img/view/2023/3/1/${IDS.safe}.png`);
    expect(body.image.representations.thumb).toBe(`${booru.url}/img/2023/3/1/${IDS.safe}/thumb.png`);
    expect(body.image.view_url).toMatch(
      new RegExp(`^${booru.url}/img/view/2023/3/1/${IDS.safe}__safe_artist-colon-`),
    );
    expect(imageResponseSchema.safeParse(body).success).toBe(true);
  });

  it('GIVEN an image smaller than a thumbnail size THEN that representation points at full', async () => {
    const body = (await api(`/images/${IDS.fixtureFirst}`)).json();
    // 800x700: no large (1280x1024) or tall (1024x4096) version, but a medium (800x600) one.
    expect(body.image.representations.large).toMatch(/\/0\/full\.jpg$/);
    expect(body.image.representations.tall).toMatch(/\/0\/full\.jpg$/);
    expect(body.image.representations.medium).toMatch(/\/0\/medium\.jpg$/);
  });

  it('GIVEN an unknown id THEN Derpibooru style answers an empty 404 and upstream style {"error":"Not found"}', async () => {
    const derpi = await api('/images/999999');
    expect(derpi.status).toBe(404);
    expect(derpi.text).toBe('');
    expect(derpi.headers['cache-control']).toBe('no-store, no-cache');
    booru.setErrorStyle('upstream');
    const upstream = await api('/images/999999');
    expect(upstream.status).toBe(404);
    expect(upstream.json()).toEqual({ error: 'Not found' });
  });

  it('GIVEN a non-numeric id THEN it answers 400 {"error":"Bad Request"}', async () => {
    const res = await api('/images/abc');
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ error: 'Bad Request' });
  });

  it('GIVEN a deleted image THEN it answers 200 with a stub holding only the stub fields', async () => {
    const body = (await api(`/images/${IDS.deleted}`)).json();
    expect(Object.keys(body.image).sort()).toEqual(
      [
        'created_at',
        'deletion_reason',
        'duplicate_of',
        'first_seen_at',
        'hidden_from_users',
        'id',
        'updated_at',
      ].sort(),
    );
    expect(body.image.hidden_from_users).toBe(true);
    expect(body.image.deletion_reason).toMatch(/Rule/);
    expect(imageResponseSchema.safeParse(body).success).toBe(true);
  });

  it('GIVEN a merged image and a merge loop THEN duplicate_of points at the target, and the loop points back', async () => {
    expect((await api(`/images/${IDS.merged}`)).json().image).toMatchObject({
      hidden_from_users: true,
      duplicate_of: IDS.safe,
      deletion_reason: null,
    });
    expect((await api(`/images/${IDS.mergeLoopA}`)).json().image.duplicate_of).toBe(IDS.mergeLoopB);
    expect((await api(`/images/${IDS.mergeLoopB}`)).json().image.duplicate_of).toBe(IDS.mergeLoopA);
  });

  it('GIVEN the anonymous Default filter THEN single images are unfiltered but hidden/spoilered ones say spoilered', async () => {
    expect((await api(`/images/${IDS.explicit}`)).json().image.spoilered).toBe(true); // hidden by Default
    expect((await api(`/images/${IDS.questionable}`)).json().image.spoilered).toBe(true); // spoilered by Default
    expect((await api(`/images/${IDS.suggestive}`)).json().image.spoilered).toBe(false);
    const everything = await api(`/images/${IDS.explicit}`, { filter_id: FILTER_IDS.everything });
    expect(everything.json().image.spoilered).toBe(false);
  });

  it('GIVEN an unknown or inaccessible filter_id THEN the Default filter applies silently', async () => {
    for (const filterId of [123456789, FILTER_IDS.otherPrivate, FILTER_IDS.ownedPrivate]) {
      const res = await api(`/images/${IDS.explicit}`, { filter_id: filterId });
      expect(res.status).toBe(200);
      expect(res.json().image.spoilered).toBe(true);
      // The owner's filter hides "hidden test tag"; Default does not, so without the key it is not applied.
      expect((await api(`/images/${IDS.hiddenTagged}`, { filter_id: filterId })).json().image.spoilered).toBe(
        false,
      );
    }
  });

  it("GIVEN the key THEN the owner's filter applies, and their private filter is usable by id", async () => {
    const byDefault = await api(`/images/${IDS.hiddenTagged}`, { key: FAKE_KEY });
    expect(byDefault.json().image.spoilered).toBe(true);
    const explicitFilter = await api(`/images/${IDS.spoilerTagged}`, {
      key: FAKE_KEY,
      filter_id: FILTER_IDS.ownedPrivate,
    });
    expect(explicitFilter.json().image.spoilered).toBe(true);
    const everything = await api(`/images/${IDS.hiddenTagged}`, {
      key: FAKE_KEY,
      filter_id: FILTER_IDS.everything,
    });
    expect(everything.json().image.spoilered).toBe(false);
  });

  it('GIVEN an unknown key THEN the request runs anonymously instead of failing', async () => {
    const res = await api(`/images/${IDS.hiddenTagged}`, { key: 'not-a-key' });
    expect(res.status).toBe(200);
    expect(res.json().image.spoilered).toBe(false); // Default, not the owner's filter
  });

  it('GIVEN the featured image THEN it answers like /images/:id; with nothing featured THEN 404 in the style', async () => {
    const res = await api('/images/featured');
    expect(res.status).toBe(200);
    expect(res.json().image.id).toBe(IDS.featured);
    expect(res.json().interactions).toEqual([]);
    booru.setFeatured(IDS.questionable);
    expect((await api('/images/featured')).json().image).toMatchObject({
      id: IDS.questionable,
      spoilered: true,
    });
    booru.setFeatured(null);
    const none = await api('/images/featured');
    expect(none.status).toBe(404);
    expect(none.text).toBe('');
    booru.setErrorStyle('upstream');
    expect((await api('/images/featured')).json()).toEqual({ error: 'Not found' });
  });

  it('GIVEN a GIF THEN it has webm and mp4 representations that are served', async () => {
    const image = (await api(`/images/${IDS.animatedGif}`)).json().image;
    expect(image).toMatchObject({ format: 'gif', animated: true, duration: 2.5 });
    expect(image.representations.webm).toMatch(/\/full\.webm$/);
    expect(image.representations.mp4).toMatch(/\/full\.mp4$/);
    const webm = await call(image.representations.webm);
    expect(webm.status).toBe(200);
    expect(webm.headers['content-type']).toBe('video/webm');
  });

  it('GIVEN a WebM THEN every representation is .webm, with gif thumbnails and rendered.png also served', async () => {
    const image = (await api(`/images/${IDS.webm}`)).json().image;
    expect(image.mime_type).toBe('video/webm');
    for (const key of ['full', 'large', 'medium', 'small', 'tall', 'thumb', 'thumb_small', 'thumb_tiny']) {
      expect(image.representations[key]).toMatch(/\.webm$/);
    }
    const thumbGif = image.representations.thumb.replace(/\.webm$/, '.gif');
    const gif = await call(thumbGif);
    expect(gif.status).toBe(200);
    expect(gif.bytes.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    const rendered = await call(image.representations.thumb.replace(/thumb\.webm$/, 'rendered.png'));
    expect(rendered.status).toBe(200);
    expect(rendered.headers['content-type']).toBe('image/png');
    // Only thumbnail sizes have gif previews.
    expect((await call(image.representations.large.replace(/\.webm$/, '.gif'))).status).toBe(404);
  });

  it('GIVEN an SVG THEN representations are .png and the view URL is the .svg original', async () => {
    const image = (await api(`/images/${IDS.svg}`)).json().image;
    expect(image.mime_type).toBe('image/svg+xml');
    for (const url of Object.values(image.representations) as string[]) expect(url).toMatch(/\.png$/);
    expect(image.view_url).toMatch(/\.svg$/);
    const original = await call(image.view_url);
    expect(original.headers['content-type']).toBe('image/svg+xml');
    expect(createHash('sha512').update(original.bytes).digest('hex')).toBe(image.orig_sha512_hash);
  });

  it('GIVEN an image whose thumbnails are not generated THEN the flag is false and its files 404', async () => {
    const image = (await api(`/images/${IDS.thumbnailsPending}`)).json().image;
    expect(image).toMatchObject({ thumbnails_generated: false, processed: false, intensities: null });
    expect((await call(image.representations.thumb)).status).toBe(404);
    expect((await call(image.representations.full)).status).toBe(404);
  });

  it('GIVEN an old image THEN its URLs are protocol-relative or site-relative and its odd nulls are there', async () => {
    const image = (await api(`/images/${IDS.legacyUrls}`)).json().image;
    const urls = Object.values(image.representations) as string[];
    const host = new URL(booru.url).host;
    expect(urls.some((u) => u.startsWith(`//${host}/img/`))).toBe(true);
    expect(urls.some((u) => u.startsWith('/img/'))).toBe(true);
    expect(urls.every((u) => !u.startsWith('http'))).toBe(true);
    expect(image).toMatchObject({
      uploader: null,
      uploader_id: null,
      orig_sha512_hash: null,
      wilson_score: 0,
    });
    expect(Number.isInteger(image.wilson_score)).toBe(true);
    // The protocol-relative URL, completed with the fake's scheme, serves the file.
    const relative = urls.find((u) => u.startsWith('//')) as string;
    expect((await call(`http:${relative}`)).status).toBe(200);
  });

  it('GIVEN the 2020 fixture THEN timestamps have no zone and there is only source_url', async () => {
    const image = (await api(`/images/${IDS.fixture2020}`)).json().image;
    expect(image.created_at).toBe('2019-05-02T05:33:36');
    expect(image.source_urls).toBeUndefined();
    expect(image.source_url).toBe('https://twitter.com/KamDrawings/status/1123822106784010240');
    expect(imageResponseSchema.safeParse({ image }).success).toBe(true);
  });

  it('GIVEN images with credits, sources and hostile text THEN the data carries them verbatim', async () => {
    const multi = (await api(`/images/${IDS.multiCredit}`)).json().image;
    expect(multi.tags).toEqual(
      expect.arrayContaining([
        'artist:alpha artist',
        'artist:beta-artist',
        'colorist:color pony',
        'editor:edit pony',
        'prompter:prompt pony',
      ]),
    );
    const none = (await api(`/images/${IDS.noArtist}`)).json().image;
    expect(none.tags.filter((t: string) => /^(artist|colorist|editor|prompter|generator):/.test(t))).toEqual(
      [],
    );
    const sources = (await api(`/images/${IDS.manySources}`)).json().image;
    expect(sources.source_urls).toContain('http://insecure.example.net/gallery/113');
    expect(sources.source_url).toBe(sources.source_urls[0]);
    const empty = (await api(`/images/${IDS.noSources}`)).json().image;
    expect(empty).toMatchObject({ source_urls: [], source_url: '' });
    const hostile = (await api(`/images/${IDS.hostileText}`)).json().image;
    for (const s of ['@everyone', '@here', '<@123>', '<@&456>', '||spoiler||', '>>101']) {
      expect(hostile.description).toContain(s);
    }
    expect(hostile.description.length).toBeGreaterThan(4096);
    const noRating = (await api(`/images/${IDS.noRating}`)).json().image;
    expect(
      noRating.tags.some((t: string) => ['safe', 'suggestive', 'questionable', 'explicit'].includes(t)),
    ).toBe(false);
  });

  it('GIVEN any image THEN its tag_ids are the ids of its tags in the tag table', async () => {
    const image = (await api(`/images/${IDS.littlepip}`)).json().image;
    expect(image.tag_ids).toHaveLength(image.tags.length);
    for (const [index, name] of (image.tags as string[]).entries()) {
      const slug = name
        .replaceAll('-', '-dash-')
        .replaceAll(':', '-colon-')
        .replaceAll('.', '-dot-')
        .replaceAll(' ', '+');
      const tag = (await api(`/tags/${encodeURIComponent(slug)}`)).json().tag;
      expect(tag.id).toBe(image.tag_ids[index]);
    }
  });
});

describe('image files', () => {
  it('GIVEN an image THEN its full file is served with its mime type and hashes to orig_sha512_hash', async () => {
    for (const id of [IDS.safe, IDS.fixtureFirst, IDS.animatedGif, IDS.webm]) {
      const image = (await api(`/images/${id}`)).json().image;
      const file = await call(image.view_url);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toBe(image.mime_type);
      expect(createHash('sha512').update(file.bytes).digest('hex')).toBe(image.orig_sha512_hash);
      expect(image.sha512_hash).toBe(image.orig_sha512_hash);
    }
  });

  it('GIVEN two images THEN their files differ, and the same file is the same bytes every time', async () => {
    const a = await call((await api(`/images/${IDS.safe}`)).json().image.representations.thumb);
    const b = await call((await api(`/images/${IDS.suggestive}`)).json().image.representations.thumb);
    const again = await call((await api(`/images/${IDS.safe}`)).json().image.representations.thumb);
    expect(a.bytes.equals(b.bytes)).toBe(false);
    expect(a.bytes.equals(again.bytes)).toBe(true);
    expect(a.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('GIVEN a file path with the wrong date, id or size THEN it answers 404', async () => {
    expect((await call(`/img/2020/1/1/${IDS.safe}/thumb.png`)).status).toBe(404);
    expect((await call('/img/2023/3/1/999999/thumb.png')).status).toBe(404);
    expect((await call(`/img/2023/3/1/${IDS.safe}/enormous.png`)).status).toBe(404);
    expect((await call(`/img/view/2023/3/17/${IDS.deleted}.png`)).status).toBe(404);
  });
});

describe('image search', () => {
  it('GIVEN a missing or empty q THEN it answers 200 with no images and total 0', async () => {
    for (const query of [{}, { q: '' }, { q: '   ' }]) {
      const res = await api('/search/images', query);
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ images: [], interactions: [], total: 0 });
    }
  });

  it('GIVEN paging parameters THEN per_page defaults to 15 anonymously and is clamped to 1..50', async () => {
    const size = async (query: Record<string, string | number>): Promise<number> =>
      (await api('/search/images', { q: 'safe', ...query })).json().images.length;
    expect(await size({})).toBe(15);
    expect(await size({ key: FAKE_KEY })).toBe(25);
    expect(await size({ per_page: 100 })).toBe(50);
    expect(await size({ per_page: 0 })).toBe(1);
    expect(await size({ per_page: -5 })).toBe(1);
    expect(await size({ per_page: 'lots' })).toBe(15);
    expect(await size({ per_page: 7 })).toBe(7);
  });

  it('GIVEN a page past the end THEN the list is empty and total still exact; an empty page means 1', async () => {
    const first = (await api('/search/images', { q: 'safe', per_page: 10 })).json();
    expect(first.total).toBeGreaterThan(20);
    const past = (await api('/search/images', { q: 'safe', per_page: 10, page: 1000 })).json();
    expect(past).toMatchObject({ images: [], total: first.total });
    const blank = (await api('/search/images', { q: 'safe', per_page: 10, page: '' })).json();
    expect(blank.images.map((i: { id: number }) => i.id)).toEqual(
      first.images.map((i: { id: number }) => i.id),
    );
    const two = (await api('/search/images', { q: 'safe', per_page: 10, page: 2 })).json();
    expect(two.images[0].id).not.toBe(first.images[0].id);
  });

  it('GIVEN the Default filter THEN hidden images are left out and spoilered ones flagged', async () => {
    const res = (
      await api('/search/images', { q: 'artist:fake artist || artist:grim artist', per_page: 50 })
    ).json();
    const ids = res.images.map((i: { id: number }) => i.id);
    expect(ids).not.toContain(IDS.explicit);
    expect(ids).not.toContain(IDS.grotesque);
    expect(ids).toContain(IDS.questionable);
    const questionable = res.images.find((i: { id: number }) => i.id === IDS.questionable);
    expect(questionable.spoilered).toBe(true);
    expect(res.images.find((i: { id: number }) => i.id === IDS.safe).spoilered).toBe(false);
    const everything = await searchIds('artist:fake artist || artist:grim artist');
    expect(everything).toEqual(expect.arrayContaining([IDS.explicit, IDS.grotesque]));
  });

  it('GIVEN filters with complex strings THEN their clauses hide and spoiler too', async () => {
    const owner = (
      await api('/search/images', { q: 'pony', per_page: 50, key: FAKE_KEY, sf: 'score', sd: 'asc' })
    ).json();
    const ids = owner.images.map((i: { id: number }) => i.id);
    expect(ids).not.toContain(IDS.lowScore); // hidden_complex score.lte:-10
    expect(ids).not.toContain(IDS.hiddenTagged); // hidden tag id
    const pub = (
      await api('/search/images', { q: 'artist:grim artist', per_page: 50, filter_id: FILTER_IDS.public })
    ).json();
    const grim = pub.images.find((i: { id: number }) => i.id === IDS.grimdark);
    expect(grim.spoilered).toBe(true); // spoilered_complex: grimdark || semi-grimdark
    expect(pub.images.find((i: { id: number }) => i.id === IDS.grotesque).spoilered).toBe(false);
  });

  it('GIVEN deleted, merged and unapproved images THEN search never returns them', async () => {
    const ids = await allIds('safe');
    for (const id of [IDS.deleted, IDS.merged, IDS.mergeLoopA, IDS.mergeLoopB, IDS.unapproved]) {
      expect(ids).not.toContain(id);
    }
    expect((await api(`/images/${IDS.unapproved}`)).status).toBe(404);
    expect(ids).toContain(IDS.safe);
  });

  it('GIVEN the AND, OR and NOT spellings THEN they select the same images', async () => {
    const and = await allIds('safe, twilight sparkle');
    expect(and.length).toBeGreaterThan(2);
    expect(await allIds('safe AND twilight sparkle')).toEqual(and);
    expect(await allIds('safe && twilight sparkle')).toEqual(and);
    const or = await allIds('grimdark OR grotesque');
    expect(await allIds('grimdark || grotesque')).toEqual(or);
    expect(or).toEqual(expect.arrayContaining([IDS.grimdark, IDS.grotesque, IDS.questionableGrimdark]));
    const not = await allIds('artist:grim artist, -grimdark');
    expect(await allIds('artist:grim artist, !grimdark')).toEqual(not);
    expect(await allIds('artist:grim artist AND NOT grimdark')).toEqual(not);
    expect(not).not.toContain(IDS.grimdark);
    expect(not).toContain(IDS.semiGrimdark);
  });

  it('GIVEN parentheses, quotes and wildcards THEN they group, escape and match', async () => {
    const grouped = await allIds('(grimdark || grotesque), -questionable');
    expect(grouped).toContain(IDS.grimdark);
    expect(grouped).not.toContain(IDS.questionableGrimdark);
    expect(await searchIds('"artist:fake artist", "oc:littlepip"')).toEqual([IDS.littlepip]);
    expect(await searchIds('"artist:<@123>"')).toEqual([IDS.hostileText]);
    expect(await searchIds('ARTIST:Alpha Artist')).toEqual([IDS.multiCredit]);
    expect(await searchIds('artist:alpha*')).toEqual([IDS.multiCredit]);
    expect(await searchIds('prompter:prompt p?ny')).toEqual([IDS.multiCredit]);
    expect(await searchIds('"\\|\\|spoiler\\|\\|"')).toEqual([IDS.hostileText]);
  });

  it('GIVEN unbalanced parentheses THEN it answers 400 with the parser message', async () => {
    for (const q of ['(safe', 'safe)', ')']) {
      const res = await api('/search/images', { q });
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({ error: 'Imbalanced parentheses.' });
    }
    expect((await api('/search/images', { q: 'score.gte:lots' })).status).toBe(400);
  });

  it('GIVEN field terms THEN ranges and equality filter on the image fields', async () => {
    expect(await searchIds('id.lt:5')).toEqual([IDS.fixtureSecond, IDS.fixtureFirst]);
    expect(await searchIds(`id:${IDS.webm}`)).toEqual([IDS.webm]);
    const high = (
      await api('/search/images', { q: 'score.gte:1500', per_page: 50, filter_id: FILTER_IDS.everything })
    ).json();
    expect(high.images.length).toBeGreaterThan(0);
    for (const image of high.images) expect(image.score).toBeGreaterThanOrEqual(1500);
    const wide = (
      await api('/search/images', { q: 'width.gt:4000', per_page: 50, filter_id: FILTER_IDS.everything })
    ).json();
    for (const image of wide.images) expect(image.width).toBeGreaterThan(4000);
    expect(wide.images.map((i: { id: number }) => i.id)).toContain(IDS.huge);
    const faves = (
      await api('/search/images', { q: 'faves.lte:10', per_page: 50, filter_id: FILTER_IDS.everything })
    ).json();
    for (const image of faves.images) expect(image.faves).toBeLessThanOrEqual(10);
    const up = (
      await api('/search/images', { q: 'upvotes.gte:1990', per_page: 50, filter_id: FILTER_IDS.everything })
    ).json();
    for (const image of up.images) expect(image.upvotes).toBeGreaterThanOrEqual(1990);
    expect(await searchIds('uploader:botowner, artist:fake artist')).toEqual([IDS.ownerUpload]);
    const animated = await allIds('animated:true');
    expect(animated).toEqual(expect.arrayContaining([IDS.animatedGif, IDS.webm]));
    expect(animated).not.toContain(IDS.safe);
    expect(await allIds('artist:fake artist, thumbnails_generated:false')).toEqual([IDS.thumbnailsPending]);
    expect(await allIds('artist:fake artist, thumbnails_generated:true')).not.toContain(
      IDS.thumbnailsPending,
    );
    expect(await searchIds('created_at:2023-03-01')).toEqual([IDS.safe]);
    expect(await searchIds(`gallery_id:${GALLERY_IDS.owner}, -id.gt:200`)).toHaveLength(4);
  });

  it('GIVEN an alias in the query THEN images tagged with its target match', async () => {
    expect(await searchIds('littlepip')).toEqual([IDS.littlepip]);
    expect(await searchIds('oc:littlepip')).toEqual([IDS.littlepip]);
    // Implied tags are on the image too.
    expect(await searchIds('fallout equestria')).toEqual([IDS.littlepip]);
  });

  it('GIVEN my:faves THEN the key owner gets their faves; anonymously Derpibooru treats it as a tag, upstream refuses', async () => {
    const mine = (
      await api('/search/images', {
        q: 'my:faves',
        key: FAKE_KEY,
        per_page: 50,
        filter_id: FILTER_IDS.everything,
      })
    ).json();
    const ids = mine.images.map((i: { id: number }) => i.id);
    expect(ids).toEqual(expect.arrayContaining([IDS.safe, IDS.ownerUpload]));
    expect(ids).not.toContain(IDS.suggestive);
    const anon = await api('/search/images', { q: 'my:faves' });
    expect(anon.status).toBe(200);
    expect(anon.json().total).toBe(0);
    booru.setErrorStyle('upstream');
    expect((await api('/search/images', { q: 'my:faves' })).status).toBe(400);
  });

  it('GIVEN sf and sd THEN results are sorted by the field, unknown fields mean first_seen_at, junk sd means desc', async () => {
    const scores = async (query: Record<string, string>): Promise<number[]> =>
      (await api('/search/images', { q: 'safe', per_page: 50, filter_id: FILTER_IDS.everything, ...query }))
        .json()
        .images.map((i: { score: number }) => i.score);
    const asc = await scores({ sf: 'score', sd: 'asc' });
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    const desc = await scores({ sf: 'score', sd: 'sideways' });
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    const seen = async (sf: string): Promise<number[]> =>
      (await api('/search/images', { q: 'safe', per_page: 50, filter_id: FILTER_IDS.everything, sf }))
        .json()
        .images.map((i: { id: number }) => i.id);
    const byFirstSeen = await seen('first_seen_at');
    expect(await seen('created_at')).toEqual(byFirstSeen);
    expect(await seen('bogus')).toEqual(byFirstSeen);
    expect(byFirstSeen[0]).toBe(IDS.thumbnailsPending); // the newest
    expect((await api('/search/images', { q: 'safe', sf: '_score' })).status).toBe(200);
  });

  it('GIVEN random:SEED THEN the order is stable for the seed and differs between seeds; random reseeds', async () => {
    const order = async (sf: string): Promise<number[]> => allIds('safe', { sf });
    const a = await order('random:42');
    expect(await order('random:42')).toEqual(a);
    expect(await order('random:43')).not.toEqual(a);
    expect([...(await order('random:43'))].sort()).toEqual([...a].sort());
    const r1 = await order('random');
    const r2 = await order('random');
    expect(r1).not.toEqual(r2);
  });

  it('GIVEN sf=gallery_id:N THEN gallery images come in gallery order', async () => {
    const ids = await searchIds(`gallery_id:${GALLERY_IDS.owner}`, {
      sf: `gallery_id:${GALLERY_IDS.owner}`,
      sd: 'asc',
    });
    expect(ids).toEqual([IDS.littlepip, IDS.safe, IDS.multiCredit, IDS.animatedGif, 1010, 1005]);
  });

  it('GIVEN /search THEN it is an alias of /search/images', async () => {
    const a = await api('/search/images', { q: 'safe, pony', sf: 'id' });
    const b = await api('/search', { q: 'safe, pony', sf: 'id' });
    expect(b.status).toBe(200);
    expect(b.json()).toEqual(a.json());
    expect(imagesResponseSchema.safeParse(b.json()).success).toBe(true);
  });
});

describe('query parser', () => {
  it.each([
    ['(a) OR (b)', 'or'],
    ['(a) AND (b)', 'and'],
    ['-(a) OR b', 'or'],
  ])('GIVEN %s THEN the word after a closing parenthesis is an operator (%s), as on the board', (q, kind) => {
    expect(parseQuery(q).kind).toBe(kind);
  });

  it('GIVEN precedence and grouping THEN NOT binds tighter than AND, AND tighter than OR', () => {
    expect(parseQuery('a, b || c')).toEqual({
      kind: 'or',
      children: [
        {
          kind: 'and',
          children: [
            { kind: 'term', text: 'a', quoted: false },
            { kind: 'term', text: 'b', quoted: false },
          ],
        },
        { kind: 'term', text: 'c', quoted: false },
      ],
    });
    expect(parseQuery('-a, (b OR c)')).toMatchObject({
      kind: 'and',
      children: [{ kind: 'not' }, { kind: 'or' }],
    });
  });

  it('GIVEN quotes, escapes, boosts and fuzz THEN terms are read whole', () => {
    expect(parseQuery('"a \\"b\\" c"')).toEqual({ kind: 'term', text: 'a "b" c', quoted: true });
    expect(parseQuery('twilight sparkle^2')).toEqual({
      kind: 'term',
      text: 'twilight sparkle',
      quoted: false,
    });
    expect(parseQuery('rarity~0.8')).toEqual({ kind: 'term', text: 'rarity', quoted: false });
    expect(parseQuery('spider-man')).toEqual({ kind: 'term', text: 'spider-man', quoted: false });
    expect(parseQuery('fallout equestria (series)')).toEqual({
      kind: 'term',
      text: 'fallout equestria (series)',
      quoted: false,
    });
  });

  it('GIVEN broken syntax THEN it throws with the message the server sends', () => {
    expect(() => parseQuery('(a')).toThrow('Imbalanced parentheses.');
    expect(() => parseQuery('a)')).toThrow('Imbalanced parentheses.');
    expect(() => parseQuery('a,')).toThrow(/term/);
    expect(() => parseQuery('"open')).toThrow(/quoted/);
  });
});

describe('tags', () => {
  it('GIVEN a tag slug THEN it answers the tag with Markdown description, aliases and computed count', async () => {
    const tag = (await api(`/tags/${TAG_SLUGS.twilightSparkle}`)).json().tag;
    expect(tag).toMatchObject({ name: 'twilight sparkle', slug: 'twilight+sparkle', category: 'character' });
    expect(tag.description).toMatch(/\[Twilight Velvet\]\(\/tags\/twilight\+velvet\)/);
    expect(tag.aliases).toContain('twi');
    const everything = (
      await api('/search/images', { q: 'twilight sparkle', filter_id: FILTER_IDS.everything })
    ).json();
    expect(tag.images).toBe(everything.total);
  });

  it('GIVEN the alias littlepip THEN it answers its own record pointing at oc-colon-littlepip with 0 images', async () => {
    const alias = (await api(`/tags/${TAG_SLUGS.littlepipAlias}`)).json().tag;
    expect(alias).toMatchObject({ aliased_tag: 'oc-colon-littlepip', images: 0, id: 33169 });
    const target = (await api(`/tags/${TAG_SLUGS.littlepip}`)).json().tag;
    expect(target).toMatchObject({ namespace: 'oc', name_in_namespace: 'littlepip', category: 'oc' });
    expect(target.aliases).toContain('littlepip');
    expect(target.implied_tags).toEqual(['fallout+equestria', 'oc']);
    expect(target.images).toBe(1);
    expect(tagResponseSchema.safeParse({ tag: target }).success).toBe(true);
  });

  it('GIVEN a percent-encoded slug THEN it is decoded; an unknown slug THEN 404', async () => {
    const tag = (await api(`/tags/${encodeURIComponent(TAG_SLUGS.artistMulti)}`)).json().tag;
    expect(tag).toMatchObject({ name: 'artist:alpha artist', namespace: 'artist', category: 'origin' });
    expect(tag.dnp_entries).toHaveLength(1);
    expect((await api('/tags/no-such-tag')).status).toBe(404);
  });

  it('GIVEN a spoiler tag THEN its spoiler_image_uri is an absolute URL the fake serves', async () => {
    const tag = (await api(`/tags/${TAG_SLUGS.spoilerS09e26}`)).json().tag;
    expect(tag.category).toBe('spoiler');
    expect(tag.spoiler_image_uri).toMatch(new RegExp(`^${booru.url}/media/`));
    expect((await call(tag.spoiler_image_uri)).status).toBe(200);
  });

  it('GIVEN name:twi* THEN tag search autocompletes, ordered by image count descending', async () => {
    const res = (await api('/search/tags', { q: 'name:twi*' })).json();
    const names = res.tags.map((t: { name: string }) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['twilight sparkle', 'twilight velvet', 'twi', 'twist', 'twilight']),
    );
    const counts = res.tags.map((t: { images: number }) => t.images);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(res.total).toBe(res.tags.length);
    expect(tagsResponseSchema.safeParse(res).success).toBe(true);
  });

  it('GIVEN a bare term THEN tag search matches the exact name; an empty q gives nothing', async () => {
    const res = (await api('/search/tags', { q: 'Wing Hands' })).json();
    expect(res.tags.map((t: { name: string }) => t.name)).toEqual(['wing hands']);
    expect((await api('/search/tags', { q: '' })).json()).toEqual({ tags: [], total: 0 });
    expect((await api('/search/tags', { q: 'category:rating' })).json().total).toBe(7);
  });
});

describe('comments, posts, profiles', () => {
  it('GIVEN a comment id THEN it answers the comment; non-numeric 400, unknown 404', async () => {
    const res = await api(`/comments/${COMMENT_IDS.onSafe}`);
    expect(res.json().comment).toMatchObject({ id: COMMENT_IDS.onSafe, image_id: IDS.safe, edited_at: null });
    expect(commentResponseSchema.safeParse(res.json()).success).toBe(true);
    expect((await api(`/comments/${COMMENT_IDS.fixture}`)).json().comment.author).toBe('HyaenusDominae');
    expect((await api('/comments/x1')).status).toBe(400);
    expect((await api('/comments/424242')).status).toBe(404);
  });

  it('GIVEN a comment on a deleted image THEN it answers 403 with an empty body', async () => {
    const res = await api(`/comments/${COMMENT_IDS.onDeleted}`);
    expect(res.status).toBe(403);
    expect(res.text).toBe('');
  });

  it('GIVEN moderated and anonymous comments THEN body is null and avatar a data: URI', async () => {
    expect((await api(`/comments/${COMMENT_IDS.moderated}`)).json().comment.body).toBeNull();
    const anon = (await api(`/comments/${COMMENT_IDS.anonymous}`)).json().comment;
    expect(anon).toMatchObject({ user_id: null, author: 'Background Pony #1A2B' });
    expect(anon.avatar).toMatch(/^data:image\/svg\+xml/);
  });

  it('GIVEN a comment search THEN matches come newest first with total, without deleted images', async () => {
    const res = (await api('/search/comments', { q: `image_id:${IDS.safe}` })).json();
    const dates = res.comments.map((c: { created_at: string }) => c.created_at);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(res.total).toBe(4);
    expect((await api('/search/comments', { q: 'gone' })).json().total).toBe(0);
    expect((await api('/search/comments', { q: 'lovely' })).json().comments[0].id).toBe(COMMENT_IDS.onSafe);
    expect(commentsResponseSchema.safeParse(res).success).toBe(true);
  });

  it('GIVEN a post id THEN it answers the post; a post search finds bodies newest first', async () => {
    const post = (await api(`/posts/${POST_IDS.fixtureFirst}`)).json();
    expect(post.post.author).toBe('40kponyguy');
    expect(postResponseSchema.safeParse(post).success).toBe(true);
    expect((await api(`/posts/${POST_IDS.moderated}`)).json().post.body).toBeNull();
    expect((await api('/posts/1')).status).toBe(404);
    const search = (await api('/search/posts', { q: 'bot thread', per_page: 50 })).json();
    expect(search.total).toBe(28); // 30 posts; the moderated one (null body) and the hostile one do not match
    const dates = search.posts.map((p: { created_at: string }) => p.created_at);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('GIVEN profile ids THEN users answer with links and awards; unknown 404, non-numeric 400', async () => {
    const joey = (await api(`/profiles/${PROFILE_IDS.fixture}`)).json();
    expect(joey.user).toMatchObject({ name: 'Joey', role: 'user' });
    expect(joey.user.awards.length).toBeGreaterThan(10);
    expect(userResponseSchema.safeParse(joey).success).toBe(true);
    const other = (await api(`/profiles/${PROFILE_IDS.other}`)).json().user;
    expect(other).toMatchObject({ description: null, avatar_url: null });
    const owner = (await api(`/profiles/${PROFILE_IDS.owner}`)).json().user;
    expect(owner.awards[0].label).toBeNull();
    expect((await api('/profiles/1')).status).toBe(404);
    expect((await api('/profiles/joey')).status).toBe(400);
  });
});

describe('filters', () => {
  it('GIVEN /filters/system THEN only system filters come back, with total', async () => {
    const res = (await api('/filters/system')).json();
    expect(res.filters.every((f: { system: boolean }) => f.system)).toBe(true);
    expect(res.filters.map((f: { id: number }) => f.id)).toEqual(
      expect.arrayContaining([FILTER_IDS.everything, FILTER_IDS.default]),
    );
    expect(res.total).toBe(res.filters.length);
    expect(filtersResponseSchema.safeParse(res).success).toBe(true);
  });

  it('GIVEN /filters/user without a valid key THEN 403 empty; with the key THEN the owner filters', async () => {
    for (const query of [{}, { key: 'wrong' }]) {
      const res = await api('/filters/user', query);
      expect(res.status).toBe(403);
      expect(res.text).toBe('');
    }
    const mine = (await api('/filters/user', { key: FAKE_KEY })).json();
    expect(mine.filters.map((f: { id: number }) => f.id).sort()).toEqual(
      [FILTER_IDS.ownedPrivate, FILTER_IDS.ownerPublic].sort(),
    );
  });

  it('GIVEN /filters/:id THEN private filters answer only their owner; others 404', async () => {
    expect((await api(`/filters/${FILTER_IDS.default}`)).json().filter.name).toBe('Default');
    expect((await api(`/filters/${FILTER_IDS.public}`)).json().filter.public).toBe(true);
    expect((await api(`/filters/${FILTER_IDS.ownedPrivate}`)).status).toBe(404);
    const own = await api(`/filters/${FILTER_IDS.ownedPrivate}`, { key: FAKE_KEY });
    expect(own.json().filter.user_id).toBe(9001);
    expect(filterResponseSchema.safeParse(own.json()).success).toBe(true);
    expect((await api(`/filters/${FILTER_IDS.otherPrivate}`, { key: FAKE_KEY })).status).toBe(404);
    expect((await api('/filters/abc')).status).toBe(400);
    const fixture = (await api(`/filters/${FILTER_IDS.publicFixture}`)).json().filter;
    expect(fixture.hidden_complex).toBe('score.lte:100\r\n-littlepip');
  });

  it('GIVEN /search/filters THEN it searches the filters the caller may use', async () => {
    const anon = (await api('/search/filters', { q: 'public:true' })).json();
    expect(anon.filters.map((f: { id: number }) => f.id).sort()).toEqual(
      [FILTER_IDS.publicFixture, FILTER_IDS.public, FILTER_IDS.ownerPublic].sort(),
    );
    const owner = (await api('/search/filters', { q: 'user_id:9001', key: FAKE_KEY })).json();
    expect(owner.filters.map((f: { id: number }) => f.id).sort()).toEqual(
      [FILTER_IDS.ownedPrivate, FILTER_IDS.ownerPublic].sort(),
    );
    // Without the key only the owner's public filter is visible.
    const anonOwner = (await api('/search/filters', { q: 'user_id:9001' })).json();
    expect(anonOwner.filters.map((f: { id: number }) => f.id)).toEqual([FILTER_IDS.ownerPublic]);
    expect((await api('/search/filters', { q: 'default' })).json().filters[0].id).toBe(FILTER_IDS.default);
  });
});

describe('galleries and forums', () => {
  it('GIVEN a gallery search THEN Derpibooru style sends user/user_id and upstream creator/creator_id', async () => {
    const derpi = (await api('/search/galleries', { q: 'title:*safe*' })).json();
    expect(derpi.total).toBeGreaterThan(10);
    expect(derpi.galleries[0]).toHaveProperty('user');
    expect(derpi.galleries[0]).toHaveProperty('user_id');
    expect(galleriesResponseSchema.safeParse(derpi).success).toBe(true);
    const ids = derpi.galleries.map((g: { id: number }) => g.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    booru.setErrorStyle('upstream');
    const upstream = (await api('/search/galleries', { q: 'title:*favourites*' })).json();
    expect(upstream.galleries[0]).toMatchObject({
      id: GALLERY_IDS.owner,
      creator: 'BotOwner',
      creator_id: 9001,
    });
    expect(upstream.galleries[0]).not.toHaveProperty('user');
  });

  it('GIVEN a bare word in a gallery search THEN it matches whole titles in any case; title:*word* matches titles that hold it', async () => {
    const titles = async (q: string) =>
      ((await api('/search/galleries', { q })).json() as { galleries: { title: string }[] }).galleries.map(
        (g) => g.title,
      );
    const bare = await titles('safe');
    expect(bare.length).toBeGreaterThan(0);
    expect(bare.every((t) => t.toLowerCase() === 'safe')).toBe(true);
    const within = await titles('title:*safe*');
    expect(within).toEqual(expect.arrayContaining(['safeship', 'Safety First', 'Safe Landings']));
    expect(await titles('title:*FAVOURITES*')).toEqual(['Bot owner favourites']);
    expect(await titles('creator:botowner')).toEqual(['Bot owner favourites']);
    // No such field on the board: the term is a title, which no gallery has.
    expect(await titles('spoiler_warning:spicy')).toEqual([]);
  });

  it('GIVEN /forums THEN every forum comes back with total; one forum by short name; unknown 404', async () => {
    const all = (await api('/forums')).json();
    expect(all.total).toBe(9);
    expect(forumsResponseSchema.safeParse(all).success).toBe(true);
    const dis = (await api(`/forums/${FORUM.dis}`)).json();
    expect(dis.forum).toMatchObject({ short_name: 'dis', topic_count: 2, post_count: 30 });
    expect(forumResponseSchema.safeParse(dis).success).toBe(true);
    expect((await api('/forums/nope')).status).toBe(404);
  });

  it('GIVEN forum topics THEN sticky first, with total; an unknown forum answers 200 empty', async () => {
    const art = (await api(`/forums/${FORUM.art}/topics`)).json();
    expect(art.topics.map((t: { slug: string }) => t.slug)).toEqual([FORUM.artTopic, FORUM.artEmptyTopic]);
    expect(topicsResponseSchema.safeParse(art).success).toBe(true);
    const unknown = await api('/forums/nope/topics');
    expect(unknown.status).toBe(200);
    expect(unknown.json()).toEqual({ topics: [], total: 0 });
  });

  it('GIVEN one topic THEN it answers the topic; the locked empty one has a null last reply', async () => {
    const topic = (await api(`/forums/${FORUM.dis}/topics/${FORUM.botTopic}`)).json();
    expect(topic.topic).toMatchObject({ slug: FORUM.botTopic, post_count: 30 });
    expect(topicResponseSchema.safeParse(topic).success).toBe(true);
    const locked = (await api(`/forums/${FORUM.dis}/topics/${FORUM.lockedTopic}`)).json().topic;
    expect(locked).toMatchObject({ locked: true, last_replied_to_at: null, user_id: null });
    expect((await api(`/forums/${FORUM.dis}/topics/nope`)).status).toBe(404);
  });

  it('GIVEN topic posts THEN they page by 25 oldest first; past the end or unknown topic 500 (Derpibooru) / 404 (upstream)', async () => {
    const one = (await api(`/forums/${FORUM.dis}/topics/${FORUM.botTopic}/posts`)).json();
    expect(one.posts).toHaveLength(25);
    expect(one.total).toBe(30);
    expect(one.posts[0].id).toBe(POST_IDS.botFirst);
    expect(postsResponseSchema.safeParse(one).success).toBe(true);
    const two = (await api(`/forums/${FORUM.dis}/topics/${FORUM.botTopic}/posts`, { page: 2 })).json();
    expect(two.posts).toHaveLength(5);
    const past = await api(`/forums/${FORUM.dis}/topics/${FORUM.botTopic}/posts`, { page: 3 });
    expect(past.status).toBe(500);
    expect(past.json()).toEqual({ error: 'Internal Error' });
    expect((await api(`/forums/${FORUM.dis}/topics/nope/posts`)).status).toBe(500);
    booru.setErrorStyle('upstream');
    expect((await api(`/forums/${FORUM.dis}/topics/nope/posts`)).json()).toEqual({ error: 'Not found' });
    expect((await api(`/forums/${FORUM.dis}/topics/${FORUM.botTopic}/posts`, { page: 3 })).status).toBe(404);
  });

  it('GIVEN a topic post id THEN it answers it only under its own topic', async () => {
    const post = await api(`/forums/${FORUM.dis}/topics/${FORUM.botTopic}/posts/${POST_IDS.anonymous}`);
    expect(post.json().post).toMatchObject({ id: POST_IDS.anonymous, user_id: null });
    expect(
      (await api(`/forums/${FORUM.art}/topics/${FORUM.artTopic}/posts/${POST_IDS.anonymous}`)).status,
    ).toBe(404);
    expect((await api(`/forums/${FORUM.dis}/topics/${FORUM.botTopic}/posts/x`)).status).toBe(400);
  });
});

describe('oEmbed', () => {
  it('GIVEN every accepted URL shape on any host THEN it answers the image with derpibooru_* fields', async () => {
    const image = (await api(`/images/${IDS.multiCredit}`)).json().image;
    const thumbPath = new URL(image.representations.thumb).pathname;
    const viewPath = new URL(image.view_url).pathname;
    const urls = [
      `https://derpibooru.org/images/${IDS.multiCredit}`,
      `https://furbooru.org/${IDS.multiCredit}`,
      `https://derpicdn.net${thumbPath}`,
      `https://example.com${viewPath}`,
      `https://derpicdn.net${viewPath.replace('/img/view/', '/img/download/')}`,
      `https://derpicdn.net${new URL(image.representations.full).pathname}`,
    ];
    for (const url of urls) {
      const res = await api('/oembed', { url });
      expect(res.status, url).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({
        derpibooru_id: IDS.multiCredit,
        provider_name: 'Derpibooru',
        cache_age: 7200,
        type: 'photo',
        version: '1.0',
        author_name: 'alpha artist, beta-artist',
      });
      expect(body.title).toMatch(new RegExp(`^#${IDS.multiCredit} - `));
      expect(oembedSchema.safeParse(body).success).toBe(true);
    }
  });

  it('GIVEN an unrecognised or missing URL THEN 404 with the style body', async () => {
    for (const query of [
      { url: 'https://derpibooru.org/forums/dis' },
      {},
      { url: 'https://derpibooru.org/images/999999' },
    ]) {
      const res = await api('/oembed', query);
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ error: "Couldn't find an image" });
    }
    booru.setErrorStyle('upstream');
    expect((await api('/oembed', { url: 'https://x.org/nothing' })).json()).toEqual({ error: 'Not found' });
  });
});

describe('reverse search', () => {
  const reverse = (
    query: Record<string, string | number>,
    body?: FormData | string,
    headers?: Record<string, string>,
  ) =>
    call('/api/v1/json/search/reverse', query, {
      method: 'POST',
      ...(body === undefined ? {} : { body }),
      ...(headers === undefined ? {} : { headers }),
    });

  it('GIVEN the URL of one of its files THEN it finds the image, unfiltered', async () => {
    const image = (await api(`/images/${IDS.explicit}`)).json().image;
    const res = await reverse({ url: image.representations.medium });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.images.map((i: { id: number }) => i.id)).toEqual([IDS.explicit]);
    expect(body.total).toBe(1);
    expect(body.images[0].spoilered).toBe(true);
    expect(imagesResponseSchema.safeParse(body).success).toBe(true);
  });

  it('GIVEN the URL in a form body THEN it is read too', async () => {
    const image = (await api(`/images/${IDS.safe}`)).json().image;
    const res = await reverse({}, new URLSearchParams({ url: image.representations.thumb }).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.json().images.map((i: { id: number }) => i.id)).toEqual([IDS.safe]);
  });

  it('GIVEN an uploaded file in image[image] THEN it matches by content', async () => {
    const image = (await api(`/images/${IDS.animatedGif}`)).json().image;
    const file = await call(image.view_url);
    const form = new FormData();
    form.append('image[image]', new Blob([file.bytes], { type: 'image/gif' }), 'x.gif');
    form.append('distance', '0.25');
    const res = await reverse({}, form);
    expect(res.json().images.map((i: { id: number }) => i.id)).toEqual([IDS.animatedGif]);
  });

  it('GIVEN a foreign host, a missing file or no input THEN it answers 200 with an empty list', async () => {
    for (const url of [
      'https://derpicdn.net/img/view/2023/3/1/101.png',
      `${booru.url}/img/view/2023/3/1/999999.png`,
      'not a url',
    ]) {
      const res = await reverse({ url });
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ images: [], total: 0 });
    }
    expect((await reverse({})).json().images).toEqual([]);
  });

  it('GIVEN distance above 1 THEN empty; junk distance THEN it still searches; limit caps the list', async () => {
    const image = (await api(`/images/${IDS.safe}`)).json().image;
    expect((await reverse({ url: image.representations.full, distance: 2 })).json().images).toEqual([]);
    expect((await reverse({ url: image.representations.full, distance: 'junk' })).json().images).toHaveLength(
      1,
    );
    expect(
      (await reverse({ url: image.representations.full, distance: -1, limit: 0 })).json().images,
    ).toHaveLength(1);
  });

  it('GIVEN a deleted image file matched by content THEN the stub comes back', async () => {
    const { fileBytes } = await import('./philomena/files.js');
    const form = new FormData();
    form.append('image[image]', new Blob([fileBytes(`image-${IDS.deleted}`, 'png')]), 'x.png');
    const body = (await reverse({}, form)).json();
    expect(body.images).toEqual([expect.objectContaining({ id: IDS.deleted, hidden_from_users: true })]);
  });
});

describe('submitting images', () => {
  const submit = (query: Record<string, string>, body: unknown, contentType = 'application/json') =>
    call('/api/v1/json/images', query, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': contentType },
    });
  const good = (url: string) => ({
    url,
    image: {
      description: 'A new one',
      tag_input: 'safe, pony, artist:new artist',
      source_url: 'https://example.com/src',
    },
  });

  it('GIVEN no valid key THEN it answers 401 with an empty body', async () => {
    for (const query of [{}, { key: 'wrong' }]) {
      const res = await submit(query, good(`${booru.url}/samples/new.png`));
      expect(res.status).toBe(401);
      expect(res.text).toBe('');
    }
  });

  it('GIVEN a new image THEN it is created, pending thumbnails, and visible at its id until reset', async () => {
    const res = await submit({ key: FAKE_KEY }, good(`${booru.url}/samples/new-art.png`));
    expect(res.status).toBe(200);
    const image = res.json().image;
    expect(image).toMatchObject({
      thumbnails_generated: false,
      uploader: 'BotOwner',
      uploader_id: 9001,
      description: 'A new one',
      source_urls: ['https://example.com/src'],
      format: 'png',
    });
    expect(image.tags).toEqual(['safe', 'pony', 'artist:new artist']);
    expect(submitImageResponseSchema.safeParse(res.json()).success).toBe(true);
    expect((await api(`/images/${image.id}`)).json().image.id).toBe(image.id);
    // The same file again is a duplicate.
    const again = await submit({ key: FAKE_KEY }, good(`${booru.url}/samples/new-art.png`));
    expect(again.status).toBe(400);
    expect(again.json().errors.image_orig_sha512_hash).toEqual(['has already been taken']);
    booru.reset();
    expect((await api(`/images/${image.id}`)).status).toBe(404);
  });

  it("GIVEN the URL of an existing image's file THEN image_orig_sha512_hash has already been taken", async () => {
    const existing = (await api(`/images/${IDS.safe}`)).json().image;
    const res = await submit({ key: FAKE_KEY }, good(existing.representations.full));
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ errors: { image_orig_sha512_hash: ['has already been taken'] } });
  });

  it('GIVEN a bad URL, a non-image or bad tags THEN 400 with errors by field', async () => {
    const foreign = await submit({ key: FAKE_KEY }, good('https://example.com/a.png'));
    expect(foreign.status).toBe(400);
    expect(foreign.json().errors.image).toBeDefined();
    const text = await submit({ key: FAKE_KEY }, good(`${booru.url}/samples/readme.txt`));
    expect(text.json().errors.image_mime_type).toEqual(['is invalid']);
    const tags = await submit(
      { key: FAKE_KEY },
      { url: `${booru.url}/samples/x.gif`, image: { tag_input: 'pony' } },
    );
    expect(tags.json().errors.tag_input).toEqual(
      expect.arrayContaining(['must contain at least one rating tag', 'must contain at least 3 tags']),
    );
  });

  it('GIVEN a body without the JSON content type THEN the body is not read', async () => {
    const res = await submit({ key: FAKE_KEY }, good(`${booru.url}/samples/other.png`), 'text/plain');
    expect(res.status).toBe(400);
    expect(res.json().errors.image).toEqual(["can't be blank"]);
  });
});

describe('faults', () => {
  it('GIVEN a status fault THEN it answers that status and body before routing, for `times` requests', async () => {
    booru.inject({ fault: { kind: 'status', status: 503 }, path: '/api/v1/json/images', times: 2 });
    const first = await api(`/images/${IDS.safe}`);
    expect(first.status).toBe(503);
    expect(first.json()).toEqual({ error: 'Internal Error' });
    expect((await api('/images/featured')).status).toBe(503);
    expect((await api(`/images/${IDS.safe}`)).status).toBe(200);
    booru.inject({
      fault: { kind: 'status', status: 502, body: '<h1>Bad gateway</h1>', contentType: 'text/html' },
    });
    const html = await api('/forums');
    expect(html.status).toBe(502);
    expect(html.text).toBe('<h1>Bad gateway</h1>');
    expect(html.headers['content-type']).toBe('text/html');
  });

  it('GIVEN a path rule THEN only matching paths fault (prefix string or RegExp)', async () => {
    // Path rules only: the block a request soon after the 501 starts is test/fakes/philomena/anti-bot.test.ts.
    booru.antiBot.configure({ graceMs: 0 });
    booru.inject({ fault: { kind: 'empty-500' }, path: /\/search\/tags$/ });
    booru.inject({ fault: { kind: 'anti-bot' }, path: '/api/v1/json/forums' });
    const empty500 = await api('/search/tags', { q: 'safe' });
    expect(empty500.status).toBe(500);
    expect(empty500.text).toBe('');
    const antiBot = await api('/forums/dis');
    expect(antiBot.status).toBe(501);
    expect(String(antiBot.headers['content-type'])).toMatch(/text\/html/);
    expect(antiBot.text).toMatch(/<html/);
    expect((await api('/search/images', { q: 'safe' })).status).toBe(200);
    booru.clearFaults();
    expect((await api('/forums/dis')).status).toBe(200);
  });

  it('GIVEN a rate-limit fault THEN 429 with an HTML body and Retry-After when given', async () => {
    booru.inject({ fault: { kind: 'rate-limit', retryAfterSeconds: 7 }, times: 1 });
    booru.inject({ fault: { kind: 'rate-limit' }, times: 1 });
    const withHeader = await api('/forums');
    expect(withHeader.status).toBe(429);
    expect(withHeader.headers['retry-after']).toBe('7');
    expect(withHeader.text).toMatch(/<html/);
    const without = await api('/forums');
    expect(without.status).toBe(429);
    expect(without.headers['retry-after']).toBeUndefined();
  });

  it('GIVEN malformed-json and schema-break THEN 200 JSON that does not parse / does not fit', async () => {
    booru.inject({ fault: { kind: 'malformed-json' }, times: 1 });
    booru.inject({ fault: { kind: 'schema-break' }, times: 1 });
    const broken = await api(`/images/${IDS.safe}`);
    expect(broken.status).toBe(200);
    expect(() => broken.json()).toThrow();
    const wrong = await api(`/images/${IDS.safe}`);
    expect(wrong.status).toBe(200);
    expect(imageResponseSchema.safeParse(wrong.json()).success).toBe(false);
    expect(imagesResponseSchema.safeParse(wrong.json()).success).toBe(false);
  });

  it('GIVEN a reset fault THEN the connection is destroyed without an answer', async () => {
    booru.inject({ fault: { kind: 'reset' }, times: 1 });
    await expect(api('/forums')).rejects.toThrow();
    expect((await api('/forums')).status).toBe(200);
  });

  it('GIVEN latency (fault, setting or option) THEN answers are delayed but normal', async () => {
    booru.inject({ fault: { kind: 'latency', ms: 120 }, times: 1 });
    let started = Date.now();
    expect((await api('/forums')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    booru.setLatency(80);
    started = Date.now();
    await api('/forums');
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
    booru.reset();
    started = Date.now();
    await api('/forums');
    expect(Date.now() - started).toBeLessThan(70);
  });

  it('GIVEN a hang fault THEN no answer comes until close(), which ends it', async () => {
    const own = await startFakePhilomena({ latencyMs: 1 });
    own.inject({ fault: { kind: 'hang' } });
    let settled = false;
    const pending = request(`${own.url}/api/v1/json/forums`).then(
      () => 'answered',
      () => 'failed',
    );
    void pending.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    expect(own.requests).toHaveLength(1);
    await own.close();
    expect(await pending).toBe('failed');
  });

  it('GIVEN an invalid times THEN inject refuses it', () => {
    expect(() => booru.inject({ fault: { kind: 'reset' }, times: 0 })).toThrow(RangeError);
  });
});

describe('recording and options', () => {
  it('GIVEN requests THEN each is recorded in order with method, path, query, headers and body', async () => {
    await api('/search/images', { q: 'safe', key: FAKE_KEY });
    const image = (await api(`/images/${IDS.safe}`)).json().image;
    await call(image.representations.thumb);
    await call(
      '/api/v1/json/search/reverse',
      {},
      {
        method: 'POST',
        body: 'url=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-test': 'yes' },
      },
    );
    const recorded = booru.requests;
    expect(recorded.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/json/search/images',
      `GET /api/v1/json/images/${IDS.safe}`,
      `GET ${new URL(image.representations.thumb).pathname}`,
      'POST /api/v1/json/search/reverse',
    ]);
    expect(recorded[0]?.query.get('key')).toBe(FAKE_KEY);
    expect(recorded[3]?.body.toString()).toBe('url=x');
    expect(recorded[3]?.headers['x-test']).toBe('yes');
    expect(recorded[1]?.at).toBeGreaterThanOrEqual(recorded[0]?.at ?? Infinity);
    booru.reset();
    expect(booru.requests).toEqual([]);
  });

  it('GIVEN every kind of answer THEN Cache-Control is no-store, no-cache', async () => {
    const answers = [
      await api(`/images/${IDS.safe}`),
      await api('/images/0x'),
      await api('/images/999999'),
      await api('/filters/user'),
      await call('/img/2023/3/1/101/thumb.png'),
      await call('/nothing-here'),
    ];
    for (const res of answers) expect(res.headers['cache-control']).toBe('no-store, no-cache');
  });

  it('GIVEN the old pre-2020 API paths THEN they answer 400', async () => {
    expect((await call('/search.json', { q: 'safe' })).status).toBe(400);
    expect((await call('/images/101.json')).status).toBe(400);
  });

  it('GIVEN the errorStyle option and a fixed port THEN the server starts that way', async () => {
    const probe = await startFakePhilomena();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const own = await startFakePhilomena({ errorStyle: 'upstream', port });
    try {
      expect(own.url).toBe(`http://127.0.0.1:${port}`);
      expect(await request(`${own.url}/api/v1/json/images/999999`).then((r) => r.body.json())).toEqual({
        error: 'Not found',
      });
    } finally {
      await own.close();
    }
  });
});
