/**
 * Unfurling in DMs on a cold cache. Discord sends no CHANNEL_CREATE for DMs, so the first the bot hears of
 * a DM channel is the MESSAGE_CREATE itself: discord.js builds the channel from `channel_type` and the
 * author only when the Channel partial is on. Each test starts a fresh bot whose very first event is the
 * DM, so nothing (an earlier /image, an earlier reply) has put the channel in the cache.
 */
import { GatewayIntentBits, IntentsBitField, Partials } from 'discord.js';
import { afterEach, expect, it } from 'vitest';
import { discordClientOptions } from '../../src/discord/client-options.js';
import { FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { embedsOf } from '../support/messages.js';
import { unfurlReply } from '../support/waiting.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function freshHarness(): Promise<Harness> {
  h = await startHarness({ env: { BOORU_FILTER_ID: String(FILTER_IDS.everything) } });
  return h;
}

/** A DM with a safe link and an explicit one, answered with a full card and a minimal card. */
async function expectDmUnfurled(harness: Harness): Promise<void> {
  const { discord, booru } = harness;
  const posted = await discord.sendMessage({
    channel: discord.dmChannelId,
    content: `these two ${booru.url}/images/${IDS.safe} and ${booru.url}/images/${IDS.explicit}`,
  });
  const reply = await discord.waitFor(() => posted.replies()[0], 10_000);
  expect(reply.channelId).toBe(discord.dmChannelId);
  expect(reply.messageReference?.message_id).toBe(posted.id);
  expect(reply.allowedMentions).toEqual({ parse: [], replied_user: false });

  const [safe, explicit, ...rest] = embedsOf(reply);
  expect(rest).toEqual([]);
  expect(safe?.title).toBe(`#${IDS.safe}`);
  expect(safe?.url).toBe(`${booru.url}/images/${IDS.safe}`);
  expect(safe?.image?.url).toMatch(/\/img\//);
  expect(safe?.description).toContain('A calm picture of Twilight reading.');

  // DMs are never age-restricted: the explicit image gets the minimal card, still credited and linked.
  expect(explicit?.title).toBe(`#${IDS.explicit}`);
  expect(explicit?.url).toBe(`${booru.url}/images/${IDS.explicit}`);
  expect(explicit?.image).toBeUndefined();
  expect(explicit?.thumbnail).toBeUndefined();
  expect(explicit?.fields?.some((f) => f.name.startsWith('Tags'))).toBe(false);
  expect(explicit?.fields?.find((f) => f.name === 'Credit')?.value).toMatch(
    /^\*\*Artist:\*\* \[fake artist\]/,
  );
  expect(explicit?.description).toMatch(/can only be shown in age-restricted channels\.$/);

  expectNoDiscordProblems(discord);
}

it('GIVEN a fresh bot whose first event is a DM with a safe and an explicit link THEN it replies in the DM with a full card and a minimal card', async () => {
  const harness = await freshHarness();
  // Nothing before the DM: no command, no interaction, no message the bot sent.
  expect(harness.discord.channelMessages(harness.discord.dmChannelId)).toEqual([]);
  expect(harness.discord.requests.some((r) => r.route.includes('/interactions/'))).toBe(false);
  await expectDmUnfurled(harness);
});

it('GIVEN a DM unfurled before a restart WHEN the restarted bot (empty cache) gets another DM THEN it unfurls that too', async () => {
  const harness = await freshHarness();
  await expectDmUnfurled(harness);
  await harness.restart();
  const reply = await unfurlReply(
    harness.discord,
    harness.discord.dmChannelId,
    `again ${harness.booru.url}/images/${IDS.safe}`,
  );
  expect(embedsOf(reply).map((e) => e.title)).toEqual([`#${IDS.safe}`]);
  expect(harness.discord.violations).toEqual([]);
});

it('GIVEN UNFURL on THEN the client asks for DMs and keeps the Channel partial; GIVEN it off THEN neither', () => {
  const on = discordClientOptions({ unfurl: true });
  expect(new IntentsBitField(on.intents).has(GatewayIntentBits.DirectMessages)).toBe(true);
  expect(on.partials).toContain(Partials.Channel);
  const off = discordClientOptions({ unfurl: false });
  expect(new IntentsBitField(off.intents).has(GatewayIntentBits.DirectMessages)).toBe(false);
  expect(off.partials ?? []).not.toContain(Partials.Channel);
});
