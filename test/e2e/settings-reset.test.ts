/**
 * `/settings reset` through the local Discord (issue 20 §4): it asks first and clears nothing before the
 * press; **Reset everything** clears the site, filters, references, tags and every channel's own settings
 * while the feeds stay; **Cancel** clears nothing; a member without Manage Server cannot press it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FILTER_IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { customIds } from '../support/messages.js';
import { addFeed, settings, storedFeeds, storedRecord, tags, writeRecord } from '../support/settings.js';

let h: Harness;
let guildId: string;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
  guildId = h.discord.guild.id;
});
afterAll(async () => {
  expectNoDiscordProblems(h.discord);
  await h.close();
});

const EPHEMERAL = 1 << 6;
const YES = 'set:reset-yes';
const NO = 'set:reset-no';

/** Everything a server can set, through the commands. */
async function setEverything(): Promise<void> {
  const { spoiler } = h.discord.guild.channels;
  await writeRecord(h, guildId, { siteId: undefined, filters: {} });
  await settings(h, { subcommand: 'filter', options: { filter_id: FILTER_IDS.default } });
  await settings(h, { subcommand: 'references', options: { enabled: false } });
  await tags(h, 'hide', 'gore');
  await tags(h, 'spoiler', 'blood');
  await settings(h, { subcommand: 'channel', options: { channel: spoiler, unfurl: false } });
  // Last: every check with the board above went to the local one.
  await settings(h, { subcommand: 'site', options: { site: 'derpibooru' } });
}

beforeEach(async () => {
  await setEverything();
});

describe('/settings reset', () => {
  it('GIVEN a server that set everything THEN the question says what would go and nothing is cleared before the press; Reset everything clears it all while feeds stay', async () => {
    const feed = await addFeed(
      h,
      'reset feed',
      h.discord.guild.channels.plain,
      h.discord.guild,
      h.config.site.id,
    );
    expect(await storedFeeds(h, guildId), feed.content).toHaveLength(1);
    const before = await storedRecord(h, guildId);
    expect(before.imageReferences).toBe(false);
    expect(before.siteId).toBe('derpibooru');
    expect(Object.keys(before.channels ?? {})).toHaveLength(1);

    const question = await settings(h, { subcommand: 'reset' });
    expect(question.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(question.content).toContain(
      'This clears its site, its filter, references turned off, its 1 hidden and 1 spoilered tags, the own settings of 1 channel. Feeds stay',
    );
    expect(customIds(question)).toEqual([YES, NO]);
    expect(await storedRecord(h, guildId)).toEqual(before);

    const done = await h.discord
      .sendButton({ message: question, customId: YES, userId: h.discord.guild.ownerId })
      .finalReply();
    expect(done.id).toBe(question.id);
    expect(done.content).toMatch(/^Settings reset: /);
    expect(done.components).toEqual([]);
    expect(await storedRecord(h, guildId)).toEqual({ siteId: undefined, filters: {} });
    expect(await storedFeeds(h, guildId)).toEqual([
      expect.objectContaining({ query: 'reset feed', channelId: h.discord.guild.channels.plain }),
    ]);
    // Said again, there is nothing left to reset.
    const again = await settings(h, { subcommand: 'reset' });
    expect(again.content).toMatch(/nothing to reset/);
    expect(customIds(again)).toEqual([]);
  });

  it('GIVEN the question THEN Cancel clears nothing', async () => {
    const before = await storedRecord(h, guildId);
    const question = await settings(h, { subcommand: 'reset' });
    const cancelled = await h.discord
      .sendButton({ message: question, customId: NO, userId: h.discord.guild.ownerId })
      .finalReply();
    expect(cancelled.content).toBe('Nothing was reset.');
    expect(cancelled.components).toEqual([]);
    expect(await storedRecord(h, guildId)).toEqual(before);
  });

  it('GIVEN a member without Manage Server presses Reset everything THEN they are refused privately and nothing is cleared', async () => {
    const before = await storedRecord(h, guildId);
    const question = await settings(h, { subcommand: 'reset' });
    const press = h.discord.sendButton({
      message: question,
      customId: YES,
      userId: h.discord.guild.memberId,
    });
    await press.acknowledged;
    const note = await h.discord.waitFor(() => press.followUps()[0]);
    expect(note.content).toMatch(/Only members with the Manage Server permission/);
    expect(note.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(await storedRecord(h, guildId)).toEqual(before);
    expect(h.discord.message(question.id)?.content).toBe(question.content);
    // The command itself is refused to them too.
    const refused = await settings(h, { subcommand: 'reset', userId: h.discord.guild.memberId });
    expect(refused.content).toMatch(/Only members with the Manage Server permission/);
  });
});
