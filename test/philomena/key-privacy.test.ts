/**
 * The key lends the owner's account rights to whatever request carries it, so only the
 * owner's own calls send it: `userFilters` and `submitImage`. Every read, search, reverse search and
 * filter lookup goes without it, even from a client that has a key.
 */
import { useFakeBoard } from '../support/board.js';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
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
import type { Site } from '../../src/philomena/sites.js';

let booru: FakePhilomena;
let site: Site;
useFakeBoard((started, startedSite) => {
  booru = started;
  site = startedSite;
});

const keyed = (): ManagedPhilomenaClient =>
  createPhilomenaClient({ site, apiKey: FAKE_KEY, sleep: async () => undefined });

/** Every way the key could travel: the query string, the body, a header. */
function carriesKey(r: FakePhilomena['requests'][number]): boolean {
  return (
    r.query.has('key') ||
    r.body.includes(FAKE_KEY) ||
    Object.values(r.headers).some((v) => String(v).includes(FAKE_KEY))
  );
}

describe('the key stays home', () => {
  it('GIVEN a client with a key THEN no image read, search, reverse search or filter lookup sends it', async () => {
    const c = keyed();
    const image = await c.image(IDS.safe, { filterId: FILTER_IDS.everything });
    if (image.kind !== 'image') throw new Error('expected a visible image');
    const file = new Uint8Array(await (await request(image.representations.full)).body.arrayBuffer());
    const calls: [string, () => Promise<unknown>][] = [
      ['featuredImage', () => c.featuredImage()],
      ['searchImages', () => c.searchImages({ q: 'safe', filterId: FILTER_IDS.everything })],
      ['searchImages my:', () => c.searchImages({ q: 'my:upvotes' })],
      ['reverseSearch url', () => c.reverseSearch({ url: image.representations.full })],
      ['reverseSearch file', () => c.reverseSearch({ file, filename: 'a.png' })],
      [
        'reverseSearch upload',
        () =>
          c.reverseSearch({
            upload: {
              filename: 'a.png',
              key: 'https://cdn.example.test/a.png',
              maxBytes: file.byteLength,
              open: async () =>
                (async function* () {
                  yield file;
                })(),
            },
          }),
      ],
      ['tag', () => c.tag(TAG_SLUGS.safe)],
      ['searchTags', () => c.searchTags({ q: 'safe' })],
      ['comment', () => c.comment(COMMENT_IDS.onSafe)],
      ['searchComments', () => c.searchComments({ q: 'image_id:101' })],
      ['post', () => c.post(POST_IDS.botFirst)],
      ['searchPosts', () => c.searchPosts({ q: 'hello' })],
      ['searchGalleries', () => c.searchGalleries({ q: 'title:*' })],
      ['profile', () => c.profile(PROFILE_IDS.owner)],
      ['filter', () => c.filter(FILTER_IDS.default)],
      ['private filter', () => c.filter(FILTER_IDS.ownedPrivate)],
      ['systemFilters', () => c.systemFilters()],
      ['searchFilters', () => c.searchFilters({ q: 'name:*' })],
      ['forums', () => c.forums()],
      ['forum', () => c.forum(FORUM.dis)],
      ['topics', () => c.topics(FORUM.dis)],
      ['topic', () => c.topic(FORUM.dis, FORUM.botTopic)],
      ['topicPosts', () => c.topicPosts(FORUM.dis, FORUM.botTopic)],
      ['oembed', () => c.oembed(`${site.baseUrl}/images/${IDS.safe}`)],
    ];
    for (const [, call] of calls) await call().catch(() => undefined);
    const api = booru.requests.filter((r) => r.path.startsWith('/api/v1/json'));
    expect(api.length).toBeGreaterThanOrEqual(calls.length);
    expect(api.filter(carriesKey).map((r) => r.path)).toEqual([]);
    await c.close();
  });

  it('GIVEN a client with a key THEN userFilters and submitImage still send it', async () => {
    const c = keyed();
    await c.userFilters();
    await c.submitImage({
      url: `${booru.url}/samples/key-privacy-${Date.now()}.png`,
      tagInput: 'safe, pony',
    });
    const keyedCalls = booru.requests.filter((r) => r.query.get('key') === FAKE_KEY);
    expect(keyedCalls.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/json/filters/user',
      'POST /api/v1/json/images',
    ]);
    await c.close();
  });
});
