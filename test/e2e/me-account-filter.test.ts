/**
 * A linked member's own board account where no server decides (issue 22 §2), through the local Discord and
 * the local board's accounts: in a DM their /image, /search and /featured go with their key and no
 * `filter_id`, so the board applies the account's current filter (it hides what that filter hides); a
 * private filter of their own chosen with `/me filter` works; a server's own filter wins; two members at
 * once, interleaved or concurrent, each get their own account's answers, a key never on the other's request
 * nor sent to Discord, and an account-filtered answer is never served to anyone else. `/me filter` lists
 * the account's filters and offers them in its autocomplete, `/me show` says which filter applies, `my:`
 * terms are suggested only to a linked member, and a key the board refuses is dropped and said once.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { FAKE_KEY, FILTER_IDS, IDS, type CreatedAccount } from '../fakes/philomena/index.js';
import { setServerFilter } from '../support/board.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { cardUrl } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { everythingSaid as said, linkKey } from '../support/member-links.js';

const SECRET = randomBytes(32).toString('base64');
/** Image 101 (safe) is the only image tagged `twilight sparkle`; `id:101` finds it alone. */
const TWILIGHT = 'twilight sparkle';

let h: Harness;
beforeAll(async () => {
  // With the operator's key set, to show it never goes with a member's request either.
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

/** An account whose current filter is a private filter of its own that hides `twilight sparkle`. */
function hidingAccount(name: string): CreatedAccount {
  return h.booru.addAccount({
    name,
    filters: [{ name: `${name} no Twilight`, hiddenTags: [TWILIGHT] }],
    currentFilterId: { own: 0 },
  });
}

function command(
  userId: string,
  name: string,
  options: Readonly<Record<string, string | number | boolean>> = {},
  channel = 'dm',
  subcommand?: string,
): Promise<RecordedMessage> {
  return h.discord
    .sendCommand({ name, options, channel, userId, ...(subcommand === undefined ? {} : { subcommand }) })
    .finalReply();
}

const search = (userId: string, query: string, channel = 'dm') =>
  command(userId, 'search', { query }, channel);
const meFilter = (userId: string, options: Readonly<Record<string, string | number | boolean>> = {}) =>
  command(userId, 'me', options, 'dm', 'filter');

/** The image id a card links to; NaN for an answer without a card. */
function shownId(message: RecordedMessage): number {
  const url = message.embeds.length === 0 && (message.components ?? []).length === 0 ? '' : cardUrl(message);
  return Number(/\/images\/(\d+)/.exec(url)?.[1]);
}

/** Everything the bot sent to Discord and wrote to its log, as one text. */
const everythingSaid = (): string => said(h);

const since = (mark: number, path: RegExp) => h.booru.requests.slice(mark).filter((r) => path.test(r.path));
const SEARCHES = /\/search\/images$/;

describe('a linked member’s own account where no server decides', () => {
  it('GIVEN a linked member in a DM THEN /search and /image go with their key and no filter_id, and the account’s filter hides what it hides', async () => {
    const member = h.discord.guild.memberId;
    const account = hidingAccount('DmAccount');
    // Before linking: the bot's default, which shows the image.
    expect(shownId(await search(member, 'id:101'))).toBe(IDS.safe);
    await link(member, account.key);
    const mark = h.booru.requests.length;
    const hidden = await search(member, 'id:101');
    expect(hidden.content).toMatch(/No images matched/);
    const searches = since(mark, SEARCHES);
    expect(searches.length).toBeGreaterThan(0);
    expect(searches.every((r) => r.key === account.key && !r.query.has('filter_id'))).toBe(true);
    // Another safe image the filter does not hide is found as usual.
    expect(shownId(await search(member, `id:${IDS.manySources}`))).toBe(IDS.manySources);

    const imageMark = h.booru.requests.length;
    const card = await command(member, 'image', { id: String(IDS.safe) });
    expect(shownId(card)).toBe(IDS.safe);
    const reads = since(imageMark, /\/images\/\d+$/);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((r) => r.key === account.key && !r.query.has('filter_id'))).toBe(true);

    const featuredMark = h.booru.requests.length;
    await command(member, 'featured');
    const featured = since(featuredMark, /\/images\/featured$/);
    expect(featured.length).toBeGreaterThan(0);
    expect(featured.every((r) => r.key === account.key)).toBe(true);
    expect(h.booru.requests.slice(mark).some((r) => r.key === FAKE_KEY)).toBe(false);
    expect(everythingSaid()).not.toContain(account.key);
  });

  it('GIVEN a private filter of their own chosen with /me filter THEN it is accepted and applies in a DM with their key', async () => {
    const member = h.discord.guild.otherMemberId;
    const account = h.booru.addAccount({
      name: 'ChoosingAccount',
      filters: [{ name: 'Choosing no Twilight', hiddenTags: [TWILIGHT] }],
    });
    const own = account.filterIds[0] ?? 0;
    // Without a link, a private filter is refused as /settings refuses it.
    expect((await meFilter(member, { filter_id: own })).content).toMatch(/no public filter/);
    await link(member, account.key);
    expect(shownId(await search(member, 'id:101'))).toBe(IDS.safe);

    const listed = await meFilter(member);
    expect(listed.content).toContain('Choosing no Twilight');
    expect(listed.content).toContain(`\`${own}\` (private)`);
    expect(listed.content).toMatch(/System filters:/);
    expect(listed.content).toMatch(/your linked account's current filter applies/);

    const set = await meFilter(member, { filter_id: own });
    expect(set.content).toMatch(/Your filter on .* is set/);
    const mark = h.booru.requests.length;
    expect((await search(member, 'id:101')).content).toMatch(/No images matched/);
    const searches = since(mark, SEARCHES);
    expect(searches.every((r) => r.key === account.key && r.query.get('filter_id') === String(own))).toBe(
      true,
    );
    expect((await meFilter(member)).content).toContain(`\`${own}\` (private) ← yours here`);
    expect((await command(member, 'me', {}, 'dm', 'show')).content).toMatch(
      new RegExp(`filter ${own}, read with your linked account`),
    );

    // Another member's private filter is not theirs: refused, nothing kept.
    const stranger = h.booru.addAccount({ name: 'StrangerAccount', filters: [{ name: 'Not yours' }] });
    const refused = await meFilter(member, { filter_id: stranger.filterIds[0] ?? 0 });
    expect(refused.content).toMatch(/no filter .* you may use/);

    const reset = await meFilter(member, { reset: true });
    expect(reset.content).toMatch(/your linked account's current filter applies again/);
    expect((await command(member, 'me', {}, 'dm', 'show')).content).toMatch(
      /your linked account's current filter/,
    );
    expect(shownId(await search(member, 'id:101'))).toBe(IDS.safe);
    expect(everythingSaid()).not.toContain(account.key);
  });

  it('GIVEN /me filter filter_id being typed THEN the member’s own filters come first, then the system ones', async () => {
    const member = h.discord.guild.otherMemberId;
    const choices = await h.discord
      .sendAutocomplete({
        name: 'me',
        subcommand: 'filter',
        options: { filter_id: '' },
        focused: 'filter_id',
        channel: 'dm',
        userId: member,
      })
      .autocompleteChoices();
    expect(choices[0]?.name).toMatch(/^Choosing no Twilight \(yours, private, \d+\)$/);
    expect(choices.map((c) => c.name)).toContain(`Everything (system, ${FILTER_IDS.everything})`);
    expect(choices.length).toBeLessThanOrEqual(25);
  });

  it('GIVEN two linked members interleaved and concurrent THEN each gets their own account’s answer, never from the other’s cache, with their own key only', async () => {
    const a = h.discord.guild.ownerId;
    const b = '444000111222333444';
    const accountA = hidingAccount('InterleavedA');
    const accountB = h.booru.addAccount({ name: 'InterleavedB', currentFilterId: FILTER_IDS.everything });
    await link(a, accountA.key);
    await link(b, accountB.key);

    // A first: A's "nothing" is cached in A's space; B's same search still reaches the board with B's key.
    expect((await search(a, 'id:101')).content).toMatch(/No images matched/);
    const markB = h.booru.requests.length;
    expect(shownId(await search(b, 'id:101'))).toBe(IDS.safe);
    const bSearches = since(markB, SEARCHES);
    expect(bSearches.length).toBeGreaterThan(0);
    expect(bSearches.every((r) => r.key === accountB.key)).toBe(true);
    // And a member who linked nothing gets the shared answer, without a key.
    const markC = h.booru.requests.length;
    expect(shownId(await search('555000111222333555', 'id:101'))).toBe(IDS.safe);
    expect(h.booru.requests.slice(markC).every((r) => r.key === undefined)).toBe(true);

    const mark = h.booru.requests.length;
    for (let round = 0; round < 2; round += 1) {
      const [ra, rb] = await Promise.all([
        search(a, `id:101 || id:${round}`),
        search(b, `id:101 || id:${round}`),
      ]);
      expect(shownId(ra)).not.toBe(IDS.safe);
      expect(shownId(rb)).toBe(IDS.safe);
      h.registry.forgetMember(a);
      h.registry.forgetMember(b);
      expect(shownId(await search(b, 'id:101'))).toBe(IDS.safe);
      expect((await search(a, 'id:101')).content).toMatch(/No images matched/);
    }
    const keys = new Set(since(mark, SEARCHES).map((r) => r.key));
    expect(keys).toEqual(new Set([accountA.key, accountB.key]));
    expect(h.booru.requests.slice(mark).some((r) => r.key === FAKE_KEY)).toBe(false);
    const said = everythingSaid();
    expect(said).not.toContain(accountA.key);
    expect(said).not.toContain(accountB.key);
  });

  it('GIVEN a linked member typing my in /search THEN my: terms are offered; a member who linked nothing gets none, and the board is not asked', async () => {
    const typed = (userId: string, query: string) =>
      h.discord
        .sendAutocomplete({ name: 'search', options: { query }, focused: 'query', channel: 'dm', userId })
        .autocompleteChoices();
    const mark = h.booru.requests.length;
    const linked = await typed(h.discord.guild.ownerId, 'pony, -my:f');
    expect(linked).toEqual([{ name: 'my:faves: your favourites', value: 'pony, -my:faves' }]);
    expect(await typed('555000111222333666', 'pony, -my:f')).toEqual([]);
    expect(h.booru.requests.slice(mark)).toEqual([]);
  });

  it('GIVEN a key the board no longer takes THEN /me filter drops it and says so once', async () => {
    const member = '444000111222333777';
    const account = hidingAccount('RevokedFilterAccount');
    await link(member, account.key);
    h.booru.revokeKey(account.key);
    const refused = await meFilter(member);
    expect(refused.content).toMatch(/no longer accepts your linked key, so the bot deleted it/);
    expect((await command(member, 'me', {}, 'dm', 'show')).content).toMatch(
      /Your linked board accounts: none/,
    );
    // Unlinked now: the bot's default again, and /me filter as before linking.
    expect(shownId(await search(member, 'id:101'))).toBe(IDS.safe);
    expect((await meFilter(member)).content).toMatch(/no filter of your own/);
    expect(everythingSaid()).not.toContain(account.key);
  });

  it('GIVEN Show card used by a linked member in a DM THEN the card is read with their key; by a member who linked nothing, without one', async () => {
    const member = '444000111222333888';
    const account = hidingAccount('ShowCardAccount');
    await link(member, account.key);
    const content = `look ${h.booru.url}/images/${IDS.safe}`;
    const showCard = (userId: string) =>
      h.discord
        .sendMessageCommand({ name: 'Show card', channel: 'dm', userId, targetMessage: { content } })
        .finalReply();
    const mark = h.booru.requests.length;
    expect(shownId(await showCard(member))).toBe(IDS.safe);
    const reads = since(mark, /\/images\/\d+$/);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((r) => r.key === account.key && !r.query.has('filter_id'))).toBe(true);
    const other = h.booru.requests.length;
    expect(shownId(await showCard('555000111222333777'))).toBe(IDS.safe);
    expect(h.booru.requests.slice(other).every((r) => r.key === undefined)).toBe(true);
    expect(everythingSaid()).not.toContain(account.key);
  });

  // Last: it gives the server a filter for the rest of the file.
  it('GIVEN a server with its own filter THEN the server’s filter wins, without the member’s key; a server that chose none reads their account', async () => {
    const member = h.discord.guild.memberId;
    const account = hidingAccount('ServerAccount');
    await link(member, account.key);
    const before = h.booru.requests.length;
    expect((await search(member, 'id:101', 'ageRestricted')).content).toMatch(/No images matched/);
    expect(since(before, SEARCHES).every((r) => r.key === account.key)).toBe(true);

    expect((await setServerFilter(h, FILTER_IDS.everything)).content).toContain('Everything');
    const mark = h.booru.requests.length;
    expect(shownId(await search(member, 'id:101', 'ageRestricted'))).toBe(IDS.safe);
    const searches = since(mark, SEARCHES);
    expect(searches.length).toBeGreaterThan(0);
    expect(
      searches.every(
        (r) => r.key === undefined && r.query.get('filter_id') === String(FILTER_IDS.everything),
      ),
    ).toBe(true);
    // A `my:` search there still goes with their key, under the server's filter.
    const myMark = h.booru.requests.length;
    await search(member, 'my:faves', 'ageRestricted');
    const mine = since(myMark, SEARCHES);
    expect(mine.length).toBeGreaterThan(0);
    expect(
      mine.every((r) => r.key === account.key && r.query.get('filter_id') === String(FILTER_IDS.everything)),
    ).toBe(true);
    expect(everythingSaid()).not.toContain(account.key);
  });

  it('GIVEN a private filter of their own chosen, then /me unlink THEN the choice goes with the key and says so; /me filter names none', async () => {
    const member = h.discord.guild.otherMemberId;
    const account = h.booru.addAccount({
      name: 'UnlinkingAccount',
      filters: [{ name: 'Unlinking no Twilight', hiddenTags: [TWILIGHT] }],
    });
    const own = account.filterIds[0] ?? 0;
    await link(member, account.key);
    expect((await meFilter(member, { filter_id: own })).content).toMatch(/Your filter on .* is set/);
    // `default`: the bot's own site (BOORU_URL), the one linked from a DM.
    const unlinked = await command(member, 'me', { site: 'default' }, 'dm', 'unlink');
    expect(unlinked.content).toMatch(/Your key for .* is deleted/);
    expect(unlinked.content).toContain(
      `(filter ${own}) was a private one of your account, so it is cleared too`,
    );
    expect((await meFilter(member)).content).toMatch(/You have no filter of your own/);
    expect(everythingSaid()).not.toContain(account.key);
  });
});
