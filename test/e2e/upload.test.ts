/**
 * `/upload` end to end (issue 22 §2) through the local Discord and the local board's accounts: an upload
 * with the member's own key shows the new image's card (credit, source), the board's refusals read as plain
 * sentences (a duplicate in both wordings, too large, not a picture, bad tags caught before sending), a
 * board fault is said as "may or may not have landed" after one POST, a key the board refuses is dropped
 * and said once, and two members uploading at once each upload to their own account, no key anywhere else.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_KEY } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { everythingSaid, linkKey, sendUpload, uploadPosts } from '../support/uploads.js';

const EPHEMERAL = 1 << 6;
const SECRET = randomBytes(32).toString('base64');

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    withKey: true,
    registry: { budget: ROOMY_BUDGET },
    env: { MEMBER_KEY_SECRET: SECRET, UPLOADS: 'on', UPLOADS_PER_MEMBER_HOUR: '100' },
  });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
  h.booru.setUploadRules({ wording: 'described', maxBytes: 131_072_000 });
});

const sample = (name: string, ext = 'png') => `${h.booru.url}/samples/${name}.${ext}`;
const TAGS = 'safe, pony, artist:e2e painter';

/** The image id a text links to (`/images/<id>`). */
const linkedId = (text: string) => Number(/\/images\/(\d+)/.exec(text)?.[1]);

describe('/upload', () => {
  it('GIVEN a linked member WHEN they upload THEN privately the new card with its credit and source, sent once with their key only', async () => {
    const member = h.discord.guild.memberId;
    const account = h.booru.addAccount({ name: 'UploaderOne' });
    await linkKey(h, member, account.key);
    const mark = h.booru.requests.length;
    const reply = await sendUpload(h, member, {
      url: sample('e2e-success'),
      tags: TAGS,
      source: 'https://art.example/post/1',
      description: 'Painted for the test',
    });
    expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
    const said = JSON.stringify(reply);
    expect(said).toMatch(/Uploaded to/);
    expect(said).toContain('e2e painter');
    expect(said).toContain('art.example/post/1');
    const posts = uploadPosts(h, mark);
    expect(posts).toHaveLength(1);
    expect(posts[0]?.key).toBe(account.key);
    expect(posts[0]?.headers['content-type']).toMatch(/^application\/json/);
    expect(h.booru.requests.slice(mark).some((r) => r.key === FAKE_KEY)).toBe(false);
    // The board files it under the member's own account.
    const id = linkedId(said);
    const image = (await (await fetch(`${h.booru.url}/api/v1/json/images/${id}`)).json()) as {
      image: { uploader: string | null };
    };
    expect(image.image.uploader).toBe('UploaderOne');
    expect(everythingSaid(h)).not.toContain(account.key);
  });

  it('GIVEN the same picture again THEN "already on the site", in the older wording without a link and in the newer with one', async () => {
    const member = h.discord.guild.memberId;
    const first = await sendUpload(h, member, { url: sample('e2e-dup'), tags: TAGS });
    const id = linkedId(JSON.stringify(first));
    const older = await sendUpload(h, member, { url: sample('e2e-dup'), tags: TAGS });
    expect(older.content).toMatch(/did not take the upload/);
    expect(older.content).toMatch(/This picture is already on/);
    expect(older.content).not.toMatch(/\/images\//);
    h.booru.setUploadRules({ wording: 'source' });
    const newer = await sendUpload(h, member, { url: sample('e2e-dup'), tags: TAGS });
    expect(newer.content).toMatch(/This picture is already on .*: <http:\/\/127\.0\.0\.1:\d+\/images\/\d+>/);
    expect(linkedId(newer.content ?? '')).toBe(id);
  });

  it('GIVEN a file over the board’s limit THEN "too large"; a link serving text THEN "not a picture"; nothing fetched THEN "could not fetch"', async () => {
    const member = h.discord.guild.memberId;
    h.booru.setUploadRules({ maxBytes: 10 });
    expect((await sendUpload(h, member, { url: sample('e2e-big'), tags: TAGS })).content).toMatch(
      /The file is too large: the site takes at most 0 MB/,
    );
    h.booru.setUploadRules({ maxBytes: 131_072_000 });
    for (const wording of ['described', 'source'] as const) {
      h.booru.setUploadRules({ wording });
      const text = await sendUpload(h, member, { url: sample(`e2e-text-${wording}`, 'txt'), tags: TAGS });
      expect(text.content).toMatch(/does not lead to a picture or video the site takes/);
      const missing = await sendUpload(h, member, { url: 'https://nowhere.example/gone.png', tags: TAGS });
      expect(missing.content).toMatch(/could not fetch the picture from that link/);
      expect(missing.content).not.toMatch(/can't be blank|image_/);
    }
  });

  it('GIVEN bad tags or links THEN refused before anything is sent, one sentence each', async () => {
    const member = h.discord.guild.memberId;
    const mark = h.booru.requests.length;
    const cases: [Record<string, string>, RegExp][] = [
      [{ url: sample('e2e-tags'), tags: 'pony, oc, cute' }, /Add a rating tag/],
      [{ url: sample('e2e-tags'), tags: 'safe, pony' }, /asks for at least 3 tags/],
      [{ url: sample('e2e-tags'), tags: 'safe, explicit, pony' }, /`safe` cannot go with another rating tag/],
      [{ url: 'javascript:alert(1)', tags: TAGS }, /must be a web address starting with https/],
      [{ url: 'http://me:secret@art.example/a.png', tags: TAGS }, /user name or password/],
      [{ url: sample('e2e-tags'), tags: TAGS, source: 'my friend' }, /The source must be a web address/],
    ];
    for (const [options, said] of cases) {
      const reply = await sendUpload(h, member, options);
      expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
      expect(reply.content).toMatch(said);
    }
    expect(h.booru.requests.slice(mark)).toEqual([]);
  });

  it('GIVEN the board fails THEN the member is told it may or may not have landed, after exactly one POST', async () => {
    const member = h.discord.guild.memberId;
    h.booru.inject({ fault: { kind: 'empty-500' }, path: '/api/v1/json/images', times: 1 });
    const mark = h.booru.requests.length;
    const reply = await sendUpload(h, member, { url: sample('e2e-fault'), tags: TAGS });
    expect(reply.content).toMatch(/may or may not have landed/);
    expect(uploadPosts(h, mark)).toHaveLength(1);
  });

  it('GIVEN a board that refuses the upload with a bare 404 or an odd 4xx THEN an upload refused, not a search misunderstood, and none of the board’s text', async () => {
    const member = h.discord.guild.memberId;
    for (const [status, body] of [
      [404, ''],
      [422, '<b>@everyone</b> no uploads here'],
    ] as const) {
      h.booru.inject({ fault: { kind: 'status', status, body }, path: '/api/v1/json/images', times: 1 });
      const reply = await sendUpload(h, member, { url: sample(`e2e-${status}`), tags: TAGS });
      expect(reply.content).toMatch(/refused the upload without saying why, so nothing was uploaded\.$/);
      expect(reply.content).not.toMatch(/search|everyone|uploads here/);
    }
  });

  it('GIVEN a member with no linked key THEN told to /me link, and nothing reaches the board', async () => {
    const mark = h.booru.requests.length;
    const reply = await sendUpload(h, '555000111222333999', { url: sample('e2e-nokey'), tags: TAGS });
    expect(reply.content).toMatch(/link it first with `\/me link`/);
    expect(h.booru.requests.slice(mark)).toEqual([]);
  });

  it('GIVEN a key the board revoked THEN it is dropped and said once; the next upload asks to link', async () => {
    const member = h.discord.guild.otherMemberId;
    const account = h.booru.addAccount({ name: 'RevokedUploader' });
    await linkKey(h, member, account.key);
    h.booru.revokeKey(account.key);
    const refused = await sendUpload(h, member, { url: sample('e2e-revoked'), tags: TAGS });
    expect(refused.content).toMatch(/no longer accepts your linked key, so the bot deleted it/);
    const mark = h.booru.requests.length;
    const next = await sendUpload(h, member, { url: sample('e2e-revoked'), tags: TAGS });
    expect(next.content).toMatch(/link it first/);
    expect(h.booru.requests.slice(mark)).toEqual([]);
    expect(everythingSaid(h)).not.toContain(account.key);
  });

  it('GIVEN two members uploading at once, interleaved THEN each upload goes with its own member’s key, and no key reaches Discord', async () => {
    const a = h.discord.guild.ownerId;
    const b = h.discord.guild.otherMemberId;
    const accountA = h.booru.addAccount({ name: 'ConcurrentUploaderA' });
    const accountB = h.booru.addAccount({ name: 'ConcurrentUploaderB' });
    await linkKey(h, a, accountA.key);
    await linkKey(h, b, accountB.key);
    const mark = h.booru.requests.length;
    const replies = await Promise.all(
      [0, 1, 2].flatMap((round) => [
        sendUpload(h, a, { url: sample(`e2e-a-${round}`), tags: TAGS }),
        sendUpload(h, b, { url: sample(`e2e-b-${round}`), tags: TAGS }),
      ]),
    );
    // One at a time per member: some of a member's own overlapping uploads wait their turn.
    const done = replies.filter((r) => /Uploaded to/.test(JSON.stringify(r)));
    expect(done.length).toBeGreaterThanOrEqual(2);
    for (const reply of replies.filter((r) => !done.includes(r))) {
      expect(reply.content).toMatch(/still on its way/);
    }
    const posts = uploadPosts(h, mark);
    expect(posts.length).toBe(done.length);
    for (const post of posts) {
      const url = (JSON.parse(post.body.toString()) as { url: string }).url;
      expect(post.key).toBe(/e2e-a-/.test(url) ? accountA.key : accountB.key);
    }
    const uploaders = await Promise.all(
      done.map(async (reply) => {
        const id = linkedId(JSON.stringify(reply));
        const body = (await (await fetch(`${h.booru.url}/api/v1/json/images/${id}`)).json()) as {
          image: { uploader: string | null; name: string };
        };
        return [body.image.uploader, body.image.name] as const;
      }),
    );
    for (const [uploader, name] of uploaders) {
      expect(uploader).toBe(name.startsWith('e2e-a-') ? 'ConcurrentUploaderA' : 'ConcurrentUploaderB');
    }
    const said = everythingSaid(h);
    expect(said).not.toContain(accountA.key);
    expect(said).not.toContain(accountB.key);
  });
});
