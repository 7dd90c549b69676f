/**
 * `npm run bench memory`: what a server costs the bot, and how it starts and reconnects at that size
 * (issue 23, §2 and §3). The bench's local Discord (bench/bot-discord.ts) generates, after READY as Discord
 * does, servers of the issue's shape: 2 categories, 20 text channels (2 age-restricted, one private with
 * permission overwrites), a voice channel, 3 threads, 10 roles and 50 members in the initial payload. One
 * shard per 2,500 servers, as Discord requires.
 *
 * At each size the bot runs in its own process (bench/bot-process.ts compiled with tsc and run by plain
 * Node, as `npm start` runs the bot, with --expose-gc) twice, as the bot is (discord.js caching nothing,
 * src/discord/server-facts.ts beside it) and then with discord.js's default caches, against the same Discord in the same run (one after
 * the other: two at once on 2 cores timed out their gateway handshakes at 50,000 servers): RSS and heap
 * after a forced GC once the client has read every server (each shard answered a heartbeat with the
 * sequence of its last GUILD_CREATE), and what each server costs. At the timed size (10,000 servers) also
 * the time to ready, to the first answer (a board link posted the moment the bot says it is ready), and a
 * reconnect of every shard, resumed (closed with 4000) and fresh (INVALID_SESSION, every server again),
 * with the memory after each.
 *
 * Figures, not assertions: the goal columns say whether today's figures meet issue 23's goals.
 */
import { IDS } from '../test/fakes/philomena/data.js';
import { FAKE_KEY, startFakePhilomena, type FakePhilomena } from '../test/fakes/philomena/index.js';
import { startBenchDiscord, type BenchDiscord, type WorldShape } from './bot-discord.js';
import { startBotChild, type BotBuild, type BotChild } from './bot-child.js';
import type { MemoryFigures } from './bot-process.js';
import type { Bench, BenchRow } from './report.js';

export interface MemorySize {
  /** Server counts, ascending; the per-server increments are between neighbours. */
  readonly servers: readonly number[];
  /** The size at which start, first answer and reconnects are timed (one bot at a time). */
  readonly timedAt: number;
  /** Identifies per 5 s Discord allows (`max_concurrency`): 1 for a bot of this size. */
  readonly maxConcurrency: number;
  readonly readyTimeoutMs: number;
  /** The bots' heap limit: discord.js's defaults at 50,000 servers pass Node's default (about 4 GiB). */
  readonly maxOldSpaceMiB?: number;
  /** How the bots run (bot-child.ts): compiled for the figures, under tsx in the tests. Default tsx. */
  readonly build?: BotBuild;
}

export const FULL: MemorySize = {
  servers: [1000, 10_000, 50_000],
  timedAt: 10_000,
  maxConcurrency: 1,
  readyTimeoutMs: 600_000,
  maxOldSpaceMiB: 12_288,
  build: 'compiled',
};

/** Issue 23's server. */
const SHAPE: Omit<WorldShape, 'guilds'> = {
  layout: 'issue-23',
  channels: 0,
  roles: 10,
  members: 50,
  presences: 0,
};
const GOAL_RATIO = 3.3;
const GOAL_RSS = 200 * 2 ** 20;
const GOAL_INCREMENT = 4 * 1024;
const ANSWER_TIMEOUT_MS = 30_000;

type Caches = 'tuned' | 'default';
const CACHES: readonly Caches[] = ['tuned', 'default'];
const CACHE_NAMES: Record<Caches, string> = { tuned: 'tuned', default: 'discord.js defaults' };

const count = (n: number): string => n.toLocaleString('en-US');
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
const msText = (n: number): string => `${count(Math.round(n))} ms`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const memoryText = (m: MemoryFigures): string => `${mib(m.rss)} (heap ${mib(m.heapUsed)})`;

interface Timings {
  /** From the launch of the bot's process (tsx compiling it included) to ready. */
  readonly launchMs: number;
  readonly readyMs: number;
  readonly firstAnswerMs: number;
  readonly resume: { readonly ms: number; readonly memory: MemoryFigures };
  readonly fresh: { readonly ms: number; readonly memory: MemoryFigures };
}

interface Measured {
  readonly idle: MemoryFigures;
  readonly memory: MemoryFigures;
  readonly cached: Record<string, number>;
  readonly timings?: Timings;
}

function startBot(
  caches: Caches,
  discord: BenchDiscord,
  booru: FakePhilomena,
  size: MemorySize,
): Promise<BotChild> {
  const input = {
    discordApiUrl: discord.apiUrl,
    discordToken: discord.token,
    booruUrl: booru.url,
    booruKey: FAKE_KEY,
    caches,
  };
  return startBotChild(input, size.readyTimeoutMs, size.maxOldSpaceMiB, size.build);
}

/** Posts a board link in the last server and waits for the bot's reply to it. */
async function firstAnswer(discord: BenchDiscord, booru: FakePhilomena): Promise<void> {
  const id = discord.dispatchMessage({
    guild: discord.guilds.length - 1,
    channel: 0,
    author: 0,
    content: `look ${booru.url}/images/${IDS.safe}`,
  });
  const deadline = performance.now() + ANSWER_TIMEOUT_MS;
  while (!discord.sent.some((m) => m.replyTo === id)) {
    if (performance.now() > deadline) throw new Error('memory bench: no answer to the first link');
    await sleep(2);
  }
}

/** One bot alone: start, memory once every server is read; at the timed size first answer and reconnects. */
async function measure(
  caches: Caches,
  discord: BenchDiscord,
  booru: FakePhilomena,
  size: MemorySize,
  timed: boolean,
): Promise<Measured> {
  const launched = performance.now();
  const bot = await startBot(caches, discord, booru, size);
  try {
    const readyAt = performance.now();
    if (!timed) {
      await discord.caughtUp(discord.shards, size.readyTimeoutMs);
      return { idle: bot.idle, ...(await bot.request('memory')) };
    }
    await firstAnswer(discord, booru);
    // From bot.start() (as main.ts calls it), not from the launch of a Node process that compiles the bot.
    const readyMs = bot.startMs;
    const firstAnswerMs = bot.startMs + (performance.now() - readyAt);
    const launchMs = readyAt - launched;
    await discord.caughtUp(discord.shards, size.readyTimeoutMs);
    const { memory, cached } = await bot.request('memory');
    const resumeMs = await discord.dropSessions('resume', size.readyTimeoutMs);
    const afterResume = await bot.request('memory');
    const freshMs = await discord.dropSessions('fresh', size.readyTimeoutMs);
    const afterFresh = await bot.request('memory');
    return {
      idle: bot.idle,
      memory,
      cached,
      timings: {
        launchMs,
        readyMs,
        firstAnswerMs,
        resume: { ms: resumeMs, memory: afterResume.memory },
        fresh: { ms: freshMs, memory: afterFresh.memory },
      },
    };
  } finally {
    await bot.stop();
  }
}

function cachedSummary(cached: Record<string, number>): string {
  return Object.entries(cached)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([name, n]) => `${name.replace(/Manager$/, '')} ${count(n)}`)
    .join(', ');
}

function sizeRows(servers: number, shards: number, by: Record<Caches, Measured>): BenchRow[] {
  const group = `memory, ${count(servers)} servers (${shards} shard${shards === 1 ? '' : 's'})`;
  const tuned = by.tuned.memory.rss;
  const ratio = by.default.memory.rss / tuned;
  const rows: BenchRow[] = [];
  for (const caches of CACHES) {
    const m = by[caches];
    rows.push({
      group,
      metric: `RSS after GC, ${CACHE_NAMES[caches]} (idle bot ${mib(m.idle.rss)})`,
      value: memoryText(m.memory),
      ...(caches === 'tuned' && servers === FULL.timedAt
        ? { goal: `< ${mib(GOAL_RSS)}`, ok: tuned < GOAL_RSS }
        : {}),
    });
    rows.push({
      group,
      metric: `per server over the idle bot, ${CACHE_NAMES[caches]}`,
      value: `${kib((m.memory.rss - m.idle.rss) / servers)} (heap ${kib((m.memory.heapUsed - m.idle.heapUsed) / servers)})`,
    });
  }
  rows.push({
    group,
    metric: 'RSS defaults / tuned (heap)',
    value: `${ratio.toFixed(2)}x (${(by.default.memory.heapUsed / by.tuned.memory.heapUsed).toFixed(2)}x)`,
    ...(servers === FULL.timedAt ? { goal: `>= ${GOAL_RATIO}x`, ok: ratio >= GOAL_RATIO } : {}),
  });
  rows.push({ group, metric: 'cache entries, tuned', value: cachedSummary(by.tuned.cached) });
  rows.push({ group, metric: 'cache entries, defaults', value: cachedSummary(by.default.cached) });
  return rows;
}

function incrementRows(
  from: number,
  to: number,
  low: Record<Caches, Measured>,
  high: Record<Caches, Measured>,
): BenchRow[] {
  const group = `memory, ${count(from)} to ${count(to)} servers`;
  return CACHES.map((caches) => {
    const perServer = (high[caches].memory.rss - low[caches].memory.rss) / (to - from);
    const heap = (high[caches].memory.heapUsed - low[caches].memory.heapUsed) / (to - from);
    const goal = caches === 'tuned' && from === FULL.servers[0] && to === FULL.timedAt;
    return {
      group,
      metric: `RSS added by each further server, ${CACHE_NAMES[caches]}`,
      value: `${kib(perServer)} (heap ${kib(heap)})`,
      ...(goal ? { goal: `<= ${kib(GOAL_INCREMENT)}`, ok: perServer <= GOAL_INCREMENT } : {}),
    };
  });
}

function timingRows(servers: number, by: Record<Caches, Measured>): BenchRow[] {
  const group = `start and reconnect, ${count(servers)} servers`;
  const both = (pick: (t: Timings) => string): string =>
    CACHES.map((c) => {
      const t = by[c].timings;
      return t === undefined ? 'n/a' : pick(t);
    }).join(' / ');
  return [
    {
      group,
      metric: 'time from start to ready (every shard, registration; from process launch), tuned / defaults',
      value: both((t) => `${msText(t.readyMs)} (${msText(t.launchMs)})`),
    },
    {
      group,
      metric: 'time from start to the first answer (a link posted at ready), tuned / defaults',
      value: both((t) => msText(t.firstAnswerMs)),
    },
    {
      group,
      metric: 'every shard resumed (closed 4000): time, then RSS after GC, tuned / defaults',
      value: both((t) => `${msText(t.resume.ms)}, ${mib(t.resume.memory.rss)}`),
    },
    {
      group,
      metric: 'every shard a fresh session (INVALID_SESSION): time, then RSS after GC, tuned / defaults',
      value: both((t) => `${msText(t.fresh.ms)}, ${mib(t.fresh.memory.rss)}`),
    },
  ];
}

export async function runMemory(size: MemorySize): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const measured = new Map<number, Record<Caches, Measured>>();
  const booru = await startFakePhilomena({ latencyMs: 0 });
  try {
    for (const servers of size.servers) {
      process.stderr.write(`  memory: ${count(servers)} servers ...\n`);
      const discord = await startBenchDiscord(
        { guilds: servers, ...SHAPE },
        { sharded: true, maxConcurrency: size.maxConcurrency },
      );
      try {
        // One after the other against the same Discord: neither takes CPU from the other.
        const timed = servers === size.timedAt;
        const by: Record<Caches, Measured> = {
          tuned: await measure('tuned', discord, booru, size, timed),
          default: await measure('default', discord, booru, size, timed),
        };
        measured.set(servers, by);
        rows.push(...sizeRows(servers, discord.shards, by));
        if (by.tuned.timings !== undefined) rows.push(...timingRows(servers, by));
        if (discord.unknownRoutes.length > 0) {
          rows.push({
            group: `memory, ${count(servers)} servers`,
            metric: 'REST calls the bench Discord does not know',
            value: [...new Set(discord.unknownRoutes)].join(', '),
          });
        }
      } finally {
        await discord.close();
      }
    }
  } finally {
    await booru.close();
  }
  for (let i = 1; i < size.servers.length; i += 1) {
    const from = size.servers[i - 1] ?? 0;
    const to = size.servers[i] ?? 0;
    const low = measured.get(from);
    const high = measured.get(to);
    if (low !== undefined && high !== undefined) rows.push(...incrementRows(from, to, low, high));
  }
  return rows;
}

export default (async () => {
  // The network guard of the tests: a connection to anything but loopback fails at once.
  await import('../test/setup.js');
  return runMemory(FULL);
}) satisfies Bench;
