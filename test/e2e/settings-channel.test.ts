/**
 * `/settings channel channel:` and `/settings show` through the local Discord and the local board (issue 20
 * §3): a channel's own filter (checked with the board: a private one refused), site, unfurls (a link there
 * gets no card, one elsewhere still does, `>>123` follows `references`), references, `reset:True` back to
 * the server's, no option showing what the channel sets, the 100-channel bound; and `/settings show`
 * saying each effective setting and where it comes from.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL_SETTINGS_MAX } from '../../commands/shared/guild-settings.js';
import { FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import type { MessageHandle } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { settings, storedRecord, tags, writeRecord } from '../support/settings.js';

let h: Harness;
let guildId: string;
let siteId: string;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
  guildId = h.discord.guild.id;
  siteId = h.config.site.id;
});
afterAll(async () => {
  expectNoDiscordProblems(h.discord);
  await h.close();
});
beforeEach(async () => {
  await writeRecord(h, guildId, { siteId: undefined, filters: {} });
});

const EPHEMERAL = 1 << 6;

function channelSettings(options: Readonly<Record<string, string | number | boolean>>) {
  return settings(h, { subcommand: 'channel', options });
}

/** The messages posted, then one more in `witness` that must be answered: after it, the others had their turn. */
async function postAndSettle(
  posts: readonly { channel: string; content: string }[],
): Promise<MessageHandle[]> {
  const handles: MessageHandle[] = [];
  for (const post of posts) handles.push(await h.discord.sendMessage(post));
  const witness = await h.discord.sendMessage({
    channel: 'ageRestricted',
    content: `${h.booru.url}/images/${IDS.safe}`,
  });
  await h.discord.waitFor(() => witness.replies()[0], 10_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  return handles;
}

describe('/settings channel', () => {
  it('GIVEN no option THEN it shows what the channel sets, everything being the server’s', async () => {
    const { plain } = h.discord.guild.channels;
    const reply = await channelSettings({ channel: plain });
    expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toContain(`Settings in <#${plain}>:`);
    expect(reply.content).toMatch(/• Site: \*\*.*\*\* \(the server's\)/);
    expect(reply.content).toContain("• Filter: the site's default (the bot default)");
    expect(reply.content).toContain('• Unfurls of links: on (the default)');
    expect(reply.content).toContain("• Image references: on (the server's)");
    expect(await storedRecord(h, guildId)).toEqual({ siteId: undefined, filters: {} });
  });

  it('GIVEN filter_id: a private filter THEN it is refused and nothing is written; a public one is checked, kept for the channel and shown as its own', async () => {
    const { spoiler } = h.discord.guild.channels;
    for (const id of [FILTER_IDS.otherPrivate, FILTER_IDS.ownedPrivate]) {
      const refused = await channelSettings({ channel: spoiler, filter_id: id });
      expect(refused.content).toContain(`has no public filter ${id}`);
    }
    expect((await storedRecord(h, guildId)).channels).toBeUndefined();

    const set = await channelSettings({ channel: spoiler, filter_id: FILTER_IDS.public });
    expect(set.content).toContain(`• Filter: ${FILTER_IDS.public} (this channel's own)`);
    expect(set.content).toContain(`in <#${spoiler}>:`);
    expect((await storedRecord(h, guildId)).channels?.[spoiler]).toEqual({
      filters: { [siteId]: FILTER_IDS.public },
    });
    // The server's own filter shows as the server's elsewhere, and the channel's wins in it.
    await settings(h, { subcommand: 'filter', options: { filter_id: FILTER_IDS.everything } });
    const there = await settings(h, { subcommand: 'show', options: { channel: spoiler } });
    expect(there.content).toContain(`• Filter: ${FILTER_IDS.public} (this channel's own)`);
    const plain = await settings(h, {
      subcommand: 'show',
      options: { channel: h.discord.guild.channels.plain },
    });
    expect(plain.content).toContain(`• Filter: ${FILTER_IDS.everything} (the server's)`);
  });

  it('GIVEN site: a known site, then the server’s THEN the channel’s site is written and then taken away', async () => {
    const { forum } = h.discord.guild.channels;
    const set = await channelSettings({ channel: forum, site: 'derpibooru' });
    expect(set.content).toContain("• Site: **Derpibooru** (this channel's own)");
    expect((await storedRecord(h, guildId)).channels?.[forum]).toEqual({ siteId: 'derpibooru' });
    const back = await channelSettings({ channel: forum, site: 'server' });
    expect(back.content).toMatch(/• Site: \*\*.*\*\* \(the server's\)/);
    expect((await storedRecord(h, guildId)).channels).toBeUndefined();
  });

  it('GIVEN unfurl:False in one channel THEN a link there gets no card while one elsewhere does, and >>123 there follows references', async () => {
    const { plain } = h.discord.guild.channels;
    const off = await channelSettings({ channel: plain, unfurl: false });
    expect(off.content).toContain("• Unfurls of links: off (this channel's own)");
    const link = `${h.booru.url}/images/${IDS.safe}`;
    const [inPlain, reference] = await postAndSettle([
      { channel: 'plain', content: `look ${link}` },
      { channel: 'plain', content: `look >>${IDS.safe}` },
    ]);
    expect(inPlain?.replies()).toEqual([]);
    expect(reference?.replies()).toHaveLength(1);
    expect(JSON.stringify(reference?.replies()[0])).toContain(`/images/${IDS.safe}`);

    const refsOff = await channelSettings({ channel: plain, references: false });
    expect(refsOff.content).toContain("• Image references: off (this channel's own)");
    expect((await storedRecord(h, guildId)).channels?.[plain]).toEqual({
      unfurl: false,
      imageReferences: false,
    });
    const [again] = await postAndSettle([{ channel: 'plain', content: `look >>${IDS.safe}` }]);
    expect(again?.replies()).toEqual([]);

    // reset:True: back to the server's, and the channel unfurls again.
    const reset = await channelSettings({ channel: plain, reset: true });
    expect(reset.content).toMatch(/^In <#\d+>: back to the server's settings/);
    expect((await storedRecord(h, guildId)).channels).toBeUndefined();
    const [back] = await postAndSettle([{ channel: 'plain', content: `look ${link}` }]);
    expect(back?.replies()).toHaveLength(1);
  });

  it('GIVEN references:True in a channel of a server that turned them off THEN >>123 gets a card there only', async () => {
    const { plain } = h.discord.guild.channels;
    await settings(h, { subcommand: 'references', options: { enabled: false } });
    await channelSettings({ channel: plain, references: true });
    const [here, elsewhere] = await postAndSettle([
      { channel: 'plain', content: `>>${IDS.safe}` },
      { channel: 'spoiler', content: `>>${IDS.safe}` },
    ]);
    expect(here?.replies()).toHaveLength(1);
    expect(elsewhere?.replies()).toEqual([]);
  });

  it('GIVEN 100 channels with settings of their own THEN a 101st is refused, saying the bound, and nothing is written; one of the 100 can still change', async () => {
    const { plain, spoiler } = h.discord.guild.channels;
    const channels: Record<string, { unfurl: boolean }> = { [spoiler]: { unfurl: false } };
    for (let i = 0; Object.keys(channels).length < CHANNEL_SETTINGS_MAX; i += 1)
      channels[String(900000000000000000n + BigInt(i))] = { unfurl: false };
    const full = { siteId: undefined, filters: {}, channels };
    await writeRecord(h, guildId, full);
    const refused = await channelSettings({ channel: plain, references: false });
    expect(refused.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(refused.content).toMatch(/At most 100 channels can have settings of their own/);
    const tagsRefused = await tags(h, 'hide', 'gore', plain);
    expect(tagsRefused.content).toMatch(/At most 100 channels/);
    expect(await storedRecord(h, guildId)).toEqual(full);
    const changed = await channelSettings({ channel: spoiler, unfurl: true });
    expect(changed.content).toContain("• Unfurls of links: on (this channel's own)");
    expect(Object.keys((await storedRecord(h, guildId)).channels ?? {})).toHaveLength(100);
  });

  it('GIVEN 100 channels with settings of their own THEN a change that leaves a 101st channel with nothing set is not refused', async () => {
    const { plain } = h.discord.guild.channels;
    const channels: Record<string, { unfurl: boolean }> = {};
    for (let i = 0; i < CHANNEL_SETTINGS_MAX; i += 1)
      channels[String(900000000000000000n + BigInt(i))] = { unfurl: false };
    const full = { siteId: undefined, filters: {}, channels };
    await writeRecord(h, guildId, full);
    const unhide = await tags(h, 'unhide', 'gore', plain);
    expect(unhide.content).toContain(`Nothing was changed in <#${plain}>.`);
    const back = await channelSettings({ channel: plain, site: 'server' });
    expect(back.content).toContain(`Settings in <#${plain}>:`);
    const reset = await channelSettings({ channel: plain, reset: true });
    expect(reset.content).toMatch(/back to the server's settings/);
    expect(await storedRecord(h, guildId)).toEqual(full);
  });
});

describe('/settings show', () => {
  it('GIVEN server and channel settings THEN /settings show says the server’s and lists the channels, and show channel: says each effective setting with its source', async () => {
    const { plain, spoiler } = h.discord.guild.channels;
    await settings(h, { subcommand: 'filter', options: { filter_id: FILTER_IDS.default } });
    await settings(h, { subcommand: 'references', options: { enabled: false } });
    await tags(h, 'hide', 'gore');
    await tags(h, 'spoiler', 'blood');
    await tags(h, 'hide', 'guts', spoiler);
    await channelSettings({ channel: spoiler, unfurl: false, references: true });

    const server = await settings(h, { subcommand: 'show' });
    expect(server.flags & EPHEMERAL).toBe(EPHEMERAL);
    const text = server.content;
    expect(text).toMatch(/^Site: \*\*.*\*\* \(.*\) \(the default\)/);
    expect(text).toContain('Filter:\n');
    expect(text).toContain('Hides 2 tags: explicit, grotesque.');
    expect(text).toContain('Image references: off');
    expect(text).toContain(`Channels with settings of their own (1): <#${spoiler}>`);
    expect(text).toContain('Hidden tags (1 of 200): `gore`');
    expect(text).toContain('Spoilered tags (1 of 200): `blood`');

    const own = (await settings(h, { subcommand: 'show', options: { channel: spoiler } })).content;
    expect(own).toContain(`Settings in <#${spoiler}>:`);
    expect(own).toMatch(/• Site: \*\*.*\*\* \(the server's\)/);
    expect(own).toContain(`• Filter: ${FILTER_IDS.default} (the server's)`);
    expect(own).toContain("• Unfurls of links: off (this channel's own)");
    expect(own).toContain("• Image references: on (this channel's own)");
    expect(own).toContain("• Hidden tags of this channel's own, on top of the server's (1 of 200): `guts`");
    expect(own).toContain("• The server's own: 1 hidden and 1 spoilered tags");

    const other = (await settings(h, { subcommand: 'show', options: { channel: plain } })).content;
    expect(other).toContain("• Image references: off (the server's)");
    expect(other).toContain("• Hidden tags of this channel's own, on top of the server's: none.");
  });
});
