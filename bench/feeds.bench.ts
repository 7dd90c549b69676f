/**
 * Feeds at scale: 1,000 feeds in 500 servers over 100 distinct queries. How many board searches one
 * interval costs (the goal is 100, one per distinct (site, query as sent, filter) key), what the feeds
 * post, and what polling does to the answer times of 100 interactions a second.
 *
 * The bot is the real entry point (src/main.ts through tsx, in its own process, with the network guard of
 * the tests preloaded: test/lifecycle/bot-process.ts), so the poller, its tick (the default, FEED_INTERVAL
 * / 20 = 3 s), its leases and the board budget are exactly what a deployment runs. Its environment:
 * FEED_INTERVAL=1m (the fastest allowed), a SQLite store (the default kind) in a fresh temporary
 * directory, COMMAND_RATE_LIMIT=off (as bench/scale.bench.ts: no member cooldown binds), UNFURL=off; every
 * other setting is the default (30 board calls per 5 s per site, 20 per 10 s on the search paths,
 * FEEDS_PER_SERVER 10, FEED_MAX_PER_POLL 10). It talks to a fresh local Discord (test/fakes/discord) with
 * 500 servers, all on the one shard the bot connects (REST knows every server's channels), and a fresh
 * local Philomena answering after 50 ms.
 *
 * Two runs, the same interactions in each (seeded):
 *
 * 1. No feeds: an empty store.
 * 2. Feeds: before the bot starts, the store (the same file the bot then opens) is seeded through the
 *    bot's own feed store (commands/feed/feed-store.ts `add`) with 2 feeds in each of the 500 servers,
 *    both in that server's plain (not age-restricted) text channel, 1,000 feeds with 500 distinct server
 *    ids; feed i has query `feedq<i mod 100>`, so each query is followed by 10 feeds in 10 servers, and
 *    every feed searches `(feedqN), safe` with the site's default filter: 100 distinct keys. Every cursor
 *    is the board's highest image id before the feed images; then 2 new safe images per query are added
 *    (200 images), so every feed has 2 images to post (2,000 posts in all).
 *
 * Interactions, the same (seeded) in both runs, all `/image` in the first server (60% plain channel, 40%
 * age-restricted) from 2,000 members, ids drawn Zipf-like from 20 images of the local board, so every
 * first fetch fits the board's budget and the figures show the bot's own work and its Discord REST queue,
 * not the board's politeness waits:
 *
 * - 1,000 at 100 a second (the load the issue asks for), as soon as the bot says "bot ready", which is
 *   when the poller's first round starts. This is more than one process can answer at once without feeds:
 *   @discordjs/rest holds a process to 50 requests a second, and each answer is one (the edit of the
 *   deferred reply; see the README's scale figures). Feed posts go through the same REST client.
 * - 300 at 30 a second, under that limit without feeds (30 answers and 30 deferrals): in the feeds run 30 s after the
 *   first feed search, while the poller is posting (the rows "in each 10 s" show how much), in the run
 *   without feeds right after the first burst is answered.
 *
 * Board searches are counted where the site would see them (the local Philomena's request log): the
 * searches carrying `id.gt:` that arrived within one interval from the first one; the watch goes on until
 * every key was searched once (at most 90 s from the first), to say when that was. Posts are counted at the
 * local Discord (POST /channels/:id/messages, which only feeds send here). The driver (this process) runs
 * both local servers; its own event-loop delay is reported, since it adds to the answer times.
 *
 * Everything listens on and connects to 127.0.0.1 only; every wait is bounded (about 2 minutes in all on a
 * 2-core machine).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createFeedStore } from '../commands/feed/feed-store.js';
import { loadConfig } from '../src/config.js';
import { closeStore, openStore } from '../src/store/index.js';
import { startFakeDiscord, type FakeDiscord, type InteractionHandle } from '../test/fakes/discord/index.js';
import { startFakePhilomena, type FakePhilomena } from '../test/fakes/philomena/index.js';
import { startBotProcess, type BotProcess } from '../test/lifecycle/bot-process.js';
import { createSeededRandom } from '../test/support/random.js';
import { cardsIn, messageOf } from './answers.js';
import { percentile, type Bench, type BenchRow } from './report.js';
import { zipf } from './workload.js';
import { mostInAnySpan as maxInWindow } from '../test/support/arrivals.js';

const GROUP = 'feeds';
const SERVERS = 500;
const FEEDS_PER_SERVER = 2;
const FEEDS = SERVERS * FEEDS_PER_SERVER;
const QUERIES = 100;
const IMAGES_PER_QUERY = 2;
const FEED_INTERVAL = '1m';
const INTERVAL_MS = 60_000;
const BOARD_LATENCY_MS = 50;
/** The asked-for load: past what one process can answer at once (see the header). */
const BURST = { count: 1000, perSecond: 100 } as const;
/** A load one process answers without queueing, sent while the feeds catch up. */
const CALM = { count: 300, perSecond: 30 } as const;
/** The feeds run: the calm burst starts this long after the first feed search (posting is in full swing). */
const CALM_AT_MS = 30_000;
const MEMBERS = 2000;
/** The `/image` ids: the local board's first 20 filler images. */
const HOT_IDS = Array.from({ length: 20 }, (_, i) => 1001 + i);
/** The board's budgets (the defaults): every call, and the search paths. */
const BUDGET_PER_5S = 30;
const SEARCH_BUDGET_PER_10S = 20;
/** tsx compiles src/ on the fly; 500 servers arrive in GUILD_CREATE. */
const READY_TIMEOUT_MS = 90_000;
/** After the last interaction: how long answers may still come. */
const SETTLE_MS = 30_000;
/** The feeds run: how long after "bot ready" the first feed search may take to come. */
const FIRST_SEARCH_TIMEOUT_MS = 20_000;
/** The feeds run: after the interval, how long (from the first feed search) to wait for unsearched keys. */
const OBSERVE_MAX_MS = 90_000;
/** SIGTERM, then this long for a clean exit before SIGKILL. */
const STOP_MS = 5_000;

// ---------------------------------------------------------------------------------------------- helpers

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const count = (n: number): string => n.toLocaleString('en-US');
const msText = (n: number): string =>
  Number.isNaN(n) ? 'n/a' : n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${count(Math.round(n))} ms`;
const sorted = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

const isApi = (p: string): boolean => p.startsWith('/api/');
const isSearch = (p: string): boolean => p.startsWith('/api/v1/json/search');
const isFeedSearch = (r: { path: string; query: URLSearchParams }): boolean =>
  isSearch(r.path) && (r.query.get('q') ?? '').includes('id.gt:');
/** A feed search's key: the query as sent without its cursor, and the filter. */
const keyOf = (r: { query: URLSearchParams }): string =>
  `${(r.query.get('q') ?? '').replace(/, id\.gt:\d+$/, '')}\n${r.query.get('filter_id') ?? ''}`;
const isFeedPost = (r: { method: string; path: string }): boolean =>
  r.method === 'POST' && /^\/channels\/\d+\/messages$/.test(r.path);

/** Posts whose channel and nonce had been sent before. */
function repeatedNonces(posts: readonly { path: string; body: unknown }[]): number {
  const seen = new Set<string>();
  let repeated = 0;
  for (const post of posts) {
    const nonce = (post.body as { nonce?: unknown } | undefined)?.nonce;
    const key = `${post.path}\n${String(nonce)}`;
    if (seen.has(key)) repeated += 1;
    seen.add(key);
  }
  return repeated;
}

/** How many of `at` fall in each 10 s from `from`, over `spanMs`. */
function per10s(at: readonly number[], from: number, spanMs: number): number[] {
  return Array.from(
    { length: Math.ceil(spanMs / 10_000) },
    (_, i) => at.filter((t) => Math.floor((t - from) / 10_000) === i).length,
  );
}

/** Polls `check` every 100 ms until it gives something or `deadline` (Date.now()) passes. */
async function until<T>(check: () => T | undefined, deadline: number): Promise<T | undefined> {
  for (;;) {
    const found = check();
    if (found !== undefined || Date.now() >= deadline) return found;
    await sleep(100);
  }
}

// ------------------------------------------------------------------------------------------- workload

interface Job {
  readonly imageId: number;
  readonly userId: string;
  readonly channel: 'plain' | 'ageRestricted';
}

function workload(count: number, seed: number): Job[] {
  const random = createSeededRandom(seed);
  const pickId = zipf(HOT_IDS, 1.1, random);
  const members = Array.from({ length: MEMBERS }, (_, i) =>
    (900_000_000_000_000_000n + BigInt(i)).toString(),
  );
  return Array.from({ length: count }, () => ({
    imageId: pickId(),
    userId: members[Math.floor(random() * members.length)] ?? '',
    channel: random() < 0.6 ? 'plain' : 'ageRestricted',
  }));
}

type Answer = 'card' | 'not found' | 'site busy' | 'other';

interface Settled {
  readonly ackMs: number;
  readonly finalMs: number;
  readonly answer: Answer;
}

function classify(body: unknown): Answer {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const data = (
    typeof record['data'] === 'object' && record['data'] !== null ? record['data'] : record
  ) as Record<string, unknown>;
  const content = typeof data['content'] === 'string' ? data['content'] : '';
  if (Array.isArray(data['embeds']) && data['embeds'].length > 0) return 'card';
  if (/busy/i.test(content)) return 'site busy';
  if (/not found/i.test(content)) return 'not found';
  return 'other';
}

/** The acknowledgement and the final answer of an interaction, once both are in (refused calls ignored). */
function settledOf(handle: InteractionHandle): Settled | undefined {
  const accepted = handle.responses.filter((r) => r.status >= 200 && r.status < 300);
  const ack = accepted.find((r) => r.kind === 'callback');
  if (ack === undefined) return undefined;
  if (ack.callbackType === 4) return { ackMs: ack.ms, finalMs: ack.ms, answer: classify(ack.body) };
  const final = accepted.find((r) => r.kind === 'edit-original' || r.kind === 'followup');
  return final === undefined ? undefined : { ackMs: ack.ms, finalMs: final.ms, answer: classify(final.body) };
}

// ------------------------------------------------------------------------------------------------ run

interface InteractionFigures {
  readonly sent: number;
  readonly answered: number;
  readonly answers: Record<Answer, number>;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly ackP99: number;
  readonly sendSeconds: number;
  /** Date.now() of the first and last dispatch. */
  readonly from: number;
  readonly to: number;
  /** When the last answer came (Date.now()). */
  readonly lastAnswerAt: number;
  readonly imageCalls: number;
  readonly driverLagP99: number;
  readonly driverLagMax: number;
  /** Feed searches (board) and posts (Discord) from the first dispatch to the last answer. */
  readonly feedSearches: number;
  readonly feedPosts: number;
}

interface FeedFigures {
  readonly seedMs: number;
  /** Searches with `id.gt:` that arrived within one interval from the first. */
  readonly searches: number;
  readonly distinctKeys: number;
  readonly mostPerKey: number;
  /** From the first feed search to the first search of the last key searched (within the interval). */
  readonly allKeysMs: number;
  /** Keys searched at least once by the end of the observation. */
  readonly keysByEnd: number;
  /** From the first feed search to the end of the observation. */
  readonly observedMs: number;
  readonly postsByEnd: number;
  /** Feed searches and posts in each 10 s from the first search, over the watch. */
  readonly searchesPer10s: readonly number[];
  readonly postsPer10s: readonly number[];
  readonly otherBoardCalls: string;
  readonly maxIn5s: number;
  readonly searchMaxIn10s: number;
  readonly posts: number;
  readonly moreLines: number;
  readonly serversServed: number;
  /** Feed posts whose (channel, nonce) had been sent before: a send repeated (Discord creates nothing new). */
  readonly repeatedNonces: number;
  readonly channelReads: number;
  readonly firstSearchAfterReadyMs: number;
  /** When the calm burst started, from the first feed search. */
  readonly calmAtMs: number;
}

interface RunFigures {
  readonly startMs: number;
  readonly burst: InteractionFigures;
  readonly calm: InteractionFigures;
  readonly feeds: FeedFigures | undefined;
  readonly violations: number;
  readonly warnings: number;
  readonly errors: number;
  readonly topProblem: string;
  /** The poller's log lines at info and above, counted by message. */
  readonly pollerLines: string;
}

async function stopBot(bot: BotProcess): Promise<void> {
  bot.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([bot.exited, new Promise((resolve) => (timer = setTimeout(resolve, STOP_MS)))]);
  clearTimeout(timer);
  await bot.dispose();
}

/** Seeds the store file with the feeds and the board with their new images; resolves with the time taken. */
async function seedFeeds(
  storeUrl: string,
  env: Readonly<Record<string, string>>,
  discord: FakeDiscord,
  booru: FakePhilomena,
): Promise<number> {
  const started = performance.now();
  // The bot's own reading of its settings: the site id and the per-server limit are the ones it uses.
  const config = loadConfig(env);
  const images: number[] = [];
  for (let q = 0; q < QUERIES; q += 1) {
    for (let k = 0; k < IMAGES_PER_QUERY; k += 1)
      images.push(booru.addImage({ tags: ['safe', `feedq${q}`] }));
  }
  // The board's highest id before the feed images (ids only grow): every feed starts "from now".
  const cursor = Math.min(...images) - 1;
  const store = await openStore(storeUrl);
  try {
    const feeds = createFeedStore(store);
    for (let i = 0; i < FEEDS; i += 1) {
      const guild = discord.guilds[Math.floor(i / FEEDS_PER_SERVER)];
      if (guild === undefined)
        throw new Error(`the local Discord has no server ${Math.floor(i / FEEDS_PER_SERVER)}`);
      await feeds.add(
        {
          guildId: guild.id,
          channelId: guild.channels.plain,
          siteId: config.site.id,
          query: `feedq${i % QUERIES}`,
          createdBy: guild.ownerId,
          createdAt: Date.now(),
          cursor,
        },
        config.feedsPerServer,
      );
    }
    const seeded = (await feeds.guilds()).length;
    if (seeded !== SERVERS) throw new Error(`seeded ${seeded} servers, not ${SERVERS}`);
  } finally {
    await closeStore(store);
  }
  return performance.now() - started;
}

/** Sends `jobs` as /image at `perSecond` in the first server, waits for the answers (bounded), measures. */
async function burst(
  discord: FakeDiscord,
  booru: FakePhilomena,
  jobs: readonly Job[],
  perSecond: number,
): Promise<InteractionFigures> {
  const guild = discord.guild;
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const handles: InteractionHandle[] = [];
  const from = Date.now();
  const started = performance.now();
  for (const [i, job] of jobs.entries()) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    handles.push(
      discord.sendCommand({
        name: 'image',
        options: { id: String(job.imageId) },
        channel: guild.channels[job.channel],
        userId: job.userId,
      }),
    );
  }
  const to = Date.now();
  const sendSeconds = (performance.now() - started) / 1000;
  const deadline = performance.now() + SETTLE_MS;
  let open = handles;
  while (open.length > 0 && performance.now() < deadline) {
    await sleep(100);
    open = open.filter((h) => settledOf(h) === undefined);
  }
  lag.disable();
  const lastAnswerAt = Date.now();
  const settled = handles.flatMap((h) => {
    const s = settledOf(h);
    return s === undefined ? [] : [s];
  });
  const answers: Record<Answer, number> = { card: 0, 'not found': 0, 'site busy': 0, other: 0 };
  for (const s of settled) answers[s.answer] += 1;
  const finals = sorted(settled.map((s) => s.finalMs));
  const during = (at: number): boolean => at >= from && at <= lastAnswerAt;
  return {
    sent: handles.length,
    answered: settled.length,
    answers,
    p50: percentile(finals, 50),
    p99: percentile(finals, 99),
    max: finals.at(-1) ?? Number.NaN,
    ackP99: percentile(sorted(settled.map((s) => s.ackMs)), 99),
    sendSeconds,
    from,
    to,
    lastAnswerAt,
    imageCalls: booru.requests.filter((r) => r.path.startsWith('/api/v1/json/images/') && during(r.at))
      .length,
    driverLagP99: lag.percentile(99) / 1e6,
    driverLagMax: lag.max / 1e6,
    feedSearches: booru.requests.filter((r) => isFeedSearch(r) && during(r.at)).length,
    feedPosts: discord.requests.filter((r) => isFeedPost(r) && during(r.at)).length,
  };
}

async function run(
  withFeeds: boolean,
  loads: { burst: readonly Job[]; calm: readonly Job[] },
): Promise<RunFigures> {
  const dir = await mkdtemp(path.join(tmpdir(), 'philomena-bot-feeds-bench-'));
  let discord: FakeDiscord | undefined;
  let booru: FakePhilomena | undefined;
  let bot: BotProcess | undefined;
  try {
    discord = await startFakeDiscord({ guilds: SERVERS });
    booru = await startFakePhilomena({ latencyMs: BOARD_LATENCY_MS });
    const storeUrl = `sqlite://${path.join(dir, 'bot.sqlite')}`;
    const env = {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      BOORU_URL: booru.url,
      STORE_URL: storeUrl,
      // info: "bot ready" is an info line.
      LOG_LEVEL: 'info',
      UNFURL: 'off',
      COMMAND_RATE_LIMIT: 'off',
      FEED_INTERVAL,
      // The images are uploaded during the run: without this a plain-channel feed would hold them for
      // FEED_SETTLE (30 min). Each is still read fresh from the board before it is posted there.
      FEED_SETTLE: '0',
    };
    const seedMs = withFeeds ? await seedFeeds(storeUrl, env, discord, booru) : 0;

    const starting = performance.now();
    bot = await startBotProcess(env);
    await bot.waitForLog((l) => l['msg'] === 'bot ready', READY_TIMEOUT_MS);
    const readyAt = Date.now();
    const startMs = performance.now() - starting;

    // ---- the asked-for burst, at once: the poller's first round started with "bot ready"
    const board = booru;
    const first = await burst(discord, board, loads.burst, BURST.perSecond);
    // ---- the calm burst: in the feeds run once the poller is posting in full swing
    const firstSearch = withFeeds
      ? await until(() => board.requests.find(isFeedSearch), readyAt + FIRST_SEARCH_TIMEOUT_MS)
      : undefined;
    const t0 = firstSearch?.at ?? readyAt;
    if (withFeeds) await until(() => (Date.now() >= t0 + CALM_AT_MS ? true : undefined), t0 + CALM_AT_MS);
    const calmAt = Date.now();
    const calm = await burst(discord, board, loads.calm, CALM.perSecond);

    // ---- one whole interval of polling from the first feed search, and on until every key was searched
    let feeds: FeedFigures | undefined;
    if (withFeeds) {
      const end = t0 + INTERVAL_MS;
      await until(() => (Date.now() > end + 1000 ? true : undefined), end + 2000);
      const keysSearched = (): number => new Set(board.requests.filter(isFeedSearch).map(keyOf)).size;
      await until(() => (keysSearched() >= QUERIES ? true : undefined), t0 + OBSERVE_MAX_MS);
      const observedMs = Date.now() - t0;

      const allSearches = board.requests.filter((r) => isFeedSearch(r) && r.at >= t0);
      const searches = allSearches.filter((r) => r.at < end);
      const perKey = new Map<string, number[]>();
      for (const r of allSearches) perKey.set(keyOf(r), [...(perKey.get(keyOf(r)) ?? []), r.at]);
      const others = new Map<string, number>();
      for (const r of board.requests) {
        if (r.at < t0 || r.at >= end || !isApi(r.path) || isFeedSearch(r)) continue;
        // Image reads count too: outside age-restricted channels each image is read fresh before its post.
        const what = r.path.replace(/^\/api\/v1\/json/, '').replace(/\/\d+$/, '/:id');
        others.set(what, (others.get(what) ?? 0) + 1);
      }
      const postsOf = (from: number, to: number) => {
        const bodies = discord?.requests
          .filter((r) => isFeedPost(r) && r.at >= from && r.at < to && r.status >= 200 && r.status < 300)
          .map((r) => r.body);
        return {
          // A post of a video is a Components V2 card, without embeds (bench/answers.ts reads both forms).
          cards: (bodies ?? []).filter((b) => cardsIn(b) > 0).length,
          more: (bodies ?? []).filter((b) => messageOf(b).content?.includes('more new image') === true)
            .length,
        };
      };
      const inInterval = postsOf(t0, end);
      const channelsServed = new Set(
        discord.requests.filter((r) => isFeedPost(r) && r.status < 300).map((r) => r.path.split('/')[2]),
      );
      const firsts = [...perKey.values()].map((times) => Math.min(...times));
      feeds = {
        seedMs,
        searches: searches.length,
        distinctKeys: new Set(searches.map(keyOf)).size,
        mostPerKey: Math.max(0, ...[...perKey.values()].map((times) => maxInWindow(times, INTERVAL_MS))),
        keysByEnd: perKey.size,
        allKeysMs: perKey.size < QUERIES ? Number.NaN : Math.max(...firsts) - t0,
        observedMs,
        otherBoardCalls:
          others.size === 0
            ? 'none'
            : [...others.entries()].map(([what, n]) => `${count(n)} ${what}`).join(', '),
        maxIn5s: maxInWindow(
          board.requests.filter((r) => isApi(r.path) && r.at >= readyAt).map((r) => r.at),
          5000,
        ),
        searchMaxIn10s: maxInWindow(
          board.requests.filter((r) => isSearch(r.path) && r.at >= readyAt).map((r) => r.at),
          10_000,
        ),
        posts: inInterval.cards,
        moreLines: inInterval.more,
        postsByEnd: postsOf(t0, Infinity).cards,
        searchesPer10s: per10s(
          allSearches.map((r) => r.at),
          t0,
          observedMs,
        ),
        postsPer10s: per10s(
          discord.requests.filter((r) => isFeedPost(r) && r.at >= t0).map((r) => r.at),
          t0,
          observedMs,
        ),
        serversServed: discord.guilds.filter((g) => channelsServed.has(g.channels.plain)).length,
        repeatedNonces: repeatedNonces(discord.requests.filter(isFeedPost)),
        channelReads: discord.requests.filter(
          (r) => r.method === 'GET' && /^\/channels\/\d+$/.test(r.path) && r.at >= readyAt,
        ).length,
        firstSearchAfterReadyMs: firstSearch === undefined ? Number.NaN : firstSearch.at - readyAt,
        calmAtMs: calmAt - t0,
      };
    }

    const lines = bot.logLines();
    const problems = new Map<string, number>();
    for (const l of lines) {
      if (typeof l['level'] === 'number' && l['level'] >= 40) {
        const key = String(l['msg']);
        problems.set(key, (problems.get(key) ?? 0) + 1);
      }
    }
    const top = [...problems.entries()].sort((a, b) => b[1] - a[1]).slice(0, 2);
    // The poller's own lines (its logger carries task: 'feeds'): a search that failed or waited too long.
    const pollerLines = new Map<string, number>();
    for (const l of lines) {
      if (l['task'] !== 'feeds' || typeof l['level'] !== 'number' || l['level'] < 30) continue;
      const key = String(l['msg']);
      pollerLines.set(key, (pollerLines.get(key) ?? 0) + 1);
    }
    return {
      startMs,
      burst: first,
      calm,
      feeds,
      violations: discord.violations.length,
      warnings: lines.filter((l) => l['level'] === 40).length,
      errors: lines.filter((l) => typeof l['level'] === 'number' && l['level'] >= 50).length,
      topProblem: top.map(([msg, n]) => `${n}x "${msg}"`).join(', '),
      pollerLines:
        pollerLines.size === 0
          ? 'none'
          : [...pollerLines.entries()].map(([msg, n]) => `${n}x "${msg}"`).join(', '),
    };
  } finally {
    if (bot !== undefined) await stopBot(bot);
    await discord?.close();
    await booru?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------------------------ rows

const both = (x: string, y: string): string => `${x} | ${y}`;

/** One burst of interactions, without feeds and with them, side by side. */
function burstRows(what: string, sent: number, a: InteractionFigures, b: InteractionFigures): BenchRow[] {
  return [
    {
      group: GROUP,
      metric: `${what}: answered, no feeds | ${count(FEEDS)} feeds`,
      value: both(count(a.answered), count(b.answered)),
      goal: count(sent),
      ok: a.answered === sent && b.answered === sent,
    },
    {
      group: GROUP,
      metric: `${what}: time to final answer p50 / p99, no feeds | ${count(FEEDS)} feeds`,
      value: both(`${msText(a.p50)} / ${msText(a.p99)}`, `${msText(b.p50)} / ${msText(b.p99)}`),
    },
    {
      group: GROUP,
      metric: `${what}: time to final answer max; to acknowledgement p99`,
      value: both(`${msText(a.max)}; ${msText(a.ackP99)}`, `${msText(b.max)}; ${msText(b.ackP99)}`),
    },
    {
      group: GROUP,
      metric: `${what}: feed searches / posts from the first interaction to the last answer`,
      value: both(
        `${count(a.feedSearches)} / ${count(a.feedPosts)}`,
        `${count(b.feedSearches)} / ${count(b.feedPosts)} (in ${((b.lastAnswerAt - b.from) / 1000).toFixed(1)} s)`,
      ),
    },
    {
      group: GROUP,
      metric: `${what}: answers card / not found / busy / other; board image calls; sent in; driver delay p99 / max`,
      value: both(
        `${a.answers.card} / ${a.answers['not found']} / ${a.answers['site busy']} / ${a.answers.other}; ${count(a.imageCalls)}; ${a.sendSeconds.toFixed(1)} s; ${msText(a.driverLagP99)} / ${msText(a.driverLagMax)}`,
        `${b.answers.card} / ${b.answers['not found']} / ${b.answers['site busy']} / ${b.answers.other}; ${count(b.imageCalls)}; ${b.sendSeconds.toFixed(1)} s; ${msText(b.driverLagP99)} / ${msText(b.driverLagMax)}`,
      ),
    },
  ];
}

function rowsOf(none: RunFigures, feeds: RunFigures): BenchRow[] {
  const f = feeds.feeds;
  if (f === undefined) throw new Error('the feeds run has no feed figures');
  return [
    {
      group: GROUP,
      metric: `board searches in one interval (${FEED_INTERVAL}) from the first: ${count(FEEDS)} feeds, ${count(SERVERS)} servers, ${QUERIES} distinct queries`,
      value: count(f.searches),
      goal: `${QUERIES} (one per key)`,
      ok: f.searches === QUERIES,
    },
    {
      group: GROUP,
      metric: 'distinct keys searched in that interval / most searches of one key in any interval',
      value: `${count(f.distinctKeys)} / ${count(f.mostPerKey)}`,
      goal: `${QUERIES} / 1`,
      ok: f.distinctKeys === QUERIES && f.mostPerKey === 1,
    },
    {
      group: GROUP,
      metric: `first feed search after "bot ready"; every key searched once (watched up to ${OBSERVE_MAX_MS / 1000} s); the ${CALM.perSecond}/s burst began`,
      value: `${msText(f.firstSearchAfterReadyMs)}; ${
        Number.isNaN(f.allKeysMs)
          ? `only ${count(f.keysByEnd)} of ${QUERIES} keys in ${msText(f.observedMs)}`
          : `${msText(f.allKeysMs)} after the first search`
      }; ${msText(f.calmAtMs)} after it`,
    },
    {
      group: GROUP,
      metric:
        'other board calls of the poller in that interval (an image read fresh before each plain-channel post)',
      value: f.otherBoardCalls,
    },
    {
      group: GROUP,
      metric: `feeds run: most board calls in any 5 s / searches in any 10 s (interactions and feeds, from "bot ready")`,
      value: `${count(f.maxIn5s)} / ${count(f.searchMaxIn10s)}`,
      goal: `<= ${BUDGET_PER_5S} / <= ${SEARCH_BUDGET_PER_10S}`,
      ok: f.maxIn5s <= BUDGET_PER_5S && f.searchMaxIn10s <= SEARCH_BUDGET_PER_10S,
    },
    {
      group: GROUP,
      metric: `feed posts (cards) in that interval ("more" lines); by the end of the watch; servers posted to`,
      value: `${count(f.posts)} of ${count(FEEDS * IMAGES_PER_QUERY)} (${count(f.moreLines)}); ${count(f.postsByEnd)} in ${msText(f.observedMs)}; ${count(f.serversServed)} of ${count(SERVERS)}`,
    },
    {
      group: GROUP,
      metric: 'feed searches; posts, in each 10 s from the first search',
      value: `${f.searchesPer10s.join(', ')}; ${f.postsPer10s.join(', ')}`,
    },
    {
      group: GROUP,
      metric: "the poller's log lines (info and above)",
      value: feeds.pollerLines,
    },
    {
      group: GROUP,
      metric: 'posts repeating an earlier (channel, nonce) / channel reads over REST (not from the cache)',
      value: `${count(f.repeatedNonces)} / ${count(f.channelReads)}`,
    },
    ...burstRows(
      `${count(BURST.count)} /image at ${BURST.perSecond}/s`,
      BURST.count,
      none.burst,
      feeds.burst,
    ),
    ...burstRows(`${count(CALM.count)} /image at ${CALM.perSecond}/s`, CALM.count, none.calm, feeds.calm),
    {
      group: GROUP,
      metric: 'seeding the store; start to "bot ready": no feeds | feeds',
      value: both(`${msText(none.startMs)}`, `${msText(f.seedMs)}; ${msText(feeds.startMs)}`),
    },
    {
      group: GROUP,
      metric: 'Discord violations; bot log lines warn / error: no feeds | feeds',
      value: both(
        `${count(none.violations)}; ${count(none.warnings)} / ${count(none.errors)}${none.topProblem === '' ? '' : ` (${none.topProblem})`}`,
        `${count(feeds.violations)}; ${count(feeds.warnings)} / ${count(feeds.errors)}${feeds.topProblem === '' ? '' : ` (${feeds.topProblem})`}`,
      ),
      goal: '0 | 0 violations',
      ok: none.violations === 0 && feeds.violations === 0,
    },
  ];
}

export default (async () => {
  // The network guard of the tests: a connection to anything but loopback fails at once.
  await import('../test/setup.js');
  const loads = { burst: workload(BURST.count, 20240707), calm: workload(CALM.count, 20240708) };
  const none = await run(false, loads);
  const feeds = await run(true, loads);
  return rowsOf(none, feeds);
}) satisfies Bench;
