/**
 * A store that cannot be read fails closed (the server's filter must never silently drop): for a server
 * this process has not read or written lately, a command says the server's settings could not be read
 * and does nothing with the defaults, and an unfurl does not happen; for a server it has, it goes on with
 * the last confirmed settings (never the defaults). A change or a reset is never confirmed nor written
 * over the record. The store is the bot's own keyv over memory://, whose Map is made to fail for the
 * settings rows, as a broken database would; "another process" wrote a record straight into the store.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import { boardCalls, setServerFilter } from '../support/board.js';
import { startHarness, type Harness } from '../support/harness.js';
import { customIds } from '../support/messages.js';

const READ_TEXT = "Could not read this server's settings right now. Try again in a moment.";
const RESET_TEXT = "Could not reset this server's settings right now. Try again in a moment.";

let h: Harness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  h = undefined;
});

function mapOf(harness: Harness): Map<unknown, unknown> {
  const map: unknown = harness.store.store;
  if (!(map instanceof Map)) throw new Error('the harness store is not memory://');
  return map;
}

const isSettingsKey = (key: unknown) => String(key).startsWith('keyv:settings:');
const isServerSettingsKey = (key: unknown) => String(key).startsWith('keyv:settings:guild:');
const isMemberSettingsKey = (key: unknown) => String(key).startsWith('keyv:settings:member:');

/**
 * From now on, every read of a server's settings row fails (or, with `which`, a member's, or both);
 * other rows (the response cache) work.
 */
function failSettingsReads(harness: Harness, which: (key: unknown) => boolean = isServerSettingsKey): void {
  const map = mapOf(harness);
  const get = Map.prototype.get;
  vi.spyOn(map, 'get').mockImplementation((key: unknown) => {
    if (which(key)) throw new Error('SQLITE_IOERR: disk I/O error');
    return get.call(map, key);
  });
}

/** The settings row as stored, read past the failure. */
function storedRow(harness: Harness): unknown {
  return Map.prototype.get.call(mapOf(harness), `keyv:settings:guild:${harness.discord.guild.id}`);
}

const owner = (harness: Harness) => harness.discord.guild.ownerId;

/** The server's filter as another process of the bot stored it: this one has never read it. */
async function storedByAnotherProcess(harness: Harness, filterId: number): Promise<void> {
  await harness.store.set(`settings:guild:${harness.discord.guild.id}`, {
    filters: { derpibooru: filterId },
  });
}

describe('server settings that cannot be read', () => {
  it('GIVEN a server filter this process never read AND the store failing THEN /image answers that the settings could not be read, without calling the board with the defaults', async () => {
    h = await startHarness();
    await storedByAnotherProcess(h, FILTER_IDS.everything);
    failSettingsReads(h);
    const mark = h.booru.requests.length;
    const from = h.logLines().length;
    // A public command: the "thinking…" is removed and the error comes privately, as a follow-up.
    const handle = h.discord.sendCommand({
      name: 'image',
      options: { id: String(IDS.safe) },
      channel: 'ageRestricted',
    });
    const reply = await h.discord.waitFor(() => handle.followUps()[0], 10_000);
    expect(reply.content).toBe(READ_TEXT);
    expect(reply.embeds ?? []).toEqual([]);
    expect(boardCalls(h.booru, mark, /\/images\//)).toBe(0);
    const errors = h
      .logLines()
      .slice(from)
      .filter((line) => Number(line['level']) >= 50);
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toContain('SettingsUnavailableError');
  });

  it('GIVEN a server this process never read AND the store failing THEN /settings filter is refused AND the stored record is left as it was', async () => {
    h = await startHarness();
    await h.store.set(`settings:guild:${h.discord.guild.id}`, {
      siteId: 'furbooru',
      filters: { derpibooru: FILTER_IDS.everything },
    });
    const before = storedRow(h);
    expect(before).toBeDefined();
    failSettingsReads(h);
    const reply = await setServerFilter(h, FILTER_IDS.maximumSpoilers);
    expect(reply.content).toBe(READ_TEXT);
    expect(storedRow(h)).toBe(before);
  });

  it('GIVEN a server this process never read AND the store failing THEN a link in chat gets no card AND one warning says why', async () => {
    h = await startHarness();
    await storedByAnotherProcess(h, FILTER_IDS.everything);
    failSettingsReads(h);
    const mark = h.booru.requests.length;
    const from = h.logLines().length;
    const posted = await h.discord.sendMessage({
      channel: 'ageRestricted',
      content: `${h.booru.url}/images/${IDS.safe}`,
    });
    await h.discord.waitFor(() =>
      h?.logLines().some((line) => line['msg'] === "unfurl skipped: this server's settings could not be read")
        ? true
        : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(posted.replies()).toEqual([]);
    expect(boardCalls(h.booru, mark, /\/images\//)).toBe(0);
    const loud = h
      .logLines()
      .slice(from)
      .filter((line) => Number(line['level']) >= 40);
    expect(loud.map((line) => line['msg'])).toEqual([
      "unfurl skipped: this server's settings could not be read",
    ]);
  });

  it('GIVEN a server filter this process confirmed AND then the store failing THEN /image goes on with that filter, never the defaults, while a change is refused', async () => {
    h = await startHarness();
    await setServerFilter(h, FILTER_IDS.everything);
    failSettingsReads(h);
    const mark = h.booru.requests.length;
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.safe) }, channel: 'ageRestricted' })
      .finalReply();
    expect(reply.embeds).toHaveLength(1);
    const calls = h.booru.requests.slice(mark).filter((r) => /\/images\//.test(r.path));
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.query.get('filter_id')).toBe(String(FILTER_IDS.everything));
    const refused = await setServerFilter(h, FILTER_IDS.maximumSpoilers);
    expect(refused.content).toBe(READ_TEXT);
  });

  it('GIVEN a DM THEN no server settings are read, so the store failing changes nothing there', async () => {
    h = await startHarness();
    failSettingsReads(h, isSettingsKey);
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.safe) }, channel: h.discord.dmChannelId })
      .finalReply();
    expect(reply.embeds).toHaveLength(1);
    // The member's own record (/me filter) could not be read either: the default filter applies, said once.
    expect(
      h
        .logLines()
        .filter((line) => String(line['msg']).startsWith("the member's own settings could not be read")),
    ).toHaveLength(1);
  });
});

describe("a member's own settings that cannot be read", () => {
  it('GIVEN the member records failing THEN a link in chat gets no card (the author may have opted out) AND one warning says why', async () => {
    h = await startHarness();
    failSettingsReads(h, isMemberSettingsKey);
    const mark = h.booru.requests.length;
    const from = h.logLines().length;
    const posted = await h.discord.sendMessage({
      channel: 'ageRestricted',
      content: `${h.booru.url}/images/${IDS.safe}`,
    });
    const warning = "unfurl skipped: the author's own settings could not be read";
    await h.discord.waitFor(() => (h?.logLines().some((line) => line['msg'] === warning) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(posted.replies()).toEqual([]);
    expect(boardCalls(h.booru, mark, /\/images\//)).toBe(0);
    const loud = h
      .logLines()
      .slice(from)
      .filter((line) => Number(line['level']) >= 40);
    expect(loud.map((line) => line['msg'])).toEqual([warning]);
  });

  it('GIVEN the member records failing THEN /me show says so, privately, with its identifier', async () => {
    h = await startHarness();
    failSettingsReads(h, isMemberSettingsKey);
    const reply = await h.discord
      .sendCommand({ name: 'me', subcommand: 'show', channel: h.discord.dmChannelId })
      .finalReply();
    expect(reply.content).toMatch(/your own settings/i);
  });
});

describe('/settings reset when the delete fails (review L13)', () => {
  it('GIVEN the delete failing THEN the admin is told it did not happen AND the settings stay', async () => {
    h = await startHarness();
    await setServerFilter(h, FILTER_IDS.everything);
    const map = mapOf(h);
    const remove = Map.prototype.delete;
    vi.spyOn(map, 'delete').mockImplementation((key: unknown) => {
      if (isSettingsKey(key)) throw new Error('SQLITE_READONLY: attempt to write a readonly database');
      return remove.call(map, key);
    });
    const asked = await h.discord
      .sendCommand({ name: 'settings', subcommand: 'reset', channel: 'plain', userId: owner(h) })
      .finalReply();
    const confirm = customIds(asked).find((id) => id.startsWith('set:reset-yes'));
    expect(confirm).toBeDefined();
    // The press is deferred as an update of the question; the failure is told privately beside it.
    const press = h.discord.sendButton({ customId: confirm ?? '', message: asked, userId: owner(h) });
    const reply = await h.discord.waitFor(() => press.followUps()[0]);
    expect(reply.content).toBe(RESET_TEXT);
    expect(reply.content).not.toMatch(/Settings reset/);
    expect(await h.store.get(`settings:guild:${h.discord.guild.id}`)).toMatchObject({
      filters: { [h.config.site.id]: FILTER_IDS.everything },
    });
  });
});
