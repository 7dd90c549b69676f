/**
 * Shards over processes (SHARD_COUNT / SHARD_IDS with a Redis store): does splitting the bot over two
 * processes cost the board more than one process does? Two processes share the board budget (30 requests
 * per 5 s overall), the cache and the Retry-After pause through Redis; if any of that leaked, the board
 * would see more calls, or more than the budget in some 5 s, with two processes than with one.
 *
 * The same workload runs three times at each of two rates (100 and 200 interactions a second), each time
 * on a fresh Redis, a fresh local Philomena (answering after 50 ms, so the caches start cold) and a fresh
 * local Discord recommending 2 shards (max_concurrency 2), whose two servers sit one on each shard:
 *
 * 1. ONE bot process with SHARD_COUNT=2 and SHARD_IDS=0,1 (both shards);
 * 2. TWO bot processes, SHARD_IDS=0 and SHARD_IDS=1;
 * 3. ONE bot process with DISCORD_INTERACTIONS_GLOBAL_LIMIT=on: interaction answers held to the global
 *    limit of 50 requests a second as @discordjs/rest holds them by itself (the behaviour before issue 23).
 *
 * Each bot is the real entry point (src/main.ts through tsx, with the network guard of the tests
 * preloaded: test/lifecycle/bot-process.ts), with COMMAND_RATE_LIMIT=off so no per-member cooldown binds
 * and UNFURL=off. The workload (seeded, identical for every run): 600 /image interactions at the run's rate,
 * alternating between the two servers (so both shards get half), image ids drawn Zipf-like over the ~230
 * ids of the local Philomena (as bench/bot.bench.ts: some repeat, many do not), from 2,000 members.
 *
 * Per run: interactions answered (a final reply of any kind; "the site is busy" counts, a missing one does
 * not), board API calls, the most that arrived in any 5 s (sliding, on the board's arrival clock, which
 * shares this process's event loop with the local Discord, so a late tick can bunch arrivals slightly), and
 * time to the final answer on the local Discord's own record (all, and repeats: ids whose answer had gone
 * out before the interaction came, i.e. answers from the cache), the answers sent to Discord in each
 * second, and the global 429s the local Discord sent (it applies Discord's global limit, 50 requests a
 * second off the interaction routes: test/fakes/discord/global-limit.ts). By itself @discordjs/rest holds
 * each process to its own 50 a second (globalRequestsPerSecond); the deferral callback is exempt, but the
 * edit that carries the answer (PATCH /webhooks/:app/:token/messages/@original) is not, so with the switch
 * one process queues its answers, cache hits included, and two do not. Without it (the default since
 * issue 23: src/discord/interaction-rest.ts) interaction answers are not held to the global limit, as
 * Discord does not hold them, and one process answers as fast as two.
 * Board calls made while the bots started (before every one logged "bot ready") are not counted.
 *
 * Everything listens on and connects to 127.0.0.1 only; every wait is bounded (about 3 minutes in all on a
 * 2-core machine).
 */
import { startFakeDiscord, type FakeDiscord, type InteractionHandle } from '../test/fakes/discord/index.js';
import { startFakePhilomena, type FakePhilomena } from '../test/fakes/philomena/index.js';
import { startBotProcess, type BotProcess } from '../test/lifecycle/bot-process.js';
import { createSeededRandom } from '../test/support/random.js';
import { startRedis, type TestRedis } from '../test/support/redis.js';
import { percentile, type Bench, type BenchRow } from './report.js';
import { imagePool, shuffled, zipf } from './workload.js';
import { classifyAnswer, type Answer, type Classified } from './answers.js';
import { mostInAnySpan as maxInWindow } from '../test/support/arrivals.js';

const GROUP = 'scale';
const SHARDS = 2;
const BOARD_LATENCY_MS = 50;
const INTERACTIONS = 600;
const RATES = [100, 200] as const;
/** Answers from the cache, one process: the goal of issue 23 (p50, p99). */
const CACHED_P50_GOAL_MS = 50;
const CACHED_P99_GOAL_MS = 500;
/** Enough members that a per-member cooldown would not bind even if it were on. */
const MEMBERS = 2000;
/** The board's budget over all processes: at most this many requests in any 5 s. */
const BUDGET_PER_5S = 30;
/** Two processes may make at most this much more board calls than one (timing noise, not a leak). */
const CALLS_SLACK = 1.1;
/** Start of the bot(s): tsx compiles src/ on the fly, two at once on a small machine. */
const READY_TIMEOUT_MS = 60_000;
/** After the last interaction: how long answers may still come (the budget waits up to 15 s). */
const SETTLE_MS = 30_000;
/** SIGTERM, then this long for a clean exit before SIGKILL. */
const STOP_MS = 5_000;

// ---------------------------------------------------------------------------------------------- helpers

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const count = (n: number): string => n.toLocaleString('en-US');
const msText = (n: number): string => (Number.isNaN(n) ? 'n/a' : `${count(Math.round(n))} ms`);
const sorted = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

/** Board API calls in the request log, and the most that arrived in any `windowMs` span. */
function boardFigures(booru: FakePhilomena, windowMs: number): { calls: number; maxInWindow: number } {
  const times = booru.requests.filter((r) => r.path.startsWith('/api/')).map((r) => r.at);
  return { calls: times.length, maxInWindow: maxInWindow(times, windowMs) };
}

// ------------------------------------------------------------------------------------------- workload

interface Job {
  /** Index into the local Discord's servers: alternates, so each shard gets half. */
  readonly guild: number;
  readonly imageId: number;
  readonly userId: string;
}

/** The same list for both runs (seeded). */
function workload(): Job[] {
  const random = createSeededRandom(20240611);
  const pickId = zipf(shuffled(imagePool(), random), 1.1, random);
  const members = Array.from({ length: MEMBERS }, (_, i) =>
    (900_000_000_000_000_000n + BigInt(i)).toString(),
  );
  return Array.from({ length: INTERACTIONS }, (_, i) => ({
    guild: i % SHARDS,
    imageId: pickId(),
    userId: members[Math.floor(random() * members.length)] ?? '',
  }));
}

/** The answers this bench counts apart; every other kind is "other". */
type Tally = 'card' | 'not found' | 'site busy' | 'other';

const tallyOf = (answer: Answer): Tally =>
  answer === 'card' || answer === 'not found' || answer === 'site busy' ? answer : 'other';

interface Settled extends Classified {
  readonly ackMs: number;
  readonly finalMs: number;
}

/** The acknowledgement and the final answer of an interaction, once both are in (refused calls ignored). */
function settledOf(handle: InteractionHandle): Settled | undefined {
  const accepted = handle.responses.filter((r) => r.status >= 200 && r.status < 300);
  const ack = accepted.find((r) => r.kind === 'callback');
  if (ack === undefined) return undefined;
  if (ack.callbackType === 4) return { ackMs: ack.ms, finalMs: ack.ms, ...classifyAnswer(ack.body) };
  const final = accepted.find((r) => r.kind === 'edit-original' || r.kind === 'followup');
  return final === undefined
    ? undefined
    : { ackMs: ack.ms, finalMs: final.ms, ...classifyAnswer(final.body) };
}

// ------------------------------------------------------------------------------------------------ run

/** Which shards each bot process holds. */
type Layout = readonly (readonly number[])[];

interface RunFigures {
  readonly label: string;
  readonly answered: number;
  readonly acknowledgedIn3s: number;
  readonly answers: Record<Tally, number>;
  /** Cards sent as Components V2 (a video), counted in `answers.card`. */
  readonly v2Cards: number;
  readonly calls: number;
  readonly maxIn5s: number;
  /** Answers sent to Discord in each whole second from the first interaction, while they came. */
  readonly editsPerSecond: readonly number[];
  readonly repeats: number;
  readonly repeatP50: number;
  readonly repeatP99: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly ackP50: number;
  readonly ackP99: number;
  readonly startMs: number;
  readonly sendSeconds: number;
  readonly violations: number;
  /** 429s with `global: true` the local Discord sent (the bots went past 50 requests a second). */
  readonly global429s: number;
  readonly undelivered: number;
  readonly warnings: number;
  readonly errors: number;
  readonly topProblem: string;
}

async function stopBot(bot: BotProcess): Promise<void> {
  bot.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([bot.exited, new Promise((resolve) => (timer = setTimeout(resolve, STOP_MS)))]);
  clearTimeout(timer);
  await bot.dispose();
}

interface RunPlan {
  readonly label: string;
  readonly layout: Layout;
  /** Interactions dispatched per second. */
  readonly rate: number;
  /** Interaction answers under the global limit (DISCORD_INTERACTIONS_GLOBAL_LIMIT=on). */
  readonly globalLimitOnAnswers: boolean;
}

async function run(plan: RunPlan, jobs: readonly Job[]): Promise<RunFigures> {
  const { label, layout } = plan;
  let redis: TestRedis | undefined;
  let discord: FakeDiscord | undefined;
  let booru: FakePhilomena | undefined;
  const bots: BotProcess[] = [];
  try {
    redis = await startRedis();
    discord = await startFakeDiscord({ shards: SHARDS, maxConcurrency: SHARDS });
    booru = await startFakePhilomena({ latencyMs: BOARD_LATENCY_MS });
    const env = {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      BOORU_URL: booru.url,
      STORE_URL: redis.url,
      // info: "bot ready" is an info line.
      LOG_LEVEL: 'info',
      UNFURL: 'off',
      COMMAND_RATE_LIMIT: 'off',
      SHARD_COUNT: String(SHARDS),
      DISCORD_INTERACTIONS_GLOBAL_LIMIT: plan.globalLimitOnAnswers ? 'on' : 'off',
    };
    const starting = performance.now();
    for (const shards of layout) bots.push(await startBotProcess({ ...env, SHARD_IDS: shards.join(',') }));
    await Promise.all(bots.map((bot) => bot.waitForLog((l) => l['msg'] === 'bot ready', READY_TIMEOUT_MS)));
    const startMs = performance.now() - starting;
    await discord.waitFor(
      () => (discord?.registeredCommands().some((c) => c.name === 'image') === true ? true : undefined),
      10_000,
    );
    booru.reset();

    const guilds = discord.guilds;
    const handles: InteractionHandle[] = [];
    /** Date.now() at each dispatch: the clock of the local Discord's records. */
    const sentAt: number[] = [];
    const started = performance.now();
    for (const [i, job] of jobs.entries()) {
      const due = started + (i * 1000) / plan.rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const guild = guilds[job.guild];
      if (guild === undefined) throw new Error(`the local Discord has no server ${job.guild}`);
      sentAt.push(Date.now());
      handles.push(
        discord.sendCommand({
          name: 'image',
          options: { id: String(job.imageId) },
          channel: guild.channels.plain,
          userId: job.userId,
        }),
      );
    }
    const sendSeconds = (performance.now() - started) / 1000;
    // One cheap poll over what is still open; the times come from the local Discord's own records.
    const deadline = performance.now() + SETTLE_MS;
    let open = handles;
    while (open.length > 0 && performance.now() < deadline) {
      await sleep(100);
      open = open.filter((h) => settledOf(h) === undefined);
    }

    const outcomes = handles.map((h, i) => ({ job: jobs[i], at: sentAt[i] ?? 0, settled: settledOf(h) }));
    const settled = outcomes.flatMap((o) => (o.settled === undefined ? [] : [o.settled]));
    // Repeats: an id whose answer had already gone out before this interaction came (a cache hit).
    const firstAnswered = new Map<number, number>();
    for (const o of outcomes) {
      if (o.job === undefined || o.settled === undefined) continue;
      const done = o.at + o.settled.finalMs;
      firstAnswered.set(o.job.imageId, Math.min(done, firstAnswered.get(o.job.imageId) ?? Infinity));
    }
    const repeats = sorted(
      outcomes.flatMap((o) =>
        o.job !== undefined &&
        o.settled !== undefined &&
        (firstAnswered.get(o.job.imageId) ?? Infinity) < o.at
          ? [o.settled.finalMs]
          : [],
      ),
    );
    const answers: Record<Tally, number> = { card: 0, 'not found': 0, 'site busy': 0, other: 0 };
    for (const s of settled) answers[tallyOf(s.answer)] += 1;
    const v2Cards = settled.filter((s) => s.form === 'v2').length;
    const acknowledgedIn3s = handles.filter((h) =>
      h.responses.some((r) => r.kind === 'callback' && r.status >= 200 && r.status < 300 && r.ms <= 3000),
    ).length;
    const finals = sorted(settled.map((s) => s.finalMs));
    const acks = sorted(settled.map((s) => s.ackMs));
    const board = boardFigures(booru, 5000);
    // Each answer after the defer is an edit of the reply (a webhook call with the interaction's token).
    const edits = discord.requests
      .filter((r) => r.method === 'PATCH' && r.path.endsWith('/messages/@original'))
      .map((r) => r.at);
    const first = sentAt[0] ?? 0;
    const editsPerSecond = Array.from(
      { length: Math.ceil(sendSeconds) },
      (_, second) => edits.filter((at) => Math.floor((at - first) / 1000) === second).length,
    );
    const lines = bots.flatMap((bot) => bot.logLines());
    const problems = new Map<string, number>();
    for (const l of lines) {
      if (typeof l['level'] === 'number' && l['level'] >= 40) {
        const key = String(l['msg']);
        problems.set(key, (problems.get(key) ?? 0) + 1);
      }
    }
    const top = [...problems.entries()].sort((a, b) => b[1] - a[1]).slice(0, 2);
    return {
      label,
      answered: settled.length,
      acknowledgedIn3s,
      answers,
      v2Cards,
      calls: board.calls,
      maxIn5s: board.maxInWindow,
      editsPerSecond,
      repeats: repeats.length,
      repeatP50: percentile(repeats, 50),
      repeatP99: percentile(repeats, 99),
      p50: percentile(finals, 50),
      p90: percentile(finals, 90),
      p99: percentile(finals, 99),
      ackP50: percentile(acks, 50),
      ackP99: percentile(acks, 99),
      startMs,
      sendSeconds,
      violations: discord.violations.length,
      global429s: discord.violations.filter((v) => v.kind === 'global-limit').length,
      undelivered: discord.undelivered.length,
      warnings: lines.filter((l) => l['level'] === 40).length,
      errors: lines.filter((l) => typeof l['level'] === 'number' && l['level'] >= 50).length,
      topProblem: top.map(([msg, n]) => `${n}x "${msg}"`).join(', '),
    };
  } finally {
    await Promise.all(bots.map(stopBot));
    await discord?.close();
    await booru?.close();
    await redis?.stop();
  }
}

/** `cachedGoal`: the run whose answers from the cache must meet issue 23's goal (one process, the default). */
function rowsOf(f: RunFigures, cachedGoal: boolean): BenchRow[] {
  const who = f.label;
  const cachedOk = f.repeatP50 < CACHED_P50_GOAL_MS && f.repeatP99 < CACHED_P99_GOAL_MS;
  return [
    {
      group: GROUP,
      metric: `${who}: interactions answered (final reply of any kind)`,
      value: `${count(f.answered)} of ${count(INTERACTIONS)} (sent in ${f.sendSeconds.toFixed(1)} s; acknowledged within 3 s: ${count(f.acknowledgedIn3s)})`,
      goal: count(INTERACTIONS),
      ok: f.answered === INTERACTIONS,
    },
    {
      group: GROUP,
      metric: `${who}: answers card (of which Components V2) / not found / site busy / other`,
      value: `${count(f.answers.card)} (${count(f.v2Cards)}) / ${count(f.answers['not found'])} / ${count(f.answers['site busy'])} / ${count(f.answers.other)}`,
    },
    {
      group: GROUP,
      metric: `${who}: board calls; most in any 5 s (board's clock)`,
      value: `${count(f.calls)}; ${count(f.maxIn5s)}`,
      goal: `most <= ${BUDGET_PER_5S}`,
      ok: f.maxIn5s <= BUDGET_PER_5S,
    },
    {
      group: GROUP,
      metric: `${who}: time to final answer p50 / p90 / p99 (to acknowledgement p50 / p99)`,
      value: `${msText(f.p50)} / ${msText(f.p90)} / ${msText(f.p99)} (${msText(f.ackP50)} / ${msText(f.ackP99)})`,
    },
    {
      group: GROUP,
      metric: `${who}: time to final answer for answers from the cache (id answered before), p50 / p99`,
      value: `${msText(f.repeatP50)} / ${msText(f.repeatP99)} (${count(f.repeats)} answers)`,
      ...(cachedGoal
        ? { goal: `< ${CACHED_P50_GOAL_MS} ms / < ${CACHED_P99_GOAL_MS} ms`, ok: cachedOk }
        : {}),
    },
    {
      group: GROUP,
      metric: `${who}: answers sent to Discord (edits of the deferred reply) per second while interactions came`,
      value: f.editsPerSecond.map(count).join(', '),
    },
    {
      group: GROUP,
      metric: `${who}: global 429s the local Discord sent; other protocol violations / undelivered events`,
      value: `${count(f.global429s)}; ${count(f.violations - f.global429s)} / ${count(f.undelivered)}`,
      goal: '0; 0 / 0',
      ok: f.violations === 0 && f.undelivered === 0,
    },
    {
      group: GROUP,
      metric: `${who}: start to "bot ready"; bot log lines warn / error`,
      value: `${msText(f.startMs)}; ${count(f.warnings)} / ${count(f.errors)}${f.topProblem === '' ? '' : ` (${f.topProblem})`}`,
    },
  ];
}

export default (async () => {
  // The network guard of the tests here too: a connection to anything but loopback fails at once.
  await import('../test/setup.js');
  const jobs = workload();
  const distinct = new Set(jobs.map((j) => j.imageId)).size;
  const rows: BenchRow[] = [
    {
      group: GROUP,
      metric: 'workload (same for every run)',
      value: `${count(INTERACTIONS)} /image at ${RATES.join(' and ')}/s over ${SHARDS} servers (one per shard), ${count(distinct)} distinct ids, ${BOARD_LATENCY_MS} ms board`,
    },
  ];
  for (const rate of RATES) {
    const one = await run(
      { label: `${rate}/s, one process`, layout: [[0, 1]], rate, globalLimitOnAnswers: false },
      jobs,
    );
    const two = await run(
      { label: `${rate}/s, two processes`, layout: [[0], [1]], rate, globalLimitOnAnswers: false },
      jobs,
    );
    const before = await run(
      {
        label: `${rate}/s, one process, answers under the global limit (before)`,
        layout: [[0, 1]],
        rate,
        globalLimitOnAnswers: true,
      },
      jobs,
    );
    rows.push(...rowsOf(one, true), ...rowsOf(two, false), ...rowsOf(before, false), {
      group: GROUP,
      metric: `${rate}/s: two processes cost the board no more than one: calls two / one; most in 5 s two`,
      value: `${count(two.calls)} / ${count(one.calls)} (${one.calls === 0 ? 'n/a' : `${(two.calls / one.calls).toFixed(2)}x`}); ${count(two.maxIn5s)}`,
      goal: `<= ${CALLS_SLACK}x; <= ${BUDGET_PER_5S}`,
      ok: two.calls <= one.calls * CALLS_SLACK && two.maxIn5s <= BUDGET_PER_5S,
    });
  }
  return rows;
}) satisfies Bench;
