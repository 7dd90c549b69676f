/**
 * Feed posts are for the whole channel, and nobody asked for them: they go out in the server's language
 * (issue 21), end to end. A server whose preferred locale is German gets German cards from its feed
 * whatever the language of the admin who added it; after a GUILD_UPDATE to Spanish the next post is
 * Spanish; after `/settings language` sets Russian on the feed's channel, Russian.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { shippedTranslator } from '../../src/i18n/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

const INTERVAL_MS = 60_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: { FEED_INTERVAL: '1m', FEED_MAX_PER_POLL: '3', FEED_SETTLE: '0' },
    registry: { budget: ROOMY_BUDGET },
    feedTickMs: 3_600_000,
    discord: { guildLocales: ['de'] },
  });
});
afterAll(async () => {
  expectNoDiscordProblems(h.discord);
  await h.close();
});

const fields = z.array(z.object({ name: z.string() }).passthrough());

/** The credit label of the newest feed post in the plain channel. */
function newestCredit(): string | undefined {
  const posts = h.discord
    .channelMessages(h.discord.guild.channels.plain)
    .filter((m: RecordedMessage) => m.interactionId === undefined && !m.deleted);
  return fields.parse(posts.at(-1)?.embeds[0]?.['fields'] ?? [])[0]?.name;
}

/** One new image on the board, one round: the feed posts it. */
async function postOne(): Promise<void> {
  h.booru.addImage({ tags: ['safe', 'feedtag', 'artist:painter'] });
  h.botClock.advance(INTERVAL_MS + 1_000);
  await h.pollFeeds();
}

const credit = (locale: string) => shippedTranslator().t(locale, 'card.field.credit');

describe('feed posts in the server’s language', () => {
  it('GIVEN a feed added by a Polish admin in a German server THEN the admin reads Polish and the post is German', async () => {
    const added = await h.discord
      .sendCommand({
        name: 'feed',
        subcommand: 'add',
        options: { query: 'feedtag', channel: h.discord.guild.channels.plain },
        channel: 'plain',
        userId: h.discord.guild.ownerId,
        locale: 'pl',
      })
      .finalReply();
    // The admin asked: their answer is Polish (the rule line of a plain channel), not English.
    expect(added.content).toContain(shippedTranslator().t('pl', 'feed.add.not-age-restricted'));
    expect(added.content).not.toMatch(/ added/);
    await postOne();
    expect(newestCredit()).toBe(credit('de'));
  });

  it('GIVEN the server’s language changed to Spanish THEN the next post is Spanish', async () => {
    h.discord.updateGuild({ preferredLocale: 'es-ES' });
    await postOne();
    expect(newestCredit()).toBe(credit('es-ES'));
  });

  it('GIVEN Russian set on the feed’s channel THEN the next post is Russian', async () => {
    await h.discord
      .sendCommand({
        name: 'settings',
        subcommand: 'language',
        options: { language: 'ru', channel: h.discord.guild.channels.plain },
        channel: 'plain',
        userId: h.discord.guild.ownerId,
      })
      .finalReply();
    await postOne();
    expect(newestCredit()).toBe(credit('ru'));
    expect(new Set([credit('de'), credit('es-ES'), credit('ru')]).size).toBe(3);
  });
});
