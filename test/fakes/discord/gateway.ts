/**
 * The gateway half of the fake Discord: a WebSocket server speaking gateway v10 with JSON encoding,
 * the way @discordjs/ws expects it. HELLO → IDENTIFY → READY (+ GUILD_CREATE); heartbeats are
 * acknowledged; a dropped connection can RESUME on `resume_gateway_url` and gets the events it missed
 * replayed before RESUMED; an unknown session gets INVALID_SESSION (d: false). Sequence numbers count
 * per session. Both `compress=zlib-stream` and IDENTIFY's `compress: true` are honoured.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import zlib from 'node:zlib';
import { WebSocket, WebSocketServer } from 'ws';
import type { GatewayClose, Violation } from './types.js';

const GatewayOp = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  VoiceStateUpdate: 4,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
  RequestSoundboardSounds: 31,
} as const;

/** Privileged intents and the option that allows each. */
const GUILD_MEMBERS = 1 << 1;
const GUILD_PRESENCES = 1 << 8;
const MESSAGE_CONTENT = 1 << 15;
export const INTENT_GUILDS = 1 << 0;
export const INTENT_GUILD_MESSAGES = 1 << 9;
export const INTENT_DIRECT_MESSAGES = 1 << 12;
export const INTENT_MESSAGE_CONTENT = MESSAGE_CONTENT;
/** Every intent bit Discord currently defines (0-25, minus the retired ones is close enough here). */
const ALL_INTENTS = (1 << 26) - 1;
/** Close codes after which Discord will not let the session resume. */
const FATAL_CLOSE_CODES = new Set([4004, 4010, 4011, 4012, 4013, 4014]);
const MAX_BUFFERED_EVENTS = 1000;

interface DispatchRecord {
  readonly op: 0;
  readonly s: number;
  readonly t: string;
  readonly d: unknown;
}

/** `[shard_id, num_shards]` as IDENTIFY and READY carry it. */
export type ShardPair = readonly [number, number];

/** Discord's identify window: one IDENTIFY per bucket (`shard_id % max_concurrency`) per 5 s. */
const IDENTIFY_WINDOW_MS = 5000;
/**
 * @discordjs/ws waits `resetsAt - Date.now()` (plus jitter) between IDENTIFYs of a bucket; Node timers
 * may fire a millisecond early, so a margin this small keeps a compliant client clean.
 */
const IDENTIFY_TIMER_SLACK_MS = 5;

interface Session {
  readonly id: string;
  readonly intents: number;
  readonly shard: ShardPair;
  seq: number;
  readonly events: DispatchRecord[];
  connection: Connection | null;
  invalid: boolean;
}

interface Connection {
  readonly socket: WebSocket;
  session: Session | null;
  send(payload: unknown): void;
  /** IDENTIFY asked for `compress: true`: from now on every payload is a zlib-deflated binary frame. */
  enableIdentifyCompress(): void;
}

export interface IdentifyRecord {
  readonly intents: number;
  readonly shard: unknown;
  /** The shard id asked for (0 when IDENTIFY carried no `shard`), for the identify-limit tests. */
  readonly shardId: number;
  readonly properties: unknown;
  readonly compress: boolean;
  readonly at: number;
}

export interface GatewayOptions {
  readonly token: string;
  readonly heartbeatIntervalMs: number;
  readonly allowMessageContentIntent: boolean;
  readonly allowGuildMembersIntent: boolean;
  readonly allowPresenceIntent: boolean;
  /** The shard count IDENTIFY must name (what GET /gateway/bot recommends). */
  readonly shardCount: number;
  /** session_start_limit.max_concurrency: buckets of one IDENTIFY per 5 s. */
  readonly maxConcurrency: number;
  /** Whether a second IDENTIFY of a bucket within 5 s is refused. */
  readonly identifyLimit: boolean;
  /** Called for every IDENTIFY that starts a session (session_start_limit.remaining counts down). */
  readonly onSessionStart: () => void;
  readonly newSessionId: () => string;
  /** ws:// URL (without query) the READY payload gives as resume_gateway_url. */
  readonly resumeUrl: () => string;
  /** READY's `d` for a new session. */
  readonly readyPayload: (sessionId: string, shard: ShardPair) => Record<string, unknown>;
  /** Dispatches that follow READY (GUILD_CREATE ...), given the session's intents and shard. */
  readonly afterReady: (intents: number, shard: ShardPair) => { t: string; d: unknown }[];
  readonly violation: (v: Omit<Violation, 'at'>) => void;
  readonly now: () => number;
}

export interface FakeGateway {
  /** Path prefix the gateway answers on (upgrade requests elsewhere are refused). */
  readonly path: string;
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Send an event to every live session (of `shardId` when given); `build` returns null to skip a
   * session (intents). Returns how many sessions it went to (0: no session holds that shard).
   */
  dispatch(t: string, build: (intents: number) => unknown, shardId?: number): number;
  /** Resolves once a session has been sent READY and what follows it (at once if one is live). */
  whenReady(): Promise<void>;
  /** Resolves at the next RESUMED. */
  whenResumed(): Promise<void>;
  drop(code: number, reason?: string): void;
  requestReconnect(): void;
  readonly closes: GatewayClose[];
  readonly identifies: IdentifyRecord[];
  readonly resumes: { sessionId: string; seq: number; replayed: number; at: number }[];
  /** Intents of the live session, if any. */
  currentIntents(): number | undefined;
  close(): Promise<void>;
}

export function createFakeGateway(options: GatewayOptions): FakeGateway {
  const wss = new WebSocketServer({ noServer: true });
  const sessions = new Map<string, Session>();
  const connections = new Set<Connection>();
  const closes: GatewayClose[] = [];
  const identifies: IdentifyRecord[] = [];
  const resumes: FakeGateway['resumes'] = [];
  /** Identify bucket → time of its last accepted IDENTIFY. */
  const lastIdentify = new Map<number, number>();
  let readyWaiters: (() => void)[] = [];
  let resumedWaiters: (() => void)[] = [];

  const liveReady = (): boolean => [...connections].some((c) => c.session !== null && !c.session.invalid);

  function sendDispatch(session: Session, t: string, d: unknown): void {
    session.seq += 1;
    const record: DispatchRecord = { op: 0, s: session.seq, t, d };
    session.events.push(record);
    if (session.events.length > MAX_BUFFERED_EVENTS) session.events.shift();
    session.connection?.send(record);
  }

  function createConnection(socket: WebSocket, query: URLSearchParams): Connection {
    let deflate: zlib.Deflate | null = null;
    let identifyCompress = false;
    let chain: Promise<void> = Promise.resolve();
    if (query.get('compress') === 'zlib-stream') deflate = zlib.createDeflate();
    const connection: Connection = {
      socket,
      session: null,
      send(payload: unknown): void {
        const json = JSON.stringify(payload);
        if (socket.readyState !== WebSocket.OPEN) return;
        if (deflate !== null) {
          const stream = deflate;
          // One shared zlib context per connection, each payload ending in a sync flush (0000ffff).
          chain = chain.then(
            () =>
              new Promise<void>((resolve) => {
                const chunks: Buffer[] = [];
                const onData = (chunk: Buffer): void => {
                  chunks.push(chunk);
                };
                stream.on('data', onData);
                stream.write(json);
                stream.flush(zlib.constants.Z_SYNC_FLUSH, () => {
                  stream.off('data', onData);
                  if (socket.readyState === WebSocket.OPEN) socket.send(Buffer.concat(chunks));
                  resolve();
                });
              }),
          );
        } else if (identifyCompress) {
          socket.send(zlib.deflateSync(json));
        } else {
          socket.send(json);
        }
      },
      enableIdentifyCompress(): void {
        identifyCompress = deflate === null;
      },
    };
    return connection;
  }

  function closeConnection(connection: Connection, code: number, reason: string): void {
    closes.push({ code, reason, by: 'fake', at: options.now() });
    if (connection.session !== null && FATAL_CLOSE_CODES.has(code)) connection.session.invalid = true;
    if (connection.session !== null) connection.session.connection = null;
    connection.session = null;
    if (code === 1006) {
      connection.socket.terminate();
    } else {
      connection.socket.close(code, reason);
    }
  }

  function onIdentify(connection: Connection, d: Record<string, unknown>): void {
    if (connection.session !== null) {
      closeConnection(connection, 4005, 'Already authenticated.');
      return;
    }
    const intents = d['intents'];
    const askedShard = d['shard'];
    identifies.push({
      intents: typeof intents === 'number' ? intents : -1,
      shard: askedShard,
      shardId: Array.isArray(askedShard) && typeof askedShard[0] === 'number' ? askedShard[0] : 0,
      properties: d['properties'],
      compress: d['compress'] === true,
      at: options.now(),
    });
    if (d['token'] !== options.token) {
      options.violation({ kind: 'gateway', message: 'IDENTIFY with a wrong token', code: 4004 });
      closeConnection(connection, 4004, 'Authentication failed.');
      return;
    }
    if (
      typeof intents !== 'number' ||
      !Number.isInteger(intents) ||
      intents < 0 ||
      (intents & ~ALL_INTENTS) !== 0
    ) {
      options.violation({
        kind: 'gateway',
        message: `IDENTIFY with invalid intents ${String(intents)}`,
        code: 4013,
      });
      closeConnection(connection, 4013, 'Invalid intent(s).');
      return;
    }
    const disallowed =
      ((intents & MESSAGE_CONTENT) !== 0 && !options.allowMessageContentIntent) ||
      ((intents & GUILD_MEMBERS) !== 0 && !options.allowGuildMembersIntent) ||
      ((intents & GUILD_PRESENCES) !== 0 && !options.allowPresenceIntent);
    if (disallowed) {
      closeConnection(connection, 4014, 'Disallowed intent(s).');
      return;
    }
    const shard = d['shard'];
    const count = options.shardCount;
    const shardOk = (value: unknown): value is [number, number] =>
      Array.isArray(value) &&
      value.length === 2 &&
      Number.isInteger(value[0]) &&
      value[1] === count &&
      (value[0] as number) >= 0 &&
      (value[0] as number) < count;
    if (shard === undefined ? count !== 1 : !shardOk(shard)) {
      options.violation({
        kind: 'gateway',
        message: `IDENTIFY with shard ${JSON.stringify(shard)}`,
        code: 4010,
      });
      closeConnection(connection, 4010, 'Invalid shard.');
      return;
    }
    const pair: ShardPair = shard === undefined ? [0, 1] : [(shard as number[])[0] ?? 0, count];
    // The identify limit: one IDENTIFY per bucket per 5 s (max_concurrency buckets, so max_concurrency
    // IDENTIFYs per 5 s overall). One more is closed with 4008 Rate limited: @discordjs/ws handles 4008 by
    // destroying the shard with `recover: Reconnect` (a fresh IDENTIFY through its identify throttler),
    // whereas 4009 Session timed out makes it try to RESUME a session that never existed.
    const bucket = pair[0] % options.maxConcurrency;
    const at = options.now();
    const last = lastIdentify.get(bucket);
    if (
      options.identifyLimit &&
      last !== undefined &&
      at - last < IDENTIFY_WINDOW_MS - IDENTIFY_TIMER_SLACK_MS
    ) {
      options.violation({
        kind: 'gateway',
        message: `IDENTIFY of shard ${pair[0]} ${at - last} ms after the previous one of its bucket ${bucket} (max_concurrency ${options.maxConcurrency}: one per 5 s)`,
        code: 4008,
      });
      closeConnection(connection, 4008, 'Rate limited.');
      return;
    }
    lastIdentify.set(bucket, at);
    options.onSessionStart();
    if (d['compress'] === true) {
      connection.enableIdentifyCompress();
    }
    const session: Session = {
      id: options.newSessionId(),
      intents,
      shard: pair,
      seq: 0,
      events: [],
      connection,
      invalid: false,
    };
    sessions.set(session.id, session);
    connection.session = session;
    sendDispatch(session, 'READY', options.readyPayload(session.id, pair));
    for (const event of options.afterReady(intents, pair)) sendDispatch(session, event.t, event.d);
    const waiters = readyWaiters;
    readyWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function onResume(connection: Connection, d: Record<string, unknown>): void {
    if (connection.session !== null) {
      closeConnection(connection, 4005, 'Already authenticated.');
      return;
    }
    const sessionId = d['session_id'];
    const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (d['token'] !== options.token) {
      closeConnection(connection, 4004, 'Authentication failed.');
      return;
    }
    if (session === undefined || session.invalid) {
      connection.send({ op: GatewayOp.InvalidSession, d: false, s: null, t: null });
      return;
    }
    const seq = typeof d['seq'] === 'number' ? d['seq'] : 0;
    if (seq > session.seq) {
      closeConnection(connection, 4007, 'Invalid seq.');
      return;
    }
    session.connection?.socket.terminate();
    session.connection = connection;
    connection.session = session;
    const missed = session.events.filter((e) => e.s > seq && e.t !== 'RESUMED');
    for (const event of missed) connection.send(event);
    resumes.push({ sessionId: session.id, seq, replayed: missed.length, at: options.now() });
    sendDispatch(session, 'RESUMED', {});
    const waiters = resumedWaiters;
    resumedWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function onMessage(connection: Connection, raw: string): void {
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      closeConnection(connection, 4002, 'Error while decoding payload.');
      return;
    }
    if (typeof payload !== 'object' || payload === null) {
      closeConnection(connection, 4002, 'Error while decoding payload.');
      return;
    }
    const { op, d } = payload as { op?: unknown; d?: unknown };
    const data = typeof d === 'object' && d !== null ? (d as Record<string, unknown>) : {};
    switch (op) {
      case GatewayOp.Heartbeat:
        connection.send({ op: GatewayOp.HeartbeatAck, d: null, s: null, t: null });
        return;
      case GatewayOp.Identify:
        onIdentify(connection, data);
        return;
      case GatewayOp.Resume:
        onResume(connection, data);
        return;
      case GatewayOp.PresenceUpdate:
      case GatewayOp.VoiceStateUpdate:
      case GatewayOp.RequestGuildMembers:
      case GatewayOp.RequestSoundboardSounds:
        if (connection.session === null) closeConnection(connection, 4003, 'Not authenticated.');
        return;
      default:
        options.violation({ kind: 'gateway', message: `unknown gateway opcode ${String(op)}`, code: 4001 });
        closeConnection(connection, 4001, 'Unknown opcode.');
    }
  }

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const query = new URL(request.url ?? '/', 'ws://localhost').searchParams;
    const connection = createConnection(socket, query);
    connections.add(connection);
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) {
        closeConnection(connection, 4002, 'Error while decoding payload.');
        return;
      }
      onMessage(connection, data.toString('utf8'));
    });
    socket.on('close', (code: number, reason: Buffer) => {
      connections.delete(connection);
      const session = connection.session;
      if (session !== null) {
        closes.push({ code, reason: reason.toString('utf8'), by: 'client', at: options.now() });
        // A client closing with 1000/1001 ends its session; any other code keeps it resumable.
        if (code === 1000 || code === 1001) session.invalid = true;
        if (session.connection === connection) session.connection = null;
      }
    });
    socket.on('error', () => {
      // A reset socket ends in 'close' as well; nothing else to do.
    });
    if (query.get('v') !== '10') {
      closeConnection(connection, 4012, 'Invalid API version.');
      return;
    }
    if (query.get('encoding') !== null && query.get('encoding') !== 'json') {
      closeConnection(connection, 4002, 'Error while decoding payload.');
      return;
    }
    connection.send({
      op: GatewayOp.Hello,
      d: { heartbeat_interval: options.heartbeatIntervalMs },
      s: null,
      t: null,
    });
  });

  return {
    path: '/gateway',
    handleUpgrade(request, socket, head) {
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
    },
    dispatch(t, build, shardId) {
      let sent = 0;
      for (const session of sessions.values()) {
        if (session.invalid) continue;
        if (shardId !== undefined && session.shard[0] !== shardId) continue;
        sent += 1;
        const d = build(session.intents);
        if (d !== null) sendDispatch(session, t, d);
      }
      return sent;
    },
    whenReady() {
      if (liveReady()) return Promise.resolve();
      return new Promise((resolve) => readyWaiters.push(resolve));
    },
    whenResumed() {
      return new Promise((resolve) => resumedWaiters.push(resolve));
    },
    drop(code, reason = 'dropped by the fake') {
      for (const connection of [...connections]) closeConnection(connection, code, reason);
    },
    requestReconnect() {
      for (const connection of connections) {
        connection.send({ op: GatewayOp.Reconnect, d: null, s: null, t: null });
      }
    },
    closes,
    identifies,
    resumes,
    currentIntents() {
      for (const connection of connections)
        if (connection.session !== null) return connection.session.intents;
      return undefined;
    },
    async close() {
      for (const connection of connections) connection.socket.terminate();
      connections.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
