/**
 * The bot alone in its own process, for the load benchmark: the figures (CPU time, RSS after GC) must not
 * include the local Discord and Philomena that drive it. Started by bot.bench.ts as
 *
 *   node --expose-gc --import tsx bench/bot-process.ts '<BotProcessInput JSON>'
 *
 * with an IPC channel. It builds the bot exactly as main.ts does (createBot, a client registry with the
 * default budget, a memory store), starts it, says `ready`, then answers `cpu`, `memory`, `stats` and
 * `stop` requests. With `caches: 'default'` discord.js's own default caches replace the bot's tuned ones.
 * Every outbound connection is limited to loopback.
 */
import '../test/setup.js';
import diagnosticsChannel from 'node:diagnostics_channel';
import { Guild, Options, type ClientOptions, type Collection } from 'discord.js';
import { createFeatures } from '../commands/index.js';
import { createBot } from '../src/discord/bot.js';
import { runtimeOptionsOf } from '../src/runtime-options.js';
import { discordClientOptions } from '../src/discord/client-options.js';
import { loadConfig, type RateLimit } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createClientRegistry } from '../src/philomena/registry.js';
import { closeStore, createStore } from '../src/store/index.js';
import { mostInAnySpan } from '../test/support/arrivals.js';

export interface BotProcessInput {
  readonly discordApiUrl: string;
  readonly discordToken: string;
  readonly booruUrl: string;
  readonly booruKey?: string;
  /** `tuned`: the bot's own cache settings; `default`: discord.js's defaults. */
  readonly caches: 'tuned' | 'default';
}

export type BotProcessRequest = { readonly type: 'cpu' | 'memory' | 'stats' | 'stop' };

export type BotProcessReply =
  | {
      readonly type: 'ready';
      readonly startMs: number;
      readonly idle: MemoryFigures;
      /** The abuse limits in force, e.g. "5 per 10 s" ("none" when off). */
      readonly limits: { readonly command: string; readonly unfurl: string };
    }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'cpu'; readonly userMicros: number; readonly systemMicros: number }
  | { readonly type: 'memory'; readonly memory: MemoryFigures; readonly cached: Record<string, number> }
  | {
      readonly type: 'stats';
      readonly logLevels: Record<string, number>;
      readonly logMessages: Record<string, number>;
      readonly budgetQueued: number;
      /** Board requests the bot started (undici's own diagnostics channel, on the bot's clock). */
      readonly boardRequests: number;
      /** The most board requests started within any 5 s. */
      readonly boardMaxIn5s: number;
    }
  | { readonly type: 'stopped' };

export interface MemoryFigures {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};
const MAX_DISTINCT_MESSAGES = 50;
const BUDGET_WINDOW_MS = 5000;

function reply(message: BotProcessReply): void {
  process.send?.(message);
}

function rateText(rate: RateLimit | undefined): string {
  return rate === undefined ? 'none' : `${rate.limit} per ${rate.windowMs / 1000} s`;
}

async function settledMemory(): Promise<MemoryFigures> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  for (let i = 0; i < 4; i += 1) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heapUsed, external };
}

/** The client's own caches, each made once per client: the count of every other walks from these. */
const CLIENT_CACHES: ReadonlySet<string> = new Set(['GuildManager', 'ChannelManager', 'UserManager']);

/** A server's caches, by the manager name the count reports. */
const GUILD_CACHES = {
  GuildMemberManager: (guild: Guild) => guild.members.cache,
  GuildChannelManager: (guild: Guild) => guild.channels.cache,
  RoleManager: (guild: Guild) => guild.roles.cache,
  PresenceManager: (guild: Guild) => guild.presences.cache,
  VoiceStateManager: (guild: Guild) => guild.voiceStates.cache,
  GuildEmojiManager: (guild: Guild) => guild.emojis.cache,
  GuildStickerManager: (guild: Guild) => guild.stickers.cache,
} as const;

/** How many entries every cache holds, walked from the client's own caches (nothing kept per server). */
function cacheEntries(
  made: readonly { name: string; collection: WeakRef<Collection<unknown, unknown>> }[],
): Record<string, number> {
  const cached: Record<string, number> = {};
  const add = (name: string, size: number): void => {
    if (size > 0) cached[name] = (cached[name] ?? 0) + size;
  };
  for (const { name, collection } of made) {
    const held = collection.deref();
    if (held === undefined) continue;
    add(name, held.size);
    if (name !== 'GuildManager') continue;
    for (const guild of held.values()) {
      if (!(guild instanceof Guild)) continue;
      for (const [cache, of] of Object.entries(GUILD_CACHES)) add(cache, of(guild).size);
    }
  }
  return cached;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as BotProcessInput;
  const config = loadConfig({
    DISCORD_TOKEN: input.discordToken,
    DISCORD_API_URL: input.discordApiUrl,
    BOORU_URL: input.booruUrl,
    ...(input.booruKey === undefined ? {} : { BOORU_API_KEY: input.booruKey }),
    STORE_URL: 'memory://',
    LOG_LEVEL: 'info',
  });

  // Log lines are counted, not kept: the figures say how many warnings and errors the run produced.
  const logLevels: Record<string, number> = {};
  const logMessages: Record<string, number> = {};
  const logger = createLogger({
    level: config.logLevel,
    secrets: [config.discordToken, config.booruApiKey],
    destination: {
      write(line: string) {
        try {
          const parsed = JSON.parse(line) as { level?: number; msg?: string };
          const level = LEVEL_NAMES[parsed.level ?? 0] ?? String(parsed.level);
          logLevels[level] = (logLevels[level] ?? 0) + 1;
          const key = `${level}: ${parsed.msg ?? ''}`;
          if (key in logMessages || Object.keys(logMessages).length < MAX_DISTINCT_MESSAGES) {
            logMessages[key] = (logMessages[key] ?? 0) + 1;
          }
        } catch {
          logLevels['unparsed'] = (logLevels['unparsed'] ?? 0) + 1;
        }
      },
    },
  });

  // Count what the caches hold. The factory is the one createBot would use (the bot's own options from
  // discordClientOptions, or discord.js's defaults); the wrapper remembers only the client's own caches
  // (one each per client: servers, channels, users) and the count walks from them, so that the bench keeps
  // nothing per server itself (remembering every collection made, as it once did, kept ~7 KiB a server:
  // discord.js makes a hundred collections for each server it builds, cached or not).
  const made: { name: string; collection: WeakRef<Collection<unknown, unknown>> }[] = [];
  const base =
    input.caches === 'tuned'
      ? discordClientOptions({ unfurl: config.unfurl, apiUrl: config.discordApiUrl }).makeCache
      : Options.cacheWithLimits(Options.DefaultMakeCacheSettings);
  if (base === undefined) throw new Error('the bot options carry no makeCache');
  const makeCache: NonNullable<ClientOptions['makeCache']> = (manager, holds, holder) => {
    const collection = base(manager, holds, holder);
    if (CLIENT_CACHES.has(manager.name))
      made.push({ name: manager.name, collection: new WeakRef(collection) });
    return collection;
  };
  const clientOptions: Partial<ClientOptions> =
    input.caches === 'tuned' ? { makeCache } : { makeCache, sweepers: Options.DefaultSweeperSettings };

  // When each board request really left the bot: the local Philomena's own log stamps arrivals, which a
  // busy driver process can bunch up.
  const boardOrigin = new URL(config.site.baseUrl).origin;
  const boardStarts: number[] = [];
  diagnosticsChannel.subscribe('undici:request:create', (message) => {
    const { request } = message as { request: { origin?: unknown } };
    if (String(request.origin) === boardOrigin) boardStarts.push(performance.now());
  });

  const store = createStore(config.storeUrl);
  const registry = createClientRegistry({
    defaultSite: config.site,
    ...(config.booruApiKey === undefined ? {} : { apiKey: config.booruApiKey }),
    cache: store,
    logger,
  });
  const bot = createBot({
    options: runtimeOptionsOf(config),
    logger,
    store,
    ...createFeatures({ config, logger, store, registry }),
    clientOptions,
  });

  const idle = await settledMemory();
  const started = performance.now();
  try {
    await bot.start();
  } catch (error) {
    reply({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
  reply({
    type: 'ready',
    startMs: performance.now() - started,
    idle,
    limits: { command: rateText(config.commandRateLimit), unfurl: rateText(config.unfurlRateLimit) },
  });

  process.on('message', (request: BotProcessRequest) => {
    void (async () => {
      if (request.type === 'cpu') {
        const { user, system } = process.cpuUsage();
        reply({ type: 'cpu', userMicros: user, systemMicros: system });
      } else if (request.type === 'memory') {
        const memory = await settledMemory();
        const cached = cacheEntries(made);
        reply({ type: 'memory', memory, cached });
      } else if (request.type === 'stats') {
        const budgetQueued = registry.clients().reduce((sum, c) => sum + c.stats().budget.queued, 0);
        reply({
          type: 'stats',
          logLevels,
          logMessages,
          budgetQueued,
          boardRequests: boardStarts.length,
          boardMaxIn5s: mostInAnySpan(boardStarts, BUDGET_WINDOW_MS),
        });
      } else {
        await bot.stop().catch(() => undefined);
        await registry.close().catch(() => undefined);
        await closeStore(store).catch(() => undefined);
        // The reply goes out before the process ends, whatever handles a library may still hold.
        process.send?.({ type: 'stopped' } satisfies BotProcessReply, () => process.exit(0));
      }
    })();
  });
}

await main();
