/**
 * A server's own hidden and spoilered tags on every surface, end to end (issue 20, layer 4), set through
 * the real `/settings tags hide|spoiler`: /image in plain and age-restricted channels and a thread of
 * each, /search (card and grid, its board query leaving the hidden tag out), an unfurled link, Show card,
 * `>>123` references and /tag's example. Every body the local Discord received is read: a hidden image's
 * picture, file name, tags and description never appear; its card names the layer and carries a Why?
 * button whose private answer names the layer and the tag; a spoilered image's picture is behind
 * Discord's spoiler (Components V2) or withheld (an embed). Reveal never shows a rule-hidden image.
 */
import { MessageFlags } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelTarget } from '../fakes/discord/index.js';
import { galleryItemsOf, isComponentsV2, textOf } from '../fakes/discord/v2.js';
import { QUERY_EXCLUSIONS_MAX } from '../../src/render/content-rules.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { customIds } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import {
  addRuleImage,
  bodiesSince,
  expectHiddenCard,
  expectNothingOf,
  expectPicturedBehindSpoiler,
  expectSpoileredPicture,
  mark,
  pictureOf,
  pressWhy,
  settingsTags,
  showsPicture,
  type RuleImage,
} from '../support/rules.js';

let h: Harness;
let hidden: RuleImage;
let spoilered: RuleImage;
let control: RuleImage;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
  control = addRuleImage(h, 'zq server control');
  hidden = addRuleImage(h, 'zq server hidden');
  spoilered = addRuleImage(h, 'zq server spoiler');
  expect((await settingsTags(h, 'hide', 'ZQ Server  Hidden')).content).toContain('zq server hidden');
  expect((await settingsTags(h, 'spoiler', 'zq server spoiler')).content).toContain('zq server spoiler');
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

const SERVER_NOTICE = "hidden by this server's rules";
const CHANNELS: readonly ChannelTarget[] = [
  'plain',
  'ageRestricted',
  'threadInPlain',
  'threadInAgeRestricted',
];

const image = (id: number, channel: ChannelTarget) =>
  h.discord.sendCommand({ name: 'image', options: { id: String(id) }, channel }).finalReply();

describe("a server's hidden tag", () => {
  it.each(CHANNELS)(
    'GIVEN /image of an image with it in %s THEN the hidden card, nothing of the image in any body, AND Why? names the server and the tag privately',
    async (channel) => {
      const from = mark(h);
      const card = await image(hidden.id, channel);
      const why = expectHiddenCard(card, hidden, SERVER_NOTICE);
      expectNothingOf(bodiesSince(h, from), hidden, String(channel));
      const answer = await pressWhy(h, card, why);
      expect(answer.content).toMatch(/^This server's rules hide it/);
      expect(answer.content).toContain(hidden.tag);
    },
  );

  it('GIVEN /image of an image without it THEN its picture (control)', async () => {
    expect(showsPicture(await image(control.id, 'plain'), control.id)).toBe(true);
  });

  it('GIVEN /search as cards and as a grid THEN the board query leaves the tag out, AND nothing of the hidden image in any body', async () => {
    const boardFrom = h.booru.requests.length;
    const from = mark(h);
    const card = await h.discord
      .sendCommand({ name: 'search', options: { query: 'zq rules' }, channel: 'plain' })
      .finalReply();
    expect(JSON.stringify(card)).toContain('/images/');
    const grid = await h.discord
      .sendCommand({ name: 'search', options: { query: 'zq rules', view: 'grid' }, channel: 'ageRestricted' })
      .finalReply();
    expect(isComponentsV2(grid)).toBe(true);
    expect(textOf(grid)).toContain(`/images/${control.id})`);
    expectSpoileredPicture(grid, spoilered.id);
    expect(galleryItemsOf(grid).some((item) => pictureOf(spoilered.id).test(item.media.url))).toBe(true);
    expectNothingOf(bodiesSince(h, from), hidden, '/search');
    const queries = h.booru.requests
      .slice(boardFrom)
      .filter((request) => request.path.endsWith('/search/images'))
      .map((request) => request.query.get('q') ?? '');
    expect(queries).toHaveLength(2);
    for (const q of queries) expect(q).toContain(`-"${hidden.tag}"`);
  });

  it('GIVEN a link to it pasted in a plain channel and in a thread THEN the unfurl is the hidden card, nothing else of it', async () => {
    for (const channel of ['plain', 'threadInAgeRestricted'] as const) {
      const from = mark(h);
      const posted = await h.discord.sendMessage({
        channel,
        content: `look ${h.booru.url}/images/${hidden.id}`,
      });
      const reply = await h.discord.waitFor(() => posted.replies()[0], 10_000);
      expectHiddenCard(reply, hidden, SERVER_NOTICE);
      expectNothingOf(bodiesSince(h, from), hidden, `unfurl in ${channel}`);
      // Discord's own preview of the board page would show the picture: it is suppressed.
      await h.discord.waitFor(
        () => (h.discord.message(posted.id)?.flags ?? 0) & MessageFlags.SuppressEmbeds || undefined,
      );
    }
  });

  it('GIVEN Show card on a message linking it and a spoilered image THEN nothing of the hidden one, the other behind a spoiler or withheld', async () => {
    const from = mark(h);
    const content = `${h.booru.url}/images/${hidden.id} and ${h.booru.url}/images/${spoilered.id}`;
    const reply = await h.discord
      .sendMessageCommand({ name: 'Show card', channel: 'plain', targetMessage: { content } })
      .finalReply();
    expect(JSON.stringify(reply)).toContain(SERVER_NOTICE);
    expectSpoileredPicture(reply, spoilered.id);
    expectNothingOf(bodiesSince(h, from), hidden, 'Show card');
  });

  it('GIVEN >>id references to it and a spoilered image THEN the same', async () => {
    const from = mark(h);
    const posted = await h.discord.sendMessage({
      channel: 'ageRestricted',
      content: `see >>${hidden.id} and >>${spoilered.id}`,
    });
    const reply = await h.discord.waitFor(() => posted.replies()[0], 10_000);
    expect(JSON.stringify(reply)).toContain(SERVER_NOTICE);
    expectSpoileredPicture(reply, spoilered.id);
    expectNothingOf(bodiesSince(h, from), hidden, '>>id');
  });

  it('GIVEN /tag of it THEN the tag card carries no example of the hidden image', async () => {
    const from = mark(h);
    await h.discord
      .sendCommand({ name: 'tag', options: { name: hidden.tag }, channel: 'plain' })
      .finalReply();
    const text = bodiesSince(h, from);
    expect(text).not.toMatch(pictureOf(hidden.id));
    expect(text).not.toContain(hidden.description);
    expect(text).not.toContain(`/images/${hidden.id}`);
  });
});

describe("a server's spoilered tag", () => {
  it.each(CHANNELS)(
    'GIVEN /image of an image with it in %s THEN its picture behind the spoiler',
    async (channel) => {
      const from = mark(h);
      const card = await image(spoilered.id, channel);
      expectPicturedBehindSpoiler(card, spoilered.id);
      expect(textOf(card)).toContain(spoilered.tag);
      expect(bodiesSince(h, from)).not.toMatch(/"spoiler":false/);
    },
  );

  it('GIVEN a link to it pasted in a plain channel THEN the unfurl pictures it behind the spoiler', async () => {
    const posted = await h.discord.sendMessage({
      channel: 'plain',
      content: `${h.booru.url}/images/${spoilered.id}`,
    });
    const reply = await h.discord.waitFor(() => posted.replies()[0], 10_000);
    expectSpoileredPicture(reply, spoilered.id);
    expect(showsPicture(reply, spoilered.id)).toBe(false);
  });

  it("GIVEN /tag of it THEN the example's picture stays behind its link", async () => {
    const reply = await h.discord
      .sendCommand({ name: 'tag', options: { name: spoilered.tag }, channel: 'plain' })
      .finalReply();
    expectSpoileredPicture(reply, spoilered.id);
    expect(JSON.stringify(reply)).toContain(`/images/${spoilered.id}`);
  });
});

describe('results checked one by one', () => {
  it('GIVEN more hidden tags than a query leaves out THEN an image with one past the bound comes back from the board AND is still the hidden card, and left out of the grid', async () => {
    const fillers = Array.from({ length: QUERY_EXCLUSIONS_MAX }, (_, i) => `zq filler ${i}`);
    h.booru.addImage({ tags: ['safe', ...fillers] });
    // At most 25 names a command: in two goes.
    await settingsTags(h, 'hide', fillers.slice(0, 20).join(', '));
    await settingsTags(h, 'hide', fillers.slice(20).join(', '));
    const late = addRuleImage(h, 'zq past the bound');
    await settingsTags(h, 'hide', late.tag);
    const boardFrom = h.booru.requests.length;
    const from = mark(h);
    const card = await h.discord
      .sendCommand({ name: 'search', options: { query: `"${late.tag}"` }, channel: 'plain' })
      .finalReply();
    expectHiddenCard(card, late, SERVER_NOTICE);
    const grid = await h.discord
      .sendCommand({ name: 'search', options: { query: `"${late.tag}"`, view: 'grid' }, channel: 'plain' })
      .finalReply();
    expect(textOf(grid)).not.toContain(`/images/${late.id})`);
    const q = h.booru.requests
      .slice(boardFrom)
      .find((r) => r.path.endsWith('/search/images'))
      ?.query.get('q');
    expect(q).not.toContain(`-"${late.tag}"`);
    expect(q).toContain(`-"${hidden.tag}"`);
    expectNothingOf(
      bodiesSince(h, from).replaceAll(`\\"${late.tag}\\"`, ''),
      { ...late, tag: 'zq never' },
      '/search',
    );
  });
});

describe('Reveal and a rule', () => {
  it('GIVEN a card the filter spoilered, whose tag the server hides afterwards THEN Reveal shows nothing of it', async () => {
    const later = addRuleImage(h, 'zq hidden after', 'questionable');
    const card = await image(later.id, 'ageRestricted');
    const reveal = customIds(card).find((id) => id.startsWith('img:reveal:'));
    if (reveal === undefined) throw new Error('no Reveal on the spoilered card');
    await settingsTags(h, 'hide', later.tag);
    const from = mark(h);
    const revealed = await h.discord.sendButton({ customId: reveal, message: card }).finalReply();
    expect(showsPicture(revealed, later.id)).toBe(false);
    expectNothingOf(bodiesSince(h, from), later, 'Reveal');
    expect(JSON.stringify(revealed)).toContain(SERVER_NOTICE);
  });
});
