/**
 * POST /images on the local Philomena with members' own accounts, the way the bot will call it
 * (`content-type: application/json`, `{ url, image: { tag_input, source_url, description } }`, the key in
 * the query or the body): who may upload, where the board fetches from, Philomena's refusals with their
 * real field names and messages (upload-rules.ts), and what an accepted upload becomes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { imagesResponseSchema, submitImageResponseSchema } from '../../../src/philomena/schemas.js';
import { FILTER_IDS, IDS, sha512, startFakePhilomena } from './index.js';
import type { CreatedAccount, FakePhilomena } from './index.js';

// Response bodies are JSON of many shapes; the assertions below say what each must hold.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

let booru: FakePhilomena;
/** A loopback server standing for an artist's site: `/art.png` and friends. */
let artSite: Server;
let artUrl: string;
/** A PNG signature followed by `size` bytes: the board sniffs it as a PNG. */
const pngOf = (size: number, fill: number): Buffer =>
  Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(size, fill)]);

beforeAll(async () => {
  booru = await startFakePhilomena();
  artSite = createServer((req, res) => {
    const size = /^\/art-(\d+)\.png$/.exec(req.url ?? '');
    if (size) {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(pngOf(Number(size[1]), Number(size[1]) % 251));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => artSite.listen(0, '127.0.0.1', resolve));
  artUrl = `http://127.0.0.1:${(artSite.address() as AddressInfo).port}`;
});
afterEach(() => booru.reset());
afterAll(async () => {
  await booru.close();
  await new Promise<void>((resolve) => artSite.close(() => resolve()));
});

interface Answer {
  status: number;
  text: string;
  json: () => Loose;
}

async function post(
  query: Record<string, string>,
  body: unknown,
  contentType = 'application/json',
): Promise<Answer> {
  const url = new URL(`${booru.url}/api/v1/json/images`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Loose };
}

const upload = (url: string, tagInput = 'safe, pony, artist:new artist', extra: object = {}) => ({
  url,
  image: { tag_input: tagInput, source_url: 'https://example.com/src', description: 'A new one', ...extra },
});

async function myUploads(key: string): Promise<number[]> {
  const url = new URL(`${booru.url}/api/v1/json/search/images`);
  for (const [k, v] of Object.entries({ q: 'my:uploads', key, filter_id: String(FILTER_IDS.everything) }))
    url.searchParams.set(k, v);
  return imagesResponseSchema.parse(await (await fetch(url)).json()).images.map((i) => i.id);
}

let member: CreatedAccount;
let other: CreatedAccount;
const members = (): void => {
  member = booru.addAccount({ name: 'Uploader One' });
  other = booru.addAccount({ name: 'Uploader Two' });
};

describe('who may upload', () => {
  it('GIVEN no key, a wrong key or a revoked key THEN 401 with an empty body', async () => {
    members();
    booru.revokeKey(other.key);
    for (const query of [{}, { key: 'wrong-key-wrong-key-' }, { key: other.key }]) {
      const res = await post(query, upload(`${booru.url}/samples/who.png`));
      expect(res.status).toBe(401);
      expect(res.text).toBe('');
    }
  });

  it('GIVEN a banned account THEN 403 with an empty body, and its searches still work', async () => {
    members();
    booru.updateAccount(member.key, { banned: true });
    const res = await post({ key: member.key }, upload(`${booru.url}/samples/banned.png`));
    expect(res.status).toBe(403);
    expect(res.text).toBe('');
    expect(await myUploads(member.key)).toEqual([]);
  });

  it('GIVEN the key in the JSON body THEN it counts as the key, and the record shows it', async () => {
    members();
    const mark = booru.requests.length;
    const res = await post({}, { key: member.key, ...upload(`${booru.url}/samples/body-key.png`) });
    expect(res.status).toBe(200);
    const record = booru.requests.slice(mark).find((r) => r.method === 'POST');
    expect(record?.key).toBe(member.key);
    expect(record?.query.has('key')).toBe(false);
  });
});

describe('an accepted upload', () => {
  it('GIVEN a new picture THEN { image, interactions: [] }, the member as uploader, thumbnails pending', async () => {
    members();
    const res = await post({ key: member.key }, upload(`${booru.url}/samples/accepted.png`));
    expect(res.status).toBe(200);
    const body = res.json();
    expect(submitImageResponseSchema.safeParse(body).success).toBe(true);
    expect(body.interactions).toEqual([]);
    expect(body.image).toMatchObject({
      uploader: 'Uploader One',
      uploader_id: member.id,
      thumbnails_generated: false,
      description: 'A new one',
      source_urls: ['https://example.com/src'],
      format: 'png',
      name: 'accepted.png',
    });
    const id: number = body.image.id;
    // Searchable, and in the uploader's my:uploads only.
    expect(await myUploads(member.key)).toEqual([id]);
    expect(await myUploads(other.key)).toEqual([]);
    const found = await fetch(`${booru.url}/api/v1/json/search/images?q=id:${id}`);
    expect(imagesResponseSchema.parse(await found.json()).total).toBe(1);
  });

  it('GIVEN the url as a query parameter and a loopback art site THEN the board fetches it there', async () => {
    members();
    const res = await post(
      { key: member.key, url: `${artUrl}/art-40.png` },
      { image: { tag_input: 'safe, pony, oc' } },
    );
    expect(res.status).toBe(200);
    expect(res.json().image.orig_sha512_hash).toBe(sha512(pngOf(40, 40)));
  });

  it('GIVEN an anonymous upload THEN no uploader is shown, yet it is still in the member’s my:uploads', async () => {
    members();
    const res = await post(
      { key: member.key },
      upload(`${booru.url}/samples/anon.png`, undefined, { anonymous: true }),
    );
    expect(res.json().image).toMatchObject({ uploader: null, uploader_id: null });
    expect(await myUploads(member.key)).toEqual([res.json().image.id]);
  });

  it('GIVEN a form-encoded body THEN the board reads it too (Plug parses urlencoded bodies)', async () => {
    members();
    const form = new URLSearchParams({
      key: member.key,
      url: `${booru.url}/samples/form.gif`,
      'image[tag_input]': 'safe, pony, oc',
    });
    const res = await post({}, form.toString(), 'application/x-www-form-urlencoded');
    expect(res.status).toBe(200);
    expect(res.json().image.format).toBe('gif');
  });
});

describe('refusals, as the board words them', () => {
  it('GIVEN tags that break the rules THEN tag_input says why (count, rating, exclusive ratings)', async () => {
    members();
    const url = `${booru.url}/samples/tags.png`;
    const errors = async (tags: string | undefined): Promise<Loose> => {
      const res = await post(
        { key: member.key },
        tags === undefined ? { url, image: {} } : upload(url, tags),
      );
      expect(res.status).toBe(400);
      return res.json().errors;
    };
    expect((await errors(undefined)).tag_input).toEqual([
      'must contain at least 3 tags',
      'must contain at least one rating tag',
    ]);
    expect((await errors('pony, oc, artist:x')).tag_input).toEqual(['must contain at least one rating tag']);
    expect((await errors('safe, explicit, pony')).tag_input).toEqual([
      'may not contain any other rating if safe',
    ]);
    expect((await errors('suggestive, explicit, grimdark, semi-grimdark')).tag_input).toEqual([
      'may contain at most one sexual rating',
      'may contain at most one grim rating',
    ]);
  });

  it('GIVEN a site configured as Furbooru THEN five tags are the minimum', async () => {
    members();
    booru.setUploadRules({ minimumTags: 5 });
    const few = await post({ key: member.key }, upload(`${booru.url}/samples/fur.png`, 'safe, a, b, c'));
    expect(few.json()).toEqual({ errors: { tag_input: ['must contain at least 5 tags'] } });
    const enough = await post(
      { key: member.key },
      upload(`${booru.url}/samples/fur.png`, 'safe, a, b, c, d'),
    );
    expect(enough.status).toBe(200);
  });

  it('GIVEN a file above the size limit THEN image_size says the limit', async () => {
    members();
    booru.setUploadRules({ maxBytes: 100 });
    const res = await post({ key: member.key }, upload(`${artUrl}/art-200.png`));
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ errors: { image_size: ['must be less than or equal to 100'] } });
    expect((await post({ key: member.key }, upload(`${artUrl}/art-50.png`))).status).toBe(200);
  });

  it('GIVEN the source wording and a file that is not a picture THEN the mime type is named and the rest is blank', async () => {
    members();
    booru.setUploadRules({ wording: 'source' });
    const res = await post({ key: member.key }, upload(`${booru.url}/samples/notes.txt`));
    expect(res.status).toBe(400);
    const errors = res.json().errors;
    expect(errors.image_mime_type).toEqual(['(text/plain) is invalid']);
    expect(errors.image).toEqual([
      "can't be blank",
      'contents corrupt, not recognized, or dimensions are too large to process',
    ]);
    expect(errors.image_format).toEqual(["can't be blank"]);
    expect(errors.tag_input).toBeUndefined();
  });

  it('GIVEN a url the board may not or cannot fetch THEN no picture: image is blank', async () => {
    members();
    booru.setUploadRules({ wording: 'source' });
    for (const url of ['https://example.com/a.png', `${artUrl}/missing.png`, 'not a url']) {
      const errors = (await post({ key: member.key }, upload(url))).json().errors;
      expect(errors.image).toContain("can't be blank");
      expect(errors.image_orig_sha512_hash).toEqual(["can't be blank"]);
    }
  });

  it('GIVEN a duplicate THEN the described wording says image_orig_sha512_hash has already been taken', async () => {
    members();
    const first = await post({ key: member.key }, upload(`${booru.url}/samples/twice.png`));
    expect(first.status).toBe(200);
    const again = await post({ key: other.key }, upload(`${booru.url}/samples/twice.png`));
    expect(again.status).toBe(400);
    expect(again.json()).toEqual({ errors: { image_orig_sha512_hash: ['has already been taken'] } });
  });

  it('GIVEN a duplicate and the source wording THEN image names the existing image, once all else passes', async () => {
    members();
    booru.setUploadRules({ wording: 'source' });
    const existing = (await (await fetch(`${booru.url}/api/v1/json/images/${IDS.safe}`)).json()) as Loose;
    const url: string = existing.image.representations.full;
    const same = await post({ key: member.key }, upload(url));
    expect(same.json()).toEqual({ errors: { image: [`has already been uploaded: it's image ${IDS.safe}`] } });
    // The check runs at insert, so a refusal for other reasons does not mention it.
    const badTags = await post({ key: member.key }, upload(url, 'pony'));
    expect(badTags.json().errors).toEqual({
      tag_input: ['must contain at least 3 tags', 'must contain at least one rating tag'],
    });
  });

  it('GIVEN a body that is not JSON THEN the board does not read it: no picture and no tags', async () => {
    members();
    booru.setUploadRules({ wording: 'source' });
    const res = await post(
      { key: member.key },
      JSON.stringify(upload(`${booru.url}/samples/plain.png`)),
      'text/plain',
    );
    expect(res.status).toBe(400);
    const errors = res.json().errors;
    expect(errors.image).toContain("can't be blank");
    expect(errors.tag_input).toEqual([
      'must contain at least 3 tags',
      'must contain at least one rating tag',
    ]);
  });

  it('GIVEN a source that is not http(s) or a description too long THEN those fields are refused', async () => {
    members();
    const res = await post(
      { key: member.key },
      upload(`${booru.url}/samples/fields.png`, undefined, {
        source_url: 'ftp://example.com/a',
        description: 'x'.repeat(50_001),
      }),
    );
    expect(res.json()).toEqual({
      errors: { source_url: ['has invalid format'], description: ['should be at most 50000 byte(s)'] },
    });
  });
});
