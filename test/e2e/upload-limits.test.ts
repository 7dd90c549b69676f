/**
 * When uploads are off, and the caps (issue 22 §2) end to end: UPLOADS off says so in one sentence for
 * `/upload` and the menu, before anything else; with UPLOADS_PER_MEMBER_HOUR=1 and UPLOADS_PER_SITE_HOUR=2 a
 * member's second upload and the site's third are refused before anything is sent, and a refusal made
 * before sending (bad tags) does not count.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { linkKey, sendUpload, uploadPosts } from '../support/uploads.js';

const SECRET = randomBytes(32).toString('base64');
const TAGS = 'safe, pony, artist:capped painter';

describe('uploads off (the default)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ registry: { budget: ROOMY_BUDGET }, env: { MEMBER_KEY_SECRET: SECRET } });
  });
  afterAll(async () => {
    await h.close();
  });
  afterEach(() => {
    expectNoDiscordProblems(h.discord);
  });

  it('GIVEN UPLOADS unset THEN /upload and the menu say uploads are off, in one sentence, and the board hears nothing', async () => {
    const member = h.discord.guild.memberId;
    const mark = h.booru.requests.length;
    const reply = await sendUpload(h, member, { url: `${h.booru.url}/samples/off.png`, tags: 'pony' });
    expect(reply.content).toMatch(/^Uploads to .* are not turned on for this bot\.$/);
    const menu = await h.discord
      .sendMessageCommand({
        name: 'Upload to board',
        channel: 'plain',
        userId: member,
        targetMessage: {
          content: 'x',
          embeds: [{ type: 'image', thumbnail: { url: `${h.booru.url}/samples/off.png` } }],
        },
      })
      .finalReply();
    expect(menu.content).toMatch(/^Uploads to .* are not turned on for this bot\.$/);
    expect(h.booru.requests.slice(mark)).toEqual([]);
  });
});

describe('the caps', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      registry: { budget: ROOMY_BUDGET },
      env: {
        MEMBER_KEY_SECRET: SECRET,
        UPLOADS: 'default',
        UPLOADS_PER_MEMBER_HOUR: '1',
        UPLOADS_PER_SITE_HOUR: '2',
      },
    });
  });
  afterAll(async () => {
    await h.close();
  });
  afterEach(() => {
    expectNoDiscordProblems(h.discord);
  });

  it('GIVEN a member’s one upload an hour and the site’s two THEN the next ones are refused before sending, and a refusal before sending did not count', async () => {
    const [a, b, c] = [h.discord.guild.memberId, h.discord.guild.otherMemberId, h.discord.guild.ownerId];
    for (const [user, name] of [
      [a, 'CappedA'],
      [b, 'CappedB'],
      [c, 'CappedC'],
    ] as const) {
      await linkKey(h, user, h.booru.addAccount({ name }).key);
    }
    const sample = (name: string) => `${h.booru.url}/samples/${name}.png`;
    const mark = h.booru.requests.length;
    // Refused before sending: no place taken.
    expect((await sendUpload(h, a, { url: sample('cap-a0'), tags: 'pony' })).content).toMatch(/rating tag/);
    expect(JSON.stringify(await sendUpload(h, a, { url: sample('cap-a1'), tags: TAGS }))).toMatch(
      /Uploaded to/,
    );
    expect((await sendUpload(h, a, { url: sample('cap-a2'), tags: TAGS })).content).toMatch(
      /You have uploaded as much as one member may in an hour\. Try again in 60 minutes\./,
    );
    expect(JSON.stringify(await sendUpload(h, b, { url: sample('cap-b1'), tags: TAGS }))).toMatch(
      /Uploaded to/,
    );
    expect((await sendUpload(h, c, { url: sample('cap-c1'), tags: TAGS })).content).toMatch(
      /The bot has sent as many uploads to .* as it may in an hour/,
    );
    // The menu checks the caps before its form: nobody types for nothing.
    const menu = await h.discord
      .sendMessageCommand({
        name: 'Upload to board',
        channel: 'plain',
        userId: a,
        targetMessage: { content: 'x', embeds: [{ type: 'image', thumbnail: { url: sample('cap-menu') } }] },
      })
      .finalReply();
    expect(menu.content).toMatch(/as much as one member may in an hour/);
    expect(uploadPosts(h, mark)).toHaveLength(2);
  });

  it('GIVEN a member at their cap runs /me forget THEN their upload counts are gone with the rest: linked again, only the site’s cap holds them back', async () => {
    const a = h.discord.guild.memberId;
    const sample = `${h.booru.url}/samples/cap-forget.png`;
    expect(await h.store.get('upload-caps:member:' + a)).toBeDefined();
    const forgot = await h.discord
      .sendCommand({ name: 'me', subcommand: 'forget', channel: 'dm', userId: a })
      .finalReply();
    expect(forgot.content).toMatch(/deleted/i);
    expect(await h.store.get('upload-caps:member:' + a)).toBeUndefined();
    await linkKey(h, a, h.booru.addAccount({ name: 'CappedAgain' }).key);
    expect((await sendUpload(h, a, { url: sample, tags: TAGS })).content).toMatch(
      /The bot has sent as many uploads to .* as it may in an hour/,
    );
  });
});
