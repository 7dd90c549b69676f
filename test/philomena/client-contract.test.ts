/**
 * What every endpoint of the client promises, endpoint by endpoint: a body that does not fit is an
 * InvalidResponseError naming the first bad field; every URL handed out is absolute https; each resource is
 * cached for its own lifetime (oEmbed for its `cache_age`); cache keys carry the site and the filter and
 * never the key; errors other than 404 are never cached.
 */
import { useFakeBoard } from '../support/board.js';
import { readFileSync } from 'node:fs';
import Keyv from 'keyv';
import { MockAgent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  COMMENT_IDS,
  FAKE_KEY,
  FILTER_IDS,
  FORUM,
  IDS,
  POST_IDS,
  PROFILE_IDS,
  TAG_SLUGS,
  type FakePhilomena,
} from '../fakes/philomena/index.js';
import { createPhilomenaClient, type ManagedPhilomenaClient } from '../../src/philomena/client/index.js';
import { createResponseCache, LIFETIMES, NOT_FOUND_LIFETIME_MS } from '../../src/philomena/cache.js';
import { knownSite, type Site } from '../../src/philomena/sites.js';
import { InvalidResponseError, NotFoundError, SiteUnavailableError } from '../../src/philomena/errors.js';
import { philomenaFixture } from '../support/shared.js';

let booru: FakePhilomena;
let site: Site;
useFakeBoard((started, startedSite) => {
  booru = started;
  site = startedSite;
});

const API = '/api/v1/json';

interface EndpointCase {
  readonly name: string;
  readonly path: string;
  readonly call: (c: ManagedPhilomenaClient) => Promise<unknown>;
  /** The first field the fake's schema-breaking body gets wrong for this endpoint. */
  readonly badField: string;
  /** Cache lifetime in ms; undefined for what is never cached (submission). */
  readonly ttlMs: number | undefined;
}

/** All 24 endpoints (the 23 of the API description and search/filters), each called once. */
const ENDPOINTS: readonly EndpointCase[] = [
  {
    name: 'image',
    path: `${API}/images/${IDS.safe}`,
    call: (c) => c.image(IDS.safe),
    badField: 'image',
    ttlMs: LIFETIMES.image,
  },
  {
    name: 'featuredImage',
    path: `${API}/images/featured`,
    call: (c) => c.featuredImage(),
    badField: 'image',
    ttlMs: LIFETIMES.featured,
  },
  {
    name: 'searchImages',
    path: `${API}/search/images`,
    call: (c) => c.searchImages({ q: 'safe' }),
    badField: 'images',
    ttlMs: LIFETIMES.imageSearch,
  },
  {
    name: 'reverseSearch',
    path: `${API}/search/reverse`,
    call: (c) => c.reverseSearch({ url: `${booru.url}/samples/contract.png` }),
    badField: 'images',
    ttlMs: LIFETIMES.reverseSearch,
  },
  {
    name: 'submitImage',
    path: `${API}/images`,
    call: (c) => c.submitImage({ url: `${booru.url}/samples/contract-${Date.now()}.png`, tagInput: 'safe' }),
    badField: 'image',
    ttlMs: undefined,
  },
  {
    name: 'oembed',
    path: `${API}/oembed`,
    call: (c) => c.oembed(`https://derpibooru.org/images/${IDS.safe}`),
    badField: 'provider_name',
    ttlMs: 7200 * 1000,
  },
  {
    name: 'tag',
    path: `${API}/tags/${TAG_SLUGS.safe}`,
    call: (c) => c.tag(TAG_SLUGS.safe),
    badField: 'tag',
    ttlMs: LIFETIMES.tag,
  },
  {
    name: 'searchTags',
    path: `${API}/search/tags`,
    call: (c) => c.searchTags({ q: 'name:twi*' }),
    badField: 'tags',
    ttlMs: LIFETIMES.tagSearch,
  },
  {
    name: 'comment',
    path: `${API}/comments/${COMMENT_IDS.onSafe}`,
    call: (c) => c.comment(COMMENT_IDS.onSafe),
    badField: 'comment',
    ttlMs: LIFETIMES.comment,
  },
  {
    name: 'searchComments',
    path: `${API}/search/comments`,
    call: (c) => c.searchComments({ q: `image_id:${IDS.safe}` }),
    badField: 'comments',
    ttlMs: LIFETIMES.commentSearch,
  },
  {
    name: 'post',
    path: `${API}/posts/${POST_IDS.botFirst}`,
    call: (c) => c.post(POST_IDS.botFirst),
    badField: 'post',
    ttlMs: LIFETIMES.post,
  },
  {
    name: 'searchPosts',
    path: `${API}/search/posts`,
    call: (c) => c.searchPosts({ q: 'bot' }),
    badField: 'posts',
    ttlMs: LIFETIMES.postSearch,
  },
  {
    name: 'searchGalleries',
    path: `${API}/search/galleries`,
    call: (c) => c.searchGalleries({ q: '*' }),
    badField: 'galleries',
    ttlMs: LIFETIMES.gallerySearch,
  },
  {
    name: 'profile',
    path: `${API}/profiles/${PROFILE_IDS.fixture}`,
    call: (c) => c.profile(PROFILE_IDS.fixture),
    badField: 'user',
    ttlMs: LIFETIMES.profile,
  },
  {
    name: 'filter',
    path: `${API}/filters/${FILTER_IDS.everything}`,
    call: (c) => c.filter(FILTER_IDS.everything),
    badField: 'filter',
    ttlMs: LIFETIMES.filter,
  },
  {
    name: 'systemFilters',
    path: `${API}/filters/system`,
    call: (c) => c.systemFilters(),
    badField: 'filters',
    ttlMs: LIFETIMES.systemFilters,
  },
  {
    name: 'userFilters',
    path: `${API}/filters/user`,
    call: (c) => c.userFilters(),
    badField: 'filters',
    ttlMs: LIFETIMES.userFilters,
  },
  {
    name: 'searchFilters',
    path: `${API}/search/filters`,
    call: (c) => c.searchFilters({ q: 'Everything' }),
    badField: 'filters',
    ttlMs: LIFETIMES.filterSearch,
  },
  {
    name: 'forums',
    path: `${API}/forums`,
    call: (c) => c.forums(),
    badField: 'forums',
    ttlMs: LIFETIMES.forums,
  },
  {
    name: 'forum',
    path: `${API}/forums/${FORUM.dis}`,
    call: (c) => c.forum(FORUM.dis),
    badField: 'forum',
    ttlMs: LIFETIMES.forum,
  },
  {
    name: 'topics',
    path: `${API}/forums/${FORUM.dis}/topics`,
    call: (c) => c.topics(FORUM.dis),
    badField: 'topics',
    ttlMs: LIFETIMES.topics,
  },
  {
    name: 'topic',
    path: `${API}/forums/${FORUM.dis}/topics/${FORUM.botTopic}`,
    call: (c) => c.topic(FORUM.dis, FORUM.botTopic),
    badField: 'topic',
    ttlMs: LIFETIMES.topic,
  },
  {
    name: 'topicPosts',
    path: `${API}/forums/${FORUM.dis}/topics/${FORUM.botTopic}/posts`,
    call: (c) => c.topicPosts(FORUM.dis, FORUM.botTopic),
    badField: 'posts',
    ttlMs: LIFETIMES.topicPosts,
  },
  {
    name: 'topicPost',
    path: `${API}/forums/${FORUM.dis}/topics/${FORUM.botTopic}/posts/${POST_IDS.botFirst}`,
    call: (c) => c.topicPost(FORUM.dis, FORUM.botTopic, POST_IDS.botFirst),
    badField: 'post',
    ttlMs: LIFETIMES.post,
  },
];

/** The path exactly (a prefix rule would also break `/forums/dis` for `/forums`). */
const exactly = (path: string): RegExp => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

function client(options: { now?: () => number; store?: Keyv; apiKey?: string } = {}) {
  const cache = createResponseCache({
    ...(options.store ? { store: options.store } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return createPhilomenaClient({
    site,
    apiKey: options.apiKey ?? FAKE_KEY,
    cache,
    transport: { baseDelayMs: 1 },
    sleep: async () => undefined,
  });
}

const upstream = (path: string) => booru.requests.filter((r) => r.path === path).length;

describe('every endpoint: a body that does not fit', () => {
  it('GIVEN the table THEN it names 24 distinct endpoints, one per client method', () => {
    expect(new Set(ENDPOINTS.map((e) => e.name)).size).toBe(24);
    const methods = Object.keys(client()).filter((k) => !['site', 'stats', 'close'].includes(k));
    expect(methods.sort()).toEqual(ENDPOINTS.map((e) => e.name).sort());
  });

  it.each(ENDPOINTS)(
    'GIVEN $name answers JSON of the wrong shape THEN InvalidResponseError names $badField, and nothing is cached',
    async ({ path, call, badField }) => {
      booru.inject({ fault: { kind: 'schema-break' }, path: exactly(path), times: 1 });
      const c = client();
      const error = await call(c).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect(error).toMatchObject({ code: 'PHILOMENA_INVALID_RESPONSE', fieldPath: badField, status: 200 });
      expect((error as Error).message).toContain(badField);
      expect((error as InvalidResponseError).path).not.toContain(FAKE_KEY);
      // Not cached: the next call asks again and gets the real answer.
      await expect(call(c)).resolves.toBeDefined();
      expect(upstream(path)).toBe(2);
    },
  );

  it.each(ENDPOINTS)(
    'GIVEN $name answers something that is not JSON THEN InvalidResponseError on (body)',
    async ({ path, call }) => {
      booru.inject({ fault: { kind: 'malformed-json' }, path: exactly(path), times: 1 });
      const error = await call(client()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect(error).toMatchObject({ fieldPath: '(body)' });
    },
  );

  it('GIVEN a search whose second image lacks representations.full THEN the client error names that deep path', async () => {
    const body = JSON.parse(
      readFileSync(philomenaFixture('derpibooru_2024_search_images_response.json'), 'utf8'),
    ) as { images: { representations: Record<string, unknown> }[] };
    delete body.images[1]?.representations['full'];
    booru.inject({
      fault: { kind: 'status', status: 200, body: JSON.stringify(body) },
      path: `${API}/search/images`,
    });
    const error = await client()
      .searchImages({ q: 'safe' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ fieldPath: 'images[1].representations.full' });
    expect((error as Error).message).toContain('images[1].representations.full');
  });
});

describe('every cached endpoint: its own lifetime', () => {
  it.each(ENDPOINTS.filter((e) => e.ttlMs !== undefined))(
    'GIVEN $name THEN it is served from the cache until its lifetime ends, then asked again',
    async ({ path, call, ttlMs }) => {
      const lifetime = ttlMs ?? 0;
      let time = 1_000_000;
      const c = client({ now: () => time });
      await call(c);
      time += lifetime - 1;
      await call(c);
      expect(upstream(path)).toBe(1);
      time += 1;
      await call(c);
      expect(upstream(path)).toBe(2);
    },
  );

  it('GIVEN the submission THEN it is never cached: the same call twice goes upstream twice', async () => {
    const c = client();
    const url = `${booru.url}/samples/never-cached-${Date.now()}.png`;
    await c.submitImage({ url, tagInput: 'safe' });
    await c.submitImage({ url, tagInput: 'safe' });
    expect(booru.requests.filter((r) => r.method === 'POST' && r.path === `${API}/images`)).toHaveLength(2);
  });

  it('GIVEN an oEmbed answer with cache_age 60 THEN it is kept 60 s, not a fixed lifetime', async () => {
    booru.inject({
      fault: {
        kind: 'status',
        status: 200,
        body: JSON.stringify({
          cache_age: 60,
          furbooru_id: 5,
          furbooru_score: 1,
          furbooru_comments: 0,
          furbooru_tags: ['safe'],
          provider_name: 'Furbooru',
          provider_url: 'https://furbooru.org',
          title: '#5',
          type: 'photo',
          version: '1.0',
        }),
      },
      path: `${API}/oembed`,
    });
    let time = 1_000_000;
    const c = client({ now: () => time });
    await expect(c.oembed('https://furbooru.org/images/5')).resolves.toMatchObject({
      cache_age: 60,
      site: { id: 5, tags: ['safe'] },
    });
    time += 59_999;
    await c.oembed('https://furbooru.org/images/5');
    expect(upstream(`${API}/oembed`)).toBe(1);
    time += 1;
    await c.oembed('https://furbooru.org/images/5');
    expect(upstream(`${API}/oembed`)).toBe(2);
  });

  it('GIVEN a 404 THEN it is remembered for the short negative lifetime only', async () => {
    let time = 1_000_000;
    const c = client({ now: () => time });
    await expect(c.image(999_997)).rejects.toBeInstanceOf(NotFoundError);
    time += NOT_FOUND_LIFETIME_MS - 1;
    await expect(c.image(999_997)).rejects.toBeInstanceOf(NotFoundError);
    expect(upstream(`${API}/images/999997`)).toBe(1);
    time += 1;
    await expect(c.image(999_997)).rejects.toBeInstanceOf(NotFoundError);
    expect(upstream(`${API}/images/999997`)).toBe(2);
    expect(NOT_FOUND_LIFETIME_MS).toBeLessThanOrEqual(60_000);
  });

  it('GIVEN a 500 THEN it is not cached: the next call asks again and succeeds', async () => {
    booru.inject({ fault: { kind: 'status', status: 500 }, path: `${API}/images/${IDS.safe}`, times: 3 });
    const c = client();
    await expect(c.image(IDS.safe)).rejects.toBeInstanceOf(SiteUnavailableError);
    await expect(c.image(IDS.safe)).resolves.toMatchObject({ id: IDS.safe });
    expect(upstream(`${API}/images/${IDS.safe}`)).toBe(4);
  });
});

describe('cache keys', () => {
  it('GIVEN keyed and filtered calls THEN every key names the site and the filter, and no key or value holds the key', async () => {
    const map = new Map<string, unknown>();
    const store = new Keyv({ store: map });
    const c = client({ store });
    await c.image(IDS.safe, { filterId: FILTER_IDS.everything });
    await c.image(IDS.safe);
    await c.searchImages({ q: 'safe', filterId: FILTER_IDS.default });
    await c.userFilters();
    await c.tag(TAG_SLUGS.safe);
    await expect(c.image(999_996)).rejects.toBeInstanceOf(NotFoundError);
    const keys = [...map.keys()];
    expect(keys.length).toBeGreaterThanOrEqual(6);
    for (const key of keys) {
      expect(key).toContain(`philomena:${site.id}:`);
      expect(key).toMatch(/:f=(?:default|\d+):/);
    }
    expect(keys.some((k) => k.includes(`:f=${FILTER_IDS.everything}:`))).toBe(true);
    expect(keys.some((k) => k.includes(`:f=${FILTER_IDS.default}:`))).toBe(true);
    const everything = JSON.stringify([...map.entries()]);
    for (const form of [FAKE_KEY, encodeURIComponent(FAKE_KEY)]) expect(everything).not.toContain(form);
  });
});

// ---- URLs, against a Derpibooru configured as https (undici's MockAgent stands in for the network) ----

const derpibooru = knownSite('derpibooru') as Site;
const image2020 = (
  JSON.parse(readFileSync(philomenaFixture('derpibooru_2020_image_2028858_show_response.json'), 'utf8')) as {
    image: Record<string, unknown>;
  }
).image;
const oddImage = {
  ...image2020,
  representations: {
    full: '//derpicdn.net/img/view/2019/5/2/2028858.png',
    large: 'http://derpicdn.net/img/2019/5/2/2028858/large.png',
    medium: '/img/2019/5/2/2028858/medium.png',
    small: 'https://derpicdn.net/img/2019/5/2/2028858/small.png',
    tall: 'HTTP://derpicdn.net/img/2019/5/2/2028858/tall.png',
    thumb: '//derpicdn.net/img/2019/5/2/2028858/thumb.png',
    thumb_small: '/img/2019/5/2/2028858/thumb_small.png',
    thumb_tiny: 'http://derpicdn.net/img/2019/5/2/2028858/thumb_tiny.png',
    webm: 'http://derpicdn.net/img/2019/5/2/2028858/full.webm',
  },
  view_url: 'http://derpicdn.net/img/view/2019/5/2/2028858__safe_artist-colon-kam.png',
  source_url: undefined,
  source_urls: ['http://twitter.com/KamDrawings/status/1', '//www.deviantart.com/kam/art/2', 'my own art'],
};
const avatars = [
  'http://derpicdn.net/avatars/a.png',
  '//derpicdn.net/avatars/b.png',
  '/avatars/c.png',
  'data:image/svg+xml;utf8,<svg/>',
];
const comment = (i: number) => ({
  id: 10 + i,
  author: 'Background Pony #1A2B',
  avatar: avatars[i % avatars.length],
  body: 'hi',
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:00:00Z',
  edit_reason: null,
  edited_at: null,
  image_id: 2028858,
  user_id: null,
});
const tag = {
  id: 1,
  name: 'spoiler:s09e26',
  slug: 'spoiler-colon-s09e26',
  images: 10,
  spoiler_image_uri: '/media/2019/10/12/spoiler.svg',
};
const user = {
  id: 216494,
  name: 'Joey',
  slug: 'Joey',
  created_at: '2012-06-25T01:15:57Z',
  avatar_url: 'http://derpicdn.net/avatars/2019/joey.png',
  links: [{ state: 'verified', user_id: 216494, created_at: '2018-12-10T04:53:18Z', tag_id: 1 }],
  awards: [
    { id: 1, title: 'a', label: null, image_url: '//derpicdn.net/badges/a.svg', awarded_on: null },
    { id: 2, title: 'b', label: '', image_url: '/badges/b.svg', awarded_on: '2016-02-28T14:52:15Z' },
    { id: 3, title: 'c', label: 'x', image_url: 'http://derpicdn.net/badges/c.svg', awarded_on: null },
  ],
};
const oembed = {
  author_name: 'kam',
  author_url: 'http://twitter.com/KamDrawings/status/1',
  cache_age: 7200,
  derpibooru_comments: 63,
  derpibooru_id: 2028858,
  derpibooru_score: 1103,
  derpibooru_tags: ['safe', 'artist:kam'],
  provider_name: 'Derpibooru',
  provider_url: 'http://derpibooru.org',
  title: '#2028858 - safe, artist:kam - Derpibooru',
  type: 'photo',
  version: '1.0',
  thumbnail_url: '//derpicdn.net/img/2019/5/2/2028858/thumb.png',
  url: 'http://derpicdn.net/img/view/2019/5/2/2028858.png',
};
const posts = { posts: [0, 1, 2, 3].map((i) => ({ ...comment(i), image_id: undefined })), total: 4 };

const ANSWERS: readonly [string, unknown][] = [
  [`${API}/images/featured`, { image: oddImage }],
  [`${API}/images/2028858`, { image: oddImage }],
  [`${API}/search/images`, { images: [oddImage], total: 1 }],
  [`${API}/search/reverse`, { images: [oddImage], total: 1 }],
  [`${API}/images`, { image: oddImage }],
  [`${API}/oembed`, oembed],
  [`${API}/tags/spoiler-colon-s09e26`, { tag }],
  [`${API}/search/tags`, { tags: [tag], total: 1 }],
  [`${API}/comments/10`, { comment: comment(0) }],
  [`${API}/search/comments`, { comments: [0, 1, 2, 3].map(comment), total: 4 }],
  [`${API}/posts/11`, { post: { ...comment(1), image_id: undefined } }],
  [`${API}/search/posts`, posts],
  [`${API}/forums/dis/topics/t/posts/12`, { post: { ...comment(2), image_id: undefined } }],
  [`${API}/forums/dis/topics/t/posts`, posts],
  [`${API}/profiles/216494`, { user }],
];

/** Every string in `value` that is a URL or a path (`http...`, `//...`, `/...`). */
function urlsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (/^\s*(?:[a-z][a-z0-9+.-]*:\/\/|\/|https?:)/i.test(value)) out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) urlsIn(item, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) urlsIn(item, out);
  }
  return out;
}

describe('every URL the client hands out is absolute https', () => {
  let agent: MockAgent;
  let https: ManagedPhilomenaClient;

  beforeAll(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(derpibooru.baseUrl);
    for (const [path, body] of ANSWERS) {
      pool
        .intercept({ path: (p: string) => p.split('?')[0] === path, method: /GET|POST/ })
        .reply(200, JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
        .persist();
    }
    https = createPhilomenaClient({ site: derpibooru, apiKey: 'contract-key-1234', dispatcher: agent });
  });
  afterAll(async () => {
    await agent.close();
  });

  const calls: readonly [string, (c: ManagedPhilomenaClient) => Promise<unknown>][] = [
    ['image', (c) => c.image(2028858)],
    ['featuredImage', (c) => c.featuredImage()],
    ['searchImages', (c) => c.searchImages({ q: 'safe' })],
    ['reverseSearch by URL', (c) => c.reverseSearch({ url: 'https://example.test/a.png' })],
    [
      'reverseSearch by bytes',
      (c) => c.reverseSearch({ file: new Uint8Array([1, 2, 3]), filename: 'a.png' }, { distance: 0.3 }),
    ],
    [
      'submitImage',
      (c) => c.submitImage({ url: 'https://example.test/new.png', tagInput: 'safe, pony, artist:x' }),
    ],
    ['oembed', (c) => c.oembed('https://derpibooru.org/images/2028858')],
    ['tag', (c) => c.tag('spoiler:s09e26')],
    ['searchTags', (c) => c.searchTags({ q: 'spoiler:*' })],
    ['comment', (c) => c.comment(10)],
    ['searchComments', (c) => c.searchComments({ q: 'x' })],
    ['post', (c) => c.post(11)],
    ['searchPosts', (c) => c.searchPosts({ q: 'x' })],
    ['topicPosts', (c) => c.topicPosts('dis', 't')],
    ['topicPost', (c) => c.topicPost('dis', 't', 12)],
    ['profile', (c) => c.profile(216494)],
  ];

  it.each(calls)(
    'GIVEN %s answered with http, protocol- and root-relative URLs THEN every URL in the result is https',
    async (_name, call) => {
      const result = await call(https);
      const urls = urlsIn(result);
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) expect(url, url).toMatch(/^https:\/\/[^/]/);
    },
  );

  it('GIVEN the odd image THEN each URL is resolved the documented way', async () => {
    const image = await https.image(2028858);
    if (image.kind !== 'image') throw new Error('expected a visible image');
    expect(image.representations).toMatchObject({
      full: 'https://derpicdn.net/img/view/2019/5/2/2028858.png',
      large: 'https://derpicdn.net/img/2019/5/2/2028858/large.png',
      medium: 'https://derpibooru.org/img/2019/5/2/2028858/medium.png',
      tall: 'https://derpicdn.net/img/2019/5/2/2028858/tall.png',
      webm: 'https://derpicdn.net/img/2019/5/2/2028858/full.webm',
    });
    expect(image.view_url).toBe('https://derpicdn.net/img/view/2019/5/2/2028858__safe_artist-colon-kam.png');
    expect(image.source_urls).toEqual([
      'https://twitter.com/KamDrawings/status/1',
      'https://www.deviantart.com/kam/art/2',
      'my own art',
    ]);
  });

  it('GIVEN comments with every kind of avatar THEN https or null (a data: URI cannot be shown)', async () => {
    const page = await https.searchComments({ q: 'y' });
    expect(page.items.map((c) => c.avatar)).toEqual([
      'https://derpicdn.net/avatars/a.png',
      'https://derpicdn.net/avatars/b.png',
      'https://derpibooru.org/avatars/c.png',
      null,
    ]);
  });

  it('GIVEN the profile, tag and oEmbed THEN avatar, award images, spoiler image and oEmbed URLs are https', async () => {
    const profile = await https.profile(216494);
    expect(profile.avatar_url).toBe('https://derpicdn.net/avatars/2019/joey.png');
    expect(profile.awards.map((a) => a.image_url)).toEqual([
      'https://derpicdn.net/badges/a.svg',
      'https://derpibooru.org/badges/b.svg',
      'https://derpicdn.net/badges/c.svg',
    ]);
    expect(profile.links).toEqual([
      { state: 'verified', user_id: 216494, created_at: '2018-12-10T04:53:18.000Z', tag_id: 1 },
    ]);
    expect((await https.tag('spoiler:s09e26')).spoiler_image_uri).toBe(
      'https://derpibooru.org/media/2019/10/12/spoiler.svg',
    );
    expect(await https.oembed('https://derpibooru.org/images/2028858')).toMatchObject({
      author_url: 'https://twitter.com/KamDrawings/status/1',
      provider_url: 'https://derpibooru.org/',
      thumbnail_url: 'https://derpicdn.net/img/2019/5/2/2028858/thumb.png',
      url: 'https://derpicdn.net/img/view/2019/5/2/2028858.png',
      site: { id: 2028858, score: 1103, comments: 63 },
    });
  });
});

describe('tags over the wire', () => {
  const TAGS: Record<string, { name: string; aliased_tag?: string }> = {
    'artist-colon-foo+bar': { name: 'artist:foo bar' },
    'pinkie%27s+100%25+%231%3F': { name: "pinkie's 100% #1?" },
    'c-plus--plus-': { name: 'c++' },
    'loop-dash-a': { name: 'loop-a', aliased_tag: 'loop-dash-b' },
    'loop-dash-b': { name: 'loop-b', aliased_tag: 'loop-dash-a' },
    'chain-dash-1': { name: 'chain-1', aliased_tag: 'chain-dash-2' },
    'chain-dash-2': { name: 'chain-2', aliased_tag: 'chain-dash-3' },
    'chain-dash-3': { name: 'chain-3' },
  };
  let agent: MockAgent;
  let requested: string[];
  let tags: ManagedPhilomenaClient;

  beforeEach(() => {
    requested = [];
    agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get(derpibooru.baseUrl)
      .intercept({ path: (p: string) => p.startsWith(`${API}/tags/`) })
      .reply(({ path }) => {
        const encoded = path.slice(`${API}/tags/`.length);
        requested.push(encoded);
        const tag = TAGS[encoded];
        if (!tag) return { statusCode: 404, data: '' };
        const slug = decodeURIComponent(encoded);
        return {
          statusCode: 200,
          data: JSON.stringify({ tag: { id: 1, slug, images: 1, aliased_tag: null, ...tag } }),
          responseOptions: { headers: { 'content-type': 'application/json' } },
        };
      })
      .persist();
    tags = createPhilomenaClient({ site: derpibooru, dispatcher: agent });
  });
  afterEach(async () => {
    await agent.close();
  });

  it.each([
    ['artist:foo bar', 'artist-colon-foo+bar'],
    ['artist-colon-foo+bar', 'artist-colon-foo+bar'],
    ["pinkie's 100% #1?", 'pinkie%27s+100%25+%231%3F'],
  ])('GIVEN the tag %j THEN the path is the slug, percent-encoded: %s', async (input, path) => {
    await expect(tags.tag(input)).resolves.toMatchObject({ slug: decodeURIComponent(path) });
    expect(requested).toEqual([path]);
  });

  it('GIVEN a name that also reads as a slug (c++) THEN after the 404 the name is tried as a name', async () => {
    await expect(tags.tag('c++')).resolves.toMatchObject({ name: 'c++' });
    expect(requested).toEqual(['c++', 'c-plus--plus-']);
  });

  it('GIVEN an alias of an alias THEN it is followed to the end', async () => {
    await expect(tags.tag('chain-1')).resolves.toMatchObject({ name: 'chain-3' });
    expect(requested).toEqual(['chain-dash-1', 'chain-dash-2', 'chain-dash-3']);
  });

  it('GIVEN aliases that loop THEN InvalidResponseError on tag.aliased_tag, not an endless walk', async () => {
    const error = await tags.tag('loop-a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ fieldPath: 'tag.aliased_tag' });
    expect(requested).toEqual(['loop-dash-a', 'loop-dash-b']);
  });
});
