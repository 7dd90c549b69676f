/**
 * Board calls per 1,000 browsing interactions: /search paging one result per board call (SEARCH_WINDOW=1,
 * search results not cached under their image ids: the bot before issue 12) against windows of 50 with
 * seeded images (now), beside the smallest figure the workload allows: its distinct resources.
 *
 * The workload (seeded, identical for both runs) is members browsing: each session is a /search (a card
 * per page, or in 30% of sessions the grid), then 4 to 9 clicks (Next 60%, Previous 20%, Random 20%), then
 * in 40% of sessions a look at one result: /image of the card's id, or the grid's picker. Queries are
 * drawn Zipf-like from twelve, sorts from five (not `random`, whose seed makes every search distinct),
 * all by one member with COMMAND_RATE_LIMIT=off (no cooldown binds). Sessions run one after another on the test harness
 * (the real bot in process, the local Discord and the local Philomena on 127.0.0.1, a roomy budget), so
 * every count is exact, not a race.
 *
 * The least possible: each distinct search (query, sort) must read every window of 50 (the board's largest
 * page) that its visited results fall in, once. Every image opened is one of those results, which a search
 * already returned whole, and the filter the cards name was read at start-up. Nothing less can answer the
 * workload.
 *
 * The gallery row browses the local board's galleries the same way (a /gallery id: session, a card per
 * page or in 30% of sessions the grid, then 4 to 9 clicks): its least adds to the windows each gallery's
 * record (one gallery search) and each cover that none of the windows read holds (an image call).
 */
import { GALLERY_IDS } from '../test/fakes/philomena/index.js';
import { startHarness, ROOMY_BUDGET, type Harness } from '../test/support/harness.js';
import type { RecordedMessage } from '../test/fakes/discord/index.js';
import { customIdsOf, textOf } from '../test/fakes/discord/v2.js';
import { footerText, cardUrl } from '../test/support/messages.js';
import { createSeededRandom } from '../test/support/random.js';
import type { Bench, BenchRow } from './report.js';
import { zipf } from './workload.js';

const GROUP = 'paging';
const INTERACTIONS = 1000;
const WINDOW = 50;
const QUERIES = [
  'pony',
  'safe',
  'pony, cute',
  'twilight sparkle',
  'applejack',
  'rainbow dash',
  'fluttershy',
  'rarity',
  'pinkie pie',
  'pony, solo',
  'artist:fake artist',
  'alicorn',
];
const SORTS = ['newest', 'score', 'faves', 'wilson', 'oldest'];

type Step =
  | { readonly kind: 'search'; readonly query: string; readonly sort: string; readonly grid: boolean }
  | { readonly kind: 'click'; readonly action: 'next' | 'prev' | 'rand' }
  | { readonly kind: 'open' };

/** Sessions of steps, `INTERACTIONS` steps in all. */
function workload(seed: number): Step[][] {
  const random = createSeededRandom(seed);
  const query = zipf(QUERIES, 1.1, random);
  const sessions: Step[][] = [];
  let count = 0;
  while (count < INTERACTIONS) {
    const steps: Step[] = [
      {
        kind: 'search',
        query: query(),
        sort: SORTS[Math.floor(random() * SORTS.length)] ?? 'newest',
        grid: random() < 0.3,
      },
    ];
    const clicks = 4 + Math.floor(random() * 6);
    for (let i = 0; i < clicks; i += 1) {
      const roll = random();
      steps.push({ kind: 'click', action: roll < 0.6 ? 'next' : roll < 0.8 ? 'prev' : 'rand' });
    }
    if (random() < 0.4) steps.push({ kind: 'open' });
    const kept = steps.slice(0, INTERACTIONS - count);
    sessions.push(kept);
    count += kept.length;
  }
  return sessions;
}

interface RunResult {
  readonly calls: number;
  readonly interactions: number;
  readonly answered: number;
  /** Distinct (search, window) pairs visited: the least possible. */
  readonly least: number;
}

/** The result indexes (0-based) a page shows: a card's "n of t", or a grid's "page p of q". */
function visited(message: RecordedMessage, grid: boolean): number[] {
  const footer = footerText(message);
  if (grid) {
    // The heading says which results the page holds: "· 11–20 of 123".
    const range = /· (\d+)–(\d+) of \d+/.exec(textOf(message));
    if (range === null) return [];
    const [from, to] = [Number(range[1]), Number(range[2])];
    return Array.from({ length: to - from + 1 }, (_, i) => from - 1 + i);
  }
  const n = Number(/ (\d+) of \d+$/.exec(footer)?.[1] ?? 0);
  return n === 0 ? [] : [n - 1];
}

async function run(sessions: readonly Step[][], before: boolean): Promise<RunResult> {
  const h: Harness = await startHarness({
    env: { COMMAND_RATE_LIMIT: 'off', UNFURL: 'off', ...(before ? { SEARCH_WINDOW: '1' } : {}) },
    registry: { budget: ROOMY_BUDGET, ...(before ? { seedImagesFromSearches: false } : {}) },
  });
  try {
    const mark = h.booru.requests.length;
    const windows = new Set<string>();
    let interactions = 0;
    let answered = 0;
    for (const steps of sessions) {
      let message: RecordedMessage | undefined;
      let grid = false;
      let key = '';
      for (const step of steps) {
        interactions += 1;
        let reply: RecordedMessage | undefined;
        if (step.kind === 'search') {
          grid = step.grid;
          key = `${step.query}\u0000${step.sort}`;
          reply = await h.discord
            .sendCommand({
              name: 'search',
              options: { query: step.query, sort: step.sort, ...(grid ? { view: 'grid' } : {}) },
              channel: 'plain',
            })
            .finalReply()
            .catch(() => undefined);
          message = reply;
        } else if (message === undefined) {
          continue;
        } else if (step.kind === 'click') {
          const id = customIdsOf(message).find((c) => c.startsWith(`srch:${step.action}:`));
          if (id === undefined) continue;
          reply = await h.discord
            .sendButton({ customId: id, message })
            .finalReply()
            .catch(() => undefined);
          if (reply !== undefined) message = reply;
        } else if (grid) {
          const pick = customIdsOf(message).find((c) => c.startsWith('srch:pick:'));
          const first = /^\d+\. \[\\?#(\d+)\]\(/m.exec(textOf(message))?.[1];
          if (pick === undefined || first === undefined) continue;
          reply = await h.discord
            .sendSelect({ customId: pick, message, values: [first] })
            .finalReply()
            .catch(() => undefined);
        } else {
          const id = /\/images\/(\d+)$/.exec(cardUrl(message))?.[1];
          if (id === undefined) continue;
          reply = await h.discord
            .sendCommand({ name: 'image', options: { id }, channel: 'plain' })
            .finalReply()
            .catch(() => undefined);
        }
        if (reply === undefined) continue;
        answered += 1;
        if (step.kind !== 'open') {
          for (const index of visited(reply, grid)) windows.add(`${key}\u0000${Math.floor(index / WINDOW)}`);
        }
      }
    }
    const calls = h.booru.requests.slice(mark).filter((r) => r.path.startsWith('/api/')).length;
    // The filter the cards name was read at start-up (the bot's start-up check), before `mark`, and is
    // cached for an hour: the least is the windows alone.
    return { calls, interactions, answered, least: windows.size };
  } finally {
    await h.close();
  }
}

const GALLERIES = [GALLERY_IDS.owner, GALLERY_IDS.hostile, GALLERY_IDS.spicy];

type GalleryStep =
  | { readonly kind: 'open'; readonly galleryId: number; readonly grid: boolean }
  | { readonly kind: 'click'; readonly action: 'next' | 'prev' | 'rand' };

/** Gallery sessions of steps, `INTERACTIONS` steps in all. */
function galleryWorkload(seed: number): GalleryStep[][] {
  const random = createSeededRandom(seed);
  const gallery = zipf(GALLERIES, 1.1, random);
  const sessions: GalleryStep[][] = [];
  let count = 0;
  while (count < INTERACTIONS) {
    const steps: GalleryStep[] = [{ kind: 'open', galleryId: gallery(), grid: random() < 0.3 }];
    const clicks = 4 + Math.floor(random() * 6);
    for (let i = 0; i < clicks; i += 1) {
      const roll = random();
      steps.push({ kind: 'click', action: roll < 0.6 ? 'next' : roll < 0.8 ? 'prev' : 'rand' });
    }
    const kept = steps.slice(0, INTERACTIONS - count);
    sessions.push(kept);
    count += kept.length;
  }
  return sessions;
}

/** The gallery's cover and the ids of its first window of safe images, as the board gives them. */
async function galleryFacts(h: Harness, galleryId: number): Promise<{ cover: number; window: number[] }> {
  const api = `${h.booru.url}/api/v1/json/search`;
  const found = (await (await fetch(`${api}/galleries?q=id:${galleryId}`)).json()) as {
    galleries: { thumbnail_id: number }[];
  };
  const params = new URLSearchParams({
    q: `(gallery_id:${galleryId}), safe`,
    sf: `gallery_id:${galleryId}`,
    sd: 'desc',
    per_page: String(WINDOW),
  });
  const images = (await (await fetch(`${api}/images?${params.toString()}`)).json()) as {
    images: { id: number }[];
  };
  return { cover: found.galleries[0]?.thumbnail_id ?? -1, window: images.images.map((i) => i.id) };
}

async function runGalleries(sessions: readonly GalleryStep[][]): Promise<RunResult> {
  const h: Harness = await startHarness({
    env: { COMMAND_RATE_LIMIT: 'off', UNFURL: 'off' },
    registry: { budget: ROOMY_BUDGET },
  });
  try {
    const mark = h.booru.requests.length;
    const windows = new Set<string>();
    const opened = new Set<number>();
    let interactions = 0;
    let answered = 0;
    for (const steps of sessions) {
      let message: RecordedMessage | undefined;
      let grid = false;
      let galleryId = 0;
      for (const step of steps) {
        interactions += 1;
        let reply: RecordedMessage | undefined;
        if (step.kind === 'open') {
          ({ grid, galleryId } = step);
          reply = await h.discord
            .sendCommand({
              name: 'gallery',
              options: { id: String(galleryId), ...(grid ? { view: 'grid' } : {}) },
              channel: 'plain',
            })
            .finalReply()
            .catch(() => undefined);
          message = reply;
          opened.add(galleryId);
        } else if (message !== undefined) {
          const id = customIdsOf(message).find((c) => c.startsWith(`gal:${step.action}:`));
          if (id === undefined) continue;
          reply = await h.discord
            .sendButton({ customId: id, message })
            .finalReply()
            .catch(() => undefined);
          if (reply !== undefined) message = reply;
        }
        if (reply === undefined) continue;
        answered += 1;
        const range = /^(\d+)–(\d+) of \d+$/m.exec(textOf(reply));
        const indexes = grid
          ? range === null
            ? []
            : Array.from(
                { length: Number(range[2]) - Number(range[1]) + 1 },
                (_, i) => Number(range[1]) - 1 + i,
              )
          : visited(reply, false);
        for (const index of indexes) windows.add(`${galleryId}\u0000${Math.floor(index / WINDOW)}`);
      }
    }
    const calls = h.booru.requests.slice(mark).filter((r) => r.path.startsWith('/api/')).length;
    // Read after counting: each gallery's record, and each cover outside every window read.
    const covers = new Set<number>();
    for (const galleryId of opened) {
      const facts = await galleryFacts(h, galleryId);
      if (!facts.window.includes(facts.cover)) covers.add(facts.cover);
    }
    return { calls, interactions, answered, least: windows.size + opened.size + covers.size };
  } finally {
    await h.close();
  }
}

/** Per 1,000 answered interactions (steps with nothing to click, e.g. after a search with no results, are not sent). */
function perThousand(calls: number, interactions: number): string {
  return ((calls / interactions) * 1000).toFixed(0);
}

export default (async () => {
  await import('../test/setup.js');
  const sessions = workload(20261124);
  const before = await run(sessions, true);
  const after = await run(sessions, false);
  const galleries = await runGalleries(galleryWorkload(20261126));
  const rows: BenchRow[] = [
    {
      group: GROUP,
      metric: `board calls per 1,000 interactions, one result per call (before; ${before.answered}/${before.interactions} answered)`,
      value: perThousand(before.calls, before.answered),
    },
    {
      group: GROUP,
      metric: `board calls per 1,000 interactions, windows of 50 + seeded images (now; ${after.answered}/${after.interactions} answered)`,
      value: perThousand(after.calls, after.answered),
      goal: `< before (${perThousand(before.calls, before.answered)})`,
      ok: after.calls < before.calls,
    },
    {
      group: GROUP,
      metric: 'least possible per 1,000 (distinct windows of 50 the workload visits)',
      value: perThousand(after.least, after.answered),
    },
    {
      group: GROUP,
      metric: `gallery browsing: board calls per 1,000 interactions (${galleries.answered}/${galleries.interactions} answered)`,
      value: perThousand(galleries.calls, galleries.answered),
      goal: `= least (${perThousand(galleries.least, galleries.answered)}: windows, gallery records, covers outside them)`,
      ok: galleries.calls === galleries.least,
    },
  ];
  return rows;
}) satisfies Bench;
