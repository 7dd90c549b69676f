/**
 * A small local Discord for the load benchmark: the shared fake (test/fakes/discord) seeds one guild, and
 * the benchmark needs a bot in 1,000 and 10,000 servers. This one speaks just enough gateway v10 (JSON,
 * no compression) and REST for an unmodified discord.js client to log in, receive READY and one
 * GUILD_CREATE per server, register commands, and answer chat messages with replies (POST) and preview
 * suppression (PATCH). It checks nothing and enforces no rate limits; it records what the bot sent.
 * Everything listens on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChannelType, PermissionFlagsBits } from 'discord.js';
import { WebSocketServer, type WebSocket } from 'ws';
import { cardsIn } from './answers.js';

export interface WorldShape {
  readonly guilds: number;
  /** Per guild: one category, one voice channel, the rest text channels (the first of them age-restricted). */
  readonly channels: number;
  /** Per guild, @everyone and the bot's managed role included. */
  readonly roles: number;
  /** Per guild, the bot included. */
  readonly members: number;
  /** Per guild: members shown online. */
  readonly presences: number;
}

export interface BenchGuild {
  readonly id: string;
  readonly textChannelIds: readonly string[];
  /** Member user ids, the bot excluded. */
  readonly memberIds: readonly string[];
}

export interface SentMessage {
  readonly channelId: string;
  readonly replyTo: string | undefined;
  /** Cards in it: embeds, or a Components V2 card (bench/answers.ts). */
  readonly cards: number;
  readonly at: number;
}

export interface BenchDiscord {
  readonly apiUrl: string;
  readonly token: string;
  readonly guilds: readonly BenchGuild[];
  /** Live gateway sessions that were sent READY and every GUILD_CREATE. */
  readonly sessions: number;
  /** MESSAGE_CREATE to every live session; returns the message id. */
  dispatchMessage(input: { guild: number; channel: number; author: number; content: string }): string;
  /** Messages the bot posted, in order. */
  readonly sent: readonly SentMessage[];
  /** PATCHes of users' messages (embed suppression). */
  readonly edits: number;
  /** REST calls this Discord does not know. */
  readonly unknownRoutes: readonly string[];
  close(): Promise<void>;
}

const TOKEN = 'MTA5.bench-discord.bot-token';
const BASE_ID = 1_100_000_000_000_000_000n;
const HEARTBEAT_MS = 41_250;
/** Stop queueing GUILD_CREATEs while this much is waiting in the socket. */
const HIGH_WATER = 16 * 2 ** 20;

export async function startBenchDiscord(shape: WorldShape): Promise<BenchDiscord> {
  let counter = 0n;
  const nextId = (): string => (BASE_ID + counter++).toString();
  const applicationId = nextId();
  const botUser = {
    id: applicationId,
    username: 'philomena-bot',
    discriminator: '0',
    global_name: null,
    avatar: null,
    bot: true,
  };
  const joinedAt = new Date(Date.now() - 86_400_000).toISOString();
  const everyoneBits =
    PermissionFlagsBits.ViewChannel |
    PermissionFlagsBits.SendMessages |
    PermissionFlagsBits.EmbedLinks |
    PermissionFlagsBits.ReadMessageHistory |
    PermissionFlagsBits.UseApplicationCommands;
  const botBits = everyoneBits | PermissionFlagsBits.ManageMessages | PermissionFlagsBits.AttachFiles;

  const guilds: BenchGuild[] = [];
  const guildPayloads: string[] = [];
  const userById = new Map<string, Record<string, unknown>>();
  for (let g = 0; g < shape.guilds; g += 1) {
    const guildId = nextId();
    const botRoleId = nextId();
    const roles = [
      role(guildId, '@everyone', everyoneBits, 0, false),
      { ...role(botRoleId, 'philomena-bot', botBits, 1, true), tags: { bot_id: applicationId } },
    ];
    for (let r = roles.length; r < shape.roles; r += 1) roles.push(role(nextId(), `role ${r}`, 0n, r, false));
    const categoryId = nextId();
    const channels: Record<string, unknown>[] = [
      channel(categoryId, guildId, ChannelType.GuildCategory, 'Text', null, 0, false),
    ];
    const textChannelIds: string[] = [];
    for (let c = 1; c < shape.channels - 1; c += 1) {
      const id = nextId();
      textChannelIds.push(id);
      channels.push(channel(id, guildId, ChannelType.GuildText, `chat-${c}`, categoryId, c, c === 1));
    }
    channels.push(channel(nextId(), guildId, ChannelType.GuildVoice, 'Lounge', null, shape.channels, false));
    const memberIds: string[] = [];
    const members: Record<string, unknown>[] = [member(botUser, [botRoleId], joinedAt)];
    for (let m = 1; m < shape.members; m += 1) {
      const id = nextId();
      const user = {
        id,
        username: `member_${g}_${m}`,
        discriminator: '0',
        global_name: `Member ${m}`,
        avatar: null,
        bot: false,
      };
      userById.set(id, user);
      memberIds.push(id);
      const someRole = roles[2 + (m % Math.max(1, roles.length - 2))];
      members.push(member(user, someRole === undefined ? [] : [String(someRole['id'])], joinedAt));
    }
    const presences = memberIds.slice(0, shape.presences).map((id) => ({
      user: { id },
      status: 'online',
      activities: [],
      client_status: { desktop: 'online' },
    }));
    guilds.push({ id: guildId, textChannelIds, memberIds });
    guildPayloads.push(
      JSON.stringify({
        id: guildId,
        name: `Bench server ${g}`,
        icon: null,
        splash: null,
        discovery_splash: null,
        banner: null,
        description: null,
        owner_id: memberIds[0] ?? applicationId,
        afk_channel_id: null,
        afk_timeout: 300,
        verification_level: 1,
        default_message_notifications: 1,
        explicit_content_filter: 2,
        features: [],
        mfa_level: 0,
        application_id: null,
        system_channel_id: textChannelIds[0] ?? null,
        system_channel_flags: 0,
        rules_channel_id: null,
        public_updates_channel_id: null,
        safety_alerts_channel_id: null,
        vanity_url_code: null,
        premium_tier: 0,
        premium_subscription_count: 0,
        preferred_locale: 'en-US',
        max_members: 500_000,
        max_video_channel_users: 25,
        nsfw_level: 0,
        premium_progress_bar_enabled: false,
        roles,
        emojis: [],
        stickers: [],
        joined_at: joinedAt,
        large: false,
        unavailable: false,
        member_count: shape.members,
        voice_states: [],
        members,
        channels,
        threads: [],
        presences,
        stage_instances: [],
        guild_scheduled_events: [],
        soundboard_sounds: [],
        lazy: true,
      }),
    );
  }

  const sent: SentMessage[] = [];
  const unknownRoutes: string[] = [];
  let edits = 0;
  let port = 0;
  const live = new Set<{ socket: WebSocket; seq: number }>();

  function answer(response: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  }

  function messageJson(id: string, channelId: string, author: object, body: Record<string, unknown>): object {
    return {
      id,
      type: body['message_reference'] === undefined ? 0 : 19,
      channel_id: channelId,
      author,
      content: typeof body['content'] === 'string' ? body['content'] : '',
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: Array.isArray(body['embeds']) ? body['embeds'] : [],
      components: Array.isArray(body['components']) ? body['components'] : [],
      pinned: false,
      flags: typeof body['flags'] === 'number' ? body['flags'] : 0,
      ...(body['message_reference'] === undefined ? {} : { message_reference: body['message_reference'] }),
    };
  }

  function handle(request: IncomingMessage, response: ServerResponse, raw: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.replace(/^\/api\/v\d+/, '');
    const method = request.method ?? 'GET';
    let body: Record<string, unknown> = {};
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        answer(response, 400, { message: 'The request body contains invalid JSON.', code: 50109 });
        return;
      }
    }
    if (method === 'GET' && path === '/gateway/bot') {
      answer(response, 200, {
        url: `ws://127.0.0.1:${port}`,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
      });
      return;
    }
    const commands = /^\/applications\/\d+(?:\/guilds\/\d+)?\/commands$/.exec(path);
    if (commands !== null && method === 'PUT') {
      const list = Array.isArray(body) ? (body as Record<string, unknown>[]) : [];
      answer(
        response,
        200,
        list.map((c) => ({ ...c, id: nextId(), application_id: applicationId, version: nextId() })),
      );
      return;
    }
    const post = /^\/channels\/(\d+)\/messages$/.exec(path);
    if (post !== null && method === 'POST') {
      const channelId = post[1] ?? '';
      const reference = body['message_reference'] as { message_id?: string } | undefined;
      sent.push({ channelId, replyTo: reference?.message_id, cards: cardsIn(body), at: performance.now() });
      answer(response, 200, messageJson(nextId(), channelId, botUser, body));
      return;
    }
    const patch = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (patch !== null && method === 'PATCH') {
      edits += 1;
      const someone = { id: '1', username: 'someone', discriminator: '0', global_name: null, avatar: null };
      answer(response, 200, messageJson(patch[2] ?? '', patch[1] ?? '', someone, body));
      return;
    }
    unknownRoutes.push(`${method} ${path}`);
    answer(response, 404, { message: '404: Not Found', code: 0 });
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks)));
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket, request) => {
    const query = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams;
    if (query.get('compress') !== null || (query.get('encoding') ?? 'json') !== 'json') {
      socket.close(4002, 'this bench Discord speaks uncompressed JSON only');
      return;
    }
    const session = { socket, seq: 0 };
    const send = (payload: object): void => socket.send(JSON.stringify(payload));
    const dispatch = (t: string, d: string): void => {
      session.seq += 1;
      socket.send(`{"op":0,"s":${session.seq},"t":"${t}","d":${d}}`);
    };
    send({ op: 10, d: { heartbeat_interval: HEARTBEAT_MS } });
    socket.on('message', (data: Buffer) => {
      let packet: { op?: number; d?: unknown };
      try {
        packet = JSON.parse(data.toString('utf8')) as { op?: number; d?: unknown };
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      if (packet.op === 1) send({ op: 11 });
      else if (packet.op === 6) send({ op: 9, d: false });
      else if (packet.op === 2) void identify(session, dispatch);
    });
    socket.on('close', () => live.delete(session));
  });

  async function identify(
    session: { socket: WebSocket; seq: number },
    dispatch: (t: string, d: string) => void,
  ): Promise<void> {
    dispatch(
      'READY',
      JSON.stringify({
        v: 10,
        user: { ...botUser, verified: true, mfa_enabled: true, flags: 0 },
        guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
        session_id: `bench-${session.seq}-${Date.now()}`,
        resume_gateway_url: `ws://127.0.0.1:${port}`,
        shard: [0, 1],
        application: { id: applicationId, flags: 1 << 19 },
        private_channels: [],
        presences: [],
        relationships: [],
        user_settings: {},
        auth: {},
      }),
    );
    for (const [i, payload] of guildPayloads.entries()) {
      if (session.socket.readyState !== session.socket.OPEN) return;
      dispatch('GUILD_CREATE', payload);
      if (i % 200 === 199 || session.socket.bufferedAmount > HIGH_WATER) {
        while (
          session.socket.bufferedAmount > HIGH_WATER / 2 &&
          session.socket.readyState === session.socket.OPEN
        ) {
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    live.add(session);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    apiUrl: `http://127.0.0.1:${port}/api`,
    token: TOKEN,
    guilds,
    get sessions() {
      return live.size;
    },
    dispatchMessage({ guild, channel: channelIndex, author, content }) {
      const target = guilds[guild % guilds.length];
      if (target === undefined) throw new Error('bench Discord: no guilds');
      const channelId = target.textChannelIds[channelIndex % target.textChannelIds.length] ?? '';
      const authorId = target.memberIds[author % target.memberIds.length] ?? '';
      const id = nextId();
      const d = JSON.stringify({
        id,
        type: 0,
        channel_id: channelId,
        guild_id: target.id,
        author: userById.get(authorId),
        member: { roles: [], joined_at: joinedAt, deaf: false, mute: false, flags: 0, pending: false },
        content,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        mentions: [],
        mention_roles: [],
        attachments: [],
        embeds: [],
        components: [],
        pinned: false,
        flags: 0,
      });
      for (const session of live) {
        session.seq += 1;
        session.socket.send(`{"op":0,"s":${session.seq},"t":"MESSAGE_CREATE","d":${d}}`);
      }
      return id;
    },
    sent,
    get edits() {
      return edits;
    },
    unknownRoutes,
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function role(
  id: string,
  name: string,
  permissions: bigint,
  position: number,
  managed: boolean,
): Record<string, unknown> {
  return {
    id,
    name,
    color: 0,
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: permissions.toString(),
    managed,
    mentionable: false,
    flags: 0,
  };
}

function channel(
  id: string,
  guildId: string,
  type: ChannelType,
  name: string,
  parentId: string | null,
  position: number,
  nsfw: boolean,
): Record<string, unknown> {
  const base = {
    id,
    type,
    guild_id: guildId,
    name,
    position,
    permission_overwrites: [],
    parent_id: parentId,
    nsfw,
    flags: 0,
  };
  if (type === ChannelType.GuildText) {
    return {
      ...base,
      topic: null,
      last_message_id: null,
      rate_limit_per_user: 0,
      default_auto_archive_duration: 1440,
    };
  }
  if (type === ChannelType.GuildVoice) {
    return {
      ...base,
      bitrate: 64_000,
      user_limit: 0,
      rtc_region: null,
      last_message_id: null,
      rate_limit_per_user: 0,
    };
  }
  return base;
}

function member(user: object, roles: readonly string[], joinedAt: string): Record<string, unknown> {
  return {
    user,
    nick: null,
    avatar: null,
    roles,
    joined_at: joinedAt,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}
