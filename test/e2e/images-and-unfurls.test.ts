/**
 * Single images end to end, the parts the first suites left out: deleted and still-processing images
 * through /image; a spoilered image unfurled and its Reveal button (ephemeral to the clicker, the rating
 * rule still holding); and which filter an unfurl's board call carries: the server's filter for its own
 * site, and none of it (nor the bot's default filter, nor the key) for a link to another known site.
 *
 * Furbooru cannot be reached from tests, so the registry's HTTP dispatcher is an undici MockAgent: calls to
 * the local Philomena pass through to it, calls to furbooru.org are answered here and recorded as sent.
 * The bot's default filter (BOORU_FILTER_ID) is the key owner's private filter, which spoilers
 * `spoiler:s09e26` and `questionable`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MessageFlags } from 'discord.js';
import { MockAgent } from 'undici';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { FAKE_KEY, FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import { setServerFilter } from '../support/board.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { customIds, embedOf, type Embed } from '../support/messages.js';
import { unfurlReply } from '../support/waiting.js';
import { startHarness, type Harness } from '../support/harness.js';

const FURBOORU = 'https://furbooru.org';
const FURBOORU_FILTER = 7777;

let h: Harness;
let agent: MockAgent;
/** Paths (with query) of every call the bot made to furbooru.org. */
const furbooruCalls: string[] = [];

beforeAll(async () => {
  agent = new MockAgent();
  agent.enableNetConnect(/^127\.0\.0\.1(?::\d+)?$/);
  h = await startHarness({
    env: { BOORU_FILTER_ID: String(FILTER_IDS.ownerPublic) },
    registry: { dispatcher: agent },
  });
  // Furbooru's answers are the local board's own, moved to furbooru.org.
  const moved = async (path: string, edit: (json: Record<string, unknown>) => void = () => undefined) => {
    const json = (await (await fetch(`${h.booru.url}${path}`)).json()) as Record<string, unknown>;
    edit(json);
    return JSON.stringify(json).replaceAll(h.booru.url, FURBOORU);
  };
  const image = await moved(`/api/v1/json/images/${IDS.safe}`);
  const filter = await moved(`/api/v1/json/filters/${FILTER_IDS.everything}`, (json) => {
    Object.assign(json['filter'] as object, { id: FURBOORU_FILTER, name: 'Furbooru everything' });
  });
  const pool = agent.get(FURBOORU);
  const answer = (body: string) => (options: { path: string }) => {
    furbooruCalls.push(options.path);
    return {
      statusCode: 200,
      data: body,
      responseOptions: { headers: { 'content-type': 'application/json' } },
    };
  };
  pool
    .intercept({ path: (p) => p.startsWith(`/api/v1/json/images/${IDS.safe}`), method: 'GET' })
    .reply(answer(image))
    .persist();
  pool
    .intercept({ path: (p) => p.startsWith(`/api/v1/json/filters/${FURBOORU_FILTER}`), method: 'GET' })
    .reply(answer(filter))
    .persist();
});
afterAll(async () => {
  await h.close();
  await agent.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

function unfurl(channel: 'plain' | 'ageRestricted', link: string): Promise<RecordedMessage> {
  return unfurlReply(h.discord, channel, `have a look: ${link}`);
}

const owner = () => h.discord.guild.ownerId;

describe('/image of deleted and unfinished images', () => {
  it.each(['plain', 'ageRestricted'] as const)(
    'GIVEN a deleted image in %s THEN a stub card says so with the reason, and shows no picture',
    async (channel) => {
      const reply = await h.discord
        .sendCommand({ name: 'image', options: { id: String(IDS.deleted) }, channel })
        .finalReply();
      const embed = embedOf(reply);
      expect(embed.title).toBe(`#${IDS.deleted}`);
      expect(embed.url).toBe(`${h.booru.url}/images/${IDS.deleted}`);
      expect(embed.description).toMatch(/^This image was deleted: Rule .*1 violation: duplicate upload/);
      expect(embed.image).toBeUndefined();
      expect(embed.thumbnail).toBeUndefined();
      expect(customIds(reply)).toEqual([]);
    },
  );

  it('GIVEN an image whose thumbnails are not generated yet THEN "still processing", credited, no picture', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.thumbnailsPending) }, channel: 'plain' })
      .finalReply();
    const embed = embedOf(reply);
    expect(embed.url).toBe(`${h.booru.url}/images/${IDS.thumbnailsPending}`);
    expect(embed.description).toMatch(/^Still processing/);
    expect(embed.image).toBeUndefined();
    expect(embed.thumbnail).toBeUndefined();
    expect(embed.fields?.find((f) => f.name === 'Credit')?.value).toContain('fake artist');
    expect(embed.fields?.find((f) => f.name === 'Source')).toBeDefined();
  });
});

describe('a spoilered image unfurled, and Reveal', () => {
  it('GIVEN a link to a safe image the filter spoilers THEN no picture, the tag named; Reveal shows it to the clicker only', async () => {
    const card = await unfurl('plain', `${h.booru.url}/images/${IDS.spoilerTagged}`);
    // The owner's filter has a hidden search (hidden_complex): a `spoilered` image might be one it hides,
    // so no picture at all, not even behind Discord's own spoiler (components-v2.test.ts has the other case).
    const embed = embedOf(card);
    expect(embed.image).toBeUndefined();
    expect(embed.description).toContain('spoilered by the filter “Bot owner filter” for **spoiler:s09e26**');
    const reveal = customIds(card);
    expect(reveal).toHaveLength(1);
    expect(reveal[0]).toMatch(new RegExp(`^img:reveal:[^:]+:${IDS.spoilerTagged}$`));

    const click = h.discord.sendButton({
      customId: reveal[0] ?? '',
      message: card,
      userId: h.discord.guild.otherMemberId,
    });
    const revealed = await click.finalReply();
    expect(revealed.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(revealed.id).not.toBe(card.id);
    expect(embedOf(revealed).image?.url).toMatch(/\/img\//);
    expect(customIds(revealed)).toEqual([]);
    // The public card is untouched: everyone else still sees it spoilered.
    const after = h.discord.message(card.id);
    expect(after?.edits).toBe(0);
    expect((after?.embeds[0] as Embed | undefined)?.image).toBeUndefined();
  });

  it('GIVEN a link to a questionable image the filter spoilers, in a plain channel THEN the rating rule: minimal card and no Reveal', async () => {
    const card = await unfurl('plain', `${h.booru.url}/images/${IDS.questionable}`);
    expect(embedOf(card).description).toMatch(/can only be shown in age-restricted channels/);
    expect(customIds(card)).toEqual([]);
  });

  it('GIVEN the same link in an age-restricted channel THEN Reveal shows it there, but the same button clicked from a plain channel still shows no picture', async () => {
    const card = await unfurl('ageRestricted', `${h.booru.url}/images/${IDS.questionable}`);
    expect(embedOf(card).image).toBeUndefined();
    expect(embedOf(card).description).toContain('for **questionable**');
    const reveal = customIds(card)[0] ?? '';
    expect(reveal).toMatch(/^img:reveal:/);

    const there = await h.discord.sendButton({ customId: reveal, message: card }).finalReply();
    expect(there.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(embedOf(there).image?.url).toMatch(/\/img\//);

    // A click that reaches the bot from a channel that is not age-restricted (the card forwarded, the
    // channel's age restriction lifted since): Reveal lifts the spoiler, never the rating rule.
    const elsewhere = await h.discord
      .sendButton({ customId: reveal, message: card, channel: 'plain' })
      .finalReply();
    expect(elsewhere.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    const gated = embedOf(elsewhere);
    expect(gated.image).toBeUndefined();
    expect(gated.thumbnail).toBeUndefined();
    expect(gated.fields?.some((f) => f.name.startsWith('Tags'))).toBe(false);
    expect(gated.description).toMatch(/can only be shown in age-restricted channels/);
  });
});

describe('the filter an unfurl carries', () => {
  beforeAll(async () => {
    const set = await setServerFilter(h, FILTER_IDS.everything);
    expect(set.content).toContain('Everything');
  });

  it('GIVEN a server filter and a link to the server\u2019s own site THEN the board call carries it', async () => {
    const mark = h.booru.requests.length;
    const card = await unfurl('ageRestricted', `${h.booru.url}/images/${IDS.suggestive}`);
    expect(embedOf(card).url).toBe(`${h.booru.url}/images/${IDS.suggestive}`);
    const call = h.booru.requests.slice(mark).find((r) => r.path.endsWith(`/images/${IDS.suggestive}`));
    expect(call?.query.get('filter_id')).toBe(String(FILTER_IDS.everything));
  });

  it('GIVEN a link to another known site THEN its call carries neither the server\u2019s filter, nor the bot\u2019s default filter, nor the key', async () => {
    const before = furbooruCalls.length;
    const card = await unfurl('plain', `${FURBOORU}/images/${IDS.safe}`);
    expect(embedOf(card).url).toBe(`${FURBOORU}/images/${IDS.safe}`);
    expect(embedOf(card).footer?.text).toBe('Furbooru');
    const calls = furbooruCalls.slice(before);
    expect(calls).toHaveLength(1);
    const query = new URL(calls[0] ?? '', FURBOORU).searchParams;
    expect(query.has('filter_id')).toBe(false);
    expect(calls.join(' ')).not.toContain(FAKE_KEY);
    expect(calls.join(' ')).not.toContain('key=');
  });

  it('GIVEN the server switched to that site with a filter of its own THEN its links carry that filter, and links to the first site keep the first site\u2019s filter', async () => {
    await h.discord
      .sendCommand({
        name: 'settings',
        subcommand: 'site',
        options: { site: 'furbooru' },
        channel: 'plain',
        userId: owner(),
      })
      .finalReply();
    const set = await setServerFilter(h, FURBOORU_FILTER);
    expect(set.content).toContain('Furbooru everything');

    const before = furbooruCalls.length;
    await unfurl('ageRestricted', `${FURBOORU}/images/${IDS.safe}`);
    const imageCalls = furbooruCalls.slice(before).filter((p) => p.startsWith('/api/v1/json/images/'));
    expect(imageCalls).toHaveLength(1);
    expect(new URL(imageCalls[0] ?? '', FURBOORU).searchParams.get('filter_id')).toBe(
      String(FURBOORU_FILTER),
    );

    const mark = h.booru.requests.length;
    await unfurl('ageRestricted', `${h.booru.url}/images/${IDS.semiGrimdark}`);
    const call = h.booru.requests.slice(mark).find((r) => r.path.endsWith(`/images/${IDS.semiGrimdark}`));
    expect(call?.query.get('filter_id')).toBe(String(FILTER_IDS.everything));
    expect(furbooruCalls.join(' ')).not.toContain(FAKE_KEY);
  });
});
