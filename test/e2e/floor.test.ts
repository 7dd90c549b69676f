/**
 * The operator's floor end to end (issue 20, layer 1): what Discord forbids everywhere is shown nowhere,
 * not even in an age-restricted channel whose server applies the board's "Everything" filter. The local
 * board holds an explicit image tagged `filly` (a young character at a rating other than safe: a default
 * rule) and a safe one tagged `hidden test tag` (named in NEVER_SHOW_TAGS: the operator's own rule, at
 * every rating). Each surface gets the hidden card: credit, sources and the link, no picture, no tags, no
 * description, and no Reveal.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelTarget, RecordedMessage } from '../fakes/discord/index.js';
import { galleryItemsOf, isComponentsV2, textOf } from '../fakes/discord/v2.js';
import { FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { customIds, embedsOf } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { unfurlReply } from '../support/waiting.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: { BOORU_FILTER_ID: String(FILTER_IDS.everything), NEVER_SHOW_TAGS: 'Hidden Test Tag, another tag' },
    registry: { budget: ROOMY_BUDGET },
  });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

const FLOOR_NOTICE = "hidden by the bot's own rules";

/** Everything Discord would show of a message, as one text. */
function everythingShown(message: RecordedMessage): string {
  return JSON.stringify({ content: message.content, embeds: message.embeds, components: message.components });
}

/** The hidden card: no picture, tags or description; credit, source and link kept; nothing to reveal. */
function expectHiddenCard(message: RecordedMessage, id: number, artist: string, tag: string): void {
  const all = everythingShown(message);
  expect(all).toContain(FLOOR_NOTICE);
  expect(all).toContain(`/images/${id}`);
  expect(all).toContain(artist);
  expect(all, 'a picture of a hidden image').not.toMatch(/\/img\//);
  expect(all, 'a tag of a hidden image').not.toContain(tag);
  expect(all, 'the description of a hidden image').not.toContain('the floor keeps out');
  for (const embed of embedsOf(message)) {
    expect(embed.image).toBeUndefined();
    expect(embed.thumbnail).toBeUndefined();
  }
  expect(galleryItemsOf(message)).toEqual([]);
  expect(customIds(message).filter((custom) => custom.startsWith('img:reveal:'))).toEqual([]);
}

const image = (id: number, channel: ChannelTarget) =>
  h.discord.sendCommand({ name: 'image', options: { id: String(id) }, channel }).finalReply();

describe('the floor with the Everything filter', () => {
  it.each<ChannelTarget>(['ageRestricted', 'threadInAgeRestricted', 'plain', 'dm'])(
    'GIVEN /image of an explicit image tagged filly in %s THEN the hidden card',
    async (channel) => {
      expectHiddenCard(await image(IDS.floorYoung, channel), IDS.floorYoung, 'floor artist', 'filly');
    },
  );

  it('GIVEN /image of a safe image with a NEVER_SHOW_TAGS tag (written in another case) THEN hidden too', async () => {
    expectHiddenCard(
      await image(IDS.hiddenTagged, 'ageRestricted'),
      IDS.hiddenTagged,
      'fake artist',
      'hidden test tag',
    );
  });

  it('GIVEN an explicit image without a floor tag in the age-restricted channel THEN its picture (control)', async () => {
    const reply = await image(IDS.explicit, 'ageRestricted');
    expect(everythingShown(reply)).toMatch(/\/img\//);
    expect(everythingShown(reply)).not.toContain(FLOOR_NOTICE);
  });

  it('GIVEN a link to it pasted in the age-restricted channel THEN the unfurl is the hidden card', async () => {
    const reply = await unfurlReply(
      h.discord,
      'ageRestricted',
      `look ${h.booru.url}/images/${IDS.floorYoung}`,
    );
    expectHiddenCard(reply, IDS.floorYoung, 'floor artist', 'filly');
  });

  it('GIVEN /search for its tag in the age-restricted channel THEN the hidden card, by card and as a grid', async () => {
    const card = await h.discord
      .sendCommand({ name: 'search', options: { query: 'floor test' }, channel: 'ageRestricted' })
      .finalReply();
    expectHiddenCard(card, IDS.floorYoung, 'floor artist', 'filly');
    const grid = await h.discord
      .sendCommand({
        name: 'search',
        options: { query: 'floor test', view: 'grid' },
        channel: 'ageRestricted',
      })
      .finalReply();
    expect(isComponentsV2(grid)).toBe(true);
    expect(galleryItemsOf(grid)).toEqual([]);
    expect(textOf(grid)).not.toContain('filly');
    expect(everythingShown(grid)).not.toMatch(/\/img\//);
  });
});
