/**
 * `submitImage` against the local board (issue 22 §2): a duplicate is recognised in both wordings the board
 * uses (docs/board-behaviour.md, "Uploads"), the existing image's id comes back only when the board names
 * it, other refusals are not duplicates, and an upload is never retried.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_KEY, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { createPhilomenaClient } from '../../src/philomena/client/index.js';
import { SiteUnavailableError } from '../../src/philomena/errors.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';

let booru: FakePhilomena;
let site: Site;

beforeAll(async () => {
  booru = await startFakePhilomena();
  site = resolveSite(booru.url);
});
afterAll(async () => {
  await booru.close();
});
beforeEach(() => {
  booru.reset();
});

const client = () =>
  createPhilomenaClient({ site, apiKey: FAKE_KEY, transport: { baseDelayMs: 1 }, sleep: async () => {} });
const posts = () => booru.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/images'));
const TAGS = 'safe, pony, artist:tester';

describe('submitImage: duplicates', () => {
  it('GIVEN the older wording (image_orig_sha512_hash taken) THEN a duplicate, with no id named', async () => {
    const url = `${booru.url}/samples/dup-described.png`;
    expect((await client().submitImage({ url, tagInput: TAGS })).ok).toBe(true);
    const again = await client().submitImage({ url, tagInput: TAGS });
    expect(again).toMatchObject({ ok: false, duplicate: true, duplicateOf: undefined });
    if (!again.ok) expect(again.errors.image_orig_sha512_hash).toEqual(['has already been taken']);
  });

  it('GIVEN the newer wording (image: has already been uploaded) THEN a duplicate of the named image', async () => {
    booru.setUploadRules({ wording: 'source' });
    const url = `${booru.url}/samples/dup-source.png`;
    const first = await client().submitImage({ url, tagInput: TAGS });
    if (!first.ok) throw new Error(`not uploaded: ${JSON.stringify(first.errors)}`);
    const again = await client().submitImage({ url, tagInput: TAGS });
    expect(again).toMatchObject({ ok: false, duplicate: true, duplicateOf: first.image.id });
    if (!again.ok)
      expect(again.errors.image).toEqual([`has already been uploaded: it's image ${first.image.id}`]);
  });

  it('GIVEN the newer wording with other faults too THEN the board names no duplicate and none is claimed', async () => {
    booru.setUploadRules({ wording: 'source' });
    const url = `${booru.url}/samples/dup-other.png`;
    expect((await client().submitImage({ url, tagInput: TAGS })).ok).toBe(true);
    const bad = await client().submitImage({ url, tagInput: 'pony' });
    expect(bad).toMatchObject({ ok: false, duplicate: false, duplicateOf: undefined });
  });

  it('GIVEN a file the board cannot read (newer wording) THEN not a duplicate', async () => {
    booru.setUploadRules({ wording: 'source' });
    const result = await client().submitImage({ url: `${booru.url}/samples/words.txt`, tagInput: TAGS });
    expect(result).toMatchObject({ ok: false, duplicate: false, duplicateOf: undefined });
    if (!result.ok) expect(result.errors.image_mime_type).toEqual(['(text/plain) is invalid']);
  });
});

describe('submitImage: never retried', () => {
  it('GIVEN the board fails with a 502 THEN one POST only, and the failure is thrown', async () => {
    booru.inject({ fault: { kind: 'empty-500' }, path: '/api/v1/json/images', times: 3 });
    const error = await client()
      .submitImage({ url: `${booru.url}/samples/never-twice.png`, tagInput: TAGS })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(posts()).toHaveLength(1);
  });
});

describe('submitImage: its own time', () => {
  it('GIVEN the board takes longer than a plain attempt (it fetches the picture) THEN the upload waits for its own timeout and lands once, and past it fails as a time-out, sent once', async () => {
    const slow = (uploadTimeoutMs: number) =>
      createPhilomenaClient({
        site,
        apiKey: FAKE_KEY,
        transport: { baseDelayMs: 1, attemptTimeoutMs: 100, deadlineMs: 150, uploadTimeoutMs },
        sleep: async () => {},
      });
    booru.inject({ fault: { kind: 'latency', ms: 400 }, path: '/api/v1/json/images', times: 1 });
    const landed = await slow(5_000).submitImage({
      url: `${booru.url}/samples/slow-host.png`,
      tagInput: TAGS,
    });
    expect(landed.ok).toBe(true);
    expect(posts()).toHaveLength(1);

    booru.inject({ fault: { kind: 'latency', ms: 400 }, path: '/api/v1/json/images', times: 1 });
    const tooSlow = slow(200);
    const error = await tooSlow
      .submitImage({ url: `${booru.url}/samples/slow-host-2.png`, tagInput: TAGS })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'timeout' });
    expect(posts()).toHaveLength(2);
  });
});
