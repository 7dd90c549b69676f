/**
 * A small local Discord for the load and memory benchmarks: the shared fake (test/fakes/discord) seeds one
 * guild, and the benchmarks need a bot in 1,000 to 50,000 servers. This one speaks just enough gateway v10
 * (JSON, no compression) and REST for an unmodified discord.js client to log in, receive READY and, after
 * it, one GUILD_CREATE per server of its shard (bench/bot-discord-world.ts builds them), register commands,
 * and answer chat messages with replies (POST) and preview suppression (PATCH). It checks nothing and
 * enforces no rate limits; it records what the bot sent. Everything listens on 127.0.0.1.
 *
 * Sharded (`sharded: true`), `/gateway/bot` recommends one shard per 2,500 servers, as Discord does
 * (docs/discord-platform.md), and each IDENTIFY gets only its shard's servers. A session can be resumed
 * (RESUME with a known session id gets RESUMED) and the bench can drop every session either way Discord
 * does: closed with 4000 (the client resumes) or INVALID_SESSION (d: false: the client identifies afresh).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { cardsIn } from './answers.js';
import { createWorld, messageJson, type BenchGuild, type WorldShape } from './bot-discord-world.js';

export type { BenchGuild, WorldShape } from './bot-discord-world.js';

export interface BenchDiscordOptions {
  /** One shard per 2,500 servers (Discord's rule); otherwise a single shard whatever the count. */
  readonly sharded?: boolean;
  /** `session_start_limit.max_concurrency`: identifies per 5 s the client may make. Default 1. */
  readonly maxConcurrency?: number;
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
  /** Shards `/gateway/bot` recommends. */
  readonly shards: number;
  /** Live gateway sessions that were sent READY (or RESUMED) and every GUILD_CREATE. */
  readonly sessions: number;
  /**
   * Resolves once `expected` sessions are live and each has answered a heartbeat request with the
   * sequence of its last dispatch: the client has read every GUILD_CREATE, not merely been sent it.
   */
  caughtUp(expected: number, timeoutMs: number): Promise<void>;
  /**
   * Ends every live session as Discord would, and resolves (in ms) once every shard is back and caught
   * up: 'resume' closes the sockets with 4000 (the client RESUMEs), 'fresh' sends INVALID_SESSION d: false
   * (the client IDENTIFYs again and gets every server again).
   */
  dropSessions(mode: 'resume' | 'fresh', timeoutMs: number): Promise<number>;
  /** RESUMEs this Discord accepted. */
  readonly resumes: number;
  /** MESSAGE_CREATE to the live session of the server's shard; returns the message id. */
  dispatchMessage(input: { guild: number; channel: number; author: number; content: string }): string;
  /** Messages the bot posted, in order. */
  readonly sent: readonly SentMessage[];
  /** PATCHes of users' messages (embed suppression). */
  readonly edits: number;
  /** REST calls this Discord does not know. */
  readonly unknownRoutes: readonly string[];
  close(): Promise<void>;
}

interface Session {
  readonly id: string;
  readonly shard: number;
  /** Indices of the servers of its shard: READY is dispatch 1, the GUILD_CREATE of `mine[n]` is n + 2. */
  readonly mine: readonly number[];
  socket: WebSocket;
  seq: number;
  /** Every GUILD_CREATE (or RESUMED) was sent. */
  sent: boolean;
  /** A heartbeat carried the sequence of the last dispatch sent. */
  caughtUp: boolean;
}

const TOKEN = 'MTA5.bench-discord.bot-token';
const HEARTBEAT_MS = 41_250;
const SERVERS_PER_SHARD = 2500;
const HIGH_WATER = 16 * 2 ** 20; // queued in the socket: stop queueing GUILD_CREATEs
const POLL_MS = 5;
const ASK_AGAIN_POLLS = 100;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function startBenchDiscord(
  shape: WorldShape,
  options: BenchDiscordOptions = {},
): Promise<BenchDiscord> {
  const world = createWorld(shape);
  const { applicationId, botUser, joinedAt, guilds } = world;
  const shardCount = options.sharded === true ? Math.max(1, Math.ceil(shape.guilds / SERVERS_PER_SHARD)) : 1;
  let counter = 0n;
  // Message and command ids: far after every server's (bot-discord-world.ts).
  const nextId = (): string => ((270_000_000_000n + counter++) << 22n).toString();

  const sent: SentMessage[] = [];
  const unknownRoutes: string[] = [];
  let edits = 0;
  let resumes = 0;
  let port = 0;
  /** Every session, live or not, by id: a closed one may be resumed. */
  const sessions = new Map<string, Session>();
  const live = new Set<Session>();

  function answer(response: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
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
      const maxConcurrency = options.maxConcurrency ?? 1;
      answer(response, 200, {
        url: `ws://127.0.0.1:${port}`,
        shards: shardCount,
        session_start_limit: {
          total: 1000,
          remaining: 1000,
          reset_after: 0,
          max_concurrency: maxConcurrency,
        },
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
    let session: Session | undefined;
    const send = (payload: object): void => socket.send(JSON.stringify(payload));
    send({ op: 10, d: { heartbeat_interval: HEARTBEAT_MS } });
    socket.on('message', (data: Buffer) => {
      let packet: { op?: number; d?: unknown };
      try {
        packet = JSON.parse(data.toString('utf8')) as { op?: number; d?: unknown };
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      if (packet.op === 1) {
        // The client's heartbeat carries the last sequence it read: equal to ours, it has read everything.
        if (session?.sent === true && packet.d === session.seq) session.caughtUp = true;
        send({ op: 11 });
      } else if (packet.op === 6) {
        session = resume(socket, packet.d);
      } else if (packet.op === 2) {
        session = identify(socket, packet.d);
      }
    });
    socket.on('close', () => {
      if (session !== undefined && session.socket === socket) live.delete(session);
    });
  });

  function dispatch(session: Session, t: string, d: string): void {
    session.seq += 1;
    session.socket.send(`{"op":0,"s":${session.seq},"t":"${t}","d":${d}}`);
  }

  /** Every dispatch is out: ask for a heartbeat, whose sequence says when the client has read them. */
  function finish(session: Session): void {
    session.sent = true;
    session.caughtUp = false;
    live.add(session);
    session.socket.send(JSON.stringify({ op: 1, d: null }));
  }

  function resume(socket: WebSocket, d: unknown): Session | undefined {
    const wanted =
      typeof d === 'object' && d !== null ? (d as { session_id?: unknown }).session_id : undefined;
    const session = typeof wanted === 'string' ? sessions.get(wanted) : undefined;
    if (session === undefined) {
      socket.send(JSON.stringify({ op: 9, d: false }));
      return undefined;
    }
    resumes += 1;
    session.socket = socket;
    session.sent = false;
    session.caughtUp = false;
    // Replay what the client did not read, as Discord does: a client too busy to read heartbeat acks (a
    // zombie to @discordjs/ws) resumes amid its GUILD_CREATEs.
    const read = (d as { seq?: unknown }).seq;
    const from = typeof read === 'number' ? Math.max(0, read - 1) : session.mine.length;
    if (from < session.mine.length) {
      session.seq = from + 1;
      void sendGuilds(session, from, true);
    } else {
      dispatch(session, 'RESUMED', '{}');
      finish(session);
    }
    return session;
  }

  function identify(socket: WebSocket, d: unknown): Session {
    const pair = typeof d === 'object' && d !== null ? (d as { shard?: unknown }).shard : undefined;
    const shard = Array.isArray(pair) && typeof pair[0] === 'number' ? pair[0] : 0;
    const count = Array.isArray(pair) && typeof pair[1] === 'number' ? pair[1] : 1;
    const session: Session = {
      id: `bench-${shard}-${nextId()}`,
      shard,
      mine: guilds.flatMap((_g, i) => (world.shardOf(i, count) === shard ? [i] : [])),
      socket,
      seq: 0,
      sent: false,
      caughtUp: false,
    };
    sessions.set(session.id, session);
    dispatch(
      session,
      'READY',
      JSON.stringify({
        v: 10,
        user: { ...botUser, verified: true, mfa_enabled: true, flags: 0 },
        guilds: session.mine.map((i) => ({ id: guilds[i]?.id, unavailable: true })),
        session_id: session.id,
        resume_gateway_url: `ws://127.0.0.1:${port}`,
        shard: [shard, count],
        application: { id: applicationId, flags: 1 << 19 },
        private_channels: [],
        presences: [],
        relationships: [],
        user_settings: {},
        auth: {},
      }),
    );
    void sendGuilds(session, 0, false);
    return session;
  }

  /** The GUILD_CREATEs of `session.mine` from `from` on, then (`resumed`) RESUMED. */
  async function sendGuilds(session: Session, from: number, resumed: boolean): Promise<void> {
    const socket = session.socket;
    for (let n = from; n < session.mine.length; n += 1) {
      if (socket.readyState !== socket.OPEN) return;
      dispatch(session, 'GUILD_CREATE', world.guildJson(session.mine[n] ?? 0));
      if (n % 200 === 199 || socket.bufferedAmount > HIGH_WATER) {
        while (socket.bufferedAmount > HIGH_WATER / 2 && socket.readyState === socket.OPEN) await sleep(5);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (socket.readyState !== socket.OPEN) return;
    if (resumed) dispatch(session, 'RESUMED', '{}');
    finish(session);
  }

  async function caughtUp(expected: number, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let polls = 0;
    for (;;) {
      const ready = [...live].filter((s) => s.caughtUp);
      if (ready.length >= expected) return;
      if (performance.now() > deadline) {
        throw new Error(
          `bench Discord: ${ready.length} of ${expected} sessions caught up in ${timeoutMs} ms`,
        );
      }
      // A heartbeat answered before the last dispatches were read: ask again, now and then.
      polls += 1;
      if (polls % ASK_AGAIN_POLLS === 0) {
        for (const s of live) if (!s.caughtUp) s.socket.send(JSON.stringify({ op: 1, d: null }));
      }
      await sleep(POLL_MS);
    }
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
    shards: shardCount,
    get sessions() {
      return live.size;
    },
    caughtUp,
    async dropSessions(mode, timeoutMs) {
      const dropped = [...live];
      const started = performance.now();
      for (const session of dropped) {
        live.delete(session);
        session.sent = false;
        session.caughtUp = false;
        if (mode === 'resume') session.socket.close(4000, 'Unknown error.');
        else session.socket.send(JSON.stringify({ op: 9, d: false }));
      }
      await caughtUp(dropped.length, timeoutMs);
      return performance.now() - started;
    },
    get resumes() {
      return resumes;
    },
    dispatchMessage({ guild, channel: channelIndex, author, content }) {
      const index = guild % guilds.length;
      const target = guilds[index];
      if (target === undefined) throw new Error('bench Discord: no guilds');
      const channels = target.textChannelIds;
      const channelId = channels[channelIndex % channels.length] ?? '';
      const members = Math.max(1, shape.members - 1);
      const id = nextId();
      const d = JSON.stringify({
        id,
        type: 0,
        channel_id: channelId,
        guild_id: target.id,
        author: world.user(index, 1 + (author % members)),
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
      const shard = world.shardOf(index, shardCount);
      for (const session of live) if (session.shard === shard) dispatch(session, 'MESSAGE_CREATE', d);
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
