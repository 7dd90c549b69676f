/**
 * An image search seeds the cache of `image(id)`: each image it returns is stored under the key and for the
 * lifetime `image(id, { filterId })` with the search's filter would give it, so opening a result costs no
 * board call. Philomena answers both requests with the same record through the same view, `spoilered`
 * included (images.ts says where); the local board does too, which the equality tests below check.
 */
import { Writable } from 'node:stream';
import Keyv from 'keyv';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FILTER_IDS, IDS, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { createLogger } from '../../src/logger.js';
import { createResponseCache, LIFETIMES, type ResponseCacheOptions } from '../../src/philomena/cache.js';
import { createPhilomenaClient, type PhilomenaClientOptions } from '../../src/philomena/client/index.js';
import { createClientRegistry } from '../../src/philomena/registry.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';

const API = '/api/v1/json';

let booru: FakePhilomena;
let site: Site;
let time: number;

beforeAll(async () => {
  booru = await startFakePhilomena();
  site = resolveSite(booru.url);
});
afterAll(async () => {
  await booru.close();
});
beforeEach(() => {
  booru.reset();
  time = Date.now();
});

/** Board calls for images by id (`id` one of them), and every board call. */
const imageCalls = (id?: number): number =>
  booru.requests.filter((r) =>
    id === undefined ? /^\/api\/v1\/json\/images\/\d+$/.test(r.path) : r.path === `${API}/images/${id}`,
  ).length;
const boardCalls = (): number => booru.requests.filter((r) => r.path.startsWith(`${API}/`)).length;

/**
 * A client on the local board whose cache and upload-age clock both read `time`; `idle()` waits for the
 * seed writes the cache has under way.
 */
function client(
  options: Partial<PhilomenaClientOptions> = {},
  cacheOptions: Omit<ResponseCacheOptions, 'now'> = {},
) {
  const now = () => time;
  const cache = createResponseCache({ ...cacheOptions, now });
  const c = createPhilomenaClient({
    site,
    cache,
    wallNow: now,
    sleep: async () => undefined,
    ...options,
  });
  return Object.assign(c, { idle: () => cache.idle() });
}

/** The image entries of a Map-backed keyv, by key without keyv's prefix. */
async function imageEntries(map: Map<string, unknown>, store: Keyv): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const raw of map.keys()) {
    const key = raw.replace(/^keyv:/, '');
    if (key.includes(':image:images/')) out.set(key, await store.get(key));
  }
  return out;
}

const LAYERS: readonly { name: string; cache: () => Omit<ResponseCacheOptions, 'now'> }[] = [
  { name: 'an in-memory cache', cache: () => ({}) },
  { name: 'a store behind no memory layer', cache: () => ({ store: new Keyv(), memoryEntries: 0 }) },
  { name: 'a store behind the memory layer', cache: () => ({ store: new Keyv() }) },
];

describe('an image search seeds image(id)', () => {
  it.each(LAYERS)(
    'GIVEN $name and a search THEN opening each result with the same filter asks the board nothing more',
    async ({ cache }) => {
      const c = client({}, cache());
      for (const filterId of [undefined, FILTER_IDS.maximumSpoilers]) {
        const filter = filterId === undefined ? {} : { filterId };
        const { items } = await c.searchImages({ q: 'safe || questionable', perPage: 50, ...filter });
        expect(items.length).toBeGreaterThan(3);
        const before = boardCalls();
        for (const item of items) await expect(c.image(item.id, filter)).resolves.toEqual(item);
        expect(boardCalls()).toBe(before);
      }
      expect(imageCalls()).toBe(0);
      await c.close();
    },
  );

  it.each([undefined, FILTER_IDS.default, FILTER_IDS.everything, FILTER_IDS.maximumSpoilers])(
    'GIVEN filter %s THEN the seeded keys and values are exactly those image(id) stores from its own board call',
    async (filterId) => {
      const filter = filterId === undefined ? {} : { filterId };
      const seededMap = new Map<string, unknown>();
      const seededStore = new Keyv({ store: seededMap });
      const seeding = client({}, { store: seededStore });
      // 20: the image calls below stay within one client's budget window (no waiting).
      const { items } = await seeding.searchImages({ q: 'safe || questionable', perPage: 20, ...filter });
      await seeding.idle();
      await seeding.close();

      const ownMap = new Map<string, unknown>();
      const ownStore = new Keyv({ store: ownMap });
      const own = client({ seedImagesFromSearches: false }, { store: ownStore });
      for (const item of items) await own.image(item.id, filter);
      await own.close();

      expect(imageCalls()).toBe(items.length);
      const seeded = await imageEntries(seededMap, seededStore);
      expect(seeded.size).toBe(items.length);
      expect(seeded).toEqual(await imageEntries(ownMap, ownStore));
      // The filter's spoilers are part of the answer: both kinds are among the results where it has any.
      if (filterId === FILTER_IDS.maximumSpoilers) {
        expect(new Set(items.map((item) => item.spoilered))).toEqual(new Set([true, false]));
      }
    },
  );

  it('GIVEN a search with the Default filter THEN the same image under another filter asks the board', async () => {
    const c = client();
    const { items } = await c.searchImages({ q: 'questionable' });
    const image = items.find((item) => item.id === IDS.questionable);
    expect(image?.spoilered).toBe(true);
    const other = await c.image(IDS.questionable, { filterId: FILTER_IDS.everything });
    expect(imageCalls(IDS.questionable)).toBe(1);
    expect(other).toMatchObject({ id: IDS.questionable, spoilered: false });
    await expect(c.image(IDS.questionable)).resolves.toEqual(image);
    expect(imageCalls(IDS.questionable)).toBe(1);
    await c.close();
  });

  it('GIVEN a search answer that holds a deleted stub THEN the stub is not seeded and image(id) asks the board', async () => {
    const stub = (await (await fetch(`${booru.url}${API}/images/${IDS.deleted}`)).json()) as {
      image: unknown;
    };
    const visible = (await (await fetch(`${booru.url}${API}/images/${IDS.safe}`)).json()) as {
      image: unknown;
    };
    booru.reset();
    booru.inject({
      fault: {
        kind: 'status',
        status: 200,
        body: JSON.stringify({ images: [stub.image, visible.image], total: 2 }),
      },
      path: `${API}/search/images`,
      times: 1,
    });
    const c = client({}, { store: new Keyv() });
    const { items } = await c.searchImages({ q: 'anything' });
    expect(items.map((item) => item.id)).toEqual([IDS.safe]);
    await expect(c.image(IDS.deleted)).resolves.toMatchObject({ id: IDS.deleted, kind: 'hidden' });
    expect(imageCalls(IDS.deleted)).toBe(1);
    await c.image(IDS.safe);
    expect(imageCalls(IDS.safe)).toBe(0);
    await c.close();
  });

  it('GIVEN seedImagesFromSearches false on the client THEN opening a result asks the board', async () => {
    const c = client({ seedImagesFromSearches: false }, { store: new Keyv() });
    const { items } = await c.searchImages({ q: 'safe' });
    const first = items[0];
    if (first === undefined) throw new Error('the search found nothing');
    await expect(c.image(first.id)).resolves.toEqual(first);
    expect(imageCalls(first.id)).toBe(1);
    await c.close();
  });

  it.each([
    { seed: undefined, calls: 0 },
    { seed: true, calls: 0 },
    { seed: false, calls: 1 },
  ])(
    'GIVEN createClientRegistry with seedImagesFromSearches $seed THEN opening a result asks the board $calls times',
    async ({ seed, calls }) => {
      const registry = createClientRegistry({
        defaultSite: site,
        cache: new Keyv(),
        logger: createLogger({ level: 'silent' }),
        ...(seed === undefined ? {} : { seedImagesFromSearches: seed }),
      });
      const c = registry.client(site);
      const first = (await c.searchImages({ q: 'safe' })).items[0];
      if (first === undefined) throw new Error('the search found nothing');
      await c.image(first.id);
      expect(imageCalls(first.id)).toBe(calls);
      await registry.close({ force: true });
    },
  );

  it('GIVEN a store that throws on every read and write THEN the search answers, the failure is logged at debug, and image(id) asks the board', async () => {
    const lines: { level: number; msg: string }[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
        done();
      },
    });
    const logger = createLogger({ level: 'debug', destination });
    const broken = new Keyv({
      store: {
        get: async () => {
          throw new Error('disk gone');
        },
        set: async () => {
          throw new Error('disk gone');
        },
        delete: async () => false,
        clear: async () => undefined,
      } as unknown as Map<string, unknown>,
    });
    const c = client({ logger }, { store: broken, memoryEntries: 0, logger });
    const { items } = await c.searchImages({ q: 'safe' });
    const first = items[0];
    if (first === undefined) throw new Error('the search found nothing');
    await c.idle();
    expect(lines).toContainEqual(expect.objectContaining({ level: 20, msg: 'cache seed write failed' }));
    expect(lines.filter((line) => line.msg.startsWith('cache seed')).every((line) => line.level === 20)).toBe(
      true,
    );
    await expect(c.image(first.id)).resolves.toEqual(first);
    expect(imageCalls(first.id)).toBe(1);
    await c.close();
  });

  it('GIVEN a store whose setMany throws THEN the search still answers', async () => {
    const store = new Keyv();
    store.setMany = async () => {
      throw new Error('disk gone');
    };
    const c = client({}, { store, memoryEntries: 0 });
    await expect(c.searchImages({ q: 'safe' })).resolves.toMatchObject({ total: expect.any(Number) });
    await c.idle();
    await c.close();
  });

  it('GIVEN a store write that has not settled THEN the search has answered, and the seed is served meanwhile', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store = new Keyv();
    const setMany = store.setMany.bind(store);
    store.setMany = async (entries) => {
      await held;
      return setMany(entries);
    };
    const c = client({}, { store, memoryEntries: 0 });
    const { items } = await c.searchImages({ q: 'safe || questionable' });
    let idle = false;
    const settled = c.idle().then(() => {
      idle = true;
    });
    for (const item of items) await expect(c.image(item.id)).resolves.toEqual(item);
    expect(imageCalls()).toBe(0);
    expect(idle).toBe(false);
    release();
    await settled;
    // Written: a new cache over the same store (a restart) finds them there.
    const restarted = createPhilomenaClient({ site, cache: createResponseCache({ store, now: () => time }) });
    for (const item of items) await restarted.image(item.id);
    expect(imageCalls()).toBe(0);
    await Promise.all([c.close(), restarted.close()]);
  });
  it('GIVEN image(id) answered by the board while the seed of its key is still being written THEN the store keeps that answer', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store = new Keyv();
    // The seed's freshness read: the board's answer lands before the seed's write begins.
    const getMany = store.getMany.bind(store);
    store.getMany = (async (keys: string[]) => {
      await held;
      return getMany(keys);
    }) as typeof store.getMany;
    const c = client({}, { store, memoryEntries: 0 });
    await c.searchImages({ q: `id:${IDS.safe}` });
    booru.updateImage(IDS.safe, { description: 'edited after the search' });
    const opened = await c.image(IDS.safe, { fresh: true });
    expect(opened).toMatchObject({ description: 'edited after the search' });
    // Its own answer supersedes the pending seed at once, in this process too.
    await expect(c.image(IDS.safe)).resolves.toEqual(opened);
    release();
    await c.idle();
    const restarted = createPhilomenaClient({ site, cache: createResponseCache({ store, now: () => time }) });
    await expect(restarted.image(IDS.safe)).resolves.toEqual(opened);
    expect(imageCalls(IDS.safe)).toBe(1);
    await Promise.all([c.close(), restarted.close()]);
  });
});

describe('a seeded entry lives as an image entry', () => {
  it.each(LAYERS)(
    'GIVEN $name and an image uploaded long ago THEN its seeded entry serves for LIFETIMES.image, not the search lifetime',
    async ({ cache }) => {
      const c = client({}, cache());
      await c.searchImages({ q: `id:${IDS.safe}` });
      time += LIFETIMES.image - 1;
      await c.image(IDS.safe);
      expect(imageCalls(IDS.safe)).toBe(0);
      time += 1;
      await c.image(IDS.safe);
      expect(imageCalls(IDS.safe)).toBe(1);
      await c.close();
    },
  );

  it('GIVEN a new upload in the results THEN its seeded entry serves for LIFETIMES.recentImage only', async () => {
    const id = booru.addImage({ tags: ['safe', 'pony'] });
    const c = client({}, { store: new Keyv() });
    const { items } = await c.searchImages({ q: `id:${id}` });
    expect(items.map((item) => item.id)).toEqual([id]);
    time += LIFETIMES.recentImage - 1;
    await c.image(id);
    expect(imageCalls(id)).toBe(0);
    time += 1;
    await c.image(id);
    expect(imageCalls(id)).toBe(1);
    await c.close();
  });

  it('GIVEN lifetimes.image 0 THEN nothing is seeded', async () => {
    const c = client({ lifetimes: { image: 0 } }, { store: new Keyv() });
    await c.searchImages({ q: `id:${IDS.safe}` });
    await c.image(IDS.safe);
    expect(imageCalls(IDS.safe)).toBe(1);
    await c.close();
  });
});

describe('a seed does not replace an entry that lives longer', () => {
  /** The key image(IDS.safe) uses, learnt from a client that stores it. */
  async function imageKey(): Promise<string> {
    const map = new Map<string, unknown>();
    const c = client({}, { store: new Keyv({ store: map }) });
    await c.image(IDS.safe);
    await c.close();
    booru.reset();
    const keys = [...map.keys()].filter((key) => key.includes(`:image:images/${IDS.safe}:`));
    expect(keys).toHaveLength(1);
    return (keys[0] ?? '').replace(/^keyv:/, '');
  }

  const MARK = { id: IDS.safe, kind: 'image', planted: true };

  it.each([
    { held: LIFETIMES.image + 60_000, kept: true },
    { held: LIFETIMES.image, kept: true },
    { held: LIFETIMES.image - 60_000, kept: false },
  ])(
    'GIVEN the store holds an entry that lives $held ms THEN the seed keeps it: $kept',
    async ({ held, kept }) => {
      const key = await imageKey();
      const store = new Keyv();
      await store.set(key, { until: time + held, value: MARK });
      const c = client({}, { store, memoryEntries: 0 });
      await c.searchImages({ q: `id:${IDS.safe}` });
      await c.idle();
      const image = await c.image(IDS.safe);
      if (kept) expect(image).toEqual(MARK);
      else expect(image).toMatchObject({ id: IDS.safe, kind: 'image', tags: expect.any(Array) });
      expect(imageCalls(IDS.safe)).toBe(0);
      await c.close();
    },
  );

  it.each([
    { after: 0, kept: true },
    { after: 60_000, kept: false },
  ])(
    'GIVEN the memory layer holds image(id) opened $after ms before the search THEN the seed keeps it: $kept',
    async ({ after, kept }) => {
      const c = client();
      const opened = await c.image(IDS.safe);
      booru.updateImage(IDS.safe, { description: 'changed since it was opened' });
      time += after;
      const found = (await c.searchImages({ q: `id:${IDS.safe}` })).items[0];
      expect(found?.description).toBe('changed since it was opened');
      await expect(c.image(IDS.safe)).resolves.toEqual(kept ? opened : found);
      expect(imageCalls(IDS.safe)).toBe(1);
      await c.close();
    },
  );
});
