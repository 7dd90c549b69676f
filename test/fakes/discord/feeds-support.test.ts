/**
 * What the local Discord does for feeds (a background poster sending into channels on its own): a send
 * with `nonce` + `enforce_nonce` is created once per nonce, author and channel for 5 minutes; channels can
 * be deleted and the bot denied permissions while it runs (REST refuses as Discord does, the gateway tells
 * the client); REST knows every server's channels; GET /channels/:id says nsfw and parent_id. An
 * unmodified discord.js client talks to it over 127.0.0.1.
 */
import { once } from 'node:events';
import {
  ChannelType,
  Client,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  PermissionFlagsBits,
  REST,
  Routes,
  type APIChannel,
  type APIMessage,
  type Message,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordOptions } from './index.js';

const NO_MENTIONS = { parse: [] as [] };
const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages];

let fake: FakeDiscord | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  await fake?.close();
  fake = undefined;
});

async function startFake(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  fake = await startFakeDiscord(options);
  return fake;
}

/** An unmodified discord.js client logged in to the fake (one shard unless told). */
async function loggedIn(f: FakeDiscord, shard?: { id: number; count: number }): Promise<Client> {
  const c = new Client({
    intents: INTENTS,
    rest: { api: f.apiUrl },
    allowedMentions: NO_MENTIONS,
    ...(shard === undefined ? {} : { shards: [shard.id], shardCount: shard.count }),
  });
  clients.push(c);
  const ready = once(c, Events.ClientReady);
  await c.login(f.token);
  await ready;
  return c;
}

function restOf(f: FakeDiscord): REST {
  return new REST({ api: f.apiUrl }).setToken(f.token);
}

/** Sends through discord.js's own channel.send, as a poster would. */
async function send(
  c: Client,
  channelId: string,
  options: { content: string; nonce?: string | number; enforceNonce?: boolean; embeds?: object[] },
): Promise<Message> {
  const channel = await c.channels.fetch(channelId);
  if (channel === null || !channel.isSendable()) throw new Error(`channel ${channelId} is not sendable`);
  return channel.send({ ...options, allowedMentions: NO_MENTIONS });
}

/** The Discord error a promise rejects with (status and JSON code), or 'ok'. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: number | string } | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof DiscordAPIError) return { status: error.status, code: error.code };
    throw error;
  }
}

describe('fake Discord: nonce + enforce_nonce on POST /channels/:channel/messages', () => {
  it('GIVEN enforce_nonce WHEN the same nonce is sent twice to a channel THEN one message exists and the second answer is it again (200)', async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const first = await send(c, f.guild.channels.plain, {
      content: 'new image 1',
      nonce: 'feed-7-1001',
      enforceNonce: true,
    });
    const second = await send(c, f.guild.channels.plain, {
      content: 'new image 1 (retried)',
      nonce: 'feed-7-1001',
      enforceNonce: true,
    });
    expect(second.id).toBe(first.id);
    expect(second.content).toBe('new image 1');
    expect(first.nonce).toBe('feed-7-1001');
    expect(f.channelMessages('plain').map((m) => m.id)).toEqual([first.id]);
    expect(f.nonceReplays).toMatchObject([
      { channelId: f.guild.channels.plain, authorId: f.botUserId, nonce: 'feed-7-1001', messageId: first.id },
    ]);
    const posts = f.requests.filter((r) => r.method === 'POST' && r.route === '/channels/:channel/messages');
    expect(posts.map((r) => r.status)).toEqual([200, 200]);
    expect(posts[0]?.body).toMatchObject({ nonce: 'feed-7-1001', enforce_nonce: true });
    expect(f.violations).toEqual([]);
  });

  it('GIVEN no enforce_nonce, another channel or another nonce THEN a new message is created each time', async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const plain = f.guild.channels.plain;
    const a = await send(c, plain, { content: 'a', nonce: 'same' });
    const b = await send(c, plain, { content: 'b', nonce: 'same' });
    expect(b.id).not.toBe(a.id);
    const c1 = await send(c, plain, { content: 'c', nonce: 'n-1', enforceNonce: true });
    const c2 = await send(c, f.guild.channels.ageRestricted, {
      content: 'd',
      nonce: 'n-1',
      enforceNonce: true,
    });
    const c3 = await send(c, plain, { content: 'e', nonce: 'n-2', enforceNonce: true });
    expect(new Set([c1.id, c2.id, c3.id]).size).toBe(3);
    // An integer nonce counts too.
    const i1 = await send(c, plain, { content: 'f', nonce: 123456, enforceNonce: true });
    const i2 = await send(c, plain, { content: 'g', nonce: 123456, enforceNonce: true });
    expect(i2.id).toBe(i1.id);
    expect(f.channelMessages('plain').map((m) => m.content)).toEqual(['a', 'b', 'c', 'e', 'f']);
    expect(f.nonceReplays).toHaveLength(1);
    expect(f.violations).toEqual([]);
  });

  it("GIVEN 5 minutes pass on the fake's clock THEN the nonce is forgotten and the same nonce creates a new message", async () => {
    let offset = 0;
    const f = await startFake({ now: () => Date.now() + offset });
    const c = await loggedIn(f);
    const plain = f.guild.channels.plain;
    const first = await send(c, plain, { content: 'x', nonce: 'feed-1-5', enforceNonce: true });
    offset = 5 * 60_000 - 2_000;
    expect((await send(c, plain, { content: 'x', nonce: 'feed-1-5', enforceNonce: true })).id).toBe(first.id);
    offset = 5 * 60_000 + 1_000;
    const later = await send(c, plain, { content: 'x', nonce: 'feed-1-5', enforceNonce: true });
    expect(later.id).not.toBe(first.id);
    expect(f.channelMessages('plain')).toHaveLength(2);
    expect(f.nonceReplays).toHaveLength(1);
    // The new message starts a new window.
    expect((await send(c, plain, { content: 'x', nonce: 'feed-1-5', enforceNonce: true })).id).toBe(later.id);
  });
});

describe('fake Discord: deleteChannel', () => {
  it('GIVEN a channel is deleted THEN the client gets CHANNEL_DELETE, its threads go too, and REST answers 404 10003 Unknown Channel', async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const { plain, threadInPlain, ageRestricted } = f.guild.channels;
    const before = await send(c, plain, { content: 'before' });
    const deleted = once(c, Events.ChannelDelete);
    f.deleteChannel('plain');
    const [channel] = (await deleted) as [{ id: string }];
    expect(channel.id).toBe(plain);
    expect(c.channels.cache.has(plain)).toBe(false);
    expect(c.channels.cache.has(threadInPlain)).toBe(false);

    const rest = restOf(f);
    for (const id of [plain, threadInPlain]) {
      expect(await refusal(rest.get(Routes.channel(id)))).toEqual({ status: 404, code: 10003 });
      expect(
        await refusal(
          rest.post(Routes.channelMessages(id), { body: { content: 'x', allowed_mentions: NO_MENTIONS } }),
        ),
      ).toEqual({ status: 404, code: 10003 });
    }
    expect(await refusal(c.channels.fetch(plain))).toEqual({ status: 404, code: 10003 });
    expect(f.violations.map((v) => v.code)).toEqual([10003, 10003, 10003, 10003, 10003]);
    // What was sent before stays readable; the other channels are untouched.
    expect(f.channelMessages(plain).map((m) => m.id)).toEqual([before.id]);
    expect(await refusal(send(c, ageRestricted, { content: 'still here' }))).toBe('ok');
    expect(() => f.sendCommand({ name: 'image', channel: 'plain' })).toThrow(/deleted/);
  });

  it('GIVEN the CHANNEL_DELETE payload THEN it is the full guild channel, and a deleted thread sends THREAD_DELETE with id, guild_id, parent_id and type', async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const raw: { t: string; d: Record<string, unknown> }[] = [];
    c.on(Events.Raw, (packet: { t?: string; d?: Record<string, unknown> }) => {
      if (packet.t === 'CHANNEL_DELETE' || packet.t === 'THREAD_DELETE')
        raw.push({ t: packet.t, d: packet.d ?? {} });
    });
    const threadGone = once(c, Events.ThreadDelete);
    f.deleteChannel(f.guild.channels.threadInAgeRestricted);
    await threadGone;
    expect(c.channels.cache.has(f.guild.channels.threadInAgeRestricted)).toBe(false);
    expect(c.channels.cache.has(f.guild.channels.ageRestricted)).toBe(true);
    const channelGone = once(c, Events.ChannelDelete);
    f.deleteChannel('ageRestricted');
    await channelGone;
    expect(raw).toEqual([
      {
        t: 'THREAD_DELETE',
        d: {
          id: f.guild.channels.threadInAgeRestricted,
          guild_id: f.guild.id,
          parent_id: f.guild.channels.ageRestricted,
          type: ChannelType.PublicThread,
        },
      },
      {
        t: 'CHANNEL_DELETE',
        d: expect.objectContaining({
          id: f.guild.channels.ageRestricted,
          type: ChannelType.GuildText,
          guild_id: f.guild.id,
          name: 'mature-art',
          nsfw: true,
          parent_id: f.guild.channels.category,
          permission_overwrites: [],
        }),
      },
    ]);
  });

  it('GIVEN a category is deleted THEN its channels stay, moved out of it (CHANNEL_UPDATE)', async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const updates: string[] = [];
    c.on(Events.ChannelUpdate, (_old, updated) => updates.push(updated.id));
    const gone = once(c, Events.ChannelDelete);
    f.deleteChannel(f.guild.channels.category);
    await gone;
    // Every channel of the category (the spoiler channel is one of them too).
    await f.waitFor(() => (updates.length === 4 ? true : undefined));
    expect(updates.sort()).toEqual(
      [
        f.guild.channels.plain,
        f.guild.channels.ageRestricted,
        f.guild.channels.spoiler,
        f.guild.channels.forum,
      ].sort(),
    );
    const plain = c.channels.cache.get(f.guild.channels.plain);
    expect(plain && 'parentId' in plain ? plain.parentId : 'missing').toBeNull();
    const fetched = (await restOf(f).get(Routes.channel(f.guild.channels.plain))) as APIChannel;
    expect(fetched).toMatchObject({ id: f.guild.channels.plain, parent_id: null });
    expect(await refusal(send(c, f.guild.channels.plain, { content: 'ok' }))).toBe('ok');
  });

  it("GIVEN several shards THEN CHANNEL_DELETE goes to the session of the channel's server only, or is recorded undelivered", async () => {
    const f = await startFake({ shards: 2, maxConcurrency: 2, guilds: 3 });
    const c0 = await loggedIn(f, { id: 0, count: 2 });
    const c1 = await loggedIn(f, { id: 1, count: 2 });
    const seen0: string[] = [];
    const seen1: string[] = [];
    c0.on(Events.ChannelDelete, (ch) => seen0.push(ch.id));
    c1.on(Events.ChannelDelete, (ch) => seen1.push(ch.id));
    const server = f.guilds[1];
    if (server?.shard !== 1) throw new Error('no second server on shard 1');
    f.deleteChannel(server.channels.plain);
    await f.waitFor(() => (seen1.length === 1 ? true : undefined));
    expect(seen1).toEqual([server.channels.plain]);
    expect(seen0).toEqual([]);
    expect(await refusal(c1.channels.fetch(server.channels.plain))).toEqual({ status: 404, code: 10003 });
    await c1.destroy();
    f.deleteChannel(server.channels.ageRestricted);
    expect(f.undelivered).toMatchObject([{ t: 'CHANNEL_DELETE', shard: 1, guildId: server.id }]);
  });
});

describe('fake Discord: denyBot / allowBot', () => {
  it('GIVEN Send Messages denied THEN the client gets CHANNEL_UPDATE, computes the same permissions, and a send is refused 403 50013', async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const plain = f.guild.channels.plain;
    const updated = once(c, Events.ChannelUpdate);
    f.denyBot('plain', PermissionFlagsBits.SendMessages);
    await updated;
    const channel = c.channels.cache.get(plain);
    if (channel === undefined || channel.isDMBased()) throw new Error('no guild channel');
    const perms = channel.permissionsFor(f.botUserId);
    expect(perms?.has(PermissionFlagsBits.ViewChannel)).toBe(true);
    expect(perms?.has(PermissionFlagsBits.SendMessages)).toBe(false);

    expect(await refusal(send(c, plain, { content: 'no' }))).toEqual({ status: 403, code: 50013 });
    const fetched = (await restOf(f).get(Routes.channel(plain))) as APIChannel & {
      permission_overwrites: unknown[];
    };
    expect(fetched.permission_overwrites).toEqual([
      { id: f.botUserId, type: 1, allow: '0', deny: PermissionFlagsBits.SendMessages.toString() },
    ]);
    // Other channels, and the plain channel's threads (Send Messages in Threads), still take posts.
    expect(await refusal(send(c, f.guild.channels.ageRestricted, { content: 'yes' }))).toBe('ok');
    expect(await refusal(send(c, f.guild.channels.threadInPlain, { content: 'yes' }))).toBe('ok');
    // Interactions in that channel carry the bot's channel permissions.
    const slash = f.sendCommand({ name: 'image', channel: 'plain' });
    expect(BigInt(String(slash.payload['app_permissions'])) & PermissionFlagsBits.SendMessages).toBe(0n);
    expect(f.violations).toMatchObject([{ kind: 'missing-permissions', code: 50013 }]);
  });

  it('GIVEN View Channel denied THEN REST answers 403 50001 Missing Access, for the channel and its threads', async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const { ageRestricted, threadInAgeRestricted } = f.guild.channels;
    const updated = once(c, Events.ChannelUpdate);
    f.denyBot('ageRestricted', PermissionFlagsBits.ViewChannel);
    await updated;
    const channel = c.channels.cache.get(ageRestricted);
    if (channel === undefined || channel.isDMBased()) throw new Error('no guild channel');
    expect(channel.permissionsFor(f.botUserId)?.has(PermissionFlagsBits.ViewChannel)).toBe(false);
    const thread = c.channels.cache.get(threadInAgeRestricted);
    if (thread === undefined || thread.isDMBased()) throw new Error('no thread');
    expect(thread.permissionsFor(f.botUserId)?.has(PermissionFlagsBits.ViewChannel)).toBe(false);

    const rest = restOf(f);
    for (const id of [ageRestricted, threadInAgeRestricted]) {
      expect(await refusal(rest.get(Routes.channel(id)))).toEqual({ status: 403, code: 50001 });
      expect(await refusal(send(c, id, { content: 'no' }))).toEqual({ status: 403, code: 50001 });
    }
    expect(f.violations.map((v) => v.code)).toEqual([50001, 50001, 50001, 50001]);
    expect(() => f.denyBot('threadInPlain', PermissionFlagsBits.SendMessagesInThreads)).toThrow(/parent/);
  });

  it('GIVEN Embed Links denied THEN the message is created without its embeds, as Discord does', async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const updated = once(c, Events.ChannelUpdate);
    f.denyBot('plain', PermissionFlagsBits.EmbedLinks);
    await updated;
    const message = await send(c, f.guild.channels.plain, { content: 'see', embeds: [{ title: 'Image 1' }] });
    expect(message.embeds).toEqual([]);
    expect(f.channelMessages('plain')[0]?.embeds).toEqual([]);
    expect(f.violations).toEqual([]);
  });

  it('GIVEN denials add up and allowBot THEN the overwrite holds both, then goes, and sending works again', async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const plain = f.guild.channels.plain;
    const updates: string[] = [];
    c.on(Events.ChannelUpdate, (_old, updated) => updates.push(updated.id));
    f.denyBot(plain, PermissionFlagsBits.EmbedLinks);
    f.denyBot(plain, PermissionFlagsBits.SendMessages);
    const rest = restOf(f);
    const denied = (await rest.get(Routes.channel(plain))) as { permission_overwrites: { deny: string }[] };
    expect(denied.permission_overwrites[0]?.deny).toBe(
      (PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.SendMessages).toString(),
    );
    f.allowBot(plain);
    f.allowBot(plain); // Nothing left to remove: no event.
    await f.waitFor(() => (updates.length === 3 ? true : undefined));
    const channel = c.channels.cache.get(plain);
    if (channel === undefined || channel.isDMBased()) throw new Error('no guild channel');
    expect(channel.permissionsFor(f.botUserId)?.has(PermissionFlagsBits.SendMessages)).toBe(true);
    expect(
      ((await rest.get(Routes.channel(plain))) as { permission_overwrites: unknown[] }).permission_overwrites,
    ).toEqual([]);
    expect(await refusal(send(c, plain, { content: 'back' }))).toBe('ok');
    expect(updates).toEqual([plain, plain, plain]);
  });
});

describe('fake Discord: removeBot', () => {
  it('GIVEN the bot removed from its server THEN the client gets guildDelete (not guildUnavailable), REST refuses its channels 403 50001, and a new session does not see it', async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const guildId = f.guild.id;
    expect(c.guilds.cache.has(guildId)).toBe(true);
    const unavailable: string[] = [];
    c.on(Events.GuildUnavailable, (guild) => unavailable.push(guild.id));
    const deleted = once(c, Events.GuildDelete);
    f.removeBot();
    const [guild] = (await deleted) as [{ id: string }];
    expect(guild.id).toBe(guildId);
    expect(unavailable).toEqual([]);
    expect(c.guilds.cache.has(guildId)).toBe(false);
    const refused = await restOf(f)
      .get(Routes.channel(f.guild.channels.plain))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect((refused as DiscordAPIError).status).toBe(403);
    expect((refused as DiscordAPIError).code).toBe(50001);
    const again = await loggedIn(f);
    expect(again.guilds.cache.has(guildId)).toBe(false);
  });

  it('GIVEN a server the bot is not in THEN removeBot refuses, as there is nothing to remove', async () => {
    const f = await startFake();
    expect(() => f.removeBot(f.foreignGuild.id)).toThrow(/not in server/);
  });
});

describe('fake Discord: several servers over REST', () => {
  it("GIVEN several servers THEN REST knows every server's guild and channels, and a message posts into any of them", async () => {
    const f = await startFake({ shards: 2, maxConcurrency: 2, guilds: 3 });
    const rest = restOf(f);
    for (const server of f.guilds) {
      const guild = (await rest.get(Routes.guild(server.id))) as { id: string; name: string };
      expect(guild.id).toBe(server.id);
      const channels = (await rest.get(Routes.guildChannels(server.id))) as APIChannel[];
      expect(channels.map((ch) => ch.id)).toContain(server.channels.plain);
      const restricted = (await rest.get(Routes.channel(server.channels.ageRestricted))) as APIChannel;
      expect(restricted).toMatchObject({ guild_id: server.id, nsfw: true });
      const posted = (await rest.post(Routes.channelMessages(server.channels.threadInPlain), {
        body: {
          content: `hello ${server.name}`,
          allowed_mentions: NO_MENTIONS,
          nonce: 'n',
          enforce_nonce: true,
        },
      })) as APIMessage;
      expect(posted).toMatchObject({
        channel_id: server.channels.threadInPlain,
        author: { id: f.botUserId },
      });
      expect(f.channelMessages(server.channels.threadInPlain).map((m) => m.id)).toEqual([posted.id]);
      const member = (await rest.get(Routes.guildMember(server.id, server.memberId))) as {
        user: { id: string };
      };
      expect(member.user.id).toBe(server.memberId);
    }
    // The nonce is per channel: the same one in three servers made three messages.
    expect(f.nonceReplays).toEqual([]);
    expect(f.violations).toEqual([]);
  });

  it('GIVEN a client on the shard of the third server THEN denyBot there reaches it, and REST refuses there only', async () => {
    const f = await startFake({ shards: 2, maxConcurrency: 2, guilds: 3 });
    const server = f.guilds[2];
    if (server?.shard !== 0) throw new Error('the third server should be on shard 0');
    const c0 = await loggedIn(f, { id: 0, count: 2 });
    const updated = once(c0, Events.ChannelUpdate);
    f.denyBot(server.channels.plain, PermissionFlagsBits.SendMessages);
    await updated;
    expect(await refusal(send(c0, server.channels.plain, { content: 'no' }))).toEqual({
      status: 403,
      code: 50013,
    });
    expect(await refusal(send(c0, f.guild.channels.plain, { content: 'yes' }))).toBe('ok');
  });
});

describe('fake Discord: GET /channels/:id for a poster', () => {
  it('GIVEN text channels and threads THEN text channels carry nsfw and threads parent_id (age-restricted through the parent)', async () => {
    const f = await startFake();
    const rest = restOf(f);
    const get = async (id: string): Promise<Record<string, unknown>> =>
      (await rest.get(Routes.channel(id))) as Record<string, unknown>;
    const { plain, ageRestricted, threadInPlain, threadInAgeRestricted, forum } = f.guild.channels;
    expect(await get(plain)).toMatchObject({
      type: ChannelType.GuildText,
      nsfw: false,
      guild_id: f.guild.id,
    });
    expect(await get(ageRestricted)).toMatchObject({ type: ChannelType.GuildText, nsfw: true });
    expect(await get(forum)).toMatchObject({ type: ChannelType.GuildForum, nsfw: false });
    expect(await get(threadInPlain)).toMatchObject({ type: ChannelType.PublicThread, parent_id: plain });
    const thread = await get(threadInAgeRestricted);
    expect(thread).toMatchObject({ type: ChannelType.PublicThread, parent_id: ageRestricted });
    expect((await get(String(thread['parent_id'])))['nsfw']).toBe(true);
  });

  it("GIVEN discord.js fetches a thread THEN it knows the parent's nsfw", async () => {
    const f = await startFake();
    const c = await loggedIn(f);
    const thread = await c.channels.fetch(f.guild.channels.threadInAgeRestricted, { force: true });
    if (thread === null || !thread.isThread()) throw new Error('not a thread');
    expect(thread.parentId).toBe(f.guild.channels.ageRestricted);
    const parent = thread.parent ?? (await c.channels.fetch(f.guild.channels.ageRestricted));
    expect(parent !== null && 'nsfw' in parent ? parent.nsfw : undefined).toBe(true);
  });
});
