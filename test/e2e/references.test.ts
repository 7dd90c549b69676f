/**
 * `>>123` references in chat get cards like image links, on the server's site, under the same rules
 * (rating, code and spoilers left alone), and a server can turn them off (`/settings references`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS } from '../fakes/philomena/index.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});

async function repliesTo(content: string, channel: 'plain' | 'ageRestricted' = 'plain') {
  const posted = await h.discord.sendMessage({ channel, content });
  // A message the bot leaves alone gets no reply: give it the time a card takes, then look.
  await h.discord
    .waitFor(() => (posted.replies().length > 0 ? true : undefined), 1_500)
    .catch(() => undefined);
  return posted.replies();
}

const setReferences = (enabled: boolean) =>
  h.discord
    .sendCommand({
      name: 'settings',
      subcommand: 'references',
      options: { enabled },
      channel: 'plain',
      userId: h.discord.guild.ownerId,
    })
    .finalReply();

describe('>>123 in chat', () => {
  it('GIVEN >>id and >>idt in a message THEN cards for both, a suggestive one without its picture in a plain channel', async () => {
    const [reply] = await repliesTo(`look at >>${IDS.safe} and >>${IDS.suggestive}t`);
    expect(reply?.embeds).toHaveLength(2);
    expect(String(reply?.embeds[0]?.['url'])).toContain(`/images/${IDS.safe}`);
    expect(reply?.embeds[1]?.['image']).toBeUndefined();
  });

  it('GIVEN references in code or spoilers, or glued to a word THEN no card', async () => {
    expect(await repliesTo(`\`>>${IDS.safe}\` ||>>${IDS.safe}|| a>>${IDS.safe}`)).toEqual([]);
  });

  it('GIVEN the server turned references off THEN >>id is left alone, links still unfurl, and /settings show says so', async () => {
    const off = await setReferences(false);
    expect(off.content).toMatch(/^Image references off/);
    expect(await repliesTo(`>>${IDS.safe}`)).toEqual([]);
    const [linked] = await repliesTo(`${h.booru.url}/images/${IDS.safe}`);
    expect(linked?.embeds).toHaveLength(1);
    const shown = await h.discord
      .sendCommand({
        name: 'settings',
        subcommand: 'show',
        channel: 'plain',
        userId: h.discord.guild.ownerId,
      })
      .finalReply();
    expect(shown.content).toContain('Image references: off');
    await setReferences(true);
    const [again] = await repliesTo(`>>${IDS.safe}`);
    expect(again?.embeds).toHaveLength(1);
  });
});
