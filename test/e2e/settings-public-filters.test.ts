/**
 * `/settings filter` takes only system and public filters (never the key owner's private ones). The bot
 * looks a filter up without the API key, so the key owner's private filters look like anybody's: the
 * board answers 404, as Philomena does for a filter the caller cannot see. A server admin can neither use
 * them nor read them by trying ids, and is told how to make their own filter usable. When the board is
 * busy or down, the admin is told that, not that the filter is private.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_KEY, FILTER_IDS } from '../fakes/philomena/index.js';
import { API, boardRequests, setServerFilter } from '../support/board.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function storedFilters(harness: Harness): Promise<unknown> {
  return harness.store.get(`settings:guild:${harness.discord.guild.id}`);
}

const MAKE_IT_PUBLIC = /make it public on the site \(Filters → edit the filter → tick "public"\)/;

describe('/settings filter and private filters', () => {
  it('GIVEN the key owner\u2019s private filter THEN it is refused with how to make it public, nothing is stored, and nothing of the filter is shown', async () => {
    h = await startHarness();
    const reply = await setServerFilter(h, FILTER_IDS.ownedPrivate);
    expect(reply.content).toMatch(MAKE_IT_PUBLIC);
    expect(reply.content).not.toMatch(
      /Bot owner filter|Private filter of BotOwner|score\.lte|hidden test tag/,
    );
    expect(await storedFilters(h)).toBeUndefined();
  });

  it('GIVEN an admin trying ids THEN every lookup goes without the key AND the key owner\u2019s filter list is never asked for', async () => {
    h = await startHarness();
    const mark = h.booru.requests.length;
    for (const id of [FILTER_IDS.ownedPrivate, FILTER_IDS.otherPrivate, FILTER_IDS.public]) {
      await setServerFilter(h, id);
    }
    const lookups = boardRequests(h.booru, mark, /^\/api\/v1\/json\/filters\//);
    expect(lookups.map((r) => r.path)).toEqual([
      `${API}/filters/${FILTER_IDS.ownedPrivate}`,
      `${API}/filters/${FILTER_IDS.otherPrivate}`,
      `${API}/filters/${FILTER_IDS.public}`,
    ]);
    expect(lookups.filter((r) => r.query.has('key'))).toEqual([]);
    expect(JSON.stringify(h.booru.requests.slice(mark).map((r) => [...r.query]))).not.toContain(FAKE_KEY);
    expect(await storedFilters(h)).toMatchObject({ filters: { [h.config.site.id]: FILTER_IDS.public } });
  });

  it('GIVEN a board that shows a private filter anyway THEN it is refused all the same, without its name', async () => {
    h = await startHarness();
    h.booru.inject({
      fault: {
        kind: 'status',
        status: 200,
        body: JSON.stringify({
          filter: {
            id: 4242,
            name: 'Secret filter name',
            description: 'secret description',
            user_id: 1,
            user_count: 1,
            system: false,
            public: false,
            hidden_tag_ids: [],
            spoilered_tag_ids: [],
            hidden_complex: 'my:downvotes',
            spoilered_complex: null,
          },
        }),
      },
      path: `${API}/filters/4242`,
      times: 5,
    });
    const reply = await setServerFilter(h, 4242);
    expect(reply.content).toMatch(/^Filter 4242 is private: make it public/);
    expect(reply.content).not.toMatch(/Secret|secret|downvotes/);
    expect(await storedFilters(h)).toBeUndefined();
  });

  it('GIVEN the key owner\u2019s private filter stored by an older version THEN /settings show says the site ignores it, and shows nothing of it', async () => {
    h = await startHarness();
    await h.store.set(`settings:guild:${h.discord.guild.id}`, {
      filters: { [h.config.site.id]: FILTER_IDS.ownedPrivate },
    });
    const show = await h.discord
      .sendCommand({
        name: 'settings',
        subcommand: 'show',
        channel: 'plain',
        userId: h.discord.guild.ownerId,
      })
      .finalReply();
    expect(show.content).toContain(
      `Filter: ${FILTER_IDS.ownedPrivate}, which is not public (private or deleted), so the site applies its default filter instead.`,
    );
    expect(show.content).not.toMatch(
      /Bot owner filter|Private filter of BotOwner|score\.lte|hidden test tag/,
    );
  });

  it('GIVEN a public filter of another user THEN it is set', async () => {
    h = await startHarness();
    const reply = await setServerFilter(h, FILTER_IDS.public);
    expect(reply.content).toMatch(/^Filter set for /);
    expect(await storedFilters(h)).toMatchObject({ filters: { [h.config.site.id]: FILTER_IDS.public } });
  });
});

describe('/settings filter when the board cannot answer', () => {
  it('GIVEN the board failing on the lookup THEN the admin reads that the site is down, not that the filter is private, AND nothing is stored', async () => {
    h = await startHarness();
    h.booru.inject({ fault: { kind: 'status', status: 503 }, path: `${API}/filters/`, times: 20 });
    const reply = await setServerFilter(h, FILTER_IDS.public);
    expect(reply.content).toMatch(/^The site is down or not answering right now\./);
    expect(reply.content).not.toContain('private');
    expect(await storedFilters(h)).toBeUndefined();
  });

  it('GIVEN the board rate-limiting the lookup THEN the admin reads that the site is busy', async () => {
    h = await startHarness();
    h.booru.inject({
      fault: { kind: 'rate-limit', retryAfterSeconds: 120 },
      path: `${API}/filters/`,
      times: 20,
    });
    const reply = await setServerFilter(h, FILTER_IDS.public);
    expect(reply.content).toMatch(/^The site is busy\. Try again in/);
    expect(reply.content).not.toContain('private');
  });
});
