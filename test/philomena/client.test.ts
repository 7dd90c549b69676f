import Keyv from 'keyv';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  COMMENT_IDS,
  FAKE_KEY,
  FILTER_IDS,
  FORUM,
  IDS,
  POST_IDS,
  PROFILE_IDS,
  startFakePhilomena,
  TAG_SLUGS,
  type FakePhilomena,
} from '../fakes/philomena/index.js';
import { createPhilomenaClient, type PhilomenaClientOptions } from '../../src/philomena/client/index.js';
import { createResponseCache } from '../../src/philomena/cache.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';
import {
  BadQueryError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  RateLimitedError,
  SiteUnavailableError,
} from '../../src/philomena/errors.js';
import type { Image } from '../../src/philomena/schemas.js';
import { quoteTag } from '../../src/philomena/tags.js';

let booru: FakePhilomena;
let site: Site;
const delays: number[] = [];

beforeAll(async () => {
  booru = await startFakePhilomena();
  site = resolveSite(booru.url);
});
afterAll(async () => {
  await booru.close();
});
beforeEach(() => {
  booru.reset();
  delays.length = 0;
});

function client(options: Partial<PhilomenaClientOptions> = {}) {
  return createPhilomenaClient({
    site,
    transport: { baseDelayMs: 1 },
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...options,
  });
}

const api = (path: string) => booru.requests.filter((r) => r.path.startsWith(`/api/v1/json${path}`));

/** Every URL the client hands out is absolute, on the fake's own http base or https. */
function expectAbsolute(url: string | null | undefined): void {
  if (url == null) return;
  expect(url.startsWith(`${site.baseUrl}/`) || url.startsWith('https://')).toBe(true);
}

function expectImageUrls(image: Image): void {
  if (image.kind !== 'image') return;
  for (const url of Object.values(image.representations)) expectAbsolute(url);
  expectAbsolute(image.view_url);
}

describe('client: images', () => {
  it('GIVEN a visible image THEN it is parsed, with absolute representation and view URLs', async () => {
    const image = await client().image(IDS.safe);
    expect(image).toMatchObject({ id: IDS.safe, kind: 'image' });
    expectImageUrls(image);
  });

  it('GIVEN legacy protocol- and root-relative URLs THEN they come back absolute', async () => {
    const image = await client().image(IDS.legacyUrls);
    expect(image.kind).toBe('image');
    expectImageUrls(image);
  });

  it.each([IDS.deleted, IDS.merged])(
    'GIVEN deleted or merged image %i THEN it is a hidden stub, not an error',
    async (id) => {
      const image = await client().image(id);
      expect(image).toMatchObject({ id, kind: 'hidden', hidden_from_users: true });
    },
  );

  it.each(['derpibooru', 'upstream'] as const)(
    'GIVEN an unknown image in %s error style THEN NotFoundError',
    async (style) => {
      booru.setErrorStyle(style);
      const error = await client()
        .image(999_999)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ status: 404, path: '/api/v1/json/images/999999' });
    },
  );

  it('GIVEN filter ids THEN filter_id is sent, and each filter has its own cache entry', async () => {
    const c = client();
    await c.image(IDS.safe, { filterId: FILTER_IDS.everything });
    await c.image(IDS.safe, { filterId: FILTER_IDS.everything });
    await c.image(IDS.safe, { filterId: FILTER_IDS.default });
    await c.image(IDS.safe);
    const calls = api('/images/');
    expect(calls.map((r) => r.query.get('filter_id'))).toEqual([
      String(FILTER_IDS.everything),
      String(FILTER_IDS.default),
      null,
    ]);
  });

  it("GIVEN a key THEN image reads go without it (the owner's rights are never lent) and share one cache entry with anonymous reads", async () => {
    const cache = createResponseCache({ store: new Keyv() });
    await client({ cache, apiKey: FAKE_KEY }).image(IDS.questionable);
    await client({ cache }).image(IDS.questionable);
    await client({ cache, apiKey: FAKE_KEY }).image(IDS.questionable);
    expect(api('/images/').map((r) => r.query.get('key'))).toEqual([null]);
  });

  it('GIVEN the featured image THEN it is returned; with nothing featured THEN NotFoundError', async () => {
    await expect(client().featuredImage()).resolves.toMatchObject({ id: IDS.featured });
    booru.setFeatured(null);
    await expect(client().featuredImage()).rejects.toBeInstanceOf(NotFoundError);
  });

  it('GIVEN an image search THEN paging and sort go as parameters and the page holds visible images with total', async () => {
    const result = await client().searchImages({ q: 'safe', perPage: 5, page: 2, sf: 'id', sd: 'asc' });
    expect(result.items.length).toBeLessThanOrEqual(5);
    expect(result.total).toBeGreaterThan(5);
    for (const image of result.items) {
      expect(image.kind).toBe('image');
      expectImageUrls(image);
    }
    const ids = result.items.map((i) => i.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const [call] = api('/search/images');
    expect(Object.fromEntries(call?.query ?? [])).toMatchObject({
      q: 'safe',
      per_page: '5',
      page: '2',
      sf: 'id',
      sd: 'asc',
    });
  });

  it.each(['_score', 'random', 'random:7', 'gallery_id:1', 'wilson_score', 'first_seen_at'] as const)(
    'GIVEN sf %s THEN it is accepted and sent as is',
    async (sf) => {
      await client().searchImages({ q: 'safe', sf, sd: 'desc' });
      expect(api('/search/images')[0]?.query.get('sf')).toBe(sf);
    },
  );

  it('GIVEN random:SEED THEN the same seed gives the same order', async () => {
    const a = await client().searchImages({ q: 'safe', sf: 'random:42', perPage: 10 });
    const b = await client().searchImages({ q: 'safe', sf: 'random:42', perPage: 10 });
    expect(a.items.map((i) => i.id)).toEqual(b.items.map((i) => i.id));
  });

  it('GIVEN tag names quoted with quoteTag THEN the search finds the tag, and quotes, commas or parentheses in a name do not break the query', async () => {
    const found = await client().searchImages({ q: quoteTag('twilight sparkle'), perPage: 50 });
    expect(found.items.length).toBeGreaterThan(0);
    expect(found.items.every((i) => i.tags.includes('twilight sparkle'))).toBe(true);
    for (const hostile of ['a "b" (c', 'x, y OR -z', 'back\\slash\\', ')']) {
      await expect(client().searchImages({ q: quoteTag(hostile) })).resolves.toMatchObject({ total: 0 });
    }
  });

  it('GIVEN an unbalanced query THEN BadQueryError with the parser message', async () => {
    const error = await client()
      .searchImages({ q: '(safe' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadQueryError);
    expect((error as BadQueryError).serverMessage).toBe('Imbalanced parentheses.');
  });

  it.each([
    ['perPage 0', { q: 'x', perPage: 0 }],
    ['perPage 51', { q: 'x', perPage: 51 }],
    ['page 0', { q: 'x', page: 0 }],
    ['page 1.5', { q: 'x', page: 1.5 }],
    ['filterId -1', { q: 'x', filterId: -1 }],
    ['sf created_at', { q: 'x', sf: 'created_at' as never }],
    ['sd up', { q: 'x', sd: 'up' as never }],
  ])('GIVEN %s THEN RangeError before any request', async (_name, options) => {
    await expect(client().searchImages(options)).rejects.toBeInstanceOf(RangeError);
    expect(booru.requests).toHaveLength(0);
  });
});

describe('client: reverse search', () => {
  it('GIVEN the URL of an image file THEN the search finds that image, with distance and limit sent', async () => {
    const image = await client().image(IDS.safe);
    if (image.kind !== 'image') throw new Error('expected a visible image');
    const result = await client().reverseSearch(
      { url: image.representations.full },
      { distance: 0.2, limit: 5 },
    );
    expect(result.items.map((i) => i.id)).toContain(IDS.safe);
    const [call] = api('/search/reverse');
    expect(call?.method).toBe('POST');
    expect(Object.fromEntries(call?.query ?? [])).toMatchObject({ distance: '0.2', limit: '5' });
  });

  it('GIVEN the bytes of an image file THEN the multipart upload finds that image', async () => {
    const image = await client().image(IDS.safe);
    if (image.kind !== 'image') throw new Error('expected a visible image');
    const file = new Uint8Array(await (await request(image.representations.full)).body.arrayBuffer());
    const result = await client().reverseSearch({ file, filename: 'pic.png', contentType: 'image/png' });
    expect(result.items.map((i) => i.id)).toContain(IDS.safe);
    const [call] = api('/search/reverse');
    expect(String(call?.headers['content-type'])).toMatch(/^multipart\/form-data/);
    expect(call?.body.toString('latin1')).toMatch(/name="image\[image\]"; filename="pic.png"/);
  });

  it.each([
    ['distance 1.5', { distance: 1.5 }],
    ['distance -0.1', { distance: -0.1 }],
    ['limit 0', { limit: 0 }],
    ['limit 51', { limit: 51 }],
  ])('GIVEN %s THEN RangeError', async (_name, options) => {
    await expect(
      client().reverseSearch({ url: 'https://example.test/a.png' }, options),
    ).rejects.toBeInstanceOf(RangeError);
  });
});

describe('client: submit', () => {
  it('GIVEN a new image URL THEN it is created; the same file again THEN ok:false with duplicate', async () => {
    const c = client({ apiKey: FAKE_KEY });
    const url = `${booru.url}/samples/client-test-${Date.now()}.png`;
    const created = await c.submitImage({
      url,
      tagInput: 'safe, artist:tester, pony',
      description: 'hi',
      sourceUrl: 'https://example.test',
    });
    expect(created.ok).toBe(true);
    if (created.ok) expectImageUrls(created.image);
    const [call] = api('/images').filter((r) => r.method === 'POST');
    expect(call?.headers['content-type']).toMatch(/^application\/json/);
    expect(call?.query.get('key')).toBe(FAKE_KEY);
    expect(JSON.parse(call?.body.toString() ?? '{}')).toEqual({
      url,
      image: {
        description: 'hi',
        tag_input: 'safe, artist:tester, pony',
        source_url: 'https://example.test',
      },
    });
    const again = await c.submitImage({ url, tagInput: 'safe, artist:tester, pony' });
    expect(again).toMatchObject({ ok: false, duplicate: true });
  });

  it('GIVEN the server fails once THEN the submission is not retried', async () => {
    booru.inject({ fault: { kind: 'empty-500' }, path: '/api/v1/json/images', times: 1 });
    const error = await client({ apiKey: FAKE_KEY })
      .submitImage({ url: `${booru.url}/samples/once.png`, tagInput: 'safe' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(api('/images').filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('GIVEN too few tags and no rating THEN ok:false with the typed tag_input errors, not a duplicate', async () => {
    const result = await client({ apiKey: FAKE_KEY }).submitImage({
      url: `${booru.url}/samples/few-tags-${Date.now()}.png`,
      tagInput: 'pony',
    });
    expect(result).toEqual({
      ok: false,
      duplicate: false,
      errors: { tag_input: ['must contain at least 3 tags', 'must contain at least one rating tag'] },
    });
  });

  it('GIVEN a URL that is not an image THEN ok:false with the mime type and format errors', async () => {
    const result = await client({ apiKey: FAKE_KEY }).submitImage({
      url: `${booru.url}/samples/not-an-image.txt`,
      tagInput: 'safe, pony, artist:x',
    });
    expect(result).toMatchObject({
      ok: false,
      duplicate: false,
      errors: { image_mime_type: ['is invalid'], image_format: ['is invalid'] },
    });
  });

  it('GIVEN a key the site does not know THEN the 401 is a ForbiddenError', async () => {
    const error = await client({ apiKey: 'not-the-right-key-0000' })
      .submitImage({ url: `${booru.url}/samples/wrong-key.png`, tagInput: 'safe, pony, artist:x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ code: 'PHILOMENA_FORBIDDEN', status: 401 });
  });

  it('GIVEN no key THEN ForbiddenError without a request', async () => {
    await expect(
      client().submitImage({ url: `${booru.url}/samples/x.png`, tagInput: 'safe, pony, artist:x' }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    expect(booru.requests).toHaveLength(0);
  });
});

describe('client: oEmbed', () => {
  it('GIVEN an image page URL THEN its oEmbed with the id; an unknown URL THEN NotFoundError', async () => {
    const oembed = await client().oembed(`${site.baseUrl}/images/${IDS.safe}`);
    expect(oembed.site.id).toBe(IDS.safe);
    expectAbsolute(oembed.thumbnail_url);
    await expect(client().oembed(`${site.baseUrl}/nothing/here`)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('client: tags', () => {
  it('GIVEN a name with a namespace THEN the slug path finds it', async () => {
    const tag = await client().tag('oc:littlepip');
    expect(tag.slug).toBe(TAG_SLUGS.littlepip);
    expect(api('/tags/')[0]?.path).toBe(`/api/v1/json/tags/${TAG_SLUGS.littlepip}`);
  });

  it('GIVEN a slug THEN it is used as is', async () => {
    await expect(client().tag(TAG_SLUGS.twilightSparkle)).resolves.toMatchObject({
      name: 'twilight sparkle',
    });
  });

  it('GIVEN an alias THEN it is followed to its target, unless followAlias is false', async () => {
    await expect(client().tag(TAG_SLUGS.littlepipAlias)).resolves.toMatchObject({
      slug: TAG_SLUGS.littlepip,
    });
    await expect(client().tag(TAG_SLUGS.littlepipAlias, { followAlias: false })).resolves.toMatchObject({
      slug: TAG_SLUGS.littlepipAlias,
      aliased_tag: TAG_SLUGS.littlepip,
    });
  });

  it('GIVEN an unknown tag THEN NotFoundError', async () => {
    await expect(client().tag('no such tag at all')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('GIVEN a spoiler tag THEN its spoiler image is absolute', async () => {
    const tag = await client().tag(TAG_SLUGS.spoilerS09e26);
    expect(tag.spoiler_image_uri).not.toBeNull();
    expectAbsolute(tag.spoiler_image_uri);
  });

  it('GIVEN a tag search THEN a page of tags', async () => {
    const page = await client().searchTags({ q: 'name:twi*', perPage: 10 });
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((t) => t.name.startsWith('twi'))).toBe(true);
  });
});

describe('client: comments, posts, galleries, profiles', () => {
  it('GIVEN comments THEN one by id, a search page, and 403 on a deleted image as ForbiddenError', async () => {
    await expect(client().comment(COMMENT_IDS.onSafe)).resolves.toMatchObject({ id: COMMENT_IDS.onSafe });
    const anonymous = await client().comment(COMMENT_IDS.anonymous);
    expectAbsolute(anonymous.avatar);
    expect(anonymous.avatar?.startsWith('data:')).not.toBe(true);
    await expect(client().comment(COMMENT_IDS.onDeleted)).rejects.toBeInstanceOf(ForbiddenError);
    const page = await client().searchComments({ q: `image_id:${IDS.safe}` });
    expect(page.items.length).toBeGreaterThan(0);
  });

  it('GIVEN posts THEN one by id and a search page', async () => {
    await expect(client().post(POST_IDS.botFirst)).resolves.toMatchObject({ id: POST_IDS.botFirst });
    const page = await client().searchPosts({ q: 'bot' });
    expect(page.total).toBeGreaterThanOrEqual(page.items.length);
  });

  it('GIVEN a gallery search in either server style THEN the same galleries with creator and creator_id', async () => {
    const derpi = await client().searchGalleries({ q: '*' });
    expect(derpi.items.length).toBeGreaterThan(0);
    expect(derpi.items.some((g) => g.creator !== null && g.creator_id !== null)).toBe(true);
    expect(derpi.items[0]).not.toHaveProperty('user');
    booru.setErrorStyle('upstream');
    const upstream = await client().searchGalleries({ q: '*' });
    expect(upstream.items).toEqual(derpi.items);
  });

  it('GIVEN a profile THEN avatar and award images are absolute', async () => {
    const user = await client().profile(PROFILE_IDS.fixture);
    expect(user.id).toBe(PROFILE_IDS.fixture);
    expectAbsolute(user.avatar_url);
    for (const award of user.awards) expectAbsolute(award.image_url);
    await expect(client().profile(123_456_789)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('client: filters', () => {
  it('GIVEN filter ids THEN a visible one is returned and another user private one is NotFoundError', async () => {
    await expect(client().filter(FILTER_IDS.everything)).resolves.toMatchObject({
      id: FILTER_IDS.everything,
      system: true,
    });
    await expect(client().filter(FILTER_IDS.otherPrivate)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('GIVEN system filters THEN only system ones', async () => {
    const page = await client().systemFilters();
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((f) => f.system)).toBe(true);
  });

  it('GIVEN the key THEN the owner filters include the private one; without it ForbiddenError', async () => {
    const page = await client({ apiKey: FAKE_KEY }).userFilters();
    expect(page.items.map((f) => f.id)).toContain(FILTER_IDS.ownedPrivate);
    await expect(client().userFilters()).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('GIVEN a filter search THEN matching filters', async () => {
    const page = await client().searchFilters({ q: 'Everything' });
    expect(page.items.map((f) => f.id)).toContain(FILTER_IDS.everything);
  });
});

describe('client: forums', () => {
  it('GIVEN the forums THEN list, one forum, its topics, a topic, its posts (paged) and one post', async () => {
    const c = client();
    const forums = await c.forums();
    expect(forums.items.map((f) => f.short_name)).toContain(FORUM.dis);
    await expect(c.forum(FORUM.dis)).resolves.toMatchObject({ short_name: FORUM.dis });
    const topics = await c.topics(FORUM.dis);
    expect(topics.items.map((t) => t.slug)).toContain(FORUM.botTopic);
    await expect(c.topic(FORUM.dis, FORUM.botTopic)).resolves.toMatchObject({ slug: FORUM.botTopic });
    const second = await c.topicPosts(FORUM.dis, FORUM.botTopic, { page: 2 });
    expect(second.total).toBe(30);
    expect(second.items).toHaveLength(5);
    await expect(c.topicPost(FORUM.dis, FORUM.botTopic, POST_IDS.botFirst)).resolves.toMatchObject({
      id: POST_IDS.botFirst,
    });
    await expect(c.forum('no-such-forum')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('GIVEN a tag, forum or topic name holding a lone surrogate THEN the board is asked for its U+FFFD form and answers 404, no URIError', async () => {
    const c = client();
    booru.reset();
    await expect(c.tag('pony \ud83d')).rejects.toBeInstanceOf(NotFoundError);
    await expect(c.forum('dis\udc00')).rejects.toBeInstanceOf(NotFoundError);
    await expect(c.topic(FORUM.dis, '\ud83d')).rejects.toBeInstanceOf(NotFoundError);
    const paths = booru.requests.map((r) => r.path);
    expect(paths).toContain('/api/v1/json/tags/pony+%EF%BF%BD');
    expect(paths).toContain('/api/v1/json/forums/dis%EF%BF%BD');
    expect(paths).toContain(`/api/v1/json/forums/${FORUM.dis}/topics/%EF%BF%BD`);
  });
});

describe('client: faults', () => {
  it('GIVEN malformed JSON THEN InvalidResponseError on the body', async () => {
    booru.inject({ fault: { kind: 'malformed-json' }, path: '/api/v1/json/images' });
    const error = await client()
      .image(IDS.safe)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ fieldPath: '(body)' });
  });

  it('GIVEN a body of the wrong shape THEN InvalidResponseError naming the first bad field', async () => {
    booru.inject({ fault: { kind: 'schema-break' }, path: '/api/v1/json/tags' });
    const error = await client()
      .tag('safe')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ fieldPath: 'tag' });
  });

  it('GIVEN one 429 with Retry-After THEN it waits that long and then succeeds', async () => {
    booru.inject({
      fault: { kind: 'rate-limit', retryAfterSeconds: 2 },
      path: '/api/v1/json/search',
      times: 1,
    });
    let time = 0;
    const c = client({
      now: () => time,
      sleep: async (ms) => {
        delays.push(ms);
        time += ms;
      },
    });
    await expect(c.searchImages({ q: 'safe' })).resolves.toHaveProperty('items');
    expect(delays).toEqual([2000]);
    expect(api('/search/images')).toHaveLength(2);
  });

  it('GIVEN the anti-bot 501 and little time THEN RateLimitedError of at least 5 s, and the next call fails fast', async () => {
    booru.inject({ fault: { kind: 'anti-bot' } });
    const c = client({ transport: { deadlineMs: 2000 } });
    const error = await c.image(IDS.safe).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBeGreaterThanOrEqual(5000);
    await expect(c.image(IDS.safe + 1)).rejects.toBeInstanceOf(RateLimitedError);
    expect(booru.requests).toHaveLength(1);
  });

  it('GIVEN 500s THEN SiteUnavailableError after the bounded attempts', async () => {
    // The board's own 500 (with its JSON body): empty ones are the anti-bot block (anti-bot-block.test.ts).
    booru.inject({ fault: { kind: 'status', status: 500 } });
    await expect(client().image(IDS.safe)).rejects.toMatchObject({ reason: 'server-error', status: 500 });
    expect(booru.requests).toHaveLength(3);
  });
});

describe('client: circuit breaker', () => {
  it('GIVEN the site keeps failing THEN calls stop reaching it, and after the cool-down one probe closes the breaker', async () => {
    let time = 0;
    booru.inject({ fault: { kind: 'status', status: 500 }, times: 2 });
    const c = client({
      now: () => time,
      breaker: { failureThreshold: 2, coolDownMs: 30_000 },
      transport: { maxAttempts: 1 },
    });
    for (const id of [IDS.safe, IDS.suggestive]) {
      await expect(c.image(id)).rejects.toMatchObject({ reason: 'server-error' });
    }
    const refused = await c.image(IDS.questionable).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'PHILOMENA_UNAVAILABLE', reason: 'circuit-open' });
    expect(booru.requests).toHaveLength(2);
    expect(c.stats().breaker).toBe('open');
    time += 30_000;
    expect(c.stats().breaker).toBe('half-open');
    await expect(c.image(IDS.questionable)).resolves.toMatchObject({ id: IDS.questionable });
    expect(c.stats().breaker).toBe('closed');
    expect(booru.requests).toHaveLength(3);
  });
});

describe('client: budget', () => {
  it('GIVEN more distinct requests than the budget window allows THEN the extra ones queue and all succeed', async () => {
    const c = client({ budget: { overall: { limit: 2, windowMs: 100 } } });
    const ids = [IDS.safe, IDS.suggestive, IDS.questionable, IDS.noArtist, IDS.multiCredit];
    const started = performance.now();
    const done: number[] = [];
    const all = Promise.all(
      ids.map((id) =>
        c.image(id).then((image) => {
          done.push(performance.now() - started);
          return image;
        }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(c.stats().budget.queued).toBe(3);
    const images = await all;
    expect(images.map((i) => i.id)).toEqual(ids);
    expect(api('/images/')).toHaveLength(5);
    // Only two may start in the first 100 ms: the third answer cannot come sooner.
    expect(done.sort((a, b) => a - b)[2]).toBeGreaterThanOrEqual(99);
  });
});

describe('client: cache and coalescing', () => {
  it('GIVEN 100 concurrent identical image requests THEN one upstream request', async () => {
    const c = client();
    const results = await Promise.all(Array.from({ length: 100 }, () => c.image(IDS.safe)));
    expect(new Set(results.map((r) => r.id))).toEqual(new Set([IDS.safe]));
    expect(api('/images/')).toHaveLength(1);
  });

  it('GIVEN an unknown id asked twice THEN the 404 is remembered', async () => {
    const c = client();
    await expect(c.image(999_998)).rejects.toBeInstanceOf(NotFoundError);
    await expect(c.image(999_998)).rejects.toBeInstanceOf(NotFoundError);
    expect(api('/images/')).toHaveLength(1);
  });

  it('GIVEN fresh THEN the cache is skipped', async () => {
    const c = client();
    await c.image(IDS.safe);
    await c.image(IDS.safe, { fresh: true });
    expect(api('/images/')).toHaveLength(2);
  });
});
