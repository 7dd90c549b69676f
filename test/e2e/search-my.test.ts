/**
 * `/search` with `my:` terms and the member's own board key (issue 22 §2), through the local Discord and
 * the local board's accounts: a linked member's `my:faves` reads their own account (their key on those
 * requests only), two members at once each read their own, an unlinked member is told to link and the
 * board never sees the term, the rating rule still holds in a plain channel, paging keeps the searcher's
 * key without ever carrying it, and a key the board no longer takes is dropped and said once.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { FAKE_KEY, IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { cardUrl, customIds } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { everythingSaid as said, linkKey } from '../support/member-links.js';

const EPHEMERAL = 1 << 6;
const SECRET = randomBytes(32).toString('base64');

let h: Harness;
beforeAll(async () => {
  // With the operator's key set, to show it never goes with a `my:` search either.
  h = await startHarness({
    withKey: true,
    registry: { budget: ROOMY_BUDGET },
    env: { MEMBER_KEY_SECRET: SECRET },
  });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

/** `/me link` for `userId` with `key` (test/support/member-links.ts). */
const link = (userId: string, key: string): Promise<void> => linkKey(h, userId, key);

function search(
  userId: string,
  query: string,
  channel = 'ageRestricted',
  extra: Readonly<Record<string, string | boolean>> = {},
): Promise<RecordedMessage> {
  return h.discord
    .sendCommand({ name: 'search', options: { query, ...extra }, channel, userId })
    .finalReply();
}

/** The image id a card links to. */
function shownId(message: RecordedMessage): number {
  return Number(/\/images\/(\d+)/.exec(cardUrl(message))?.[1]);
}

/** Everything the bot sent to Discord and wrote to its log, as one text. */
const everythingSaid = (): string => said(h);

const searchesSince = (mark: number) =>
  h.booru.requests.slice(mark).filter((r) => r.path.endsWith('/search/images'));

describe('/search my: with the member’s own key', () => {
  it('GIVEN a linked member WHEN they search my:faves in a server THEN they see their faves, privately, and their key went only with those searches', async () => {
    const member = h.discord.guild.memberId;
    const account = h.booru.addAccount({ name: 'FavingMember', faves: [IDS.suggestive] });
    await link(member, account.key);
    const mark = h.booru.requests.length;
    const reply = await search(member, 'my:faves');
    expect(shownId(reply)).toBe(IDS.suggestive);
    expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
    const keyed = h.booru.requests.slice(mark).filter((r) => r.key === account.key);
    expect(keyed.length).toBeGreaterThan(0);
    expect(keyed.every((r) => r.path.endsWith('/search/images') || r.path.includes('/filters/'))).toBe(true);
    expect(searchesSince(mark).every((r) => r.key === account.key)).toBe(true);
    expect(h.booru.requests.slice(mark).some((r) => r.key === FAKE_KEY)).toBe(false);
    // The server chose no filter, so a search without `my:` reads through their account too (the
    // account's filter: their key, no filter_id), never with the operator's key.
    const plainMark = h.booru.requests.length;
    await search(member, 'pony');
    const plain = searchesSince(plainMark);
    expect(plain.length).toBeGreaterThan(0);
    expect(plain.every((r) => r.key === account.key && !r.query.has('filter_id'))).toBe(true);
    expect(h.booru.requests.slice(plainMark).some((r) => r.key === FAKE_KEY)).toBe(false);
    expect(everythingSaid()).not.toContain(account.key);
  });

  it('GIVEN private: false chosen THEN a my: search answers publicly', async () => {
    const member = h.discord.guild.memberId;
    const reply = await search(member, 'my:faves', 'ageRestricted', { private: false });
    expect(reply.flags & EPHEMERAL).toBe(0);
  });

  it('GIVEN two linked members searching at once THEN each sees their own faves, with their own key', async () => {
    const a = h.discord.guild.ownerId;
    const b = h.discord.guild.otherMemberId;
    const accountA = h.booru.addAccount({ name: 'ConcurrentA', faves: [IDS.safe] });
    const accountB = h.booru.addAccount({ name: 'ConcurrentB', faves: [IDS.questionable] });
    await link(a, accountA.key);
    await link(b, accountB.key);
    const mark = h.booru.requests.length;
    const [ra, rb] = await Promise.all([search(a, 'my:faves'), search(b, 'my:faves')]);
    expect(shownId(ra)).toBe(IDS.safe);
    expect(shownId(rb)).toBe(IDS.questionable);
    const keys = new Set(searchesSince(mark).map((r) => r.key));
    expect(keys).toEqual(new Set([accountA.key, accountB.key]));
  });

  it('GIVEN a member with no linked key THEN they are told to link one, and the board never got my:', async () => {
    const stranger = '555000111222333444';
    const mark = h.booru.requests.length;
    for (const query of ['pony, my:faves', 'my:upvotes', 'my:uploads', 'my:watched', 'my:hidden']) {
      const reply = await search(stranger, query, 'plain');
      expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
      expect(reply.content).toMatch(/link it first with `\/me link`/);
    }
    expect(h.booru.requests.slice(mark)).toEqual([]);
    // Quoted, `my:` is a tag name: searched as usual without a key.
    const quoted = await search(stranger, '"my:faves"', 'plain');
    expect(quoted.content).not.toMatch(/\/me link/);
  });

  it('GIVEN a plain channel THEN a non-safe fave is not shown and the board was asked for safe ones', async () => {
    const member = h.discord.guild.ownerId;
    const account = h.booru.addAccount({ name: 'PlainChannel', faves: [IDS.explicit, IDS.safe] });
    await link(member, account.key);
    const mark = h.booru.requests.length;
    const reply = await search(member, 'my:faves', 'plain');
    expect(shownId(reply)).toBe(IDS.safe);
    expect(searchesSince(mark)[0]?.query.get('q')).toMatch(/safe/);
    expect(JSON.stringify(reply)).not.toContain(`/images/${IDS.explicit}`);
  });

  it('GIVEN a member search with several results THEN paging keeps the searcher’s key, no custom id holds it, and nobody else may page', async () => {
    const member = h.discord.guild.memberId;
    const account = h.booru.addAccount({ name: 'PagingMember', faves: [IDS.safe, IDS.suggestive] });
    await link(member, account.key);
    const first = await search(member, 'my:faves', 'ageRestricted', { sort: 'oldest' });
    expect(shownId(first)).toBe(IDS.safe);
    const next = customIds(first).find((id) => id.startsWith('srch:next:'));
    if (next === undefined) throw new Error('no Next button');
    for (const id of customIds(first)) expect(id).not.toContain(account.key.slice(0, 8));
    // The windows are cached per member: forget them so the page is read from the board again.
    h.registry.forgetMember(member);
    const mark = h.booru.requests.length;
    const paged = await h.discord.sendButton({ message: first, customId: next, userId: member }).finalReply();
    expect(shownId(paged)).toBe(IDS.suggestive);
    const searches = searchesSince(mark);
    expect(searches.length).toBeGreaterThan(0);
    expect(searches.every((r) => r.key === account.key)).toBe(true);
    const prev = customIds(paged).find((id) => id.startsWith('srch:prev:'));
    if (prev === undefined) throw new Error('no Previous button');
    const other = await h.discord
      .sendButton({ message: paged, customId: prev, userId: h.discord.guild.otherMemberId })
      .finalReply();
    expect(other.content).toMatch(/Only the person who searched/);
    expect(everythingSaid()).not.toContain(account.key);
  });

  it('GIVEN a linked key the board no longer takes THEN the search drops it and says so once, and the next one asks to link', async () => {
    const member = h.discord.guild.otherMemberId;
    const account = h.booru.addAccount({ name: 'RevokedMember', faves: [IDS.safe] });
    await link(member, account.key);
    h.booru.revokeKey(account.key);
    const refused = await search(member, 'my:faves');
    expect(refused.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(refused.content).toMatch(/no longer accepts your linked key, so the bot deleted it/);
    const show = await h.discord
      .sendCommand({ name: 'me', subcommand: 'show', channel: 'dm', userId: member })
      .finalReply();
    expect(show.content).toMatch(/Your linked board accounts: none/);
    const mark = h.booru.requests.length;
    expect((await search(member, 'my:faves')).content).toMatch(/link it first/);
    expect(h.booru.requests.slice(mark)).toEqual([]);
    expect(everythingSaid()).not.toContain(account.key);
  });
});
