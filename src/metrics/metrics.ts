/**
 * The bot's Prometheus metrics: one prom-client Registry per process (never the global one, so two bots
 * in one test process do not share counts), with Node's default process metrics, fed by the observers the
 * layers define (the library's `PhilomenaObserver`, the runtime's `RuntimeObserver`, the unfurler's
 * decision callback) and, at scrape time, by reading the board clients and the gateway.
 *
 * Labels are low-cardinality by construction: a site id, an endpoint's resource name, a command's or
 * button's name the bot itself defines (`unknown` otherwise), a status, an outcome. Never a server, a
 * member, a query or an id.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RuntimeObserver } from '../discord/contract.js';
import { RUNTIME_ERROR_IDS } from '../discord/failures.js';
import type { BreakerState, ManagedPhilomenaClient, PhilomenaObserver } from '../philomena/index.js';

const PREFIX = 'philomena_bot_';

/** Interaction latencies (s): the acknowledgement is due within 3 s; answers can take a board call or two. */
const ACK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 2.5, 3, 5];
const ANSWER_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60];
/** Board request and budget wait times (s): the budget holds a request up to 15 s. */
const BOARD_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20];
const WAIT_BUCKETS = [0, 0.01, 0.1, 0.5, 1, 2, 5, 10, 15];

const BREAKER_STATES: readonly BreakerState[] = ['closed', 'open', 'half-open'];

/** The unfurler's decisions (commands/unfurl: `UnfurlDecision`), named here so metrics import no feature. */
export type UnfurlDecisionLabel = 'shown' | 'gated' | 'spoilered' | 'skipped';

/** What a rule in layers did to an image, and whose rule it was (src/render/content-rules.ts). */
export type RuleDecisionLabel = 'hidden' | 'spoilered';
export type RuleLayerLabel = 'floor' | 'server' | 'channel' | 'member';

/** Figures read at scrape time rather than counted as they happen. */
export interface ScrapeSources {
  /** The board clients made so far (the registry's `clients()`): budget queue and breaker state. */
  readonly boardClients?: () => readonly ManagedPhilomenaClient[];
  /** Each gateway shard's last heartbeat round trip in ms (the bot's `gatewayPings()`; -1: none yet). */
  readonly gatewayPings?: () => readonly { readonly shard: number; readonly ms: number }[];
}

export interface BotMetrics {
  /** This process's registry: `/metrics` serves `registry.metrics()`. */
  readonly registry: Registry;
  /** For `createClientRegistry({ observer })`. */
  readonly philomena: PhilomenaObserver;
  /** For `createBot({ observer })`. */
  readonly runtime: RuntimeObserver;
  /** For `createFeatures({ onUnfurlDecision })`. */
  unfurlDecision(decision: UnfurlDecisionLabel, count: number): void;
  /** For `createFeatures({ onRuleDecision })`: an image a rule hid or spoilered, by layer. */
  ruleDecision(decision: RuleDecisionLabel, layer: RuleLayerLabel): void;
  /** One feed search and what it posted (commands/feed's `PollEvent`, named here so metrics import no feature). */
  feedPoll(event: {
    readonly site: string;
    readonly outcome: 'ok' | 'board-failed' | 'query-rejected';
    readonly posted: number;
  }): void;
  /** Where the scrape-time figures come from; called once the registry and the bot exist. */
  collectFrom(sources: ScrapeSources): void;
}

export interface BotMetricsOptions {
  /**
   * Every identifier a member's error may carry (commands/shared/error-texts.ts `USER_ERROR_IDS`): the only
   * values of the `id` label; any other is counted as `other`. Default: the runtime's own.
   */
  readonly userErrorIds?: readonly string[];
}

export function createBotMetrics(options: BotMetricsOptions = {}): BotMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let sources: ScrapeSources = {};

  const interactions = new Counter({
    name: `${PREFIX}interactions_total`,
    help: 'Interactions handled, by kind (command, button, modal, autocomplete), command or button, and outcome (ok, user_error, error, turned_away).',
    labelNames: ['kind', 'command', 'outcome'] as const,
    registers,
  });
  const ackSeconds = new Histogram({
    name: `${PREFIX}interaction_ack_seconds`,
    help: 'From receiving an interaction to Discord taking its acknowledgement (deferral); Discord allows 3 s.',
    labelNames: ['kind', 'command'] as const,
    buckets: ACK_BUCKETS,
    registers,
  });
  const answerSeconds = new Histogram({
    name: `${PREFIX}interaction_answer_seconds`,
    help: 'From receiving an interaction to its last answer going out (or failing).',
    labelNames: ['kind', 'command'] as const,
    buckets: ANSWER_BUCKETS,
    registers,
  });
  const boardCalls = new Counter({
    name: `${PREFIX}board_calls_total`,
    help: 'Requests to the boards, by site, endpoint (resource) and status (HTTP status, or timeout, network, circuit-open, budget-exhausted, rate-limited, blocked, aborted, error).',
    labelNames: ['site', 'endpoint', 'status'] as const,
    registers,
  });
  const boardSeconds = new Histogram({
    name: `${PREFIX}board_call_seconds`,
    help: 'Time of a request to a board, from asking the budget to the answer (retries included).',
    labelNames: ['site'] as const,
    buckets: BOARD_BUCKETS,
    registers,
  });
  const cacheLookups = new Counter({
    name: `${PREFIX}board_cache_lookups_total`,
    help: 'Where board reads were answered from: layer memory (the in-process LRU), store, shared (coalesced with an identical request in flight) or miss (a request to the board).',
    labelNames: ['site', 'endpoint', 'layer'] as const,
    registers,
  });
  const budgetWait = new Histogram({
    name: `${PREFIX}board_budget_wait_seconds`,
    help: "Time a board request waited for a slot of its site's budget, by priority and outcome (granted, refused, aborted).",
    labelNames: ['site', 'priority', 'outcome'] as const,
    buckets: WAIT_BUCKETS,
    registers,
  });
  new Gauge({
    name: `${PREFIX}board_budget_queued`,
    help: "Board requests waiting in their site's budget queue now.",
    labelNames: ['site'] as const,
    registers,
    collect() {
      this.reset();
      for (const client of sources.boardClients?.() ?? []) {
        this.set({ site: client.site.id }, client.stats().budget.queued);
      }
    },
  });
  new Gauge({
    name: `${PREFIX}board_breaker_state`,
    help: "Each site's circuit breaker: 1 for its current state (closed, open, half-open), 0 for the others.",
    labelNames: ['site', 'state'] as const,
    registers,
    collect() {
      this.reset();
      for (const client of sources.boardClients?.() ?? []) {
        const current = client.stats().breaker;
        for (const state of BREAKER_STATES)
          this.set({ site: client.site.id, state }, state === current ? 1 : 0);
      }
    },
  });
  const unfurls = new Counter({
    name: `${PREFIX}unfurl_decisions_total`,
    help: 'Links recognised in chat, by what became of them: shown, gated (rating, deleted, merged), spoilered, skipped (over a limit, no room, failed).',
    labelNames: ['decision'] as const,
    registers,
  });
  const ruleDecisions = new Counter({
    name: `${PREFIX}rule_decisions_total`,
    help: 'Images a rule in layers hid or put behind a spoiler, by decision and layer (floor, server, channel, member).',
    labelNames: ['decision', 'layer'] as const,
    registers,
  });
  const feedPolls = new Counter({
    name: `${PREFIX}feed_polls_total`,
    help: 'Feed searches made by this process (one per site/query/filter group per interval), by site and outcome (ok, board-failed, query-rejected).',
    labelNames: ['site', 'outcome'] as const,
    registers,
  });
  const feedPosts = new Counter({
    name: `${PREFIX}feed_posts_total`,
    help: 'Images posted by feeds from this process, by site.',
    labelNames: ['site'] as const,
    registers,
  });
  new Gauge({
    name: `${PREFIX}gateway_ping_seconds`,
    help: "Each gateway shard's last heartbeat round trip.",
    labelNames: ['shard'] as const,
    registers,
    collect() {
      this.reset();
      for (const { shard, ms } of sources.gatewayPings?.() ?? []) {
        if (ms >= 0) this.set({ shard: String(shard) }, ms / 1000);
      }
    },
  });
  const knownErrorIds = new Set<string>(options.userErrorIds ?? Object.values(RUNTIME_ERROR_IDS));
  const userErrors = new Counter({
    name: `${PREFIX}user_errors_total`,
    help: 'Errors shown to members, by identifier (one per distinct message; other: an identifier not listed).',
    labelNames: ['id'] as const,
    registers,
  });
  // Every listed identifier is exported from the start, at 0, so a rate over it needs no first error.
  for (const id of knownErrorIds) userErrors.inc({ id }, 0);
  const discordRateLimited = new Counter({
    name: `${PREFIX}discord_rate_limited_total`,
    help: "Times Discord's REST client waited for a rate limit (a 429, or a bucket it knew to be empty), by scope.",
    labelNames: ['scope', 'global'] as const,
    registers,
  });

  return {
    registry,
    philomena: {
      boardCall({ site, endpoint, status, durationMs }) {
        boardCalls.inc({ site, endpoint, status });
        boardSeconds.observe({ site }, durationMs / 1000);
      },
      cacheLookup({ site, endpoint, layer }) {
        cacheLookups.inc({ site, endpoint, layer });
      },
      budgetWait({ site, priority, outcome, waitedMs }) {
        budgetWait.observe({ site, priority, outcome }, Math.max(0, waitedMs) / 1000);
      },
    },
    runtime: {
      acknowledged({ kind, command, ms }) {
        ackSeconds.observe({ kind, command }, ms / 1000);
      },
      answered({ kind, command, outcome, ms, errorId }) {
        interactions.inc({ kind, command, outcome });
        if (errorId !== undefined) userErrors.inc({ id: knownErrorIds.has(errorId) ? errorId : 'other' });
        answerSeconds.observe({ kind, command }, ms / 1000);
      },
      discordRateLimited({ scope, global }) {
        discordRateLimited.inc({ scope, global: String(global) });
      },
    },
    feedPoll({ site, outcome, posted }) {
      feedPolls.inc({ site, outcome });
      if (posted > 0) feedPosts.inc({ site }, posted);
    },
    unfurlDecision(decision, count) {
      unfurls.inc({ decision }, count);
    },
    ruleDecision(decision, layer) {
      ruleDecisions.inc({ decision, layer });
    },
    collectFrom(next) {
      sources = next;
    },
  };
}
