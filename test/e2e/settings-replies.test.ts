/**
 * `/settings filter` and `/settings show` name what a filter hides and spoilers (the filter gives tag ids;
 * the names come from one tag search by `id:`), show its complex rules in a code block, and fall back to
 * counts when the names cannot be had.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { describeFilter } from '../../commands/settings/settings.js';
import { DEFAULT_SITE_CHOICE, siteChoices } from '../../commands/shared/site-directory.js';
import { commandBodies, commandsHash } from '../../src/discord/registration.js';
import { escapeMarkdown, MESSAGE_CONTENT_MAX } from '../../src/render/index.js';
import type { Filter } from '../../src/philomena/schemas.js';
import { KNOWN_SITES, knownSite, resolveSite } from '../../src/philomena/sites.js';
import { FAKE_KEY, FILTER_IDS } from '../fakes/philomena/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { API, setServerFilter } from '../support/board.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

async function setFilter(filterId: number): Promise<string> {
  return (await setServerFilter(h, filterId)).content;
}

/**
 * From now on the board answers `/filters/:id` with the filter `from` as the key owner sees it, changed by
 * `change` (a filter only the owner can read, made public; or one with hostile text). `id` must be one the
 * bot has not looked up yet: its answer would come from the cache.
 */
async function answerFilterAs(
  harness: Harness,
  id: number,
  change: (filter: Filter) => Filter,
  from: number = FILTER_IDS.ownedPrivate,
): Promise<void> {
  const response = await fetch(`${harness.booru.url}${API}/filters/${from}?key=${FAKE_KEY}`);
  const { filter } = (await response.json()) as { filter: Filter };
  harness.booru.inject({
    fault: { kind: 'status', status: 200, body: JSON.stringify({ filter: { ...change(filter), id } }) },
    path: `${API}/filters/${id}`,
    times: 100,
  });
}

describe('/settings filter through the bot', () => {
  it('GIVEN the Default filter THEN the reply names the hidden and the spoilered tags', async () => {
    const content = await setFilter(FILTER_IDS.default);
    expect(content).toContain('Hides 2 tags: explicit, grotesque.');
    expect(content).toContain('Spoilers 1 tag: questionable.');
  });

  it('GIVEN a filter with complex rules THEN they are shown in code blocks next to the named tags, and /settings show agrees', async () => {
    // The key owner's filter, as the board shows it once the owner made it public (the bot looks filters up
    // without the key, so a private one is refused: settings-public-filters.test.ts).
    await answerFilterAs(h, FILTER_IDS.ownedPrivate, (filter) => ({ ...filter, public: true }));
    const content = await setFilter(FILTER_IDS.ownedPrivate);
    expect(content).toContain(
      'Hides 3 tags and 1 complex rule: explicit, grotesque, hidden test tag.\n```\nscore.lte:-10\n```',
    );
    expect(content).toContain('Spoilers 2 tags and 2 complex rules: questionable, spoiler:s09e26.');
    expect(content).toContain('```\nsemi-grimdark\nuploader:nobody-at-all\n```');
    const show = await h.discord
      .sendCommand({
        name: 'settings',
        subcommand: 'show',
        channel: 'plain',
        userId: h.discord.guild.ownerId,
      })
      .finalReply();
    expect(show.content).toContain('Hides 3 tags and 1 complex rule: explicit, grotesque, hidden test tag.');
  });

  it('GIVEN the tag search failing THEN the filter is still set and described with counts', async () => {
    h.booru.inject({
      fault: { kind: 'status', status: 503 },
      path: `${API}/search/tags`,
      times: 10,
    });
    const from = h.logLines().length;
    const content = await setFilter(FILTER_IDS.maximumSpoilers);
    expect(content).toContain('Maximum Spoilers');
    expect(content).toContain('Hides 0 tags.');
    expect(content).toContain('Spoilers 6 tags.');
    expect(await h.store.get(`settings:guild:${h.discord.guild.id}`)).toMatchObject({
      filters: { [h.config.site.id]: FILTER_IDS.maximumSpoilers },
    });
    const lines = h.logLines().slice(from);
    expect(lines.some((l) => l['msg'] === 'could not name the tags of a filter; showing counts')).toBe(true);
    expect(lines.filter((l) => typeof l['level'] === 'number' && l['level'] >= 50)).toEqual([]);
  });
});

describe('describeFilter', () => {
  const site = knownSite('derpibooru');
  const base: Filter = {
    id: 7,
    name: 'Big',
    description: '',
    user_id: null,
    user_count: 0,
    system: false,
    public: true,
    hidden_tag_ids: [],
    spoilered_tag_ids: [],
    hidden_complex: null,
    spoilered_complex: null,
  };

  it('GIVEN 40 hidden tags with hostile names and long hostile rules THEN 15 are named, escaped, the rest counted, the rules stay in their block, all within a message', () => {
    if (site === undefined) throw new Error('derpibooru is a known site');
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    const names = new Map(
      ids.map((id) => [id, `**tag ${String(id).padStart(2, '0')}** @everyone ${'x'.repeat(30)}`]),
    );
    const filter: Filter = {
      ...base,
      hidden_tag_ids: ids,
      spoilered_tag_ids: ids,
      hidden_complex: Array.from({ length: 12 }, (_, i) => `rule ${i} \`\`\` ${'y'.repeat(80)}`).join('\n'),
      spoilered_complex: '```\n@everyone',
      description: 'd'.repeat(1000),
    };
    const text = describeFilter(filter, site, names);
    expect(text.length).toBeLessThanOrEqual(MESSAGE_CONTENT_MAX - 100);
    expect(text).not.toContain('**tag');
    expect(text).toMatch(/Hides 40 tags and 12 complex rules: .*\\\*\\\*tag 01\\\*\\\*.* and \d+ more\./);
    const named = /Hides 40 tags and 12 complex rules: (.*) and (\d+) more\./.exec(text);
    const shown = named?.[1]?.split(', ') ?? [];
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThanOrEqual(15);
    expect(Number(named?.[2])).toBe(40 - shown.length);
    // Two blocks, each opened and closed by the bot: no backtick run inside them.
    expect(text.match(/```/g)).toHaveLength(4);
    expect(text).toContain('```\nˋˋˋ\n@everyone\n```');
  });

  it('GIVEN no names (the tag search failed) THEN only counts, as before', () => {
    if (site === undefined) throw new Error('derpibooru is a known site');
    const text = describeFilter({ ...base, hidden_tag_ids: [1, 2], spoilered_complex: 'a\nb' }, site);
    expect(text).toContain('Hides 2 tags.');
    expect(text).toContain('Spoilers 0 tags and 2 complex rules.\n```\na\nb\n```');
  });
});

describe('/settings site and a custom BOORU_URL', () => {
  const owner = () => h.discord.guild.ownerId;
  const settings = (subcommand: string, options?: Record<string, string>) =>
    h.discord
      .sendCommand({
        name: 'settings',
        subcommand,
        ...(options === undefined ? {} : { options }),
        channel: 'plain',
        userId: owner(),
      })
      .finalReply();

  it('GIVEN the bot on a custom site THEN /settings site offers it as a choice', () => {
    expect(h.config.site.known).toBe(false);
    const registered = h.discord.registeredCommands().find((c) => c.name === 'settings');
    expect(JSON.stringify(registered)).toContain(`"value":"${DEFAULT_SITE_CHOICE}"`);
  });

  it('GIVEN a server moved to another site THEN choosing the default site brings it back, keeping its filters', async () => {
    expect((await settings('site', { site: 'furbooru' })).content).toContain('Furbooru');
    const back = await settings('site', { site: DEFAULT_SITE_CHOICE });
    expect(back.content).toContain(
      `This server now uses **${escapeMarkdown(h.config.site.name)}** (${h.config.site.baseUrl}).`,
    );
    expect(back.content).toContain(`Filter ${FILTER_IDS.maximumSpoilers} applies there.`);
    const record = await h.store.get(`settings:guild:${h.discord.guild.id}`);
    expect(record).not.toHaveProperty('siteId');
    expect(record).toMatchObject({ filters: { [h.config.site.id]: FILTER_IDS.maximumSpoilers } });
    expect((await settings('show')).content).toContain('(the default)');
  });
});

describe('siteChoices and the registered data', () => {
  const custom = resolveSite('https://booru.example.org');
  const other = resolveSite('https://another.example.net');

  it('GIVEN a custom default site THEN it is offered by name after the known sites', () => {
    expect(siteChoices(custom)).toEqual([
      ...KNOWN_SITES.map((site) => ({ name: site.name, value: site.id })),
      { name: "booru.example.org (this bot's default)", value: DEFAULT_SITE_CHOICE },
    ]);
  });

  it('GIVEN a known default site THEN the known sites only (it is among them)', () => {
    const derpibooru = knownSite('derpibooru');
    expect(siteChoices(derpibooru)).toEqual(KNOWN_SITES.map((site) => ({ name: site.name, value: site.id })));
  });

  it('GIVEN two different custom sites THEN the registration hash differs, so the bot re-registers', () => {
    const hashOf = (site: typeof custom) => commandsHash(commandBodies(allCommands({ defaultSite: site })));
    expect(hashOf(custom)).not.toBe(hashOf(other));
    expect(hashOf(custom)).toBe(hashOf(custom));
  });
});

/** A public filter the local board does not have: its answer is made up by the test. */
const HOSTILE_FILTER_ID = 4243;

describe('/settings replies within Discord\u2019s 2,000 characters (review L3)', () => {
  const hostile = (n: number) =>
    Array.from({ length: n }, (_, i) => `**_~~\`[x](https://e.test/${i})\`~~_**||@everyone||`).join(' ');
  // A harness of its own: the board faults of the tests above may have opened the site's breaker.
  let own: Harness;
  beforeAll(async () => {
    own = await startHarness();
  });
  afterAll(async () => {
    await own.close();
  });

  it('GIVEN a filter whose name and description are long and full of Markdown THEN /settings filter confirms the saved filter within the limit, and /settings show too', async () => {
    await answerFilterAs(own, HOSTILE_FILTER_ID, (filter) => ({
      ...filter,
      public: true,
      name: hostile(12),
      description: hostile(40),
      hidden_complex: Array.from({ length: 8 }, (_, i) => `rule ${i} ${'y'.repeat(90)}`).join('\r\n'),
      spoilered_complex: Array.from({ length: 8 }, (_, i) => `rule ${i} ${'z'.repeat(90)}`).join('\r\n'),
    }));
    const set = await setServerFilter(own, HOSTILE_FILTER_ID);
    expect(set.content).toMatch(/^Filter set for /);
    expect(set.content.length).toBeLessThanOrEqual(MESSAGE_CONTENT_MAX);
    expect(set.content).not.toContain('@everyone||');
    expect(await own.store.get(`settings:guild:${own.discord.guild.id}`)).toMatchObject({
      filters: { [own.config.site.id]: HOSTILE_FILTER_ID },
    });
    // Every code block is whole: opened and closed by the bot.
    expect((set.content.match(/```/g) ?? []).length % 2).toBe(0);

    const show = await own.discord
      .sendCommand({
        name: 'settings',
        subcommand: 'show',
        channel: 'plain',
        userId: own.discord.guild.ownerId,
      })
      .finalReply();
    expect(show.content).toMatch(/^Site: /);
    expect(show.content).toContain(`filter ${HOSTILE_FILTER_ID} on`);
    expect(show.content.length).toBeLessThanOrEqual(MESSAGE_CONTENT_MAX);
    expect(own.discord.violations).toEqual([]);
  });
});
