/**
 * Many processes, one polite bot (issue 9, "Proof"): two real bot processes (src/main.ts, shards 0 and 1
 * of 2), one real redis-server with an append-only file, the local board and the local Discord, which
 * serves both shard connections, routes each server's events to the session holding its shard, and
 * enforces Discord's identify limit (one IDENTIFY per 5 s per bucket).
 *
 * - each process connects only its shard, and they identify 5 s apart through the throttle in Redis;
 * - an image fetched for a server on shard 0 is answered from the shared cache for a server on shard 1;
 * - 1,000 interactions at 100 a second over both servers: every one answered, and the board, counting
 *   what arrives, never sees more than 30 calls in any 5 s;
 * - a 429 with Retry-After answered to one process: the other makes no call to the board until it ends;
 * - `kill -9` of one process under load: the other keeps answering, a setting confirmed before is still
 *   there, and the restarted process takes its shard back;
 * - Redis stopped under load and started again: both keep answering, the board never sees more than the
 *   budget, each process says so in one line, and the shared state is back afterwards.
 *
 * The tests run in order on one world (the restart follows the kill). Figures are asserted on counts and
 * the board's own clock, never on how long something took.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type InteractionHandle } from '../fakes/discord/index.js';
import { FILTER_IDS, IDS, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { startBotProcess, type BotProcess } from '../lifecycle/bot-process.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { mostInAnySpan } from '../support/arrivals.js';

/** The board's budget, as the site counts it: 30 calls in any 5 s. */
const BUDGET = 30;
const WINDOW_MS = 5_000;
/** Long enough for an answer that waited the budget's longest wait (15 s) and then the board. */
const ANSWER_MS = 45_000;

let discord: FakeDiscord;
let booru: FakePhilomena;
let redis: TestRedis;
const bots: (BotProcess | undefined)[] = [undefined, undefined];

function env(shard: number): Record<string, string> {
  return {
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    BOORU_URL: booru.url,
    STORE_URL: redis.url,
    LOG_LEVEL: 'info',
    UNFURL: 'off',
    // Many members' commands come from few test users: the per-member limit is not what is measured here.
    COMMAND_RATE_LIMIT: 'off',
    SHARD_COUNT: '2',
    SHARD_IDS: String(shard),
  };
}

async function startShard(shard: number): Promise<BotProcess> {
  const bot = await startBotProcess(env(shard));
  bots[shard] = bot;
  await bot.waitForLog((line) => line['msg'] === 'bot ready', 60_000);
  return bot;
}

function bot(shard: number): BotProcess {
  const found = bots[shard];
  if (found === undefined) throw new Error(`no process for shard ${shard}`);
  return found;
}

const guild = (shard: number) => {
  const found = discord.guilds.find((g) => g.shard === shard);
  if (found === undefined) throw new Error(`no server on shard ${shard}`);
  return found;
};

const imageCalls = (from: number) => booru.requests.slice(from).filter((r) => r.path.includes('/images/'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Filler images nobody asked for yet in this file, so no cache answers them. */
let nextFiller: number = IDS.fillerFirst;
function freshImage(): number {
  if (nextFiller > IDS.fillerLast) nextFiller = IDS.fillerFirst;
  const id = nextFiller;
  nextFiller += 1;
  return id;
}

function image(shard: number, id: number, member: number): InteractionHandle {
  return discord.sendCommand({
    name: 'image',
    options: { id: String(id) },
    channel: guild(shard).channels.plain,
    userId: String(900_000_000_000_000_000n + BigInt(member)),
  });
}

/** `count` /image commands at `perSecond`, alternating between the servers of `shards`. */
async function load(
  count: number,
  perSecond: number,
  shards: readonly number[],
  pick: (i: number) => number,
): Promise<{ shard: number; handle: InteractionHandle }[]> {
  const sent: { shard: number; handle: InteractionHandle }[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i += 1) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const shard = shards[i % shards.length] ?? 0;
    sent.push({ shard, handle: image(shard, pick(i), i) });
  }
  return sent;
}

/**
 * The answer a member sees: the reply, or (a public command that failed: "thinking…" removed) the private
 * follow-up that says why.
 */
function answerOf(handle: InteractionHandle) {
  return Promise.any([handle.finalReply(ANSWER_MS), discord.waitFor(() => handle.followUps()[0], ANSWER_MS)]);
}

/** Every handle's answer: an image card, or a short message (the board is busy); none missing. */
async function answers(
  sent: readonly { handle: InteractionHandle }[],
): Promise<{ cards: number; notes: number }> {
  const replies = await Promise.all(sent.map(({ handle }) => answerOf(handle)));
  let cards = 0;
  for (const reply of replies) {
    if (reply.embeds.length > 0) cards += 1;
    else expect(reply.content.length).toBeGreaterThan(0);
  }
  return { cards, notes: replies.length - cards };
}

const logLines = (shard: number, text: string) =>
  bot(shard)
    .logLines()
    .filter((line) => String(line['msg']).includes(text));

beforeAll(async () => {
  discord = await startFakeDiscord({ shards: 2 });
  booru = await startFakePhilomena({ latencyMs: 30 });
  redis = await startRedis({ appendOnly: true });
  // Both at once, as a deploy starts them: the identify throttle in Redis keeps them 5 s apart.
  await Promise.all([startShard(0), startShard(1)]);
}, 120_000);

afterAll(async () => {
  const dump = process.env['SCALE_LOGS'];
  if (dump !== undefined) {
    const { writeFileSync } = await import('node:fs');
    bots.forEach((b, i) => b && writeFileSync(`${dump}-${i}.log`, b.stdout() + b.stderr()));
  }
  for (const b of bots) await b?.dispose();
  await redis?.stop();
  await booru?.close();
  await discord?.close();
});

describe.sequential('two bot processes, one Redis, one board', () => {
  it('GIVEN both started at once THEN each connects its own shard only, identifies 5 s apart, and Discord saw no violation', () => {
    expect(
      bot(0)
        .logLines()
        .find((l) => l['msg'] === 'bot ready'),
    ).toMatchObject({ shards: [0], shardCount: 2 });
    expect(
      bot(1)
        .logLines()
        .find((l) => l['msg'] === 'bot ready'),
    ).toMatchObject({ shards: [1], shardCount: 2 });
    const identifies = discord.identifies.map((i) => ({ shard: i.shardId, at: i.at }));
    expect(identifies.map((i) => i.shard).sort()).toEqual([0, 1]);
    const [first, second] = identifies.sort((x, y) => x.at - y.at);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(discord.violations).toEqual([]);
  });

  it('GIVEN an image fetched for a server on shard 0 THEN a server on shard 1 gets it from the shared cache, with no board call', async () => {
    const id = freshImage();
    const mark = booru.requests.length;
    const first = await image(0, id, 1).finalReply(ANSWER_MS);
    expect(first.embeds).toHaveLength(1);
    expect(imageCalls(mark)).toHaveLength(1);
    const second = await image(1, id, 2).finalReply(ANSWER_MS);
    expect(second.embeds).toHaveLength(1);
    expect(second.embeds[0]?.['url']).toBe(first.embeds[0]?.['url']);
    expect(imageCalls(mark)).toHaveLength(1);
  });

  it('GIVEN the same new image asked on both shards at once THEN the board is asked once', async () => {
    const id = freshImage();
    const mark = booru.requests.length;
    const replies = await Promise.all([image(0, id, 3), image(1, id, 4)].map((h) => h.finalReply(ANSWER_MS)));
    for (const reply of replies) expect(reply.embeds).toHaveLength(1);
    expect(imageCalls(mark)).toHaveLength(1);
  });

  it('GIVEN 1,000 interactions at 100 a second over both THEN every one is answered and the board never sees more than 30 calls in any 5 s', async () => {
    const mark = booru.requests.length;
    // A few hot images (asked again and again) and many that are asked once.
    const hot = [IDS.safe, IDS.suggestive, IDS.fixtureFirst, IDS.fixture2020];
    const sent = await load(1_000, 100, [0, 1], (i) =>
      i % 3 === 0 ? freshImage() : (hot[i % hot.length] ?? IDS.safe),
    );
    const { cards, notes } = await answers(sent);
    expect(cards + notes).toBe(1_000);
    expect(cards).toBeGreaterThan(600);
    const arrivals = booru.requests.slice(mark).map((r) => r.at);
    expect(arrivals.length).toBeGreaterThan(0);
    expect(mostInAnySpan(arrivals, WINDOW_MS)).toBeLessThanOrEqual(BUDGET);
    expect(discord.violations).toEqual([]);
  }, 120_000);

  it('GIVEN a 429 with Retry-After answered to one process THEN the other makes no board call until it ends', async () => {
    // Let the budget's windows empty, so only the pause can hold calls back.
    await sleep(WINDOW_MS + 500);
    const limited = freshImage();
    booru.inject({
      fault: { kind: 'rate-limit', retryAfterSeconds: 3 },
      path: `/api/v1/json/images/${limited}`,
      times: 1,
    });
    const mark = booru.requests.length;
    const refused = image(0, limited, 5);
    await answerOf(refused);
    const answeredWith429 = booru.requests.slice(mark).find((r) => r.path.endsWith(`/images/${limited}`));
    if (answeredWith429 === undefined) throw new Error('the 429 never reached the board');
    // The other process, asked for something else during the pause: answered, without a board call.
    const during = await answerOf(image(1, freshImage(), 6));
    expect(during.embeds.length + during.content.length).toBeGreaterThan(0);
    // Asked again once the pause is over: now it calls the board.
    await sleep(Math.max(0, answeredWith429.at + 3_200 - Date.now()));
    const after = await answerOf(image(1, freshImage(), 7));
    expect(after.embeds).toHaveLength(1);
    const later = booru.requests.slice(mark).filter((r) => r !== answeredWith429);
    expect(later.length).toBeGreaterThan(0);
    for (const request of later) expect(request.at - answeredWith429.at).toBeGreaterThanOrEqual(3_000);
  }, 60_000);

  it('GIVEN kill -9 of one process under load THEN the other keeps answering, a confirmed setting survives, and the restarted process takes its shard back', async () => {
    const admin = guild(1).ownerId;
    const confirmed = await discord
      .sendCommand({
        name: 'settings',
        subcommand: 'filter',
        options: { filter_id: FILTER_IDS.everything },
        channel: guild(1).channels.plain,
        userId: admin,
      })
      .finalReply(ANSWER_MS);
    expect(confirmed.content + JSON.stringify(confirmed.embeds)).toMatch(/Everything/);

    const hot = [IDS.safe, IDS.suggestive];
    const loadDone = load(60, 20, [0], (i) => hot[i % 2] ?? IDS.safe);
    await sleep(1_000);
    bot(1).kill('SIGKILL');
    const exit = await bot(1).exited;
    expect(exit.signal).toBe('SIGKILL');
    const sent = await loadDone;
    const { cards, notes } = await answers(sent);
    expect(cards + notes).toBe(60);

    // While it is gone, nobody answers its server (the other process holds only shard 0).
    const unanswered = image(1, IDS.safe, 7);
    await expect(unanswered.acknowledged).rejects.toThrow();

    await bot(1).dispose();
    await startShard(1);
    const back = await image(1, IDS.safe, 8).finalReply(ANSWER_MS);
    expect(back.embeds).toHaveLength(1);
    const shown = await discord
      .sendCommand({ name: 'settings', subcommand: 'show', channel: guild(1).channels.plain, userId: admin })
      .finalReply(ANSWER_MS);
    expect(shown.content + JSON.stringify(shown.embeds)).toMatch(/Everything/);
    // The one interaction sent while nobody held shard 1 went unanswered, as on Discord; nothing else.
    expect(discord.violations.filter((v) => !v.message.includes(unanswered.id))).toEqual([]);
  }, 120_000);

  it('GIVEN Redis stopped under load and started again THEN both keep answering, the board never sees more than the budget, and shared state resumes', async () => {
    await sleep(WINDOW_MS + 500);
    const mark = booru.requests.length;
    const hot = [IDS.safe, IDS.suggestive, IDS.fixtureFirst];
    // New images for both shards (i = 0, 1, 4, 5, ...), so both processes call the board during the outage.
    const loadDone = load(150, 20, [0, 1], (i) =>
      Math.floor(i / 2) % 2 === 0 ? freshImage() : (hot[i % hot.length] ?? IDS.safe),
    );
    await sleep(1_500);
    await redis.shutdown();
    await sleep(3_000);
    await redis.start();
    const sent = await loadDone;
    const { cards, notes } = await answers(sent);
    expect(cards + notes).toBe(150);
    // The servers' settings were read before the outage: their commands went on with them.
    expect(cards).toBeGreaterThan(100);
    expect(
      mostInAnySpan(
        booru.requests.slice(mark).map((r) => r.at),
        WINDOW_MS,
      ),
    ).toBeLessThanOrEqual(BUDGET);
    for (const shard of [0, 1]) {
      expect(logLines(shard, 'board request budget: Redis unreachable')).toHaveLength(1);
      expect(logLines(shard, 'store: Redis unreachable')).toHaveLength(1);
    }

    // Shared again: the same new image asked on both shards at once makes one board call (the store's
    // connections come back on their own, within a few seconds).
    let shared = false;
    for (let attempt = 0; attempt < 20 && !shared; attempt += 1) {
      await sleep(500);
      const id = freshImage();
      const before = booru.requests.length;
      await Promise.all([image(0, id, 10 + attempt), image(1, id, 40 + attempt)].map(answerOf));
      shared = imageCalls(before).length === 1;
    }
    expect(shared).toBe(true);
    for (const shard of [0, 1]) {
      expect(logLines(shard, 'board request budget: Redis answers again').length).toBeGreaterThanOrEqual(1);
    }
  }, 120_000);
});
