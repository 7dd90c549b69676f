/**
 * /search and /reverse end to end, the parts the first suites left out: every sort choice reaching the
 * board, the Random button, the server's filter on every paging click, `/reverse distance:`, paging through
 * several reverse matches, and "Find source" on a message whose picture is an embed rather than a file.
 *
 * One harness for the file; the server's filter is set first (a public user filter), so every board call
 * made for this server must carry it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MessageFlags } from 'discord.js';
import { SORTS } from '../../commands/search/codec.js';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { FILTER_IDS, IDS, type RecordedRequest } from '../fakes/philomena/index.js';
import { setServerFilter } from '../support/board.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { cardUrl, customIds, footerText } from '../support/messages.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  const set = await setServerFilter(h, FILTER_IDS.public);
  expect(set.content).toContain('No dark stuff');
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.booru.clearFaults();
  expectNoDiscordProblems(h.discord);
});

function button(message: RecordedMessage, prefix: string): string {
  const id = customIds(message).find((c) => c.startsWith(prefix));
  expect(id, `a ${prefix} button on the message`).toBeDefined();
  return id ?? '';
}

function imageUrl(message: RecordedMessage): string {
  return cardUrl(message);
}

/** Board requests to `suffix` made since `mark` (an index into the request log). */
function asked(mark: number, suffix: string): RecordedRequest[] {
  return h.booru.requests.slice(mark).filter((r) => r.path.endsWith(suffix));
}

async function rawImageJson(id: number): Promise<unknown> {
  const response = await fetch(`${h.booru.url}/api/v1/json/images/${id}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { image: unknown }).image;
}

async function fullUrl(id: number): Promise<string> {
  const image = (await rawImageJson(id)) as { representations: { full: string } };
  return image.representations.full;
}

describe('/search sort and buttons', () => {
  it.each(SORTS)(
    'GIVEN sort %s THEN the board is asked with its sf/sd and the server filter',
    async (sort) => {
      const mark = h.booru.requests.length;
      const reply = await h.discord
        .sendCommand({ name: 'search', options: { query: 'pony', sort }, channel: 'ageRestricted' })
        .finalReply();
      expect(footerText(reply)).toMatch(/^.+ · 1 of \d+$/);
      const search = asked(mark, '/search/images')[0];
      const expected: Record<(typeof SORTS)[number], readonly [string | RegExp, string]> = {
        newest: ['first_seen_at', 'desc'],
        oldest: ['first_seen_at', 'asc'],
        score: ['score', 'desc'],
        wilson: ['wilson_score', 'desc'],
        faves: ['faves', 'desc'],
        random: [/^random:\d+$/, 'desc'],
        relevance: ['_score', 'desc'],
      };
      const [sf, sd] = expected[sort];
      if (typeof sf === 'string') expect(search?.query.get('sf')).toBe(sf);
      else expect(search?.query.get('sf')).toMatch(sf);
      expect(search?.query.get('sd')).toBe(sd);
      expect(search?.query.get('q')).toBe('pony');
      expect(search?.query.get('filter_id')).toBe(String(FILTER_IDS.public));
    },
  );

  it('GIVEN the Random button THEN another page of the same search, the server filter carried, buttons kept', async () => {
    const first = await h.discord
      .sendCommand({ name: 'search', options: { query: 'pony', sort: 'score' }, channel: 'plain' })
      .finalReply();
    const total = Number(/ of (\d+)$/.exec(footerText(first))?.[1]);
    expect(total).toBeGreaterThan(2);
    const mark = h.booru.requests.length;
    const click = h.discord.sendButton({ customId: button(first, 'srch:rand:'), message: first });
    const moved = await click.finalReply();
    const page = Number(/ (\d+) of \d+$/.exec(footerText(moved))?.[1]);
    expect(page).toBeGreaterThan(1);
    expect(page).toBeLessThanOrEqual(total);
    expect(imageUrl(moved)).not.toBe(imageUrl(first));
    // The page comes from the window of 50 the first search read (with the same sort, query and
    // filter); only a page past it asks the board again, for its own window.
    const window = (p: number) => String(Math.ceil(p / 50));
    const searches = h.booru.requests.filter((r) => r.path.endsWith('/search/images'));
    const read = searches.filter((r) => r.query.get('sf') === 'score' && r.query.get('q') === '(pony), safe');
    expect(read.map((r) => r.query.get('page'))).toContain(window(page));
    for (const search of read) {
      expect(search.query.get('per_page')).toBe('50');
      expect(search.query.get('filter_id')).toBe(String(FILTER_IDS.public));
    }
    if (page <= 50) expect(asked(mark, '/search/images')).toHaveLength(0);
    // The same message was updated in place, still pageable.
    expect(moved.id).toBe(first.id);
    expect(customIds(moved).some((c) => c.startsWith('srch:prev:'))).toBe(true);
  });

  it('GIVEN Next and Previous THEN each page request carries the server filter', async () => {
    const first = await h.discord
      .sendCommand({ name: 'search', options: { query: 'pegasus' }, channel: 'ageRestricted' })
      .finalReply();
    const mark = h.booru.requests.length;
    const second = await h.discord
      .sendButton({ customId: button(first, 'srch:next:'), message: first })
      .finalReply();
    expect(footerText(second)).toMatch(/ 2 of \d+$/);
    const back = await h.discord
      .sendButton({ customId: button(second, 'srch:prev:'), message: second })
      .finalReply();
    expect(footerText(back)).toMatch(/ 1 of \d+$/);
    // Both pages are cut from the first window of 50: no further board call.
    expect(asked(mark, '/search/images')).toHaveLength(0);
  });
});

describe('/reverse and Find source', () => {
  it('GIVEN distance THEN it is passed to the board with the URL', async () => {
    const url = await fullUrl(IDS.multiCredit);
    const mark = h.booru.requests.length;
    const reply = await h.discord
      .sendCommand({ name: 'reverse', options: { url, distance: 0.4 }, channel: 'plain' })
      .finalReply();
    expect(imageUrl(reply)).toBe(`${h.booru.url}/images/${IDS.multiCredit}`);
    const reverse = asked(mark, '/search/reverse');
    expect(reverse).toHaveLength(1);
    expect(reverse[0]?.method).toBe('POST');
    expect(reverse[0]?.query.get('distance')).toBe('0.4');
    expect(reverse[0]?.query.get('url')).toBe(url);
    // The card's image read is the server's, with its filter.
    // Read with the server's filter, or served from an image a search with that filter cached.
    for (const read of asked(mark, `/images/${IDS.multiCredit}`))
      expect(read.query.get('filter_id')).toBe(String(FILTER_IDS.public));
  });

  it('GIVEN the registered /reverse THEN distance is bounded to 0..1 for Discord to enforce', () => {
    const reverse = h.discord.registeredCommands().find((c) => c.name === 'reverse');
    const distance = (
      reverse?.['options'] as { name: string; min_value?: number; max_value?: number }[]
    ).find((o) => o.name === 'distance');
    expect(distance).toMatchObject({ min_value: 0, max_value: 1 });
  });

  it('GIVEN the board finds two matches THEN "match 1 of 2", Next shows the second, Previous the first, each read with the server filter', async () => {
    const images = [await rawImageJson(IDS.manySources), await rawImageJson(IDS.noSources)];
    h.booru.inject({
      path: '/api/v1/json/search/reverse',
      times: 1,
      fault: {
        kind: 'status',
        status: 200,
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({ images, interactions: [], total: 2 }),
      },
    });
    const first = await h.discord
      .sendCommand({
        name: 'reverse',
        options: { url: `${h.booru.url}/samples/two-matches.png`, distance: 0.5 },
        channel: 'plain',
      })
      .finalReply();
    expect(imageUrl(first)).toBe(`${h.booru.url}/images/${IDS.manySources}`);
    expect(footerText(first)).toMatch(/match 1 of 2$/);
    expect(customIds(first).find((c) => c.startsWith('rev:prev:'))).toBeDefined();

    const mark = h.booru.requests.length;
    const second = await h.discord
      .sendButton({ customId: button(first, 'rev:next:'), message: first })
      .finalReply();
    expect(second.id).toBe(first.id);
    expect(imageUrl(second)).toBe(`${h.booru.url}/images/${IDS.noSources}`);
    expect(footerText(second)).toMatch(/match 2 of 2$/);
    // Read with the server's filter, or served from an image a search with that filter cached.
    for (const read of asked(mark, `/images/${IDS.noSources}`))
      expect(read.query.get('filter_id')).toBe(String(FILTER_IDS.public));
    // Paging reads the stored matches: the board is not searched again.
    expect(asked(mark, '/search/reverse')).toEqual([]);

    const stranger = await h.discord
      .sendButton({
        customId: button(second, 'rev:prev:'),
        message: second,
        userId: h.discord.guild.otherMemberId,
      })
      .finalReply();
    expect(stranger.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(stranger.content).toMatch(/Only the person who searched/);

    const back = await h.discord
      .sendButton({ customId: button(second, 'rev:prev:'), message: second })
      .finalReply();
    expect(imageUrl(back)).toBe(`${h.booru.url}/images/${IDS.manySources}`);
    expect(footerText(back)).toMatch(/match 1 of 2$/);
  });

  it.each([
    [
      'image',
      IDS.noArtist,
      (url: string) => ({ type: 'rich', title: 'a post', image: { url, proxy_url: url } }),
    ],
    [
      'thumbnail',
      IDS.littlepip,
      (url: string) => ({ type: 'image', url, thumbnail: { url, proxy_url: url } }),
    ],
  ] as const)(
    'GIVEN a message whose picture is an embed %s THEN Find source reverse-searches its URL, ephemerally',
    async (_kind, id, embedOf) => {
      // A different picture per case: the same URL would be answered from the reverse-search cache.
      const url = await fullUrl(id);
      const mark = h.booru.requests.length;
      const reply = await h.discord
        .sendMessageCommand({
          name: 'Find source',
          channel: 'plain',
          targetMessage: { content: 'seen this?', embeds: [embedOf(url)] },
        })
        .finalReply();
      expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
      expect(imageUrl(reply)).toBe(`${h.booru.url}/images/${id}`);
      const reverse = asked(mark, '/search/reverse');
      expect(reverse).toHaveLength(1);
      expect(reverse[0]?.query.get('url')).toBe(url);
      // By URL: no file was uploaded.
      expect(reverse[0]?.body.length ?? 0).toBe(0);
    },
  );
});
