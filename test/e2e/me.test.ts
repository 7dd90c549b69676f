/**
 * `/me` through the local Discord (issue 20 §3): private answers in a server with the bot, in the bot's DM
 * and through a user install in a server without the bot; the member's filter applied where no server
 * decides (the DM, the server without the bot) and never where the bot is; the unfurl opt-out (the
 * member's links go unanswered, another member's still unfurl); `/me forget`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import type { ChannelTarget, RecordedMessage } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { embedsOf } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});

const EPHEMERAL = 1 << 6;

function me(
  subcommand: string,
  channel: ChannelTarget,
  options: Readonly<Record<string, string | number | boolean>> = {},
  userId?: string,
): Promise<RecordedMessage> {
  return h.discord
    .sendCommand({
      name: 'me',
      subcommand,
      options,
      channel,
      ...(userId === undefined ? {} : { userId }),
      ...(typeof channel === 'string' && ['plain', 'ageRestricted', 'dm'].includes(channel)
        ? {}
        : { install: 'user' as const }),
    })
    .finalReply();
}

/** The filter_id of the board call `/search` made for `query`, in `channel`, as `userId`. */
async function searchFilter(channel: ChannelTarget, query: string, userId?: string): Promise<string | null> {
  const mark = h.booru.requests.length;
  await h.discord
    .sendCommand({
      name: 'search',
      options: { query },
      channel,
      ...(userId === undefined ? {} : { userId }),
      ...(channel === 'plain' || channel === 'dm' ? {} : { install: 'user' as const }),
    })
    .finalReply();
  const call = h.booru.requests.slice(mark).find((r) => r.path.endsWith('/search/images'));
  if (call === undefined) throw new Error('no search call');
  return call.query.get('filter_id');
}

describe('/me in every place', () => {
  it('GIVEN /me show in a server with the bot, in the bot DM and through a user install in a server without the bot THEN each answer is private and says what is kept', async () => {
    const foreign = h.discord.foreignGuild;
    for (const [channel, userId] of [
      ['plain', undefined],
      ['dm', undefined],
      [foreign.channels.plain, foreign.memberId],
    ] as const) {
      const reply = await me('show', channel, {}, userId);
      expect(reply.flags & EPHEMERAL, String(channel)).toBe(EPHEMERAL);
      expect(reply.content).toMatch(/^What the bot keeps about you/);
      expect(reply.content).toMatch(/Unfurling of links you post: on/);
    }
    expectNoDiscordProblems(h.discord);
  });

  it('GIVEN a member filter THEN their searches carry it in the bot DM, in a server without the bot, and in a server with the bot that chose no filter', async () => {
    const foreign = h.discord.foreignGuild;
    const set = await me('filter', 'dm', { filter_id: FILTER_IDS.everything });
    expect(set.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(set.content).toContain('Everything');
    expect(await searchFilter('dm', 'me-filter-dm')).toBe(String(FILTER_IDS.everything));
    // The server has no filter of its own (issue 22 §2: a server that chose none does not decide).
    expect(await searchFilter('plain', 'me-filter-server')).toBe(String(FILTER_IDS.everything));

    await me('filter', foreign.channels.plain, { filter_id: FILTER_IDS.maximumSpoilers }, foreign.memberId);
    expect(await searchFilter(foreign.channels.plain, 'me-filter-foreign', foreign.memberId)).toBe(
      String(FILTER_IDS.maximumSpoilers),
    );
    // Another member there is unaffected.
    expect(
      await searchFilter(foreign.channels.plain, 'me-filter-other', h.discord.guild.otherMemberId),
    ).toBeNull();
    await me('filter', 'dm', { reset: true });
    expect(await searchFilter('dm', 'me-filter-dm-reset')).toBeNull();
    expectNoDiscordProblems(h.discord);
  });
});

describe('the unfurl opt-out', () => {
  it('GIVEN a member who turned unfurling off THEN their link gets no reply, another member\u2019s link still unfurls, AND /me forget brings theirs back', async () => {
    const { guild } = h.discord;
    const off = await me('unfurl', 'plain', { enabled: false });
    expect(off.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(off.content).toMatch(/no longer unfurled/);

    const link = `${h.booru.url}/images/${IDS.safe}`;
    const mine = await h.discord.sendMessage({ channel: 'plain', content: `look ${link}` });
    const theirs = await h.discord.sendMessage({
      channel: 'plain',
      content: `look ${link}`,
      authorId: guild.otherMemberId,
    });
    const reply = await h.discord.waitFor(() => theirs.replies()[0], 10_000);
    expect(embedsOf(reply)[0]?.title).toBe(`#${IDS.safe}`);
    // The opted-out message came first; give it as long again before saying it got nothing.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mine.replies()).toEqual([]);

    // In the bot's DM too: the choice follows the member everywhere.
    const inDm = await h.discord.sendMessage({ channel: 'dm', content: `look ${link}` });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(inDm.replies()).toEqual([]);

    const forgotten = await me('forget', 'dm');
    expect(forgotten.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(forgotten.content).toMatch(/^Deleted everything/);
    expect((await me('show', 'plain')).content).toMatch(/Unfurling of links you post: on/);
    const again = await h.discord.sendMessage({ channel: 'plain', content: `again ${link}` });
    expect(embedsOf(await h.discord.waitFor(() => again.replies()[0], 10_000))[0]?.title).toBe(
      `#${IDS.safe}`,
    );
    expectNoDiscordProblems(h.discord);
  });
});
