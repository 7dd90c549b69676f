/**
 * One gateway client alone in its own process, for bench/cache-breakdown.bench.ts (started with
 * --expose-gc): it connects to the bench Discord, waits for every server, and says what the heap holds,
 * then, for discord.js, what each cache holds, by emptying the caches one after the other and measuring
 * the heap after a forced GC each time. Modes:
 *   bot      the bot's own: a discord.js Client with the bot's options (no cache at all) and the servers'
 *            facts kept from its raw packets (src/discord/server-facts.ts)
 *   default  a discord.js Client with discord.js's default caches, each emptied in turn
 *   raw      @discordjs/ws alone, keeping every GUILD_CREATE as parsed (the payloads' own cost)
 *   facts    @discordjs/ws alone, keeping only the servers' facts: what the bot would cost without the
 *            discord.js Client around the gateway (the alternative issue 23 weighed)
 */
import { REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { Client, GatewayIntentBits, Options, type ClientOptions } from 'discord.js';
import { createDiscordClient, discordClientOptions } from '../src/discord/client-options.js';
import { createServerFacts, type ServerFacts } from '../src/discord/server-facts.js';

export interface BreakdownInput {
  readonly mode: 'bot' | 'default' | 'raw' | 'facts';
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
  const options: ClientOptions = {
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

async function bot(input: BreakdownInput): Promise<BreakdownStep[]> {
  const client = createDiscordClient(discordClientOptions({ unfurl: true, apiUrl: input.apiUrl }));
  const steps = [await settled('idle')];
  let facts: ServerFacts | undefined = createServerFacts();
  const all = new Promise<void>((resolve) => {
    client.on('raw', (packet: unknown) => {
      facts?.apply(packet);
      if (facts?.size === input.servers) resolve();
    });
  });
  await client.login(input.token);
  await all;
  steps.push(await settled('connected'));
  client.removeAllListeners('raw');
  facts = undefined;
  steps.push(await settled('server facts'));
  await client.destroy();
  return steps;
}

async function gatewayOnly(input: BreakdownInput): Promise<BreakdownStep[]> {
  const rest = new REST({ api: input.apiUrl }).setToken(input.token);
  const manager = new WebSocketManager({ token: input.token, intents: INTENTS, rest });
  const steps = [await settled('idle')];
  const kept: unknown[] = [];
  let facts: ServerFacts | undefined = createServerFacts();
  let firstGuild = '';
  let arrived = 0;
  const all = new Promise<void>((resolve) => {
    manager.on(WebSocketShardEvents.Dispatch, ({ data }) => {
      if (input.mode === 'facts') facts?.apply(data);
      if (data.t !== 'GUILD_CREATE') return;
      if (input.mode === 'raw') kept.push(data.d);
      if (arrived === 0) firstGuild = data.d.id;
      arrived += 1;
      if (arrived === input.servers) resolve();
    });
  });
  await manager.connect();
  await all;
  steps.push(await settled('connected'));
  // The facts answer what the bot asks: a server's channels (a sanity check that they hold them).
  if (input.mode === 'facts' && (facts?.server(firstGuild)?.channels().length ?? 0) === 0) {
    throw new Error('the server facts lost a server');
  }
  kept.length = 0;
  facts = undefined;
  steps.push(await settled(input.mode === 'raw' ? 'payloads' : 'server facts'));
  await manager.destroy();
  return steps;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as BreakdownInput;
  try {
    const steps =
      input.mode === 'default'
        ? await discordJs(input)
        : input.mode === 'bot'
          ? await bot(input)
          : await gatewayOnly(input);
    process.send?.({ type: 'done', steps } satisfies BreakdownReply, () => process.exit(0));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.send?.({ type: 'failed', message } satisfies BreakdownReply, () => process.exit(1));
  }
}

await main();
