/**
 * What the rules in layers (issue 20) cost. Every card asks them (content-rules.ts `hidingRule`, then
 * `spoileringRule`), and every interaction builds its view's rules from the server's record, the channel's
 * own settings and the member's hidden tags (commands/shared/view.ts). Measured against the worst a
 * configuration allows: the floor's defaults and 20 NEVER_SHOW_TAGS, the server's 200 hidden and 200
 * spoilered tags, the channel's 200 and 200, and the member's 200 (TAG_LIST_MAX each), beside no community
 * layers at all (the floor alone). The card is an image of 80 tags, none of them hit, or one hidden (the
 * member's last tag: every rule before it is asked first), or one spoilered (the channel's last). A card is
 * `imageCard` then `cardMessage`, as every feature sends one; the README's render budget is 50 ms a card.
 *
 * The view's cost: `makeView` alone (the rules from lists in memory), and `resolveView` over the server
 * settings in a memory store (the record read and parsed with zod, as each interaction does).
 *
 * That hidden tags add no board call (they ride in the one query) is a count, so a test proves it:
 * test/commands/search/exclusion-calls.test.ts.
 */
import { ChannelType } from 'discord.js';
import { cardContext, cardMessage } from '../commands/shared/show-image.js';
import { createGuildSettings, type GuildSettingsRecord } from '../commands/shared/guild-settings.js';
import { createSiteDirectory } from '../commands/shared/site-directory.js';
import { TAG_LIST_MAX } from '../commands/shared/tag-lists.js';
import { makeView, resolveView, type View } from '../commands/shared/view.js';
import { createLogger } from '../src/logger.js';
import { knownSite, type Site } from '../src/philomena/sites.js';
import { createDescriptionMemo } from '../src/render/description-memo.js';
import { imageCard } from '../src/render/image-card.js';
import { createStore } from '../src/store/index.js';
import { testImage } from '../test/support/images.js';
import { percentile, type Bench, type BenchRow } from './report.js';

const GROUP = 'rules';
const CARDS = 20_000;
const VIEWS = 5_000;
const GOAL_MS = 50;
const NEVER_SHOW = 20;
const IMAGE_TAGS = 80;

const list = (prefix: string, n = TAG_LIST_MAX): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix} tag ${i}`);

const SERVER_HIDDEN = list('server hidden');
const SERVER_SPOILERED = list('server spoilered');
const CHANNEL_HIDDEN = list('channel hidden');
const CHANNEL_SPOILERED = list('channel spoilered');
const MEMBER_HIDDEN = list('member hidden');

/** An image as a board answers it: rating, artist, 78 more tags, two sources, a short description. */
function imageWith(id: number, extra: readonly string[]) {
  const tags = ['safe', 'artist:someone', ...list('image', IMAGE_TAGS - 2 - extra.length), ...extra];
  return testImage(
    tags,
    {
      id,
      description: 'A *pony* by [url=https://example.test/a]someone[/url], with **words** about the picture.',
      source_urls: ['https://example.test/art', 'https://example.test/art/2'],
      spoilered: false,
    },
    `https://derpicdn.net/img/${id}`,
  );
}

/** µs of each of `runs` calls of `run`, sorted (after a warm-up). */
function timings(runs: number, run: (i: number) => unknown): number[] {
  for (let i = 0; i < Math.min(1000, runs); i += 1) run(i);
  const out: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    run(i);
    out.push((performance.now() - started) * 1000);
  }
  return out.sort((a, b) => a - b);
}

async function asyncTimings(runs: number, run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(500, runs); i += 1) await run();
  const out: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await run();
    out.push((performance.now() - started) * 1000);
  }
  return out.sort((a, b) => a - b);
}

const us = (v: number): string => (v < 10 ? v.toFixed(1) : v.toFixed(0));
const p50p99 = (sorted: readonly number[]): string =>
  `${us(percentile(sorted, 50))} µs / ${us(percentile(sorted, 99))} µs`;

function cardRow(metric: string, sorted: readonly number[]): BenchRow {
  const p99 = percentile(sorted, 99);
  return {
    group: GROUP,
    metric: `${metric}, p50 / p99 (${CARDS.toLocaleString('en-US')} cards)`,
    value: p50p99(sorted),
    goal: `< ${GOAL_MS} ms`,
    ok: p99 < GOAL_MS * 1000,
  };
}

export default (async (): Promise<readonly BenchRow[]> => {
  const site: Site | undefined = knownSite('derpibooru');
  if (!site) throw new Error('derpibooru missing from KNOWN_SITES');
  const sites = createSiteDirectory({
    defaultSite: site,
    defaultFilterId: undefined,
    floor: { defaults: true, neverShow: list('never show', NEVER_SHOW) },
  });
  const base = { site, guildId: '1', ageRestricted: false, guildFilters: {}, sites } as const;
  const layers = {
    channelId: '2',
    server: { hidden: SERVER_HIDDEN, spoilered: SERVER_SPOILERED },
    channel: { hidden: CHANNEL_HIDDEN, spoilered: CHANNEL_SPOILERED },
    memberHidden: MEMBER_HIDDEN,
  };
  const bare = makeView(base);
  const full = makeView({ ...base, layers });
  const ruleCount = full.rules.hidden.length + (full.rules.spoilered?.length ?? 0);

  const descriptions = createDescriptionMemo();
  const card = (view: View, image: ReturnType<typeof imageWith>) => () =>
    cardMessage(imageCard(image, { ...cardContext(view, undefined), descriptions }), site, image.id);
  const none = imageWith(1, []);
  const hidden = imageWith(2, [MEMBER_HIDDEN.at(-1) ?? '']);
  const spoilered = imageWith(3, [CHANNEL_SPOILERED.at(-1) ?? '']);
  // Each case must do what it is named for, or its figure means nothing.
  const gates = [
    imageCard(hidden, cardContext(full, undefined)),
    imageCard(spoilered, cardContext(full, undefined)),
  ];
  if (gates[0]?.gate !== 'rule-hidden' || gates[1]?.media?.spoiler !== true) {
    throw new Error('the hidden or spoilered case is not hit');
  }

  const rows: BenchRow[] = [
    cardRow(
      'image card + message, 80 tags, no community layers (floor alone)',
      timings(CARDS, card(bare, none)),
    ),
    cardRow(
      `image card + message, 80 tags, every layer full (${ruleCount} rules), no tag hit`,
      timings(CARDS, card(full, none)),
    ),
    cardRow('the same, one hidden tag hit (the member’s last)', timings(CARDS, card(full, hidden))),
    cardRow('the same, one spoilered tag hit (the channel’s last)', timings(CARDS, card(full, spoilered))),
  ];

  rows.push({
    group: GROUP,
    metric: `view per interaction, makeView with every layer full, p50 / p99 (${VIEWS.toLocaleString('en-US')})`,
    value: p50p99(timings(VIEWS, () => makeView({ ...base, layers }))),
  });
  const settings = createGuildSettings({
    store: createStore('memory://'),
    logger: createLogger({ level: 'silent' }),
  });
  await settings.update('1', (current): GuildSettingsRecord => ({
    ...current,
    hiddenTags: SERVER_HIDDEN,
    spoileredTags: SERVER_SPOILERED,
    channels: { '2': { hiddenTags: CHANNEL_HIDDEN, spoileredTags: CHANNEL_SPOILERED } },
  }));
  const channel = { id: '2', type: ChannelType.GuildText, nsfw: false, flags: 0 };
  const resolved = await resolveView(
    { guildId: '1', channel, memberHidden: MEMBER_HIDDEN },
    { settings, sites },
  );
  if (resolved.rules.hidden.length !== full.rules.hidden.length)
    throw new Error('the stored record lost tags');
  rows.push({
    group: GROUP,
    metric: `view per interaction, resolveView (record read from a memory store and parsed), every layer full, p50 / p99 (${VIEWS.toLocaleString('en-US')})`,
    value: p50p99(
      await asyncTimings(VIEWS, () =>
        resolveView({ guildId: '1', channel, memberHidden: MEMBER_HIDDEN }, { settings, sites }),
      ),
    ),
  });

  return rows;
}) satisfies Bench;
