/**
 * Issue 22's last proof: members' own-key requests do not push other members' answers past the budget's
 * fairness. A real client registry (src/philomena/registry.ts) against the local Philomena (127.0.0.1),
 * with a tight per-site budget (`FULL.budget`), runs three scenarios one after the other, each with a
 * fresh registry (a fresh budget) and the same seeded ordinary load:
 *
 * (a) baseline: ordinary members' interactive requests (`/image` and `/search` reads through the site's
 *     shared client, each member in one of a few servers) at a steady rate, feed polls every interval
 *     (class `feed`, as commands/feed/poller.ts asks), and unfurls (class `unfurl`).
 * (b) the same, plus a few members flooding their own-key requests (`my:faves` searches and `userFilters`)
 *     as fast as they can through `registry.memberClient`: each keeps as many calls under way as the
 *     budget lets one member queue (`maxQueuePerMember`, 5) and sends the next the moment one settles.
 *     They run inside an interactive request context, as the router sets it; the member client makes
 *     them class `account`.
 * (c) the same flood sent as `interactive` (what would happen without the `account` class). A member client
 *     always asks as `account`, so this flood goes through the shared client with the flooders'
 *     interactive contexts: the same members, servers, paths (a search, then a non-search list) and pace,
 *     anonymous. The budget only sees the class, the fairness keys and the path, so it queues the same load.
 *
 * Every call is `fresh` with its own page or id, so none is a cache hit or joins another: each answer is
 * one board request. What the budget promises (src/philomena/budget/budget.ts): classes in order
 * (interactive, account, unfurl, feed), round-robin by server then member within a class, a bounded queue,
 * a wait of at most `maxWaitMs`, and members' own keys held to a share of each window (`accountShare`, a
 * third). A granted slot is never taken back, so without that share (scenario (c) shows it) a flood holds
 * every slot: an ordinary request then waits for the next slot to free, and unfurls and feeds starve.
 *
 * Figures, not assertions, except one goal: the board never sees more than the budget in any window.
 */
import Keyv from 'keyv';
import { pino } from 'pino';
import { SiteUnavailableError } from '../src/philomena/errors.js';
import { createClientRegistry, type ClientRegistry } from '../src/philomena/registry.js';
import { runWithRequestContext, type RequestContext } from '../src/philomena/request-context.js';
import { resolveSite, type Site } from '../src/philomena/sites.js';
import { IDS, startFakePhilomena, type FakePhilomena } from '../test/fakes/philomena/index.js';
import { mostInAnySpan } from '../test/support/arrivals.js';
import { percentile, type Bench, type BenchRow } from './report.js';

const GROUP = 'member-requests';

export interface MemberRequestsSize {
  /** How long each scenario sends; the calls under way then settle (at most `maxWaitMs` more). */
  readonly durationMs: number;
  readonly servers: number;
  /** Ordinary members, spread over the servers. */
  readonly members: number;
  /** Ordinary interactive requests per second, all members together (half images, half searches). */
  readonly ordinaryPerSecond: number;
  readonly feeds: number;
  readonly feedIntervalMs: number;
  readonly unfurlsPerSecond: number;
  /** Members flooding in (b) and (c), each in its own server of the ordinary ones. */
  readonly flooders: number;
  /** Calls each flooder keeps under way. */
  readonly floodConcurrency: number;
  readonly budget: {
    readonly overall: { readonly limit: number; readonly windowMs: number };
    readonly search: { readonly limit: number; readonly windowMs: number };
    readonly maxWaitMs: number;
  };
  readonly boardLatencyMs: number;
}

/** The bench's size: a budget half the board's real one per second (30 per 5 s is 6 a second). */
export const FULL: MemberRequestsSize = {
  durationMs: 20_000,
  servers: 4,
  members: 24,
  ordinaryPerSecond: 6,
  feeds: 4,
  feedIntervalMs: 2_000,
  unfurlsPerSecond: 1,
  flooders: 3,
  floodConcurrency: 5,
  budget: {
    overall: { limit: 15, windowMs: 1_000 },
    search: { limit: 10, windowMs: 1_000 },
    maxWaitMs: 5_000,
  },
  boardLatencyMs: 20,
};

type Lane = 'ordinary' | 'unfurl' | 'feed' | 'flood';
type ScenarioName = '(a) baseline' | '(b) + own-key flood (account)' | '(c) + the flood as interactive';
const SCENARIOS: readonly ScenarioName[] = [
  '(a) baseline',
  '(b) + own-key flood (account)',
  '(c) + the flood as interactive',
];

interface Outcome {
  readonly lane: Lane;
  readonly member: string;
  readonly startedAt: number;
  readonly ms: number;
  readonly ok: boolean;
  /** Refused by the budget (queue full or the wait passed `maxWaitMs`), so it never reached the board. */
  readonly refused: boolean;
}

interface ScenarioResult {
  readonly name: ScenarioName;
  readonly outcomes: readonly Outcome[];
  /** When each board request arrived, and whether it was on the search paths. */
  readonly arrivals: readonly { readonly at: number; readonly search: boolean }[];
  readonly spanMs: number;
  /** When the scenario began sending (performance.now()). */
  readonly startedAt: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `call` as `context` and records how it ended. */
async function timed(
  outcomes: Outcome[],
  lane: Lane,
  context: RequestContext & { readonly member: string },
  call: () => Promise<unknown>,
): Promise<void> {
  const startedAt = performance.now();
  let ok = false;
  let refused = false;
  try {
    await runWithRequestContext(context, call);
    ok = true;
  } catch (error) {
    refused = error instanceof SiteUnavailableError && error.reason === 'budget-exhausted';
  }
  outcomes.push({ lane, member: context.member, startedAt, ms: performance.now() - startedAt, ok, refused });
}

/** Calls `fire(i)` every `everyMs` until `stopAt` (a steady rate, not one that waits for answers). */
async function steady(everyMs: number, stopAt: number, fire: (i: number) => void): Promise<void> {
  for (let i = 0; performance.now() < stopAt; i += 1) {
    fire(i);
    await sleep(everyMs);
  }
}

async function runScenario(
  name: ScenarioName,
  size: MemberRequestsSize,
  booru: FakePhilomena,
  site: Site,
  floodKeys: readonly string[],
): Promise<ScenarioResult> {
  const registry: ClientRegistry = createClientRegistry({
    defaultSite: site,
    cache: new Keyv(),
    logger: pino({ level: 'silent' }),
    budget: size.budget,
  });
  const shared = registry.client(site);
  const outcomes: Outcome[] = [];
  const pending: Promise<void>[] = [];
  const mark = booru.requests.length;
  const startedAt = performance.now();
  const stopAt = startedAt + size.durationMs;
  const serverOf = (i: number): string => `server-${i % size.servers}`;
  const fillers = IDS.fillerLast - IDS.fillerFirst + 1;
  // Every call asks something no other call asks: no cache hit, no joining a call in flight.
  let page = 0;
  const nextPage = (): number => (page += 1);

  const ordinary = steady(1000 / size.ordinaryPerSecond, stopAt, (i) => {
    const member = `member-${i % size.members}`;
    const context = { priority: 'interactive', server: serverOf(i % size.members), member } as const;
    pending.push(
      timed(outcomes, 'ordinary', context, () =>
        i % 2 === 0
          ? shared.image(IDS.fillerFirst + (i % fillers), { fresh: true })
          : shared.searchImages({ q: 'safe', page: nextPage(), fresh: true }),
      ),
    );
  });
  const unfurls = steady(1000 / size.unfurlsPerSecond, stopAt, (i) => {
    const context = {
      priority: 'unfurl',
      server: serverOf(i),
      member: `unfurl-${i % size.members}`,
    } as const;
    pending.push(
      timed(outcomes, 'unfurl', context, () => shared.image(IDS.fillerLast - (i % fillers), { fresh: true })),
    );
  });
  // A feed polls again only once its last poll settled, as the poller's leases make it.
  const feeds = Array.from({ length: size.feeds }, async (_, f) => {
    const context = { priority: 'feed', server: 'feeds', member: `feed-${f}` } as const;
    await sleep((size.feedIntervalMs * f) / size.feeds);
    while (performance.now() < stopAt) {
      const due = performance.now() + size.feedIntervalMs;
      await timed(outcomes, 'feed', context, () =>
        shared.searchImages({ q: `(safe), id.gt:${IDS.fillerFirst + f}`, page: nextPage(), fresh: true }),
      );
      await sleep(Math.max(0, due - performance.now()));
    }
  });
  const floods =
    name === '(a) baseline'
      ? []
      : floodKeys.flatMap((key, m) => {
          const member = `flooder-${m}`;
          const context = { priority: 'interactive', server: serverOf(m), member } as const;
          const own = registry.memberClient(site, { id: member, key });
          return Array.from({ length: size.floodConcurrency }, async (_, lane) => {
            for (let n = lane; performance.now() < stopAt; n += 1) {
              const list = n % 2 === 1;
              const call =
                name === '(b) + own-key flood (account)'
                  ? () =>
                      list
                        ? own.userFilters({ page: nextPage(), fresh: true })
                        : own.searchImages({ q: 'my:faves', page: nextPage(), fresh: true })
                  : () =>
                      list
                        ? shared.systemFilters({ page: nextPage(), fresh: true })
                        : shared.searchImages({ q: 'safe', page: nextPage(), fresh: true });
              const before = outcomes.length;
              await timed(outcomes, 'flood', context, call);
              // Refused at once (its queue share full): a breath, so the loop does not spin the CPU.
              if (outcomes[before]?.refused === true) await sleep(5);
            }
          });
        });
  await Promise.all([ordinary, unfurls, ...feeds, ...floods]);
  await Promise.all(pending);
  const spanMs = performance.now() - startedAt;
  await registry.close();
  const arrivals = booru.requests
    .slice(mark)
    .filter((r) => r.path.startsWith('/api/'))
    .map((r) => ({ at: r.at, search: r.path.startsWith('/api/v1/json/search') }));
  return { name, outcomes, arrivals, spanMs, startedAt };
}

// ----------------------------------------------------------------------------------------------- figures

const sortedMs = (outcomes: readonly Outcome[]): number[] => outcomes.map((o) => o.ms).sort((a, b) => a - b);
const msText = (n: number): string =>
  Number.isNaN(n) ? 'n/a' : n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`;
const pct = (part: number, whole: number): string =>
  whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`;
const LANE_NAMES: Record<Lane, string> = {
  ordinary: 'ordinary members (interactive)',
  unfurl: 'unfurls',
  feed: 'feed polls',
  flood: 'flooders',
};

/** The longest stretch (of the sending time) in which a feed had no poll answered. */
function longestFeedGap(outcomes: readonly Outcome[], from: number, to: number): number {
  const byFeed = new Map<string, number[]>();
  for (const o of outcomes) {
    if (o.lane !== 'feed' || !o.ok) continue;
    byFeed.set(o.member, [...(byFeed.get(o.member) ?? []), o.startedAt + o.ms]);
  }
  let longest = byFeed.size === 0 ? to - from : 0;
  for (const times of byFeed.values()) {
    const points = [from, ...times.sort((a, b) => a - b).filter((t) => t <= to), to];
    for (let i = 1; i < points.length; i += 1) {
      longest = Math.max(longest, (points[i] ?? 0) - (points[i - 1] ?? 0));
    }
  }
  return longest;
}

function scenarioRows(result: ScenarioResult, size: MemberRequestsSize): BenchRow[] {
  const rows: BenchRow[] = [];
  const row = (metric: string, value: string, goal?: string, ok?: boolean): void => {
    rows.push({
      group: GROUP,
      metric: `${result.name}: ${metric}`,
      value,
      ...(goal === undefined ? {} : { goal }),
      ...(ok === undefined ? {} : { ok }),
    });
  };
  const seconds = result.spanMs / 1000;
  const answered = result.outcomes.filter((o) => o.ok).length;
  for (const lane of ['ordinary', 'unfurl', 'feed', 'flood'] as const) {
    const mine = result.outcomes.filter((o) => o.lane === lane);
    if (mine.length === 0) continue;
    const ok = mine.filter((o) => o.ok);
    const times = sortedMs(mine);
    row(
      `${LANE_NAMES[lane]}: time to answer p50 / p99; answered of asked (refused by the budget); board requests/s; share`,
      `${msText(percentile(times, 50))} / ${msText(percentile(times, 99))}; ${ok.length} of ${mine.length} ` +
        `(${mine.filter((o) => o.refused).length}); ${(ok.length / seconds).toFixed(1)}/s; ${pct(ok.length, answered)}`,
    );
  }
  const shareOf = (member: string): number =>
    result.outcomes.filter((o) => o.ok && o.member === member).length;
  const ordinaryMembers = [
    ...new Set(result.outcomes.filter((o) => o.lane === 'ordinary').map((o) => o.member)),
  ];
  const ordinaryShares = ordinaryMembers.map(shareOf).sort((a, b) => a - b);
  row(
    'each ordinary member’s share of board requests, least / most',
    `${pct(ordinaryShares[0] ?? 0, answered)} / ${pct(ordinaryShares.at(-1) ?? 0, answered)} (${ordinaryMembers.length} members)`,
  );
  const flooders = [
    ...new Set(result.outcomes.filter((o) => o.lane === 'flood').map((o) => o.member)),
  ].sort();
  if (flooders.length > 0) {
    row('each flooder’s share of board requests', flooders.map((m) => pct(shareOf(m), answered)).join(', '));
  }
  const gap = longestFeedGap(result.outcomes, result.startedAt, result.startedAt + size.durationMs);
  row(
    `longest time a feed went without an answered poll (interval ${msText(size.feedIntervalMs)})`,
    msText(gap),
  );
  const { overall, search } = size.budget;
  const most = mostInAnySpan(
    result.arrivals.map((a) => a.at),
    overall.windowMs,
  );
  const mostSearch = mostInAnySpan(
    result.arrivals.filter((a) => a.search).map((a) => a.at),
    search.windowMs,
  );
  row(
    `board requests/s; most in any ${overall.windowMs} ms / search ones in any ${search.windowMs} ms`,
    `${(result.arrivals.length / seconds).toFixed(1)}/s; ${most} / ${mostSearch}`,
    `≤ ${overall.limit} / ≤ ${search.limit}`,
    most <= overall.limit && mostSearch <= search.limit,
  );
  return rows;
}

/** How (b) and (c) moved the ordinary members' answers against (a). */
function comparisonRows(results: readonly ScenarioResult[]): BenchRow[] {
  const ordinaryOf = (r: ScenarioResult | undefined): number[] =>
    sortedMs((r?.outcomes ?? []).filter((o) => o.lane === 'ordinary'));
  const base = ordinaryOf(results[0]);
  return results.slice(1).map((r) => {
    const mine = ordinaryOf(r);
    const ratio = (p: number): string => `${(percentile(mine, p) / percentile(base, p)).toFixed(1)}×`;
    return {
      group: GROUP,
      metric: `${r.name}: ordinary members’ p50 / p99 against (a)`,
      value: `${ratio(50)} / ${ratio(99)} (+${msText(percentile(mine, 50) - percentile(base, 50))} / +${msText(percentile(mine, 99) - percentile(base, 99))})`,
    };
  });
}

/** Runs (a), (b) and (c) at `size` and returns their rows; the local board is started and closed here. */
export async function runMemberRequests(size: MemberRequestsSize): Promise<BenchRow[]> {
  const booru = await startFakePhilomena({ latencyMs: size.boardLatencyMs });
  const site = resolveSite(booru.url);
  try {
    const floodKeys = Array.from(
      { length: size.flooders },
      (_, i) =>
        booru.addAccount({ name: `Flooder${i}`, faves: [IDS.safe, IDS.fillerFirst, IDS.fillerFirst + 1] })
          .key,
    );
    const results: ScenarioResult[] = [];
    for (const name of SCENARIOS) results.push(await runScenario(name, size, booru, site, floodKeys));
    return [...results.flatMap((r) => scenarioRows(r, size)), ...comparisonRows(results)];
  } finally {
    await booru.close();
  }
}

export default (() => runMemberRequests(FULL)) satisfies Bench;
