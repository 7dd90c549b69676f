/**
 * `/me link`, `/me unlink`, `/me show` and `/me forget` with members' own board keys (issue 22 §1), through
 * the local Discord and the local board (which knows accounts: `booru.addAccount`): a key the board takes
 * is linked and shown by its last four characters only; a key it refuses (403 on `filters/user`) and a
 * text that is no key are refused and nothing is kept; unlink and forget delete at once and say so;
 * without MEMBER_KEY_SECRET linking is off and says why before any form. The key is never in a Discord
 * request (answers, custom ids, the modal), a log line, or a request to the board other than its own
 * member's check.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionHandle, RecordedMessage } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { customIds } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

const EPHEMERAL = 1 << 6;
const SECRET = randomBytes(32).toString('base64');

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET }, env: { MEMBER_KEY_SECRET: SECRET } });
});
afterAll(async () => {
  await h.close();
});

function me(
  harness: Harness,
  subcommand: string,
  options: Readonly<Record<string, string>> = {},
  userId?: string,
): Promise<RecordedMessage> {
  return harness.discord
    .sendCommand({
      name: 'me',
      subcommand,
      options,
      channel: 'dm',
      ...(userId === undefined ? {} : { userId }),
    })
    .finalReply();
}

/** `/me link`, the button pressed, `text` pasted into the form; the form's answer. */
async function linkWith(text: string, userId?: string): Promise<RecordedMessage> {
  const intro = await me(h, 'link', {}, userId);
  expect(intro.flags & EPHEMERAL).toBe(EPHEMERAL);
  const open = customIds(intro).find((id) => id.startsWith('melink:open:'));
  if (open === undefined) throw new Error(`no link button on: ${intro.content}`);
  const click: InteractionHandle = h.discord.sendButton({
    message: intro,
    customId: open,
    ...(userId === undefined ? {} : { userId }),
  });
  expect((await click.acknowledged).type).toBe(9);
  return h.discord.submitModal({ opener: click, values: { key: text } }).finalReply();
}

/** Everything the bot sent to Discord and wrote to its log, as one text. */
function everythingSaid(): string {
  return JSON.stringify(h.discord.requests) + h.logText();
}

describe('/me link with the board account of the member', () => {
  it('GIVEN an account of the board WHEN its key is pasted (with spaces around) THEN it is checked once with the board, linked, and only its last 4 characters are ever said', async () => {
    const account = h.booru.addAccount({ name: 'LinkingMember' });
    const mark = h.booru.requests.length;
    const intro = await me(h, 'link');
    expect(intro.content).toContain('/registrations/edit');
    const done = await linkWith(`  ${account.key}\n`);
    expect(done.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(done.content).toMatch(/account is linked \(key ending in `(.{4})`\)/);
    expect(done.content).toContain(`\`${account.key.slice(-4)}\``);
    expect(done.content).toMatch(/only with your own requests/);
    const keyed = h.booru.requests.slice(mark).filter((r) => r.key === account.key);
    expect(keyed.map((r) => r.path)).toEqual(['/api/v1/json/filters/user']);

    const show = await me(h, 'show');
    expect(show.content).toMatch(/Your linked board accounts/);
    expect(show.content).toContain(`key ending in \`${account.key.slice(-4)}\``);
    expect(everythingSaid()).not.toContain(account.key);
    expect(everythingSaid()).not.toContain(account.key.slice(0, 16));
    expectNoDiscordProblems(h.discord);
  });

  it('GIVEN a well-formed key the board does not know THEN it is refused, nothing is kept, and it went to the board once and nowhere else', async () => {
    const member = h.discord.guild.ownerId;
    const wrong = 'Zz9_wrongKey-1234567';
    const mark = h.booru.requests.length;
    const refused = await linkWith(wrong, member);
    expect(refused.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(refused.content).toMatch(/does not accept that key: nothing was saved/);
    expect(h.booru.requests.slice(mark).filter((r) => r.key === wrong)).toHaveLength(1);
    expect((await me(h, 'show', {}, member)).content).toMatch(/Your linked board accounts: none/);
    expect(everythingSaid()).not.toContain(wrong);
    expectNoDiscordProblems(h.discord);
  });

  it('GIVEN a text that is no key (a URL) THEN it is refused before any board request, and not echoed', async () => {
    const member = h.discord.guild.ownerId;
    const mark = h.booru.requests.length;
    const text = 'https://evil.example/steal?key=x';
    const refused = await linkWith(text, member);
    expect(refused.content).toMatch(/That is not an API key/);
    expect(h.booru.requests.slice(mark)).toEqual([]);
    expect(everythingSaid()).not.toContain('evil.example');
  });

  it('GIVEN a linked key THEN /me unlink deletes it at once and says so, and again says there was none', async () => {
    const member = h.discord.guild.memberId;
    const account = h.booru.addAccount({ name: 'UnlinkingMember' });
    expect((await linkWith(account.key, member)).content).toMatch(/is linked/);
    const unlinked = await me(h, 'unlink', { site: 'default' }, member);
    expect(unlinked.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(unlinked.content).toMatch(/is deleted: the bot no longer uses your account there/);
    expect((await me(h, 'show', {}, member)).content).toMatch(/Your linked board accounts: none/);
    expect((await me(h, 'unlink', { site: 'default' }, member)).content).toMatch(/nothing to delete/);
    expect(everythingSaid()).not.toContain(account.key);
  });

  it('GIVEN two members linking at the same time THEN each keeps their own key, and neither sees the other’s', async () => {
    const [a, b] = [h.discord.guild.memberId, h.discord.guild.ownerId];
    const [keyA, keyB] = [
      h.booru.addAccount({ name: 'ConcurrentA' }),
      h.booru.addAccount({ name: 'ConcurrentB' }),
    ];
    const linked = await Promise.all([linkWith(keyA.key, a), linkWith(keyB.key, b)]);
    expect(linked.map((m) => m.content)).toEqual([
      expect.stringContaining(`\`${keyA.key.slice(-4)}\``),
      expect.stringContaining(`\`${keyB.key.slice(-4)}\``),
    ]);
    const [showA, showB] = [await me(h, 'show', {}, a), await me(h, 'show', {}, b)];
    expect(showA.content).toContain(`\`${keyA.key.slice(-4)}\``);
    expect(showA.content).not.toContain(`\`${keyB.key.slice(-4)}\``);
    expect(showB.content).toContain(`\`${keyB.key.slice(-4)}\``);
    expect(showB.content).not.toContain(`\`${keyA.key.slice(-4)}\``);
    await Promise.all([me(h, 'unlink', { site: 'default' }, a), me(h, 'unlink', { site: 'default' }, b)]);
    expect(everythingSaid()).not.toContain(keyA.key);
    expect(everythingSaid()).not.toContain(keyB.key);
  });

  it('GIVEN a linked key THEN /me forget deletes it with the rest and says how many keys went', async () => {
    const member = h.discord.foreignGuild.memberId;
    const account = h.booru.addAccount({ name: 'ForgettingMember' });
    expect((await linkWith(account.key, member)).content).toMatch(/is linked/);
    const forgot = await me(h, 'forget', {}, member);
    expect(forgot.content).toMatch(/Keys of linked board accounts deleted too: 1\./);
    expect((await me(h, 'show', {}, member)).content).toMatch(/Your linked board accounts: none/);
    expect(everythingSaid()).not.toContain(account.key);
    expectNoDiscordProblems(h.discord);
  });
});

describe('/me link without MEMBER_KEY_SECRET', () => {
  it('GIVEN no secret THEN /me link says in one sentence that the operator has not turned it on, with no form, and /me show still answers', async () => {
    const off = await startHarness({ registry: { budget: ROOMY_BUDGET } });
    try {
      const answer = await me(off, 'link');
      expect(answer.flags & EPHEMERAL).toBe(EPHEMERAL);
      expect(answer.content).toBe(
        'Linking a board account is not turned on for this bot: its operator has not set it up.',
      );
      expect(customIds(answer)).toEqual([]);
      expect((await me(off, 'show')).content).toMatch(/Your linked board accounts: none\./);
      expectNoDiscordProblems(off.discord);
    } finally {
      await off.close();
    }
  });
});
