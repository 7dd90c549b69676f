/**
 * A channel's own hidden and spoilered tags (issue 20, layer 5: `/settings tags hide|spoiler channel:`)
 * and a member's own hidden tags (layer 6: `/me hide tags:`), end to end. A channel's lists hold in it
 * and in its threads (a thread follows its parent) and nowhere else; a member's list holds for what that
 * member asks for (their commands in a server, the bot's DM, a DM between users, a user install in a
 * server without the bot, their links unfurled in a DM) and never for another member. Every body the
 * local Discord received is read: a hidden image's picture, file name, tags and description never appear;
 * the hidden card names the layer and its Why? button answers privately with the layer and the tag.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelTarget, RecordedMessage } from '../fakes/discord/index.js';
import { textOf } from '../fakes/discord/v2.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { customIds } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import {
  addRuleImage,
  bodiesSince,
  expectHiddenCard,
  expectNothingOf,
  expectPicturedBehindSpoiler,
  mark,
  pressWhy,
  settingsTags,
  showsPicture,
  type RuleImage,
} from '../support/rules.js';

let h: Harness;
let channelHidden: RuleImage;
let channelSpoilered: RuleImage;
let mine: RuleImage;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
  channelHidden = addRuleImage(h, 'zq channel hidden');
  channelSpoilered = addRuleImage(h, 'zq channel spoiler');
  mine = addRuleImage(h, 'zq member hidden');
  expect((await settingsTags(h, 'hide', channelHidden.tag, 'plain')).content).toContain(channelHidden.tag);
  expect((await settingsTags(h, 'spoiler', channelSpoilered.tag, 'plain')).content).toContain(
    channelSpoilered.tag,
  );
  const own = await h.discord
    .sendCommand({ name: 'me', subcommand: 'hide', options: { tags: mine.tag }, channel: 'plain' })
    .finalReply();
  expect(own.content).toContain(mine.tag);
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

const CHANNEL_NOTICE = "hidden by this channel's rules";
const MEMBER_NOTICE = 'hidden by your own list';

function image(id: number, channel: ChannelTarget, userId?: string): Promise<RecordedMessage> {
  const elsewhere = typeof channel === 'string' && !['plain', 'ageRestricted', 'dm'].includes(channel);
  return h.discord
    .sendCommand({
      name: 'image',
      options: { id: String(id) },
      channel,
      ...(userId === undefined ? {} : { userId }),
      ...(elsewhere && !channel.startsWith('thread') ? { install: 'user' as const } : {}),
    })
    .finalReply();
}

let searches = 0;

/** The `q` of the board search `/search` made for `query` (made unique: no cached answer) in `channel`. */
async function searchQuery(channel: ChannelTarget, base: string, userId?: string): Promise<string> {
  searches += 1;
  const query = `${base} || zq unique ${searches}`;
  const boardFrom = h.booru.requests.length;
  await h.discord
    .sendCommand({ name: 'search', options: { query }, channel, ...(userId === undefined ? {} : { userId }) })
    .finalReply();
  const call = h.booru.requests.slice(boardFrom).find((request) => request.path.endsWith('/search/images'));
  if (call === undefined) throw new Error('no search call');
  return call.query.get('q') ?? '';
}

describe("a channel's own lists", () => {
  it.each<ChannelTarget>(['plain', 'threadInPlain'])(
    'GIVEN /image of an image with its hidden tag in %s THEN the hidden card naming the channel, nothing of it in any body, AND Why? names the channel and the tag',
    async (channel) => {
      const from = mark(h);
      const card = await image(channelHidden.id, channel);
      const why = expectHiddenCard(card, channelHidden, CHANNEL_NOTICE);
      expectNothingOf(bodiesSince(h, from), channelHidden, String(channel));
      const answer = await pressWhy(h, card, why);
      expect(answer.content).toMatch(/^This channel's rules hide it/);
      expect(answer.content).toContain(channelHidden.tag);
    },
  );

  it.each<ChannelTarget>(['plain', 'threadInPlain'])(
    'GIVEN /image of an image with its spoilered tag in %s THEN the picture behind the spoiler, naming the channel',
    async (channel) => {
      const card = await image(channelSpoilered.id, channel);
      expectPicturedBehindSpoiler(card, channelSpoilered.id);
      expect(textOf(card)).toContain("this channel's rules spoiler");
    },
  );

  it("GIVEN /tag of its spoilered tag THEN the example's picture stays behind its link, saying the channel's rules put it there", async () => {
    const reply = await h.discord
      .sendCommand({ name: 'tag', options: { name: channelSpoilered.tag }, channel: 'threadInPlain' })
      .finalReply();
    expect(showsPicture(reply, channelSpoilered.id)).toBe(false);
    expect(JSON.stringify(reply)).toContain(`/images/${channelSpoilered.id}`);
    expect(JSON.stringify(reply)).toContain("spoilered by this channel's rules");
  });

  it('GIVEN another channel and its thread THEN neither list applies: both pictures in the open', async () => {
    for (const channel of ['ageRestricted', 'threadInAgeRestricted'] as const) {
      expect(showsPicture(await image(channelHidden.id, channel), channelHidden.id), channel).toBe(true);
      expect(showsPicture(await image(channelSpoilered.id, channel), channelSpoilered.id), channel).toBe(
        true,
      );
    }
  });

  it('GIVEN /search THEN the query leaves the channel’s hidden tag out there and in its thread, not elsewhere', async () => {
    expect(await searchQuery('plain', 'zq rules')).toContain(`-"${channelHidden.tag}"`);
    expect(await searchQuery('threadInPlain', 'zq rules')).toContain(`-"${channelHidden.tag}"`);
    expect(await searchQuery('ageRestricted', 'zq rules')).not.toContain(channelHidden.tag);
  });

  it('GIVEN a link to it pasted in a thread of the channel THEN the unfurl is the hidden card', async () => {
    const from = mark(h);
    const posted = await h.discord.sendMessage({
      channel: 'threadInPlain',
      content: `${h.booru.url}/images/${channelHidden.id}`,
      authorId: h.discord.guild.otherMemberId,
    });
    expectHiddenCard(
      await h.discord.waitFor(() => posted.replies()[0], 10_000),
      channelHidden,
      CHANNEL_NOTICE,
    );
    expectNothingOf(bodiesSince(h, from), channelHidden, 'unfurl');
  });
});

describe("a member's own list", () => {
  it.each<ChannelTarget>(['plain', 'ageRestricted', 'threadInAgeRestricted', 'dm', 'privateDm'])(
    'GIVEN /image by the member in %s THEN the hidden card naming their list, nothing of it in any body, AND Why? names their list and the tag',
    async (channel) => {
      const from = mark(h);
      const card = await image(mine.id, channel);
      const why = expectHiddenCard(card, mine, MEMBER_NOTICE);
      expectNothingOf(bodiesSince(h, from), mine, String(channel));
      const answer = await pressWhy(h, card, why);
      expect(answer.content).toMatch(/^Your own list hides it/);
      expect(answer.content).toContain(mine.tag);
    },
  );

  it('GIVEN another member THEN unaffected: their /image shows the picture, and Why? on the member’s card says nothing hides it for them', async () => {
    const other = h.discord.guild.otherMemberId;
    expect(showsPicture(await image(mine.id, 'plain', other), mine.id)).toBe(true);
    const card = await image(mine.id, 'plain');
    const why = expectHiddenCard(card, mine, MEMBER_NOTICE);
    const answer = await pressWhy(h, card, why, other);
    expect(answer.content).toMatch(/^Nothing hides image/);
    expect(await searchQuery('plain', 'zq rules', other)).not.toContain(mine.tag);
    expect(await searchQuery('plain', 'zq rules')).toContain(`-"${mine.tag}"`);
  });

  it('GIVEN a user install in a server without the bot THEN that member’s list holds there, and not another’s', async () => {
    const foreign = h.discord.foreignGuild;
    await h.discord
      .sendCommand({
        name: 'me',
        subcommand: 'hide',
        options: { tags: mine.tag },
        channel: foreign.channels.plain,
        userId: foreign.memberId,
        install: 'user',
      })
      .finalReply();
    for (const channel of [foreign.channels.plain, foreign.channels.threadInAgeRestricted]) {
      const from = mark(h);
      expectHiddenCard(await image(mine.id, channel, foreign.memberId), mine, MEMBER_NOTICE);
      expectNothingOf(bodiesSince(h, from), mine, 'user install');
    }
    expect(showsPicture(await image(mine.id, foreign.channels.plain, foreign.otherMemberId), mine.id)).toBe(
      true,
    );
  });

  it('GIVEN Show card by the member on a message linking the image THEN the hidden card', async () => {
    const from = mark(h);
    const reply = await h.discord
      .sendMessageCommand({
        name: 'Show card',
        channel: 'plain',
        targetMessage: { content: `${h.booru.url}/images/${mine.id}` },
      })
      .finalReply();
    expectHiddenCard(reply, mine, MEMBER_NOTICE);
    expectNothingOf(bodiesSince(h, from), mine, 'Show card');
  });

  it('GIVEN another member’s card the filter spoilered THEN Reveal pressed by the member whose list hides it shows nothing of it', async () => {
    const later = addRuleImage(h, 'zq member reveal', 'questionable');
    await h.discord
      .sendCommand({ name: 'me', subcommand: 'hide', options: { tags: later.tag }, channel: 'plain' })
      .finalReply();
    const card = await image(later.id, 'ageRestricted', h.discord.guild.otherMemberId);
    const reveal = customIds(card).find((id) => id.startsWith('img:reveal:'));
    if (reveal === undefined) throw new Error('no Reveal on the spoilered card');
    const from = mark(h);
    const revealed = await h.discord.sendButton({ customId: reveal, message: card }).finalReply();
    expect(showsPicture(revealed, later.id)).toBe(false);
    expectNothingOf(bodiesSince(h, from), later, 'Reveal');
    // The other member still may.
    const theirs = await h.discord
      .sendButton({ customId: reveal, message: card, userId: h.discord.guild.otherMemberId })
      .finalReply();
    expect(showsPicture(theirs, later.id)).toBe(true);
  });

  it('GIVEN the member’s link in the bot’s DM THEN the unfurl is the hidden card', async () => {
    const from = mark(h);
    const posted = await h.discord.sendMessage({
      channel: 'dm',
      content: `${h.booru.url}/images/${mine.id}`,
    });
    expectHiddenCard(await h.discord.waitFor(() => posted.replies()[0], 10_000), mine, MEMBER_NOTICE);
    expectNothingOf(bodiesSince(h, from), mine, 'DM unfurl');
  });
});
