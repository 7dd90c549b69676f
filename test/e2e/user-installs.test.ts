/**
 * The bot installed to a member (issue 11, part 1): used in a server that never added it, in a group DM
 * and a DM between members, and where a server turned off external apps; and forwarded messages
 * (part 2), which unfurl like their originals and which Show card reads. The local Discord sends what
 * Discord sends there: a partial channel in the interaction (discord.js builds no channel object for a
 * server it is not in), `authorizing_integration_owners`, Use External Apps in the member's permissions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS } from '../fakes/philomena/index.js';
import { PRIVATE_HERE_NOTE, privateHereNote } from '../../src/discord/external-apps.js';
import { isComponentsV2, textOf } from '../fakes/discord/v2.js';
import { customIds, footerText } from '../support/messages.js';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});

const image = (id: number, channel: string, options: { externalApps?: false } = {}) =>
  h.discord.sendCommand({
    name: 'image',
    options: { id: String(id) },
    channel,
    install: 'user',
    userId: h.discord.foreignGuild.memberId,
    ...options,
  });

describe('installed to a member', () => {
  it('GIVEN /image in a plain channel of a server without the bot THEN the card, without the picture of a suggestive image', async () => {
    const reply = await image(IDS.suggestive, h.discord.foreignGuild.channels.plain).finalReply();
    expect(reply.embeds).toHaveLength(1);
    expect(reply.embeds[0]?.['image']).toBeUndefined();
    expect(String(reply.embeds[0]?.['url'])).toContain(`/images/${IDS.suggestive}`);
  });

  it('GIVEN /image in an age-restricted channel of a server without the bot THEN the picture shows: the channel the interaction carried decides', async () => {
    const reply = await image(IDS.suggestive, h.discord.foreignGuild.channels.ageRestricted).finalReply();
    expect(reply.embeds[0]?.['image']).toBeDefined();
  });

  it('GIVEN a thread there, in an age-restricted channel the bot cannot see THEN it counts as not age-restricted (fail closed)', async () => {
    const reply = await image(
      IDS.suggestive,
      h.discord.foreignGuild.channels.threadInAgeRestricted,
    ).finalReply();
    expect(reply.embeds).toHaveLength(1);
    expect(reply.embeds[0]?.['image']).toBeUndefined();
  });

  it('GIVEN a group DM and a DM between members THEN answered, safe only', async () => {
    for (const channel of ['groupDm', 'privateDm']) {
      const safe = await h.discord
        .sendCommand({ name: 'image', options: { id: String(IDS.safe) }, channel, install: 'user' })
        .finalReply();
      expect(safe.embeds[0]?.['image'], channel).toBeDefined();
      const suggestive = await h.discord
        .sendCommand({ name: 'image', options: { id: String(IDS.suggestive) }, channel, install: 'user' })
        .finalReply();
      expect(suggestive.embeds[0]?.['image'], channel).toBeUndefined();
    }
  });

  it('GIVEN a server that turned off external apps THEN the answer is private from the start and says why', async () => {
    const handle = image(IDS.safe, h.discord.foreignGuild.channels.plain, { externalApps: false });
    const reply = await handle.finalReply();
    expect(reply.flags & 64).toBe(64);
    expect(reply.content.startsWith(PRIVATE_HERE_NOTE)).toBe(true);
    expect(reply.embeds).toHaveLength(1);
    // The bot asked for a private answer itself: Discord forced nothing on it.
    expect(handle.responses.some((r) => r.forcedEphemeral === true)).toBe(false);
  });

  describe('paged where the server turned off external apps', () => {
    /** The member there, through their own install, without Use External Apps. */
    const forced = () =>
      ({ userId: h.discord.foreignGuild.memberId, install: 'user', externalApps: false }) as const;
    const search = (options: Record<string, string>) =>
      h.discord
        .sendCommand({ name: 'search', options, channel: h.discord.foreignGuild.channels.plain, ...forced() })
        .finalReply();
    const next = (message: RecordedMessage) =>
      h.discord
        .sendButton({
          customId: customIds(message).find((id) => id.startsWith('srch:next:')) ?? '',
          message,
          ...forced(),
        })
        .finalReply();

    it('GIVEN a grid THEN every page keeps the note once: a V2 page replaces the whole message', async () => {
      const grid = await search({ query: 'pony', view: 'grid' });
      expect(isComponentsV2(grid)).toBe(true);
      expect(grid.flags & 64).toBe(64);
      expect(textOf(grid).startsWith(PRIVATE_HERE_NOTE)).toBe(true);
      const second = await next(grid);
      expect(second.id).toBe(grid.id);
      expect(footerText(second)).toMatch(/page 2 of \d+$/);
      expect(textOf(second).startsWith(PRIVATE_HERE_NOTE)).toBe(true);
      expect(textOf(second).split(PRIVATE_HERE_NOTE)).toHaveLength(2);
      expect(h.discord.violations).toEqual([]);
    });

    it('GIVEN a Polish member THEN the note is Polish, and their next grid page keeps it once', async () => {
      const polish = { ...forced(), locale: 'pl' } as const;
      const note = privateHereNote('pl');
      const grid = await h.discord
        .sendCommand({
          name: 'search',
          options: { query: 'pony', view: 'grid' },
          channel: h.discord.foreignGuild.channels.plain,
          ...polish,
        })
        .finalReply();
      expect(textOf(grid).startsWith(note)).toBe(true);
      const second = await h.discord
        .sendButton({
          customId: customIds(grid).find((id) => id.startsWith('srch:next:')) ?? '',
          message: grid,
          ...polish,
        })
        .finalReply();
      expect(textOf(second).split(note)).toHaveLength(2);
      expect(textOf(second)).not.toContain(PRIVATE_HERE_NOTE);
      expect(h.discord.violations).toEqual([]);
    });

    it('GIVEN a card THEN the next page keeps the note once', async () => {
      const card = await search({ query: 'pony' });
      expect(card.content.startsWith(PRIVATE_HERE_NOTE)).toBe(true);
      const second = await next(card);
      expect(footerText(second)).not.toBe(footerText(card));
      expect(second.content.startsWith(PRIVATE_HERE_NOTE)).toBe(true);
      expect(second.content.split(PRIVATE_HERE_NOTE)).toHaveLength(2);
      expect(h.discord.violations).toEqual([]);
    });
  });

  it('GIVEN Show card and Find source used there THEN they are offered (registered for user installs) and answer', async () => {
    const reply = await h.discord
      .sendMessageCommand({
        name: 'Show card',
        channel: h.discord.foreignGuild.channels.plain,
        install: 'user',
        targetMessage: { content: `${h.booru.url}/images/${IDS.safe}` },
      })
      .finalReply();
    expect(reply.embeds).toHaveLength(1);
    expect(h.discord.unavailableCommands).toEqual([]);
    expect(h.discord.violations).toEqual([]);
  });
});

describe('forwarded messages', () => {
  it('GIVEN a forward of a message with an image link THEN it unfurls like the original', async () => {
    const forward = await h.discord.sendMessage({
      channel: 'plain',
      forwardOf: { content: `${h.booru.url}/images/${IDS.safe}` },
    });
    const [reply] = await h.discord.waitFor(() =>
      forward.replies().length > 0 ? forward.replies() : undefined,
    );
    expect(String(reply?.embeds[0]?.['url'])).toContain(`/images/${IDS.safe}`);
  });

  it('GIVEN Show card on a forward THEN the original’s links are shown', async () => {
    const reply = await h.discord
      .sendMessageCommand({
        name: 'Show card',
        channel: 'plain',
        targetMessage: { forwardOf: { content: `${h.booru.url}/images/${IDS.suggestive}` } },
      })
      .finalReply();
    expect(reply.embeds).toHaveLength(1);
    expect(String(reply.embeds[0]?.['url'])).toContain(`/images/${IDS.suggestive}`);
  });
});
