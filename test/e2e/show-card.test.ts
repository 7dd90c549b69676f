/**
 * "Show card" (message menu): the cards for the board links of a message, under the rules of unfurls,
 * with no Message Content intent at all (UNFURL=off: the bot reads no chat; a message menu still gets
 * the whole target message).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS } from '../fakes/philomena/index.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { UNFURL: 'off' }, registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});

const showCard = (content: string, channel: 'plain' | 'ageRestricted') =>
  h.discord.sendMessageCommand({ name: 'Show card', channel, targetMessage: { content } });

describe('Show card', () => {
  it('GIVEN a message with a safe and an explicit image link in a plain channel THEN both cards, the explicit one without its picture, nobody pinged', async () => {
    const content = `look ${h.booru.url}/images/${IDS.safe} and ${h.booru.url}/images/${IDS.suggestive}`;
    const reply = await showCard(content, 'plain').finalReply();
    expect(reply.embeds).toHaveLength(2);
    expect(reply.embeds[0]?.['image']).toBeDefined();
    expect(reply.embeds[1]?.['image']).toBeUndefined();
    expect(String(reply.embeds[1]?.['url'])).toContain(`/images/${IDS.suggestive}`);
    expect(reply.allowedMentions).toEqual({ parse: [] });
  });

  it('GIVEN the same link in an age-restricted channel THEN the suggestive card shows its picture', async () => {
    const reply = await showCard(`${h.booru.url}/images/${IDS.suggestive}`, 'ageRestricted').finalReply();
    expect(reply.embeds).toHaveLength(1);
    expect(reply.embeds[0]?.['image']).toBeDefined();
  });

  it('GIVEN links in code, <...> and spoilers only THEN nothing to show, said privately', async () => {
    const content = `\`${h.booru.url}/images/${IDS.safe}\` <${h.booru.url}/images/${IDS.safe}> ||${h.booru.url}/images/${IDS.safe}||`;
    const handle = showCard(content, 'plain');
    // A public answer that fails: the "thinking…" goes, and the reason comes privately.
    const reply = await h.discord.waitFor(() => handle.followUps()[0]);
    expect(reply.content).toBe('That message has no links to images, tags or searches on a board I know.');
    expect(reply.flags & 64).toBe(64);
  });

  it('GIVEN twelve image links THEN ten cards and a line counting the other two', async () => {
    const links = Array.from({ length: 12 }, (_, i) => `${h.booru.url}/images/${IDS.fillerFirst + i}`);
    const reply = await showCard(links.join(' '), 'ageRestricted').finalReply(15_000);
    expect(reply.embeds).toHaveLength(10);
    expect(reply.content).toBe('…and 2 more links not shown.');
  });
});
