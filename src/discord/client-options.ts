/**
 * discord.js options for a bot in thousands of servers: only the intents the features use, and no caches
 * at all but the bot's own user. What the bot reads of its servers (channels' age restriction and flags,
 * threads' parents, its own permissions, the server's locale) is kept compact from the gateway's raw
 * packets instead (server-facts.ts: about 1 KiB a server against discord.js's 40), and chat messages are
 * read from raw MESSAGE_CREATE packets (bot.ts). discord.js still builds each server's structures as its
 * GUILD_CREATE arrives and keeps none of them.
 */
import { Client, GatewayIntentBits, Options, Partials, type ClientOptions, type User } from 'discord.js';
import { NO_MENTIONS } from '../render/mentions.js';
import type { IdentifyThrottlerFactory } from './identify.js';
import { exemptInteractionRoutes, type InteractionRoutesLimit } from './interaction-rest.js';

/** 'auto': every shard Discord recommends, in this process; else `ids` of `count` (SHARD_IDS, SHARD_COUNT). */
export type ShardChoice = 'auto' | { readonly ids: readonly number[]; readonly count: number };

export interface ClientOptionsInput {
  /** Read chat for links: needs GuildMessages, MessageContent, and DMs. */
  readonly unfurl: boolean;
  /** REST base (DISCORD_API_URL), e.g. a local Discord in tests. */
  readonly apiUrl?: string | undefined;
  /** Which gateway shards to connect; default 'auto'. */
  readonly shards?: ShardChoice;
  /** Identifies spaced by a throttle shared with the bot's other processes; default discord.js's own. */
  readonly identify?: IdentifyThrottlerFactory | undefined;
}

/**
 * Every cache discord.js has (its CacheFactory's managers), none kept: discord.js says overriding the
 * guild, channel, role and overwrite caches breaks what reads them, which is why the bot reads none of them
 * (server-facts.ts has what it needs; test/discord/client-options.test.ts checks nothing is kept).
 */
const CACHED_MANAGERS = [
  'ApplicationCommandManager',
  'ApplicationEmojiManager',
  'AutoModerationRuleManager',
  'BaseGuildEmojiManager',
  'ChannelManager',
  'DMMessageManager',
  'EntitlementManager',
  'GuildBanManager',
  'GuildChannelManager',
  'GuildEmojiManager',
  'GuildForumThreadManager',
  'GuildInviteManager',
  'GuildManager',
  'GuildMemberManager',
  'GuildMessageManager',
  'GuildScheduledEventManager',
  'GuildStickerManager',
  'GuildTextThreadManager',
  'MessageManager',
  'PermissionOverwriteManager',
  'PresenceManager',
  'ReactionManager',
  'ReactionUserManager',
  'RoleManager',
  'StageInstanceManager',
  'ThreadManager',
  'ThreadMemberManager',
  'VoiceStateManager',
] as const;

export function discordClientOptions(input: ClientOptionsInput): ClientOptions {
  const intents = [GatewayIntentBits.Guilds];
  if (input.unfurl) {
    intents.push(
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    );
  }
  return {
    intents,
    // Discord refuses one connection for 2,500 servers or more (close 4011): by default take the shard
    // count it recommends in /gateway/bot (a bot in few servers gets one shard). Several processes each
    // connect their own SHARD_IDS of one SHARD_COUNT.
    ...(input.shards === undefined || input.shards === 'auto'
      ? { shards: 'auto' as const }
      : { shards: [...input.shards.ids], shardCount: input.shards.count }),
    // DM channels are not cached: without the Channel partial discord.js drops DM messages.
    partials: input.unfurl ? [Partials.Channel] : [],
    allowedMentions: { ...NO_MENTIONS, repliedUser: false },
    makeCache: Options.cacheWithLimits({
      ...Object.fromEntries(CACHED_MANAGERS.map((manager) => [manager, 0])),
      // The bot's own user (client.user) is kept; nobody else's is needed.
      UserManager: { maxSize: 0, keepOverLimit: (user: User) => user.id === user.client.user.id },
    }),
    // Nothing is cached, so nothing needs sweeping.
    sweepers: {},
    ...(input.apiUrl === undefined ? {} : { rest: { api: input.apiUrl } }),
    ...(input.identify === undefined
      ? {}
      : { ws: { buildIdentifyThrottler: identifyBuilder(input.identify) } }),
  };
}

/**
 * What discord.js's `Client` reads from the environment of its own accord (discord.js 14, the Client
 * constructor), all meant for the children of its ShardingManager, which the bot does not use (README,
 * "Running at scale"): SHARDS and SHARD_COUNT replace the shards and the count the bot chose whenever these
 * equal discord.js's defaults (so `SHARD_COUNT=` left blank in `.env` became a count of 0 and the client
 * refused to start, and a SHARD_COUNT meant for another process would replace a count of 1), and
 * SHARDING_MANAGER (with its _MODE) makes the client report to a parent process over an IPC channel the bot
 * never has. The bot reads SHARD_COUNT and SHARD_IDS itself, through its configuration.
 */
const DISCORD_JS_ENV_KEYS = ['SHARDS', 'SHARD_COUNT', 'SHARDING_MANAGER', 'SHARDING_MANAGER_MODE'] as const;

/**
 * A discord.js client built from exactly `options`: the keys of {@link DISCORD_JS_ENV_KEYS} are out of
 * `process.env` while the constructor runs (synchronously: no other code can see them gone), then put back
 * as they were, so the bot's own configuration alone decides its shards whatever the environment holds.
 * (In a worker thread discord.js reads `workerData` instead; the bot never runs its client in one.)
 *
 * Its REST keeps interaction routes off the global limit, as Discord does (interaction-rest.ts), unless
 * `interactionRoutes` is 'global' (@discordjs/rest's own behaviour, for comparison in the bench).
 */
export function createDiscordClient(
  options: ClientOptions,
  interactionRoutes: InteractionRoutesLimit = 'exempt',
): Client {
  quietCacheWarnings();
  const env = process.env;
  const hidden = new Map<string, string>();
  for (const key of DISCORD_JS_ENV_KEYS) {
    const value = env[key];
    if (value !== undefined) hidden.set(key, value);
    delete env[key];
  }
  try {
    const client = new Client(options);
    exemptInteractionRoutes(client, interactionRoutes);
    return client;
  } finally {
    for (const [key, value] of hidden) env[key] = value;
  }
}

/** discord.js's warning that a cache it reads was overridden (once per manager and process). */
const CACHE_WARNING = 'UnsupportedCacheOverwriteWarning';
let warningsQuieted = false;

/**
 * discord.js warns on stderr, once per process and manager, that overriding the guild, channel, role and
 * overwrite caches "breaks functionality": what reads those caches (`interaction.guild`,
 * `message.channel`, `permissionsFor` ...). The bot reads none of them, by design (server-facts.ts), and the
 * end-to-end suites prove every rule still holds; the warning would only mislead an operator reading the
 * output, so exactly that warning type is dropped. Every other warning goes out as before.
 */
function quietCacheWarnings(): void {
  if (warningsQuieted) return;
  warningsQuieted = true;
  const emit = process.emitWarning;
  function quiet(warning: string | Error, ...rest: unknown[]): void {
    const first = rest[0];
    const type =
      typeof first === 'string'
        ? first
        : typeof first === 'object' && first !== null && 'type' in first
          ? first.type
          : undefined;
    if ((warning instanceof Error ? warning.name : type) === CACHE_WARNING) return;
    Reflect.apply(emit, process, [warning, ...rest]);
  }
  Object.defineProperty(process, 'emitWarning', { value: quiet, writable: true, configurable: true });
}

/** discord.js's `ws.buildIdentifyThrottler`: the factory, told the `max_concurrency` Discord gives. */
function identifyBuilder(
  factory: IdentifyThrottlerFactory,
): NonNullable<NonNullable<ClientOptions['ws']>['buildIdentifyThrottler']> {
  return async (manager) => {
    const info = await manager.fetchGatewayInformation();
    return factory(info.session_start_limit.max_concurrency);
  };
}
