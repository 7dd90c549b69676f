/**
 * The local Discord with several shards: unmodified discord.js clients, one per shard, each see only the
 * servers of their shard; events go to the shard that holds their guild; the identify limit holds.
 */
import { once } from 'node:events';
import { Client, Events, GatewayIntentBits, REST, Routes, type Interaction } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordOptions } from './index.js';

const NO_MENTIONS = { parse: [] as [] };
const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages];

let fake: FakeDiscord | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  await fake?.close();
  fake = undefined;
});

async function startFake(options: FakeDiscordOptions): Promise<FakeDiscord> {
  fake = await startFakeDiscord(options);
  return fake;
}

/** An unmodified discord.js Client for one shard, as src/discord/client-options.ts builds it. */
function shardClient(f: FakeDiscord, shard: number, shardCount: number): Client {
  const c = new Client({
    intents: INTENTS,
    shards: [shard],
    shardCount,
    rest: { api: f.apiUrl },
    allowedMentions: NO_MENTIONS,
  });
  clients.push(c);
  return c;
}

async function login(c: Client, f: FakeDiscord): Promise<void> {
  const ready = once(c, Events.ClientReady);
  await c.login(f.token);
  await ready;
}

function replyPong(c: Client, seen: Interaction[]): void {
  c.on(Events.InteractionCreate, (interaction) => {
    seen.push(interaction);
    if (!interaction.isChatInputCommand()) return;
    interaction.reply({ content: `pong from shard ${c.ws.shards.first()?.id}` }).catch(() => {
      // The fake records refusals.
    });
  });
}

describe('fake Discord shards', () => {
  it('GIVEN 2 shards THEN GET /gateway/bot recommends them and remaining counts down per IDENTIFY', async () => {
    const f = await startFake({ shards: 2, maxConcurrency: 2 });
    const rest = new REST({ api: f.apiUrl }).setToken(f.token);
    const before = (await rest.get(Routes.gatewayBot())) as {
      shards: number;
      session_start_limit: { remaining: number; max_concurrency: number };
    };
    expect(before.shards).toBe(2);
    expect(before.session_start_limit.max_concurrency).toBe(2);
    await login(shardClient(f, 0, 2), f);
    const after = (await rest.get(Routes.gatewayBot())) as { session_start_limit: { remaining: number } };
    expect(after.session_start_limit.remaining).toBe(before.session_start_limit.remaining - 1);
  });

  it('GIVEN two discord.js clients on shards 0 and 1 THEN each sees only its servers and an interaction in a shard 1 server reaches only client 1', async () => {
    const f = await startFake({ shards: 2, maxConcurrency: 2, guilds: 4 });
    expect(f.guilds.map((g) => g.shard)).toEqual([0, 1, 0, 1]);
    expect(f.guild).toBe(f.guilds[0]);
    const c0 = shardClient(f, 0, 2);
    const c1 = shardClient(f, 1, 2);
    await Promise.all([login(c0, f), login(c1, f)]);

    const onShard = (s: number): string[] =>
      f.guilds
        .filter((g) => g.shard === s)
        .map((g) => g.id)
        .sort();
    expect([...c0.guilds.cache.keys()].sort()).toEqual(onShard(0));
    expect([...c1.guilds.cache.keys()].sort()).toEqual(onShard(1));
    expect(f.identifies.map((i) => i.shard).sort()).toEqual([
      [0, 2],
      [1, 2],
    ]);

    const seen0: Interaction[] = [];
    const seen1: Interaction[] = [];
    replyPong(c0, seen0);
    replyPong(c1, seen1);
    const server = f.guilds[1];
    if (server === undefined) throw new Error('no second server');
    const slash = f.sendCommand({ name: 'ping', channel: server.channels.plain, userId: server.memberId });
    const reply = await slash.finalReply();
    expect(reply.content).toBe('pong from shard 1');
    expect(seen1.map((i) => i.guildId)).toEqual([server.id]);
    expect(seen0).toEqual([]);

    // Shard 0's server (the single-server accessors) still goes to client 0.
    const home = await f.sendCommand({ name: 'ping', channel: 'plain' }).finalReply();
    expect(home.content).toBe('pong from shard 0');
    expect(seen0.map((i) => i.guildId)).toEqual([f.guild.id]);
    expect(f.violations).toEqual([]);
    expect(f.undelivered).toEqual([]);
  });

  it('GIVEN no session holds a shard THEN its events are recorded as undelivered, and DMs go to shard 0', async () => {
    const f = await startFake({ shards: 2, maxConcurrency: 2 });
    const c0 = shardClient(f, 0, 2);
    await login(c0, f);
    const dms: string[] = [];
    c0.on(Events.Raw, (packet: { t?: string; d?: { channel_id?: string } }) => {
      if (packet.t === 'MESSAGE_CREATE' && packet.d?.channel_id === f.dmChannelId)
        dms.push(packet.d.channel_id);
    });
    const server = f.guilds[1];
    if (server === undefined) throw new Error('no second server');
    f.sendCommand({ name: 'ping', channel: server.channels.plain });
    await f.sendMessage({ channel: server.channels.plain, content: 'hello' });
    expect(f.undelivered).toMatchObject([
      { t: 'INTERACTION_CREATE', shard: 1, guildId: server.id },
      { t: 'MESSAGE_CREATE', shard: 1, guildId: server.id },
    ]);
    await f.sendMessage({ channel: 'dm', content: 'hi' });
    await f.waitFor(() => (dms.length === 1 ? true : undefined));
    expect(f.undelivered).toHaveLength(2);
  });

  it('GIVEN an IDENTIFY whose shard count or id does not fit THEN it is closed with 4010', async () => {
    const f = await startFake({ shards: 2, maxConcurrency: 4 });
    for (const shard of [[0, 1], [2, 2], [-1, 2], undefined]) {
      const code = await identifyRaw(f, shard);
      expect(code, JSON.stringify(shard)).toBe(4010);
    }
  });

  it('GIVEN max_concurrency 1 WHEN two shards IDENTIFY within 5 s THEN the second is refused with a violation and closed 4008', async () => {
    const f = await startFake({ shards: 2, maxConcurrency: 1 });
    expect(await identifyRaw(f, [0, 2])).toBe('READY');
    expect(await identifyRaw(f, [1, 2])).toBe(4008);
    expect(f.violations).toMatchObject([{ kind: 'gateway', code: 4008 }]);
    expect(f.identifies.map((i) => i.shardId)).toEqual([0, 1]);
    expect(f.gatewayCloses.map((c) => c.code)).toContain(4008);
  });

  it('GIVEN max_concurrency 2 THEN shards 0 and 1 are separate buckets, and a second IDENTIFY of bucket 0 is refused', async () => {
    const f = await startFake({ shards: 4, maxConcurrency: 2 });
    expect(await identifyRaw(f, [0, 4])).toBe('READY');
    expect(await identifyRaw(f, [1, 4])).toBe('READY');
    expect(await identifyRaw(f, [2, 4])).toBe(4008);
    expect(f.violations).toHaveLength(1);
  });

  it('GIVEN the default single-shard fake THEN a quick re-IDENTIFY (a restarted bot) is let through as before, unless identifyLimit is set', async () => {
    const f = await startFake({});
    expect(await identifyRaw(f, [0, 1])).toBe('READY');
    expect(await identifyRaw(f, undefined)).toBe('READY');
    expect(f.violations).toEqual([]);
    await f.close();
    const strict = await startFake({ identifyLimit: true });
    expect(await identifyRaw(strict, [0, 1])).toBe('READY');
    expect(await identifyRaw(strict, [0, 1])).toBe(4008);
    expect(strict.violations).toMatchObject([{ kind: 'gateway', code: 4008 }]);
  });

  it('GIVEN a discord.js client refused with 4008 THEN it identifies again after the window and gets READY', async () => {
    const f = await startFake({ shards: 2, maxConcurrency: 1 });
    expect(await identifyRaw(f, [0, 2])).toBe('READY');
    const c1 = shardClient(f, 1, 2);
    await login(c1, f);
    const ids = f.identifies.filter((i) => i.shardId === 1);
    expect(ids).toHaveLength(2);
    expect((ids[1]?.at ?? 0) - (ids[0]?.at ?? 0)).toBeGreaterThanOrEqual(5000 - 5);
    expect([...c1.guilds.cache.keys()]).toEqual([f.guilds[1]?.id]);
    expect(f.violations).toMatchObject([{ kind: 'gateway', code: 4008 }]);
  }, 20_000);
});

/** A bare IDENTIFY over a raw socket: 'READY' or the close code. The socket stays open after READY. */
async function identifyRaw(f: FakeDiscord, shard: unknown): Promise<'READY' | number> {
  const socket = new WebSocket(`${f.gatewayUrl}?v=10&encoding=json`);
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', (code) => resolve(code));
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as { op: number; t?: string };
      if (frame.op === 10) {
        socket.send(
          JSON.stringify({
            op: 2,
            d: { token: f.token, intents: 1, properties: {}, ...(shard === undefined ? {} : { shard }) },
          }),
        );
      }
      if (frame.t === 'READY') resolve('READY');
    });
  });
}

const sockets: WebSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.terminate();
});
