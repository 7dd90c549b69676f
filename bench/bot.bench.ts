/**
 * The whole bot under load (issue 4, section 5). The bot runs in its own Node process
 * (bench/bot-process.ts, the same createBot main.ts uses, the default per-site budget of 30 requests per
 * 5 s, a memory store), so the figures are its own, not those of the local servers that drive it:
 *
 * 1. Interactions: 1,000 at 100 a second through the shared local Discord (test/fakes/discord) against the
 *    local Philomena answering after 50 ms. A mix of /image (a Zipf spread over ~230 ids, so some are hot
 *    and many are not), /search, /tag, tag autocomplete and search paging buttons, from 500 members, so a
 *    per-member cooldown would not bind. Every interaction must be acknowledged and answered; the figures
 *    say how fast, how many board calls that took, and how many answers were served at once (cache or a
 *    call already in flight), after a board call, after waiting for the budget, or "the site is busy".
 * 2. Chat: 10,000 messages at 1,000 a second over 1,000 servers x 8 text channels, 10% with links to the
 *    local Philomena (same Zipf spread): cards sent, board calls, CPU time of the bot per message.
 * 3. Memory: RSS after GC with 1,000 and with 10,000 servers connected (GUILD_CREATE with 10 channels,
 *    10 roles, 20 members, 5 presences each), the bot's tuned caches against discord.js's defaults, both
 *    at once, and the ratio. The shared local Discord seeds a single server, so parts 2 and 3 use a small
 *    many-server Discord of their own (bench/bot-discord.ts).
 *
 * Politeness is measured where the site would see it: the child stamps each board request as undici
 * creates it (its diagnostics channel), and "most in any 5 s" on that clock must stay within the budget.
 * Real Discord's own REST rate limits are not modelled by either local Discord.
 *
 * Everything listens on and connects to 127.0.0.1 only; every loop is bounded in count and time
 * (about 2 minutes in all on a 2-core machine).
 */
import { FAKE_KEY, startFakePhilomena, type FakePhilomena } from '../test/fakes/philomena/index.js';
import {
  customIdsOf,
  startFakeDiscord,
  type FakeDiscord,
  type InteractionHandle,
  type RecordedMessage,
} from '../test/fakes/discord/index.js';
import { startBenchDiscord, type BenchDiscord } from './bot-discord.js';
import { startBotChild, type BotChild } from './bot-child.js';
import { percentile, type Bench, type BenchRow } from './report.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createSeededRandom } from '../test/support/random.js';
import { MISSING_IDS, imagePool, shuffled, zipf } from './workload.js';
import { classifyAnswer, type Answer, type Classified } from './answers.js';
import { mostInAnySpan } from '../test/support/arrivals.js';

const BOARD_LATENCY_MS = 50;
const INTERACTIONS = 1000;
const INTERACTIONS_PER_SECOND = 100;
/** Enough members that a per-member cooldown (5 commands per 10 s by default) almost never binds. */
const MEMBERS = 2000;
const CHAT_MESSAGES = 10_000;
const CHAT_PER_SECOND = 1000;
const CHAT_SERVERS = 1000;
const MEMORY_SERVERS = [1000, 10_000] as const;
const SERVER_SHAPE = { channels: 10, roles: 10, members: 20, presences: 5 } as const;
/** After the last interaction or message: how long answers may still come (the budget waits up to 15 s). */
const SETTLE_MS = 30_000;
/** Chat: stop waiting once no reply came for this long. */
const QUIET_MS = 3000;

// ---------------------------------------------------------------------------------------------- helpers

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const count = (n: number): string => n.toLocaleString('en-US');
const msText = (n: number): string => (Number.isNaN(n) ? 'n/a' : `${count(Math.round(n))} ms`);
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const pct = (part: number, whole: number): string =>
  whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(1)}%`;
const sorted = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

/** Board API calls in the request log, and the most that fell in any `windowMs` span. */
function boardFigures(
  booru: FakePhilomena,
  windowMs: number,
): { calls: number; byPath: Map<string, number>; maxInWindow: number } {
  const api = booru.requests.filter((r) => r.path.startsWith('/api/'));
  const byPath = new Map<string, number>();
  for (const r of api) {
    const key = r.path.replace(/^\/api\/v1\/json/, '').replace(/^\/(images|tags)\/[^/]+$/, '/$1/:id');
    byPath.set(key, (byPath.get(key) ?? 0) + 1);
  }
  return {
    calls: api.length,
    byPath,
    maxInWindow: mostInAnySpan(
      api.map((r) => r.at),
      windowMs,
    ),
  };
}

/** The commonest warning or error line, to say what the counts are about. */
function topProblems(messages: Record<string, number>): string {
  const problems = Object.entries(messages)
    .filter(([key]) => /^(warn|error|fatal):/.test(key))
    .sort((a, b) => b[1] - a[1]);
  return problems.length === 0
    ? ''
    : ` (${problems
        .slice(0, 2)
        .map(([key, n]) => `${n}x "${key}"`)
        .join(', ')})`;
}

// ------------------------------------------------------------------------------------ 1. interactions

type Kind = 'image' | 'search' | 'tag' | 'autocomplete' | 'button';
interface Settled extends Classified {
  readonly ackMs: number;
  readonly finalMs: number;
}

interface SentInteraction {
  readonly kind: Kind;
  readonly handle: InteractionHandle;
}

const QUERIES = [
  'pony',
  'safe',
  'twilight sparkle',
  'solo',
  'pony, solo',
  'oc',
  'fluttershy',
  'rainbow dash',
  'cute',
  'artist:fake artist',
  'pinkie pie',
  'applejack',
];
const TAGS = [
  'twilight sparkle',
  'littlepip',
  'safe',
  'pony',
  'fluttershy',
  'rainbow dash',
  'artist:fake artist',
  'pinkie pie',
  'oc',
  'unicorn',
  'pegasus',
  'earth pony',
  'no such tag here',
];
const PREFIXES = [
  'tw',
  'twi',
  'twil',
  'pon',
  'po',
  'flu',
  'rai',
  'rainbow',
  'pin',
  'art',
  'artist:',
  'oc',
  'oc:',
  'sa',
  'uni',
  'peg',
  'ea',
  'app',
  'so',
  'cu',
];

/** The acknowledgement and the final answer of an interaction, once both are in (refused calls ignored). */
function settledOf(handle: InteractionHandle): Settled | undefined {
  const accepted = handle.responses.filter((r) => r.status >= 200 && r.status < 300);
  const ack = accepted.find((r) => r.kind === 'callback');
  if (ack === undefined) return undefined;
  if (ack.callbackType === 4 || ack.callbackType === 7 || ack.callbackType === 8) {
    return { ackMs: ack.ms, finalMs: ack.ms, ...classifyAnswer(ack.body) };
  }
  const final = accepted.find((r) => r.kind === 'edit-original' || r.kind === 'followup');
  return final === undefined
    ? undefined
    : { ackMs: ack.ms, finalMs: final.ms, ...classifyAnswer(final.body) };
}

/** The Next button of a search page, wherever it sits (a row, or inside a Components V2 card). */
function nextButton(message: RecordedMessage): string | undefined {
  return customIdsOf(message).find((id) => id.startsWith('srch:next:'));
}

async function interactionsRun(): Promise<BenchRow[]> {
  const group = 'bot: 1,000 interactions';
  const discord: FakeDiscord = await startFakeDiscord();
  const booru = await startFakePhilomena({ latencyMs: BOARD_LATENCY_MS });
  let bot: BotChild | undefined;
  try {
    bot = await startBotChild(
      {
        discordApiUrl: discord.apiUrl,
        discordToken: discord.token,
        booruUrl: booru.url,
        booruKey: FAKE_KEY,
        caches: 'tuned',
      },
      60_000,
    );
    await discord.waitFor(
      () => (discord.registeredCommands().some((c) => c.name === 'image') ? true : undefined),
      10_000,
    );
    booru.reset();

    const random = createSeededRandom(20240601);
    const pickId = zipf(shuffled(imagePool(), random), 1.1, random);
    const pickQuery = zipf(QUERIES, 1.2, random);
    const pickTag = zipf(TAGS, 1.2, random);
    const pickPrefix = zipf(PREFIXES, 1.0, random);
    const members = Array.from({ length: MEMBERS }, (_, i) =>
      (900_000_000_000_000_000n + BigInt(i)).toString(),
    );
    const pickMember = (): string => members[Math.floor(random() * members.length)] ?? '';
    const pickChannel = (): 'plain' | 'ageRestricted' | 'threadInPlain' =>
      random() < 0.6 ? 'plain' : random() < 0.5 ? 'ageRestricted' : 'threadInPlain';

    const sent: SentInteraction[] = [];
    const searches: { handle: InteractionHandle; userId: string }[] = [];
    // How late the driver itself ran: the local Discord shares this process, and its lag adds to the figures.
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const started = performance.now();
    for (let i = 0; i < INTERACTIONS; i += 1) {
      const due = started + (i * 1000) / INTERACTIONS_PER_SECOND;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const roll = random();
      const userId = pickMember();
      const channel = pickChannel();
      let kind: Kind = 'button';
      let handle: InteractionHandle | undefined;
      if (roll >= 0.9) {
        // A paging click by whoever searched, on a search answered by now.
        const ready = searches.flatMap((s) => {
          const reply = s.handle.replyMessage();
          const customId = reply === undefined ? undefined : nextButton(reply);
          return reply === undefined || customId === undefined ? [] : [{ reply, customId, userId: s.userId }];
        });
        const pick = ready[Math.floor(random() * ready.length)];
        if (pick !== undefined) {
          kind = 'button';
          handle = discord.sendButton({ customId: pick.customId, message: pick.reply, userId: pick.userId });
        }
      }
      if (handle === undefined) {
        if (roll < 0.4) {
          kind = 'image';
          handle = discord.sendCommand({ name: 'image', options: { id: String(pickId()) }, channel, userId });
        } else if (roll < 0.55 || roll >= 0.9) {
          kind = 'search';
          handle = discord.sendCommand({ name: 'search', options: { query: pickQuery() }, channel, userId });
          searches.push({ handle, userId });
        } else if (roll < 0.65) {
          kind = 'tag';
          handle = discord.sendCommand({ name: 'tag', options: { name: pickTag() }, channel, userId });
        } else {
          kind = 'autocomplete';
          handle = discord.sendAutocomplete({
            name: 'tag',
            options: { name: pickPrefix() },
            focused: 'name',
            channel,
            userId,
          });
        }
      }
      sent.push({ kind, handle });
    }
    const sendSeconds = (performance.now() - started) / 1000;
    // One cheap poll over what is still open (the times come from the fake's own records, not from here);
    // whatever is still open at the deadline counts as lost.
    const deadline = performance.now() + SETTLE_MS;
    let open = sent;
    while (open.length > 0 && performance.now() < deadline) {
      await sleep(100);
      open = open.filter((s) => settledOf(s.handle) === undefined);
    }
    lag.disable();

    const outcomes = sent.map((s) => ({ kind: s.kind, settled: settledOf(s.handle) }));
    const answered = outcomes.flatMap((o) =>
      o.settled === undefined ? [] : [{ kind: o.kind, ...o.settled }],
    );
    const lost = outcomes.length - answered.length;
    const acks = sorted(answered.filter((a) => a.kind !== 'autocomplete').map((a) => a.ackMs));
    const autocompleteAcks = sorted(answered.filter((a) => a.kind === 'autocomplete').map((a) => a.ackMs));
    const finals = sorted(answered.map((a) => a.finalMs));
    const late = sent.filter((s) =>
      s.handle.responses.some((r) => r.kind === 'callback' && r.status === 404),
    ).length;
    const board = boardFigures(booru, 5000);
    const stats = await bot.request('stats');

    const rows: BenchRow[] = [
      {
        group,
        metric: 'interactions sent (image/search/tag/autocomplete/button)',
        value: `${count(sent.length)} (${(['image', 'search', 'tag', 'autocomplete', 'button'] as const).map((k) => sent.filter((s) => s.kind === k).length).join('/')}) in ${sendSeconds.toFixed(1)} s`,
        goal: `${count(INTERACTIONS)} at ${INTERACTIONS_PER_SECOND}/s`,
      },
      {
        group,
        metric: 'lost (never acknowledged or never answered)',
        value: count(lost),
        goal: '0',
        ok: lost === 0,
      },
      {
        group,
        metric: 'acknowledgements refused as later than 3 s',
        value: count(late),
        goal: '0',
        ok: late === 0,
      },
      {
        group,
        metric: 'time to acknowledge p50 / p99 / max, commands and buttons (defer)',
        value: `${msText(percentile(acks, 50))} / ${msText(percentile(acks, 99))} / ${msText(percentile(acks, 100))}`,
        goal: '< 3,000 ms',
        ok: percentile(acks, 100) < 3000,
      },
      {
        group,
        metric: 'time to answer p50 / p99 / max, autocomplete (its only answer; gives up at 2.2 s)',
        value: `${msText(percentile(autocompleteAcks, 50))} / ${msText(percentile(autocompleteAcks, 99))} / ${msText(percentile(autocompleteAcks, 100))}`,
        goal: '< 3,000 ms',
        ok: percentile(autocompleteAcks, 100) < 3000,
      },
      {
        group,
        metric: 'time to final answer p50 / p99',
        value: `${msText(percentile(finals, 50))} / ${msText(percentile(finals, 99))}`,
      },
    ];
    for (const kind of ['image', 'search', 'tag', 'autocomplete', 'button'] as const) {
      const mine = sorted(answered.filter((a) => a.kind === kind).map((a) => a.finalMs));
      if (mine.length === 0) continue;
      rows.push({
        group,
        metric: `  final answer p50 / p99, ${kind} (n=${mine.length})`,
        value: `${msText(percentile(mine, 50))} / ${msText(percentile(mine, 99))}`,
      });
    }
    // How each was served. A board call costs at least the board's 50 ms, so a card faster than that came
    // from the cache or joined a call already in flight; a card after more than 300 ms waited in the budget queue.
    const cards = answered.filter(
      (a) =>
        a.answer === 'card' ||
        a.answer === 'choices' ||
        a.answer === 'no results' ||
        a.answer === 'not found',
    );
    const atOnce = cards.filter((a) => a.finalMs < BOARD_LATENCY_MS).length;
    const queued = cards.filter((a) => a.finalMs >= 300).length;
    const direct = cards.length - atOnce - queued;
    const tally = (answer: Answer): number => answered.filter((a) => a.answer === answer).length;
    const others = answered.filter((a) => a.answer === 'other');
    rows.push(
      {
        group,
        metric: 'answered with content (card, choices, "no results", "not found"; cards as Components V2)',
        value: `${count(cards.length)} (${pct(cards.length, sent.length)}; ${count(cards.filter((a) => a.form === 'v2').length)} V2)`,
      },
      {
        group,
        metric: `  at once, < ${BOARD_LATENCY_MS} ms (cache, or joined a board call in flight)`,
        value: count(atOnce),
      },
      { group, metric: `  after a board call, ${BOARD_LATENCY_MS}-300 ms`, value: count(direct) },
      { group, metric: '  after waiting for the site budget, >= 300 ms', value: count(queued) },
      {
        group,
        metric: 'answered "the site is busy, try again in N s" (budget queue full or wait too long)',
        value: `${count(tally('site busy'))} (${pct(tally('site busy'), sent.length)})`,
      },
      {
        group,
        metric: 'autocomplete answered with no choices (its share of the budget used up, or timed out)',
        value: count(tally('no choices')),
      },
      {
        group,
        metric: `answered "you are using commands too quickly" (member cooldown ${bot.limits.command}; ${count(MEMBERS)} members)`,
        value: count(tally('cooldown')),
      },
      {
        group,
        metric: 'other answers (site down, unexpected)',
        value:
          count(tally('site down') + others.length) +
          (others.length > 0 ? ` e.g. "${others[0]?.text.slice(0, 60) ?? ''}"` : ''),
        goal: '0',
        ok: tally('site down') + others.length === 0,
      },
      {
        group,
        metric: `board calls (${BOARD_LATENCY_MS} ms board)`,
        value: `${count(board.calls)}: ${[...board.byPath].map(([p, n]) => `${p} ${n}`).join(', ')}`,
      },
      {
        group,
        metric: 'board calls started by the bot / most in any 5 s (its own clock)',
        value: `${count(stats.boardRequests)} / ${count(stats.boardMaxIn5s)}`,
        goal: '<= 30 in 5 s',
        ok: stats.boardMaxIn5s <= 30,
      },
      { group, metric: 'most board calls arriving at the board in any 5 s', value: count(board.maxInWindow) },
      {
        group,
        metric: 'bot log lines warn / error',
        value: `${stats.logLevels['warn'] ?? 0} / ${stats.logLevels['error'] ?? 0}${topProblems(stats.logMessages)}`,
      },
      {
        group,
        metric: 'driver (local Discord) event-loop delay p99 / max',
        value: `${msText(lag.percentile(99) / 1e6)} / ${msText(lag.max / 1e6)}`,
      },
      {
        group,
        metric: 'messages that could ping (allowed_mentions not empty)',
        value: count(discord.mentionRisks.length),
        goal: '0',
        ok: discord.mentionRisks.length === 0,
      },
    );
    return rows;
  } finally {
    await bot?.stop();
    await discord.close();
    await booru.close();
  }
}

// ------------------------------------------------------------------------------------------- 2. chat

const WORDS = (
  'the pony art is so cute lol did you see this one new episode tonight who drew that i love her mane ' +
  'colours wow amazing haha ok sure maybe later brb gonna check the booru for more of this artist pls'
).split(' ');

async function chatRun(discord: BenchDiscord, booru: FakePhilomena): Promise<BenchRow[]> {
  const group = 'bot: 10,000 chat messages';
  const bot = await startBotChild(
    {
      discordApiUrl: discord.apiUrl,
      discordToken: discord.token,
      booruUrl: booru.url,
      booruKey: FAKE_KEY,
      caches: 'tuned',
    },
    120_000,
  );
  try {
    booru.reset();
    const random = createSeededRandom(20240602);
    const pickId = zipf(shuffled(imagePool(), random), 1.1, random);
    const words = (n: number): string =>
      Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
    const linkMessages = new Set<string>();
    const linksPerServer = new Map<number, number>();
    let links = 0;
    /** Link messages whose every link is to an image the board does not have: silence is right for them. */
    let missingOnly = 0;

    const before = await bot.request('cpu');
    const started = performance.now();
    for (let i = 0; i < CHAT_MESSAGES; i += 1) {
      const due = started + (i * 1000) / CHAT_PER_SECOND;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const guild = Math.floor(random() * CHAT_SERVERS);
      const roll = random();
      let content = words(3 + Math.floor(random() * 25));
      if (roll < 0.1) {
        const n = random() < 0.1 ? 2 : 1;
        const ids = Array.from({ length: n }, () => pickId());
        const urls = ids.map((imageId) => `${booru.url}/images/${imageId}`);
        if (ids.every((imageId) => MISSING_IDS.has(imageId))) missingOnly += 1;
        content = `${words(3)} ${urls.join(' and ')} ${words(2)}`;
        links += n;
        linksPerServer.set(guild, (linksPerServer.get(guild) ?? 0) + 1);
      } else if (roll < 0.13) {
        content = `${words(4)} https://www.youtube.com/watch?v=dQw4w9WgXcQ`;
      }
      const id = discord.dispatchMessage({
        guild,
        channel: Math.floor(random() * 8),
        author: Math.floor(random() * 19),
        content,
      });
      if (roll < 0.1) linkMessages.add(id);
    }
    const sendSeconds = (performance.now() - started) / 1000;
    const duringTraffic = await bot.request('cpu');
    // Wait for the replies to stop coming (bounded).
    const deadline = performance.now() + SETTLE_MS;
    let seen = -1;
    let quietSince = performance.now();
    while (performance.now() < deadline) {
      const answeredNow = new Set(discord.sent.map((m) => m.replyTo)).size;
      if (answeredNow >= linkMessages.size) break;
      if (discord.sent.length !== seen) {
        seen = discord.sent.length;
        quietSince = performance.now();
      } else if (performance.now() - quietSince > QUIET_MS) break;
      await sleep(100);
    }
    const after = await bot.request('cpu');
    const wallSeconds = (performance.now() - started) / 1000;
    const stats = await bot.request('stats');
    const trafficMicros =
      duringTraffic.userMicros + duringTraffic.systemMicros - before.userMicros - before.systemMicros;
    const cpuMicros = after.userMicros + after.systemMicros - before.userMicros - before.systemMicros;
    const replies = discord.sent.filter((m) => m.replyTo !== undefined);
    const unfurled = new Set(
      replies.map((m) => m.replyTo).filter((id): id is string => id !== undefined && linkMessages.has(id)),
    );
    const strayReplies = replies.filter(
      (m) => m.replyTo === undefined || !linkMessages.has(m.replyTo),
    ).length;
    const cards = replies.reduce((sum, m) => sum + m.cards, 0);
    const board = boardFigures(booru, 5000);
    const busiest = Math.max(0, ...linksPerServer.values());
    const cardsPerChannel = new Map<string, number>();
    for (const m of replies)
      cardsPerChannel.set(m.channelId, (cardsPerChannel.get(m.channelId) ?? 0) + m.cards);
    const busiestCards = Math.max(
      0,
      ...discord.guilds.map((g) =>
        g.textChannelIds.reduce((sum, c) => sum + (cardsPerChannel.get(c) ?? 0), 0),
      ),
    );
    const failed = Object.entries(stats.logMessages)
      .filter(([k]) => /unfurl failed/.test(k))
      .reduce((s, [, n]) => s + n, 0);

    return [
      {
        group,
        metric: 'messages sent / with image links (links)',
        value: `${count(CHAT_MESSAGES)} / ${count(linkMessages.size)} (${count(links)}) in ${sendSeconds.toFixed(1)} s, ${CHAT_SERVERS} servers x 8 text channels`,
      },
      {
        group,
        metric: 'link messages answered with cards / cards sent',
        value: `${count(unfurled.size)} (${pct(unfurled.size, linkMessages.size)}) / ${count(cards)}`,
      },
      {
        group,
        metric: 'link messages left unanswered (board call failed or queue full: logged, never replied)',
        value: `${count(linkMessages.size - unfurled.size)}, of which ${count(missingOnly)} link only to images the board does not have (${count(failed)} "unfurl failed" log lines)`,
      },
      {
        group,
        metric: 'replies to messages without an image link',
        value: count(strayReplies),
        goal: '0',
        ok: strayReplies === 0,
      },
      {
        group,
        metric: 'own previews suppressed (PATCH, bot has Manage Messages)',
        value: count(discord.edits),
      },
      {
        group,
        metric: `board calls (${BOARD_LATENCY_MS} ms board) / most started in any 5 s (bot's clock)`,
        value: `${count(board.calls)} / ${count(stats.boardMaxIn5s)}`,
        goal: '<= 30 in 5 s',
        ok: stats.boardMaxIn5s <= 30,
      },
      {
        group,
        metric: 'bot CPU time per message, while the messages came (user+system)',
        value: `${(trafficMicros / CHAT_MESSAGES).toFixed(0)} µs (${(trafficMicros / 1e6).toFixed(2)} s CPU in ${sendSeconds.toFixed(1)} s)`,
      },
      {
        group,
        metric: 'bot CPU time per message, whole run incl. unfurls that waited for the budget',
        value: `${(cpuMicros / CHAT_MESSAGES).toFixed(0)} µs (${(cpuMicros / 1e6).toFixed(2)} s CPU in ${wallSeconds.toFixed(1)} s)`,
      },
      {
        group,
        metric: `link messages in the busiest server (unfurl budget per server: ${bot.limits.unfurl}, in cards)`,
        value: `${count(busiest)} in ${sendSeconds.toFixed(0)} s; most cards to one server: ${count(busiestCards)}`,
      },
      {
        group,
        metric: 'bot log lines warn / error',
        value: `${stats.logLevels['warn'] ?? 0} / ${stats.logLevels['error'] ?? 0}${topProblems(stats.logMessages)}`,
      },
      {
        group,
        metric: 'unknown REST calls',
        value: count(discord.unknownRoutes.length),
        goal: '0',
        ok: discord.unknownRoutes.length === 0,
      },
    ];
  } finally {
    await bot.stop();
  }
}

// ----------------------------------------------------------------------------------------- 3. memory

function cachedSummary(cached: Record<string, number>): string {
  const short = (name: string): string => name.replace(/Manager$/, '');
  return Object.entries(cached)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, n]) => `${short(name)} ${count(n)}`)
    .join(', ');
}

async function memoryRun(servers: number, discord: BenchDiscord, booru: FakePhilomena): Promise<BenchRow[]> {
  const group = `bot: memory, ${count(servers)} servers`;
  const input = {
    discordApiUrl: discord.apiUrl,
    discordToken: discord.token,
    booruUrl: booru.url,
    booruKey: FAKE_KEY,
  };
  const children: BotChild[] = [];
  try {
    // Both at once, on the same Discord: the same run, the same servers.
    const [tuned, defaults] = await Promise.all([
      startBotChild({ ...input, caches: 'tuned' }, 180_000),
      startBotChild({ ...input, caches: 'default' }, 180_000),
    ]);
    children.push(tuned, defaults);
    const t = await tuned.request('memory');
    const d = await defaults.request('memory');
    const ratio = d.memory.rss / t.memory.rss;
    const growthRatio = (d.memory.rss - defaults.idle.rss) / Math.max(1, t.memory.rss - tuned.idle.rss);
    const shape = `${SERVER_SHAPE.channels} channels, ${SERVER_SHAPE.roles} roles, ${SERVER_SHAPE.members} members, ${SERVER_SHAPE.presences} presences each`;
    return [
      {
        group,
        metric: `RSS after GC, bot's tuned caches (${shape})`,
        value: `${mib(t.memory.rss)} (heap ${mib(t.memory.heapUsed)}; idle bot ${mib(tuned.idle.rss)})`,
      },
      {
        group,
        metric: "RSS after GC, discord.js's default caches",
        value: `${mib(d.memory.rss)} (heap ${mib(d.memory.heapUsed)}; idle bot ${mib(defaults.idle.rss)})`,
      },
      {
        group,
        metric: 'ratio default / tuned: RSS (RSS growth over the idle bot; heap used)',
        value: `${ratio.toFixed(2)}x (${growthRatio.toFixed(2)}x; ${(d.memory.heapUsed / t.memory.heapUsed).toFixed(2)}x)`,
      },
      {
        group,
        metric: "cache entries, tuned (a channel sits in the client's and its server's cache)",
        value: cachedSummary(t.cached),
      },
      { group, metric: 'cache entries, default', value: cachedSummary(d.cached) },
      {
        group,
        metric: 'time to ready (login, every GUILD_CREATE, registration), tuned / default',
        value: `${msText(tuned.startMs)} / ${msText(defaults.startMs)}`,
      },
    ];
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

// ---------------------------------------------------------------------------------------------- run

export default (async () => {
  // The network guard of the tests: a connection to anything but loopback fails at once.
  await import('../test/setup.js');
  const rows: BenchRow[] = [];
  rows.push(...(await interactionsRun()));

  const booru = await startFakePhilomena({ latencyMs: BOARD_LATENCY_MS });
  try {
    for (const servers of MEMORY_SERVERS) {
      const discord = await startBenchDiscord({ guilds: servers, ...SERVER_SHAPE });
      try {
        if (servers === CHAT_SERVERS) rows.push(...(await chatRun(discord, booru)));
        rows.push(...(await memoryRun(servers, discord, booru)));
      } finally {
        await discord.close();
      }
    }
  } finally {
    await booru.close();
  }
  return rows;
}) satisfies Bench;
