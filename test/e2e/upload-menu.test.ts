/**
 * The "Upload to board" message menu end to end (issue 22 §2): the first image of a message (an attachment
 * served by the local Discord's CDN, which the local board fetches like any link, or an embed's image), the
 * tags typed in the form it opens as its first answer, uploaded with the member's own key; no form for a
 * message without an image or a member without a key; and the form that could not open in time.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionHandle } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { everythingSaid, linkKey, uploadPosts } from '../support/uploads.js';

const MODAL = 9;
const SECRET = randomBytes(32).toString('base64');
const TAGS = 'safe, pony, artist:menu painter';
const ENV = { MEMBER_KEY_SECRET: SECRET, UPLOADS: 'default', UPLOADS_PER_MEMBER_HOUR: '100' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET }, env: ENV });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

/** The menu used on a message with `target`'s attachments or embeds, by `userId`. */
function useMenu(
  userId: string,
  target: { attachments?: Record<string, unknown>[]; embeds?: Record<string, unknown>[]; content?: string },
): InteractionHandle {
  return h.discord.sendMessageCommand({
    name: 'Upload to board',
    channel: 'plain',
    userId,
    targetMessage: { content: target.content ?? 'look at this', ...target },
  });
}

/** An attachment on the local Discord's CDN holding the board's sample picture `name`. */
async function attachment(name: string): Promise<Record<string, unknown>> {
  const bytes = Buffer.from(await (await fetch(`${h.booru.url}/samples/${name}.png`)).arrayBuffer());
  const url = h.discord.cdnFile(`${name}.png`, bytes);
  return {
    id: '1',
    filename: `${name}.png`,
    url,
    proxy_url: url,
    size: bytes.length,
    content_type: 'image/png',
  };
}

describe('Upload to board', () => {
  it('GIVEN a linked member and a message with an image attachment THEN a form opens, and its tags upload the attachment with their key', async () => {
    const member = h.discord.guild.memberId;
    const account = h.booru.addAccount({ name: 'MenuUploader' });
    await linkKey(h, member, account.key);
    const file = await attachment('menu-attached');
    const opened = useMenu(member, { attachments: [file] });
    expect((await opened.acknowledged).type).toBe(MODAL);
    const mark = h.booru.requests.length;
    const reply = await h.discord
      .submitModal({ opener: opened, values: { tags: TAGS, source: 'https://art.example/menu' } })
      .finalReply();
    const said = JSON.stringify(reply);
    expect(said).toMatch(/Uploaded to/);
    expect(said).toContain('menu painter');
    expect(said).toContain('art.example/menu');
    const posts = uploadPosts(h, mark);
    expect(posts).toHaveLength(1);
    expect(posts[0]?.key).toBe(account.key);
    expect((JSON.parse(posts[0]?.body.toString() ?? '{}') as { url: string }).url).toBe(file['url']);
    // The custom ids carry a state token only: the link stays in the store.
    expect(JSON.stringify(opened.responses)).not.toContain(String(file['url']));
    expect(everythingSaid(h)).not.toContain(account.key);
  });

  it('GIVEN a message whose image is an embed’s THEN the form uploads that image; bad tags are said', async () => {
    const member = h.discord.guild.memberId;
    const embeds = [
      {
        type: 'image',
        url: `${h.booru.url}/samples/menu-embed.png`,
        thumbnail: { url: `${h.booru.url}/samples/menu-embed.png` },
      },
    ];
    const first = useMenu(member, { embeds });
    expect((await first.acknowledged).type).toBe(MODAL);
    const refused = await h.discord.submitModal({ opener: first, values: { tags: 'pony' } }).finalReply();
    expect(refused.content).toMatch(/Add a rating tag/);
    const second = useMenu(member, { embeds });
    expect((await second.acknowledged).type).toBe(MODAL);
    const reply = await h.discord.submitModal({ opener: second, values: { tags: TAGS } }).finalReply();
    expect(JSON.stringify(reply)).toMatch(/Uploaded to/);
  });

  it('GIVEN a message without an image THEN no form: the member is told so', async () => {
    const handle = useMenu(h.discord.guild.memberId, { content: 'just words' });
    expect((await handle.acknowledged).type).not.toBe(MODAL);
    expect((await handle.finalReply()).content).toMatch(/no image to upload/);
  });

  it('GIVEN a member without a linked key THEN no form: they are told to /me link, and the board hears nothing', async () => {
    const mark = h.booru.requests.length;
    const handle = useMenu('555000111222333777', { attachments: [await attachment('menu-nokey')] });
    expect((await handle.acknowledged).type).not.toBe(MODAL);
    expect((await handle.finalReply()).content).toMatch(/link it first with `\/me link`/);
    expect(h.booru.requests.slice(mark).filter((r) => r.path.startsWith('/api'))).toEqual([]);
  });
});

describe('Upload to board when the form is late', () => {
  let late: Harness;
  beforeAll(async () => {
    // A SQLite store makes the form's reads real I/O, so a deadline of 0 ms always passes first.
    late = await startHarness({
      store: 'sqlite',
      registry: { budget: ROOMY_BUDGET },
      env: ENV,
      bot: { formTimeoutMs: 0 },
    });
  });
  afterAll(async () => {
    await late.close();
  });

  it('GIVEN the form could not open in time THEN the checks still run, and then the member is asked to try again', async () => {
    const member = late.discord.guild.memberId;
    const account = late.booru.addAccount({ name: 'LateUploader' });
    await linkKey(late, member, account.key);
    const target = {
      content: 'x',
      embeds: [
        {
          type: 'image',
          url: `${late.booru.url}/samples/late.png`,
          thumbnail: { url: `${late.booru.url}/samples/late.png` },
        },
      ],
    };
    const handle = late.discord.sendMessageCommand({
      name: 'Upload to board',
      channel: 'plain',
      userId: member,
      targetMessage: target,
    });
    expect((await handle.finalReply()).content).toMatch(/could not open in time: try again/);
    const none = late.discord.sendMessageCommand({
      name: 'Upload to board',
      channel: 'plain',
      userId: member,
      targetMessage: { content: 'no image here' },
    });
    expect((await none.finalReply()).content).toMatch(/no image to upload/);
  });
});
