/**
 * Three heavy cards in one unfurl reply share Discord's 6000-character room: every card keeps its link,
 * its credit and its sources (the board's conditions), whatever else has to give way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIEmbed } from 'discord.js';
import { IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { unfurlReply } from '../support/waiting.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { BOORU_FILTER_ID: '56027' } });
});
afterAll(async () => {
  await h.close();
});

describe('unfurl of several heavy images', () => {
  it('GIVEN three links to long cards in an age-restricted channel THEN one reply, three credited and sourced cards within the limits', async () => {
    const ids = [IDS.manySources, IDS.hostileText, IDS.multiCredit];
    const content = ids.map((id) => `${h.booru.url}/images/${id}`).join(' and ');
    const reply = await unfurlReply(h.discord, 'ageRestricted', content);
    const embeds = reply.embeds as APIEmbed[];
    expect(embeds.map((embed) => embed.url)).toEqual(ids.map((id) => `${h.booru.url}/images/${id}`));
    for (const embed of embeds) {
      const names = (embed.fields ?? []).map((field) => field.name);
      expect(names[0]).toBe('Credit');
      expect(names[1]).toMatch(/^Sources?$/);
      expect(embed.fields?.[0]?.value.length).toBeGreaterThan(0);
    }
    expectNoDiscordProblems(h.discord);
  });
});
