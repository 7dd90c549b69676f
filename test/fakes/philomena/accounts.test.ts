/**
 * The local Philomena's accounts (accounts.ts), driven over HTTP the way the bot would: keys that look
 * like real ones, each account's own filters and current filter, the `my:` lists its key reads, and keys
 * that stop working. Two accounts side by side must each see their own things only.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { filtersResponseSchema, imagesResponseSchema } from '../../../src/philomena/schemas.js';
import { FAKE_KEY, FILTER_IDS, IDS, OWNER, startFakePhilomena } from './index.js';
import type { CreatedAccount, FakePhilomena } from './index.js';

let booru: FakePhilomena;

beforeAll(async () => {
  booru = await startFakePhilomena();
});
afterEach(() => booru.reset());
afterAll(async () => {
  await booru.close();
});

async function get(path: string, query: Record<string, string | number> = {}): Promise<Response> {
  const url = new URL(`${booru.url}/api/v1/json${path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  return fetch(url);
}

/** Image ids of a search (all of them: per_page 50 covers every list here). */
async function ids(q: string, extra: Record<string, string | number> = {}): Promise<number[]> {
  const res = await get('/search/images', { q, per_page: 50, ...extra });
  expect(res.status, `${q} ${JSON.stringify(extra)}`).toBe(200);
  return imagesResponseSchema
    .parse(await res.json())
    .images.map((image) => image.id)
    .sort((a, b) => a - b);
}

async function userFilters(key: string | undefined): Promise<{ status: number; names: string[] }> {
  const res = await get('/filters/user', key === undefined ? {} : { key });
  if (res.status !== 200) {
    expect(await res.text()).toBe('');
    return { status: res.status, names: [] };
  }
  return { status: 200, names: filtersResponseSchema.parse(await res.json()).filters.map((f) => f.name) };
}

function twoAccounts(): { applejack: CreatedAccount; rarity: CreatedAccount } {
  const applejack = booru.addAccount({
    name: 'Applejack Fan',
    filters: [
      { name: 'AJ hides Twilight', hiddenTags: ['twilight sparkle'] },
      { name: 'AJ public', public: true },
    ],
    currentFilterId: { own: 0 },
    faves: [IDS.safe],
    upvotes: [IDS.suggestive],
    downvotes: [IDS.questionable],
    hidden: [IDS.grimdark],
    uploads: [IDS.noArtist],
    watchedTags: ['oc:littlepip'],
  });
  const rarity = booru.addAccount({
    name: 'Rarity Fan',
    filters: [{ name: 'Rarity private', spoileredTags: ['safe'] }],
    currentFilterId: FILTER_IDS.everything,
    faves: [IDS.explicit],
    upvotes: [IDS.semiGrimdark],
    downvotes: [IDS.safe],
    uploads: [IDS.manySources],
  });
  return { applejack, rarity };
}

describe('accounts and keys', () => {
  it('GIVEN new accounts THEN each gets its own id and a key of 20 characters like the board’s', () => {
    const { applejack, rarity } = twoAccounts();
    for (const account of [applejack, rarity]) expect(account.key).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(applejack.key).not.toBe(rarity.key);
    expect(applejack.id).not.toBe(rarity.id);
    expect([applejack.id, rarity.id]).not.toContain(OWNER.id);
    expect(applejack.filterIds).toHaveLength(2);
    expect(() => booru.addAccount({ name: 'applejack fan' })).toThrow(/new name/);
  });

  it('GIVEN two accounts THEN /filters/user lists each its own filters only, and the owner’s stay the owner’s', async () => {
    const { applejack, rarity } = twoAccounts();
    expect(await userFilters(applejack.key)).toEqual({
      status: 200,
      names: ['AJ hides Twilight', 'AJ public'],
    });
    expect(await userFilters(rarity.key)).toEqual({ status: 200, names: ['Rarity private'] });
    const owner = await userFilters(FAKE_KEY);
    expect(owner.names).toContain('Bot owner filter');
    expect(owner.names).not.toContain('AJ hides Twilight');
  });

  it('GIVEN no key, a wrong key or a revoked key THEN /filters/user answers 403 with an empty body', async () => {
    const { applejack } = twoAccounts();
    booru.revokeKey(applejack.key);
    for (const key of [undefined, 'wrong-key-wrong-key-', applejack.key]) {
      expect((await userFilters(key)).status).toBe(403);
    }
  });

  it('GIVEN a rotated key THEN the new one opens the account and the old one nothing', async () => {
    const { rarity } = twoAccounts();
    const next = booru.rotateKey(rarity.key);
    expect(next).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect((await userFilters(next)).names).toEqual(['Rarity private']);
    expect((await userFilters(rarity.key)).status).toBe(403);
  });

  it('GIVEN reset THEN added accounts and their filters are gone and the owner’s key still works', async () => {
    const { applejack } = twoAccounts();
    booru.reset();
    expect((await userFilters(applejack.key)).status).toBe(403);
    expect((await userFilters(FAKE_KEY)).status).toBe(200);
    expect((await get(`/filters/${applejack.filterIds[1]}`)).status).toBe(404);
  });
});

describe('the account’s filter', () => {
  // Fewer than a page (50), so whole lists compare.
  const FEW_SAFE = 'safe, id.lte:200';

  it('GIVEN an account whose current filter is its own private one THEN its searches leave out what it hides', async () => {
    const { applejack, rarity } = twoAccounts();
    const everything = await ids(FEW_SAFE, { filter_id: FILTER_IDS.everything });
    expect(everything.length).toBeLessThan(50);
    const withTwilight = await ids(`${FEW_SAFE}, twilight sparkle`, { filter_id: FILTER_IDS.everything });
    expect(withTwilight.length).toBeGreaterThan(0);
    const asApplejack = await ids(FEW_SAFE, { key: applejack.key });
    expect(asApplejack.length).toBeGreaterThan(0);
    expect(asApplejack).toEqual(everything.filter((id) => !withTwilight.includes(id)));
    // Rarity's current filter is Everything: nothing hidden.
    expect(await ids(FEW_SAFE, { key: rarity.key })).toEqual(everything);
  });

  it('GIVEN filter_id THEN the account may pick its own private filter, never another account’s', async () => {
    const { applejack, rarity } = twoAccounts();
    const [ajPrivate] = applejack.filterIds;
    const [rarityPrivate] = rarity.filterIds;
    // A safe image without Twilight: Rarity's private filter spoilers it, Applejack's own leaves it be.
    const [image] = await ids('safe, -twilight sparkle', { filter_id: FILTER_IDS.everything });
    expect(image).toBeDefined();
    const spoilered = async (key: string, filterId: number | undefined): Promise<boolean | undefined> => {
      const res = await get(`/images/${String(image)}`, {
        key,
        ...(filterId === undefined ? {} : { filter_id: filterId }),
      });
      const body = (await res.json()) as { image: { spoilered: boolean } };
      return body.image.spoilered;
    };
    expect(await spoilered(rarity.key, rarityPrivate)).toBe(true);
    // Someone else's private filter is ignored: Applejack's own current filter (which leaves safe alone).
    expect(await spoilered(applejack.key, rarityPrivate)).toBe(false);
    expect(await spoilered(rarity.key, undefined)).toBe(false);
    expect((await get(`/filters/${rarityPrivate}`, { key: rarity.key })).status).toBe(200);
    expect((await get(`/filters/${rarityPrivate}`, { key: applejack.key })).status).toBe(404);
    expect((await get(`/filters/${ajPrivate}`, { key: applejack.key })).status).toBe(200);
    // Its public filter is anyone's.
    expect((await get(`/filters/${applejack.filterIds[1]}`)).status).toBe(200);
  });

  it('GIVEN updateAccount with another current filter THEN the next search applies it', async () => {
    const { applejack } = twoAccounts();
    const everything = await ids(FEW_SAFE, { filter_id: FILTER_IDS.everything });
    expect(await ids(FEW_SAFE, { key: applejack.key })).not.toEqual(everything);
    booru.updateAccount(applejack.key, { currentFilterId: FILTER_IDS.everything });
    expect(await ids(FEW_SAFE, { key: applejack.key })).toEqual(everything);
    expect(() => booru.updateAccount(applejack.key, { currentFilterId: FILTER_IDS.otherPrivate })).toThrow(
      /may not use/,
    );
  });

  it('GIVEN a revoked key THEN searches run anonymously: Default filter and 15 a page, no error', async () => {
    const { rarity } = twoAccounts();
    const anonymous = await ids('safe, explicit', { filter_id: FILTER_IDS.default });
    expect(await ids('explicit', { key: rarity.key })).toContain(IDS.explicit);
    booru.revokeKey(rarity.key);
    expect(await ids('safe, explicit', { key: rarity.key })).toEqual(anonymous);
    expect(await ids('explicit', { key: rarity.key })).not.toContain(IDS.explicit);
    const page = imagesResponseSchema.parse(
      await (await get('/search/images', { q: 'pony', key: rarity.key })).json(),
    );
    expect(page.images).toHaveLength(15);
  });
});

describe('my: searches', () => {
  const everything = { filter_id: FILTER_IDS.everything };

  it('GIVEN two accounts THEN each my: list reads the key’s own account', async () => {
    const { applejack, rarity } = twoAccounts();
    const aj = { key: applejack.key, ...everything };
    const ra = { key: rarity.key, ...everything };
    expect(await ids('my:faves', aj)).toEqual([IDS.safe]);
    expect(await ids('my:faves', ra)).toEqual([IDS.explicit]);
    expect(await ids('my:upvotes', aj)).toEqual([IDS.suggestive]);
    expect(await ids('my:upvotes', ra)).toEqual([IDS.semiGrimdark]);
    expect(await ids('my:downvotes', aj)).toEqual([IDS.questionable]);
    expect(await ids('my:downvotes', ra)).toEqual([IDS.safe]);
    expect(await ids('my:uploads', aj)).toEqual([IDS.noArtist]);
    expect(await ids('my:uploads', ra)).toEqual([IDS.manySources]);
    expect(await ids('my:hidden', aj)).toEqual([IDS.grimdark]);
    expect(await ids('my:hidden', ra)).toEqual([]);
    // Watched by an alias: the images carry its target.
    expect(await ids('my:watched', aj)).toEqual([IDS.littlepip]);
    expect(await ids('my:watched', ra)).toEqual([]);
  });

  it('GIVEN my: inside a larger query THEN it combines like any term, and the owner keeps their lists', async () => {
    const { applejack } = twoAccounts();
    expect(await ids('my:faves || my:upvotes', { key: applejack.key, ...everything })).toEqual([
      IDS.safe,
      IDS.suggestive,
    ]);
    expect(await ids('my:faves, -safe', { key: applejack.key, ...everything })).toEqual([]);
    const owner = await ids('my:faves', { key: FAKE_KEY, ...everything });
    expect(owner).toEqual(expect.arrayContaining([IDS.safe, IDS.ownerUpload]));
    expect(owner).not.toContain(IDS.explicit);
  });

  it('GIVEN faves and votes THEN they count on the images as on the board (faved_by:, counts)', async () => {
    const before = (await (await get(`/images/${IDS.safe}`)).json()) as { image: { faves: number } };
    twoAccounts();
    expect(await ids('faved_by:applejack fan', everything)).toEqual([IDS.safe]);
    const after = (await (await get(`/images/${IDS.safe}`)).json()) as {
      image: { faves: number; uploader: string | null };
    };
    expect(after.image.faves).toBe(before.image.faves + 1);
    const upload = (await (await get(`/images/${IDS.noArtist}`)).json()) as { image: { uploader: string } };
    expect(upload.image.uploader).toBe('Applejack Fan');
  });

  it('GIVEN my: without a working key THEN Derpibooru reads a plain tag (200, none) and upstream answers 400', async () => {
    const { applejack } = twoAccounts();
    booru.revokeKey(applejack.key);
    for (const query of [{}, { key: 'not-a-key' }, { key: applejack.key }]) {
      expect(await ids('my:faves', { ...query, ...everything })).toEqual([]);
    }
    booru.setErrorStyle('upstream');
    const res = await get('/search/images', { q: 'my:faves', key: applejack.key });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "You must be logged in to use `my' queries." });
  });

  it('GIVEN an unknown my: value with a key THEN 400 with the parser’s message', async () => {
    const { rarity } = twoAccounts();
    const res = await get('/search/images', { q: 'my:everything', key: rarity.key });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "Unknown `my' value." });
  });

  it('GIVEN updateAccount THEN the lists grow and the watched tags are replaced', async () => {
    const { rarity } = twoAccounts();
    booru.updateAccount(rarity.key, { faves: [IDS.safe], watchedTags: ['pony'] });
    expect(await ids('my:faves', { key: rarity.key, ...everything })).toEqual([IDS.safe, IDS.explicit]);
    const watched = await ids('my:watched', { key: rarity.key, ...everything });
    expect(watched).toEqual(await ids('pony', everything));
  });
});

describe('recorded requests', () => {
  it('GIVEN requests with different keys THEN each record says which key it carried', async () => {
    const { applejack, rarity } = twoAccounts();
    const mark = booru.requests.length;
    await ids('my:faves', { key: applejack.key });
    await ids('my:faves', { key: rarity.key });
    await ids('pony');
    expect(booru.requests.slice(mark).map((r) => r.key)).toEqual([applejack.key, rarity.key, undefined]);
  });
});
