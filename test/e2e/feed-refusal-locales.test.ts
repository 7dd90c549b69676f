/**
 * `/feed` refusals in the member's language (issue 21), through the local Discord and the local board:
 * the permissions the bot lacks are named as Discord's client names them in Polish, and a query the
 * board refuses is told in Polish around the board's own words (never our English wrapping of them);
 * a feed paused for such a query shows the board's words alone in `/feed list`.
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(): Promise<Harness> {
  h = await startHarness({
    env: { FEED_INTERVAL: '1m', FEED_SETTLE: '0' },
    registry: { budget: ROOMY_BUDGET },
    feedTickMs: 3_600_000,
  });
  return h;
}

function feedIn(harness: Harness, locale: string, subcommand: string, options: Record<string, string>) {
  return harness.discord
    .sendCommand({
      name: 'feed',
      subcommand,
      options,
      channel: 'ageRestricted',
      userId: harness.discord.guild.ownerId,
      locale,
    })
    .finalReply();
}

describe('/feed refusals in Polish', () => {
  it('GIVEN a channel where the bot may neither embed links nor post THEN a Polish member reads the permissions as Discord names them in Polish', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    harness.discord.denyBot(plain, PermissionFlagsBits.EmbedLinks);
    harness.discord.denyBot(plain, PermissionFlagsBits.SendMessages);
    await harness.discord.waitFor(() => (harness.logLines().length > 0 ? true : undefined));
    const reply = await feedIn(harness, 'pl', 'add', { query: 'pony', channel: plain });
    expect(reply.content).toBe(
      `Nie mogę publikować kart na <#${plain}>: potrzebuję tam uprawnień „Wysyłanie wiadomości”, „Osadzanie linków”.`,
    );
    // English stays as it was, for a member whose Discord is in English.
    const english = await feedIn(harness, 'en-US', 'add', { query: 'pony', channel: plain });
    expect(english.content).toBe(
      `I can't post cards in <#${plain}>: I need Send Messages, Embed Links there.`,
    );
  });

  it("GIVEN a query the board refuses THEN a Polish member reads Polish around the board's own words", async () => {
    const harness = await start();
    harness.booru.inject({
      fault: { kind: 'status', status: 400, body: JSON.stringify({ error: 'Imbalanced parentheses.' }) },
      path: '/api/v1/json/search/images',
      times: 2,
    });
    const reply = await feedIn(harness, 'pl', 'add', {
      query: 'pony, (cute',
      channel: harness.discord.guild.channels.ageRestricted,
    });
    expect(reply.content).toMatch(/^\S+ nie przyjmuje tego zapytania: Imbalanced parentheses\.$/);
    expect(reply.content).not.toMatch(/rejected/);
  });
});
