/**
 * The fault suite's harness: the same wiring as test/e2e/harness.ts (both fakes, a memory store, the bot
 * built by `createBot`, logs in memory), plus what fault scenarios need and the e2e harness does not
 * offer: tuning of the board clients (attempt timeout, anti-bot floor, breaker, jitter) and two clocks
 * a test can move forward, one for the board clients (breaker cool-downs, Retry-After pauses) and one
 * for the local Discord (interaction token lifetime). Clocks only move forward, so every deadline,
 * window and snowflake stays monotonic.
 *
 * It also records stray `unhandledRejection` / `uncaughtException` events of the whole test file.
 */
import type { ClientOptions } from 'discord.js';
import { MessageFlags } from 'discord.js';
import { createBot, type Bot } from '../../src/bot/bot.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { BreakerOptions } from '../../src/philomena/breaker.js';
import type { TransportTuning } from '../../src/philomena/client.js';
import { createClientRegistry, type ClientRegistry } from '../../src/philomena/registry.js';
import { closeStore, createStore } from '../../src/store.js';
import {
  startFakeDiscord,
  type FakeDiscord,
  type FakeDiscordOptions,
  type InteractionHandle,
  type RecordedMessage,
} from '../fakes/discord/index.js';
import { FAKE_KEY, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';

export const API = '/api/v1/json';

export interface FaultHarnessOptions {
  readonly discord?: Omit<FakeDiscordOptions, 'now'>;
  readonly env?: Readonly<Record<string, string>>;
  readonly transport?: TransportTuning;
  readonly breaker?: Omit<BreakerOptions, 'site' | 'now'>;
  /** Jitter of the board clients' backoff; default a fixed 0.2 (short, repeatable waits). */
  readonly random?: () => number;
  readonly clientOptions?: Partial<ClientOptions>;
}

export interface MovableClock {
  now(): number;
  /** Moves the clock forward by `ms` (never back). */
  advance(ms: number): void;
}

export interface FaultHarness {
  readonly discord: FakeDiscord;
  readonly booru: FakePhilomena;
  readonly config: Config;
  readonly registry: ClientRegistry;
  readonly bot: Bot;
  /** The board clients' clock (transport deadlines, budget windows, breaker). */
  readonly boardClock: MovableClock;
  /** The local Discord's clock (answer window, token lifetime). */
  readonly discordClock: MovableClock;
  logLines(): Record<string, unknown>[];
  logText(): string;
  close(): Promise<void>;
}

function movableClock(base: () => number): MovableClock {
  let offset = 0;
  return {
    now: () => base() + offset,
    advance(ms) {
      if (ms < 0) throw new RangeError('the clock only moves forward');
      offset += ms;
    },
  };
}

export async function startFaultHarness(options: FaultHarnessOptions = {}): Promise<FaultHarness> {
  const discordClock = movableClock(Date.now);
  const boardClock = movableClock(() => performance.now());
  const discord = await startFakeDiscord({ ...options.discord, now: discordClock.now });
  const booru = await startFakePhilomena();
  const config = loadConfig({
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    BOORU_URL: booru.url,
    BOORU_API_KEY: FAKE_KEY,
    STORE_URL: 'memory://',
    LOG_LEVEL: 'debug',
    // The abuse limits have their own suite; here one member sends many commands on purpose.
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
  const store = createStore('memory://');
  const registry = createClientRegistry({
    defaultSite: config.site,
    ...(config.booruApiKey === undefined ? {} : { apiKey: config.booruApiKey }),
    cache: store,
    logger,
    ...(options.transport === undefined ? {} : { transport: options.transport }),
    ...(options.breaker === undefined ? {} : { breaker: options.breaker }),
    random: options.random ?? (() => 0.2),
    now: boardClock.now,
  });
  const bot = createBot({
    config,
    logger,
    store,
    registry,
    autocompleteTimeoutMs: 2200,
    ...(options.clientOptions === undefined ? {} : { clientOptions: options.clientOptions }),
  });
  await bot.start();
  return {
    discord,
    booru,
    config,
    registry,
    bot,
    boardClock,
    discordClock,
    logText: () => lines.join(''),
    logLines: () =>
      lines.flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    async close() {
      await bot.stop().catch(() => undefined);
      await registry.close();
      await closeStore(store);
      await discord.close();
      await booru.close();
    },
  };
}

/** Stray async failures anywhere in this test file's process, recorded from now on. */
export function recordStrayErrors(): { readonly errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const onRejection = (reason: unknown): void => void errors.push(reason);
  const onException = (error: unknown): void => void errors.push(error);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    errors,
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

/** The requests the local Philomena received since `mark` (an index into `booru.requests`) for `path`. */
export function boardCalls(booru: FakePhilomena, mark: number, path: string | RegExp): number {
  return booru.requests
    .slice(mark)
    .filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path))).length;
}

/** Asserts the interaction was acknowledged inside Discord's window; returns the latency. */
export async function acknowledgedMs(handle: InteractionHandle): Promise<number> {
  const ack = await handle.acknowledged;
  if (ack.ms >= 3000) throw new Error(`acknowledged after ${ack.ms} ms`);
  return ack.ms;
}

/**
 * What the member finally reads after a public defer: either the filled-in reply (success) or the
 * ephemeral follow-up the router sends after removing the public "thinking…" (failure).
 */
export async function outcome(
  discord: FakeDiscord,
  handle: InteractionHandle,
  timeoutMs = 15_000,
): Promise<{ readonly kind: 'card' | 'error'; readonly message: RecordedMessage }> {
  await acknowledgedMs(handle);
  const seen = await discord.waitFor(() => {
    // Checked by the caller: a throw here would escape the fake's polling timer.
    const followUp = handle.followUps()[0];
    if (followUp !== undefined) return { kind: 'error' as const, message: followUp };
    const reply = handle.replyMessage();
    const loading = 1 << 7;
    if (reply !== undefined && !reply.deleted && (reply.flags & loading) === 0 && reply.embeds.length > 0) {
      return { kind: 'card' as const, message: reply };
    }
    return undefined;
  }, timeoutMs);
  if (seen.kind === 'error' && (seen.message.flags & MessageFlags.Ephemeral) === 0) {
    throw new Error(`the error was shown publicly: ${seen.message.content}`);
  }
  return seen;
}

/** Polls `check` until it holds (no fixed sleeps: a loaded CI machine gets the whole timeout). */
export async function eventually(
  check: () => boolean,
  timeoutMs = 10_000,
  what = 'a condition',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
