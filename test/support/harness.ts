/**
 * The one in-process bot harness of the test suites (e2e, faults, hostile, abuse, lifecycle in process):
 * the local Discord, the local Philomena, a store (memory or a temp SQLite file), and the bot built by the
 * same `createBot` main.ts uses, with its log lines kept in memory. A test starts one per test (or per
 * file) and closes it; `restart()` swaps in a fresh bot on the same store, as a process restart would.
 *
 * - The abuse limits (COMMAND_RATE_LIMIT, UNFURL_RATE_LIMIT) are off unless a test sets them in `env`, so
 *   suites that send many commands as one member test what they mean to test.
 * - The board clients can be tuned (`registry`: attempt timeout, anti-bot floor, budget, breaker, jitter,
 *   dispatcher).
 * - Three clocks a test can move forward instead of waiting, each over its own base (the option's `now` if
 *   given, else the production default): the board clients' (`boardClock`: transport deadlines, budget
 *   windows, breaker cool-downs), the local Discord's (`discordClock`: answer window, token lifetime) and
 *   the bot's own (`botClock`: cooldowns, paging buttons that age out). Untouched, each reads its base.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Keyv from 'keyv';
import { createFeatures, type FeatureDeps } from '../../commands/index.js';
import type { Command } from '../../commands/shared/context.js';
import { createBot, type Bot, type BotDeps } from '../../src/discord/bot.js';
import { runtimeOptionsOf } from '../../src/runtime-options.js';
import type { RuntimeObserver } from '../../src/discord/contract.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import {
  createClientRegistry,
  type ClientRegistry,
  type ClientRegistryOptions,
} from '../../src/philomena/registry.js';
import { closeStore, createStore } from '../../src/store/index.js';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordOptions } from '../fakes/discord/index.js';
import { FAKE_KEY, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { createMovableClock, type MovableClock } from './clock.js';

export type { MovableClock } from './clock.js';

export interface HarnessOptions {
  /** `memory` (default) or `sqlite` (a temp file, kept across `restart()`). */
  readonly store?: 'memory' | 'sqlite';
  /** Extra environment for loadConfig (UNFURL, BOORU_FILTER_ID, ...). */
  readonly env?: Readonly<Record<string, string>>;
  /** Options of the local Discord; its `now` is the base of `discordClock`. */
  readonly discord?: FakeDiscordOptions;
  /** Give the bot the board key (default true). */
  readonly withKey?: boolean;
  /** Start the bot right away (default true). */
  readonly start?: boolean;
  /** Bot dependencies; `now` is the base of `botClock`. */
  readonly bot?: Partial<
    Pick<BotDeps<unknown>, 'autocompleteTimeoutMs' | 'formTimeoutMs' | 'now' | 'clientOptions'>
  > & {
    /** In place of the real command list. */
    readonly commands?: readonly Command[];
  };
  /**
   * Registry tuning (budget, breaker, transport, jitter, dispatcher ...), applied to every registry the
   * harness makes; `now` is the base of `boardClock`.
   */
  readonly registry?: Omit<Partial<ClientRegistryOptions>, 'defaultSite' | 'apiKey' | 'cache' | 'logger'>;
  /**
   * Observers (the metrics) for the bot (`createBot({ observer })`) and the features
   * (`createFeatures({ onUnfurlDecision })`); the board clients' go in `registry.observer`.
   */
  readonly observers?: {
    readonly runtime?: RuntimeObserver;
    readonly onUnfurlDecision?: FeatureDeps['onUnfurlDecision'];
    readonly onFeedPoll?: FeatureDeps['onFeedPoll'];
  };
  /** How often the feed poller looks for due groups (default: FEED_INTERVAL / 20). */
  readonly feedTickMs?: number;
}

export interface Harness {
  readonly discord: FakeDiscord;
  readonly booru: FakePhilomena;
  readonly config: Config;
  readonly store: Keyv;
  readonly registry: ClientRegistry;
  readonly bot: Bot;
  /** The board clients' clock (transport deadlines, budget windows, breaker). */
  readonly boardClock: MovableClock;
  /** The local Discord's clock (answer window, token lifetime). */
  readonly discordClock: MovableClock;
  /** The bot's own clock (cooldowns, paging and Reveal buttons that age out). */
  readonly botClock: MovableClock;
  /** Every log line so far, as written. */
  logText(): string;
  /** Every log line so far, parsed (pino JSON). */
  logLines(): Record<string, unknown>[];
  start(): Promise<void>;
  /** One round of the feed poller now; resolves when it is over (the bot must be started). */
  pollFeeds(): Promise<void>;
  /** Stops the bot and starts a new one (new store handle on the same file, new registry, same clocks). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A per-site board budget far above what a suite sends, for suites where the budget would only make runs
 * wait (the budget itself is proven in test/e2e/abuse.test.ts): `registry: { budget: ROOMY_BUDGET }`.
 */
export const ROOMY_BUDGET: NonNullable<ClientRegistryOptions['budget']> = {
  overall: { limit: 10_000, windowMs: 1000 },
  search: { limit: 10_000, windowMs: 1000 },
};

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const discordClock = createMovableClock(options.discord?.now ?? Date.now);
  const boardClock = createMovableClock(options.registry?.now ?? (() => performance.now()));
  const botClock = createMovableClock(options.bot?.now ?? Date.now);
  const discord = await startFakeDiscord({ ...options.discord, now: discordClock.now });
  const booru = await startFakePhilomena();
  const dir =
    options.store === 'sqlite' ? await mkdtemp(path.join(tmpdir(), 'philomena-bot-e2e-')) : undefined;
  const storeUrl = dir === undefined ? 'memory://' : `sqlite://${path.join(dir, 'bot.sqlite')}`;
  const withKey = options.withKey ?? true;
  const config = loadConfig({
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    BOORU_URL: booru.url,
    // The bot sends the key with no read: with or without it, reads see the site's default filter
    // unless a test sets BOORU_FILTER_ID (FILTER_IDS.ownerPublic is the owner's filter made public).
    ...(withKey ? { BOORU_API_KEY: FAKE_KEY } : {}),
    STORE_URL: storeUrl,
    LOG_LEVEL: 'debug',
    COMMAND_RATE_LIMIT: 'off',
    UNFURL_RATE_LIMIT: 'off',
    ...options.env,
  });
  const lines: string[] = [];
  const logger: Logger = createLogger({
    level: 'debug',
    secrets: [config.discordToken, config.booruApiKey],
    destination: { write: (line: string) => void lines.push(line) },
  });

  let store = createStore(storeUrl);
  let registry = makeRegistry();
  let pollFeeds: () => Promise<void> = () => Promise.reject(new Error('no feed poller yet'));
  let bot = makeBot();
  let started = false;

  function makeRegistry(): ClientRegistry {
    return createClientRegistry({
      ...options.registry,
      defaultSite: config.site,
      ...(config.booruApiKey === undefined ? {} : { apiKey: config.booruApiKey }),
      cache: store,
      logger,
      now: boardClock.now,
    });
  }

  function makeBot(): Bot {
    // The same composition as main.ts, with the test clocks.
    const onUnfurlDecision = options.observers?.onUnfurlDecision;
    const features = createFeatures({
      config,
      logger,
      store,
      registry,
      now: botClock.now,
      ...(onUnfurlDecision === undefined ? {} : { onUnfurlDecision }),
      ...(options.observers?.onFeedPoll === undefined ? {} : { onFeedPoll: options.observers.onFeedPoll }),
      ...(options.feedTickMs === undefined ? {} : { feedTickMs: options.feedTickMs }),
    });
    const poller = features.tasks.find((task) => task.name === 'feeds');
    if (poller !== undefined && 'pollNow' in poller && typeof poller.pollNow === 'function') {
      pollFeeds = poller.pollNow as () => Promise<void>;
    }
    return createBot({
      options: runtimeOptionsOf(config),
      logger,
      store,
      ...features,
      ...(options.bot?.commands === undefined ? {} : { commands: options.bot.commands }),
      autocompleteTimeoutMs: options.bot?.autocompleteTimeoutMs ?? 2200,
      ...(options.bot?.formTimeoutMs === undefined ? {} : { formTimeoutMs: options.bot.formTimeoutMs }),
      now: botClock.now,
      ...(options.bot?.clientOptions === undefined ? {} : { clientOptions: options.bot.clientOptions }),
      ...(options.observers?.runtime === undefined ? {} : { observer: options.observers.runtime }),
    });
  }

  async function stopAll(): Promise<void> {
    if (started) await bot.stop();
    started = false;
    await registry.close();
    await closeStore(store);
  }

  const harness: Harness = {
    discord,
    booru,
    config,
    get store() {
      return store;
    },
    get registry() {
      return registry;
    },
    get bot() {
      return bot;
    },
    boardClock,
    discordClock,
    botClock,
    logText: () => lines.join(''),
    logLines: () => parseLogLines(lines),
    async start() {
      await bot.start();
      started = true;
    },
    pollFeeds: () => pollFeeds(),
    async restart() {
      await stopAll();
      store = createStore(storeUrl);
      registry = makeRegistry();
      bot = makeBot();
      await harness.start();
    },
    async close() {
      await stopAll().catch(() => undefined);
      await discord.close();
      await booru.close();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  };
  if (options.start ?? true) await harness.start();
  return harness;
}

/** pino's JSON lines, parsed; anything else (a stray non-JSON line) is passed over. */
export function parseLogLines(lines: Iterable<string>): Record<string, unknown>[] {
  const parsed: Record<string, unknown>[] = [];
  for (const line of lines) {
    if (!line.trimStart().startsWith('{')) continue;
    try {
      parsed.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // Not a log record.
    }
  }
  return parsed;
}
