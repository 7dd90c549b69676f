/**
 * Abuse limits end to end: the per-member command cooldown (with buttons and autocomplete in their own
 * buckets), the per-server unfurl budget, and the per-site request budget holding under a burst of
 * commands, all through the local Discord and the local Philomena.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MessageFlags } from 'discord.js';
import type { InteractionHandle, RecordedMessage } from '../fakes/discord/index.js';
import { IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { customIds } from '../support/messages.js';
import { startHarness, type Harness, type HarnessOptions } from '../support/harness.js';

let h: Harness | undefined;
async function harness(options: HarnessOptions): Promise<Harness> {
  h = await startHarness(options);
  return h;
}
afterEach(async () => {
  if (h) {
    expectNoDiscordProblems(h.discord);
    await h.close();
  }
  h = undefined;
});

const TRY_AGAIN = /^You are (using commands|clicking) too quickly\. Try again <t:(\d+):R>\.$/;

function apiRequests(t: Harness) {
  return t.booru.requests.filter((r) => r.path.startsWith('/api/'));
}

/** The retry time a cooldown answer names, in unix seconds. */
function retryAt(message: RecordedMessage): number {
  const match = TRY_AGAIN.exec(message.content);
  expect(match, message.content).not.toBeNull();
  return Number(match?.[2]);
}

describe('per-member command cooldown', () => {
  it('GIVEN COMMAND_RATE_LIMIT=2/60s THEN the third command is refused ephemerally with when to try again, without a board call, and other members are unaffected', async () => {
    const t = await harness({ env: { COMMAND_RATE_LIMIT: '2/60s' } });
    for (const id of [IDS.safe, IDS.suggestive]) {
      const reply = await t.discord
        .sendCommand({ name: 'image', options: { id: String(id) }, channel: 'plain' })
        .finalReply();
      expect(reply.embeds).toHaveLength(1);
    }
    const before = apiRequests(t).length;
    const sentAt = Date.now();
    const third = t.discord.sendCommand({
      name: 'image',
      options: { id: String(IDS.multiCredit) },
      channel: 'plain',
    });
    const refusal = await third.finalReply();
    expect(refusal.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(refusal.embeds).toEqual([]);
    const at = retryAt(refusal);
    // The first command's slot frees 60 s after it was taken: a little under 60 s from now.
    expect(at).toBeGreaterThan(Math.floor(sentAt / 1000) + 30);
    expect(at).toBeLessThanOrEqual(Math.ceil(sentAt / 1000) + 61);
    expect(apiRequests(t).length).toBe(before);

    const other = await t.discord
      .sendCommand({
        name: 'image',
        options: { id: String(IDS.multiCredit) },
        channel: 'plain',
        userId: t.discord.guild.otherMemberId,
      })
      .finalReply();
    expect(other.embeds).toHaveLength(1);
  });

  it('GIVEN a member used up their commands THEN paging buttons still work, in their own bucket of three times the limit', async () => {
    const t = await harness({ env: { COMMAND_RATE_LIMIT: '1/60s' } });
    let page = await t.discord
      .sendCommand({ name: 'search', options: { query: 'pony' }, channel: 'plain' })
      .finalReply();
    const refused = await t.discord
      .sendCommand({ name: 'search', options: { query: 'pony' }, channel: 'plain' })
      .finalReply();
    expect(refused.content).toMatch(/using commands too quickly/);
    for (let click = 0; click < 3; click++) {
      const next = customIds(page).find((id) => id.startsWith('srch:next:'));
      expect(next).toBeDefined();
      page = await t.discord.sendButton({ customId: next ?? '', message: page }).finalReply();
      expect(page.embeds).toHaveLength(1);
    }
    const next = customIds(page).find((id) => id.startsWith('srch:next:')) ?? '';
    const before = apiRequests(t).length;
    const click = t.discord.sendButton({ customId: next, message: page });
    await click.acknowledged;
    const answer = await t.discord.waitFor(() => click.replyMessage());
    expect(answer.content).toMatch(/clicking too quickly/);
    expect(answer.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(apiRequests(t).length).toBe(before);
    // The search message itself was left as it was.
    expect(t.discord.message(page.id)?.embeds).toEqual(page.embeds);
  });

  it('GIVEN a member typing fast THEN autocomplete is not counted as commands, and past its own limit it answers no choices without asking the board', async () => {
    const t = await harness({ env: { COMMAND_RATE_LIMIT: '1/60s' } });
    const ask = (prefix: string): InteractionHandle =>
      t.discord.sendAutocomplete({
        name: 'tag',
        options: { name: prefix },
        focused: 'name',
        channel: 'plain',
      });
    // Ten per window (ten times the command limit), each a different prefix so none is a cache hit.
    const prefixes = [
      't',
      'tw',
      'twi',
      'twil',
      'twili',
      'twilig',
      'twiligh',
      'twilight',
      'twilight ',
      'twilight s',
    ];
    for (const prefix of prefixes) await ask(prefix).autocompleteChoices();
    const before = apiRequests(t).length;
    expect(await ask('twilight sp').autocompleteChoices()).toEqual([]);
    expect(apiRequests(t).length).toBe(before);
    // The command bucket is untouched by all that typing.
    const reply = await t.discord
      .sendCommand({ name: 'tag', options: { name: 'twilight sparkle' }, channel: 'plain' })
      .finalReply();
    expect(reply.content).not.toMatch(TRY_AGAIN);
  });
});

describe('per-server unfurl budget', () => {
  it('GIVEN UNFURL_RATE_LIMIT=2/60s THEN a server gets two cards, further links are skipped silently without board calls or notices', async () => {
    const t = await harness({ env: { UNFURL_RATE_LIMIT: '2/60s' } });
    const link = (id: number) => `${t.booru.url}/images/${id}`;
    const first = await t.discord.sendMessage({
      channel: 'plain',
      content: `${link(IDS.safe)} ${link(IDS.multiCredit)} ${link(IDS.manySources)}`,
    });
    const reply = await t.discord.waitFor(() => first.replies()[0]);
    expect(reply.embeds).toHaveLength(2);
    expect(reply.content).toMatch(/and 1 more link not shown/);
    expect(apiRequests(t).some((r) => r.path.endsWith(`/images/${IDS.manySources}`))).toBe(false);

    const spam = [];
    for (let i = 0; i < 5; i++) {
      spam.push(await t.discord.sendMessage({ channel: 'plain', content: link(IDS.noSources) }));
    }
    const skipLines = () => t.logLines().filter((line) => String(line['msg']).startsWith('unfurl budget'));
    // One debug line for the first message's third link, one per spam message.
    await t.discord.waitFor(() => (skipLines().length >= 6 ? true : undefined));
    expect(spam.flatMap((message) => message.replies())).toEqual([]);
    expect(apiRequests(t).some((r) => r.path.endsWith(`/images/${IDS.noSources}`))).toBe(false);
    const fromBot = t.discord.allMessages('plain').filter((m) => m.authorId === t.discord.botUserId);
    expect(fromBot).toHaveLength(1);
    const skipped = skipLines();
    expect(skipped.length).toBe(6);
    expect(skipped.every((line) => line['level'] === 20)).toBe(true);
  });
});

describe('per-site request budget under a burst', () => {
  it('GIVEN 20 concurrent /image calls against a budget of 3 per second THEN the board never sees more, every interaction is acknowledged and answered, the excess is told the site is busy, and the queue stays bounded', async () => {
    const windowMs = 1_000;
    const limit = 3;
    const maxQueue = 4;
    const t = await harness({
      registry: { budget: { overall: { limit, windowMs }, maxQueue, maxWaitMs: 1_500 } },
    });
    const ids = [
      101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 121, 122, 123, 125,
    ];
    let maxQueued = 0;
    const sampler = setInterval(() => {
      for (const client of t.registry.clients())
        maxQueued = Math.max(maxQueued, client.stats().budget.queued);
    }, 5);
    const handles = ids.map((id, i) =>
      t.discord.sendCommand({
        name: 'image',
        options: { id: String(id) },
        channel: i % 2 === 0 ? 'plain' : 'ageRestricted',
      }),
    );
    try {
      await Promise.all(handles.map((handle) => handle.acknowledged));
      const outcomes = await Promise.all(
        handles.map((handle) =>
          t.discord.waitFor(() => {
            const reply = handle.replyMessage();
            if (reply && reply.embeds.length > 0) return { kind: 'card' as const, text: '' };
            const followUp = handle.followUps()[0];
            return followUp ? { kind: 'notice' as const, text: followUp.content } : undefined;
          }, 15_000),
        ),
      );
      const cards = outcomes.filter((o) => o.kind === 'card').length;
      const busy = outcomes.filter((o) => o.kind === 'notice');
      expect(cards).toBeGreaterThanOrEqual(limit);
      expect(busy.length).toBeGreaterThan(0);
      for (const notice of busy) expect(notice.text).toMatch(/^The site is busy\. Try again in \d+ s\.$/);
    } finally {
      clearInterval(sampler);
    }
    expect(maxQueued).toBeLessThanOrEqual(maxQueue);

    // Arrival at the fake lags the budget's start time by the connection's latency, so four arrivals can
    // never fall within windowMs minus that lag; 250 ms is ample on a loaded machine.
    const arrivals = apiRequests(t)
      .map((r) => r.at)
      .sort((a, b) => a - b);
    expect(arrivals.length).toBeGreaterThanOrEqual(limit);
    for (let i = limit; i < arrivals.length; i++) {
      expect((arrivals[i] ?? 0) - (arrivals[i - limit] ?? 0)).toBeGreaterThan(windowMs - 250);
    }
    expect(t.logLines().filter((line) => line['msg'] === 'interaction failed')).toEqual([]);
  });
});
