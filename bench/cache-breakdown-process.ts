/**
 * One gateway client alone in its own process, for bench/cache-breakdown.bench.ts (started with
 * --expose-gc): it connects to the bench Discord, waits for every server, and says what the heap holds,
 * then, for discord.js, what each cache holds, by emptying the caches one after the other and measuring
 * the heap after a forced GC each time. Modes:
 *   tuned / default  a discord.js Client with the bot's cache options, or discord.js's defaults
 *   raw              @discordjs/ws alone, keeping every GUILD_CREATE as parsed (the payloads' own cost)
 *   facts            @discordjs/ws alone, keeping only bench/channel-facts-prototype.ts's compact table
 *   hybrid           a discord.js Client with every cache at 0, guilds, channels and roles included (which
 *                    discord.js calls unsupported), and the fact table built from its raw events: what the
 *                    Client itself costs once it keeps nothing
 */
import { REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { Client, GatewayIntentBits, Options, type ClientOptions } from 'discord.js';
import { discordClientOptions } from '../src/discord/client-options.js';
import { channelFact, packGuild, type RawGuild } from './channel-facts-prototype.js';

export interface BreakdownInput {
  readonly mode: 'tuned' | 'default' | 'raw' | 'facts' | 'hybrid';
  readonly apiUrl: string;
  readonly token: string;
  readonly servers: number;
}

export interface BreakdownStep {
  /** 'idle', 'connected', or the cache just emptied. */
  readonly label: string;
  readonly rss: number;
  /** Heap used plus array buffers' memory (the fact table lives in typed arrays, outside the heap). */
  readonly heapUsed: number;
}

export type BreakdownReply =
  | { readonly type: 'done'; readonly steps: readonly BreakdownStep[] }
  | { readonly type: 'failed'; readonly message: string };

const INTENTS =
  GatewayIntentBits.Guilds |
  GatewayIntentBits.GuildMessages |
  GatewayIntentBits.MessageContent |
  GatewayIntentBits.DirectMessages;

async function settled(label: string): Promise<BreakdownStep> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  for (let i = 0; i < 4; i += 1) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
  return { label, rss, heapUsed: heapUsed + arrayBuffers };
}

async function discordJs(input: BreakdownInput): Promise<BreakdownStep[]> {
  const tuned = discordClientOptions({ unfurl: true, apiUrl: input.apiUrl });
  const options: ClientOptions =
    input.mode === 'tuned'
      ? tuned
      : {
          ...tuned,
          makeCache: Options.cacheWithLimits(Options.DefaultMakeCacheSettings),
          sweepers: Options.DefaultSweeperSettings,
        };
  const client = new Client(options);
  const steps = [await settled('idle')];
  const ready = new Promise<void>((resolve) => client.once('clientReady', () => resolve()));
  await client.login(input.token);
  await ready;
  steps.push(await settled('connected'));
  const guilds = [...client.guilds.cache.values()];
  for (const guild of guilds) {
    for (const channel of guild.channels.cache.values()) {
      if (channel.isThread()) {
        guild.channels.cache.delete(channel.id);
        client.channels.cache.delete(channel.id);
      }
    }
  }
  steps.push(await settled('threads'));
  for (const guild of guilds) {
    for (const channel of guild.channels.cache.values()) {
      if ('permissionOverwrites' in channel) channel.permissionOverwrites.cache.clear();
    }
  }
  steps.push(await settled('permission overwrites'));
  for (const guild of guilds) guild.members.cache.clear();
  client.users.cache.clear();
  steps.push(await settled('members and users'));
  for (const guild of guilds) guild.roles.cache.clear();
  steps.push(await settled('roles'));
  for (const guild of guilds) guild.channels.cache.clear();
  client.channels.cache.clear();
  steps.push(await settled('channels'));
  client.guilds.cache.clear();
  guilds.length = 0;
  steps.push(await settled('guilds'));
  await client.destroy();
  return steps;
}

async function hybrid(input: BreakdownInput): Promise<BreakdownStep[]> {
  const tuned = discordClientOptions({ unfurl: true, apiUrl: input.apiUrl });
  const none = Object.fromEntries(HYBRID_ZERO.map((name) => [name, 0]));
  const client = new Client({ ...tuned, makeCache: Options.cacheWithLimits(none), sweepers: {} });
  const steps = [await settled('idle')];
  const facts = new Map<string, BigUint64Array>();
  let botId = '';
  const all = new Promise<void>((resolve) => {
    client.on('raw', (packet: { t?: string; d?: unknown }) => {
      if (packet.t === 'READY') botId = (packet.d as { user: { id: string } }).user.id;
      if (packet.t !== 'GUILD_CREATE') return;
      const guild = packet.d as RawGuild;
      facts.set(guild.id, packGuild(guild, botId));
      if (facts.size === input.servers) resolve();
    });
  });
  await client.login(input.token);
  await all;
  steps.push(await settled('connected'));
  facts.clear();
  steps.push(await settled('fact table'));
  await client.destroy();
  return steps;
}

/** Every cache discord.js 14 makes, for the hybrid mode. */
const HYBRID_ZERO = [
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
  'UserManager',
  'VoiceStateManager',
] as const;

async function gatewayOnly(input: BreakdownInput): Promise<BreakdownStep[]> {
  const rest = new REST({ api: input.apiUrl }).setToken(input.token);
  const manager = new WebSocketManager({ token: input.token, intents: INTENTS, rest });
  const steps = [await settled('idle')];
  const kept: unknown[] = [];
  const facts = new Map<string, BigUint64Array>();
  let botId = '';
  let arrived = 0;
  const all = new Promise<void>((resolve) => {
    manager.on(WebSocketShardEvents.Dispatch, ({ data }) => {
      if (data.t === 'READY') botId = data.d.user.id;
      if (data.t !== 'GUILD_CREATE') return;
      if (input.mode === 'raw') kept.push(data.d);
      else facts.set(data.d.id, packGuild(data.d as unknown as RawGuild, botId));
      arrived += 1;
      if (arrived === input.servers) resolve();
    });
  });
  await manager.connect();
  await all;
  steps.push(await settled('connected'));
  // The table answers what the bot asks: one channel's facts (a sanity check that it holds them).
  const first = facts.values().next().value;
  if (input.mode === 'facts' && first !== undefined) {
    const channelId = String(first[4 + 2 * Number(first[0])]);
    if (channelFact(first, channelId, botId) === undefined) throw new Error('the fact table lost a channel');
  }
  kept.length = 0;
  facts.clear();
  steps.push(await settled(input.mode === 'raw' ? 'payloads' : 'fact table'));
  await manager.destroy();
  return steps;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as BreakdownInput;
  try {
    const steps =
      input.mode === 'tuned' || input.mode === 'default'
        ? await discordJs(input)
        : input.mode === 'hybrid'
          ? await hybrid(input)
          : await gatewayOnly(input);
    process.send?.({ type: 'done', steps } satisfies BreakdownReply, () => process.exit(0));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.send?.({ type: 'failed', message } satisfies BreakdownReply, () => process.exit(1));
  }
}

await main();
