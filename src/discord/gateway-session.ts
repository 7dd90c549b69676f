/**
 * The gateway session: one discord.js client at a time, logged in, ready, and destroyed on stop.
 *
 * Gateway close 4014 (a privileged intent not enabled for the application) would otherwise end the
 * connection for good. Only reading chat needs Message Content, so the session says so once and connects
 * again without it, at login or later (the intent switched off in the portal while the bot runs).
 */
import { Events, GatewayCloseCodes, type Client, type ClientOptions } from 'discord.js';
import type { Logger } from '../logger.js';
import { createDiscordClient, discordClientOptions, type ShardChoice } from './client-options.js';
import type { IdentifyThrottlerFactory } from './identify.js';
import type { InteractionRoutesLimit } from './interaction-rest.js';

export const DISALLOWED_INTENTS_LINE =
  'Discord refused the Message Content intent (gateway close 4014): enable the Message Content intent in the Developer Portal (your application → Bot → Privileged Gateway Intents) or set UNFURL=off. Running on without link unfurling.';

function isDisallowedIntents(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /disallowed intents/i.test(error.message) || ('code' in error && error.code === 'DisallowedIntents');
}

/** Why the first login failed, as far as the error tells: the cause decides what the operator must fix. */
export type LoginFailureKind = 'token' | 'unreachable' | 'intents' | 'shards' | 'other';

export interface LoginFailure {
  readonly kind: LoginFailureKind;
  /** One line: the real cause and what to fix. Holds no secret (the host of DISCORD_API_URL at most). */
  readonly line: string;
}

/** Socket, DNS and undici codes of a Discord (or REST proxy) that could not be reached or did not answer. */
const UNREACHABLE_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'DNS lookup failed',
  EAI_FAIL: 'DNS lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  EHOSTDOWN: 'host down',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'no answer in time',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
};

/** What an error (or one of its causes) tells, read without trusting its shape. */
interface ErrorFacts {
  readonly code: unknown;
  readonly name: unknown;
  readonly status: unknown;
  readonly message: string;
}

/** The error, its causes and an AggregateError's errors (Node tries every address of a host), in order. */
function errorChain(error: unknown): ErrorFacts[] {
  const out: ErrorFacts[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 5 || typeof value !== 'object' || value === null) return;
    out.push({
      code: 'code' in value ? value.code : undefined,
      name: 'name' in value ? value.name : undefined,
      status: 'status' in value ? value.status : undefined,
      message: 'message' in value && typeof value.message === 'string' ? value.message : '',
    });
    if ('cause' in value) visit(value.cause, depth + 1);
    if ('errors' in value && Array.isArray(value.errors)) {
      for (const inner of value.errors as unknown[]) visit(inner, depth + 1);
    }
  };
  visit(error, 0);
  return out;
}

/**
 * What stopped the first login, in one line saying the real cause and what to fix: a token Discord refused
 * (401, or gateway close 4004) is not a Discord that could not be reached (refused, DNS, timeout, a 5xx of
 * Discord or of a REST proxy in DISCORD_API_URL), and neither is a refused intent or shard layout.
 */
export function loginFailure(error: unknown, apiUrl: string | undefined): LoginFailure {
  const chain = errorChain(error);
  const status = chain.map((facts) => facts.status).find((s): s is number => typeof s === 'number');

  if (
    status === 401 ||
    chain.some((facts) => facts.code === 'TokenInvalid' || facts.message.startsWith('Authentication failed'))
  ) {
    return {
      kind: 'token',
      line: "Discord refused the bot token: set DISCORD_TOKEN to the bot's token (Developer Portal → your application → Bot → Reset Token; not the application id or the client secret).",
    };
  }
  if (isDisallowedIntents(error)) {
    return {
      kind: 'intents',
      line: 'Discord refused the gateway intents the bot asked for (gateway close 4014): enable them in the Developer Portal (your application → Bot → Privileged Gateway Intents), or set UNFURL=off.',
    };
  }
  if (chain.some((facts) => /^(Sharding is required|Invalid shard)/.test(facts.message))) {
    return {
      kind: 'shards',
      line: 'Discord refused the shards (gateway close 4010 or 4011): leave SHARD_COUNT and SHARD_IDS blank for the count Discord recommends, or set SHARD_COUNT to at least that and SHARD_IDS below it (README, "Running at scale").',
    };
  }
  const socketCode = chain
    .map((facts) => facts.code)
    .find((code): code is string => typeof code === 'string' && code in UNREACHABLE_CODES);
  const timedOut = chain.some((facts) => facts.name === 'AbortError' || facts.name === 'TimeoutError');
  const reason =
    socketCode !== undefined
      ? `${UNREACHABLE_CODES[socketCode] ?? socketCode}, ${socketCode}`
      : timedOut
        ? 'no answer in time'
        : status !== undefined && status >= 500
          ? `it answered HTTP ${status}`
          : undefined;
  if (reason !== undefined) {
    const where = apiUrl === undefined ? 'discord.com' : hostOf(apiUrl);
    const fix =
      apiUrl === undefined
        ? "check this machine's network, DNS and firewall"
        : "check DISCORD_API_URL (blank means Discord itself), that the REST proxy there is running, and this machine's network";
    return {
      kind: 'unreachable',
      line: `could not reach Discord at ${where} (${reason}): ${fix}. The token was not checked.`,
    };
  }
  const text = chain[0]?.message || String(error);
  return {
    kind: 'other',
    line: `could not connect to Discord: ${(text.split('\n')[0] ?? '').slice(0, 300)}`,
  };
}

/** The host (and port) of a URL, never its user or password (config checked it is a URL). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'DISCORD_API_URL';
  }
}

export interface GatewaySessionOptions {
  readonly token: string;
  readonly apiUrl: string | undefined;
  /** Ask for Message Content (to read chat); dropped for good after a 4014. */
  readonly readChat: boolean;
  readonly logger: Logger;
  /** The gateway shards to connect (SHARD_IDS of SHARD_COUNT); default every recommended one. */
  readonly shards?: ShardChoice;
  /** A throttle shared with the bot's other processes; default discord.js's own, per process. */
  readonly identify?: IdentifyThrottlerFactory;
  /** Merged over the bot's own discord.js options (tests: timeouts, REST tuning). */
  readonly clientOptions?: Partial<ClientOptions>;
  /** Interaction routes off the global limit (default) or under it (interaction-rest.ts). */
  readonly interactionRoutes?: InteractionRoutesLimit | undefined;
  /** Attaches the bot's listeners to each new client; `readChat` says whether it gets messages. */
  readonly attach: (client: Client, readChat: boolean) => void;
}

export interface GatewaySession {
  /** Logs in and waits until ready. Rejects if Discord refuses the login. */
  connect(): Promise<Client>;
  /** Destroys the client; a later 4014 no longer reconnects. */
  close(): Promise<void>;
  /** Whether chat is being read (false after a 4014). */
  readonly readingChat: boolean;
  readonly client: Client | undefined;
}

export function createGatewaySession(options: GatewaySessionOptions): GatewaySession {
  const { logger } = options;
  let readChat = options.readChat;
  let client: Client | undefined;
  /** The client that reached ready: only its later 4014 means "reconnect without the intent". */
  let readyClient: Client | undefined;
  let closed = false;
  let intentsWarned = false;

  function warnIntentsOnce(): void {
    if (intentsWarned) return;
    intentsWarned = true;
    logger.warn(DISALLOWED_INTENTS_LINE);
  }

  function makeClient(): Client {
    const made = createDiscordClient(
      {
        ...discordClientOptions({
          unfurl: readChat,
          apiUrl: options.apiUrl,
          ...(options.shards === undefined ? {} : { shards: options.shards }),
          identify: options.identify,
        }),
        ...options.clientOptions,
      },
      options.interactionRoutes,
    );
    options.attach(made, readChat);
    made.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
    made.on(Events.Warn, (message) => logger.warn({ discord: message }, 'discord client warning'));
    made.on(Events.ShardError, (error, shardId) => {
      // A refused intent is reported once, as one clear line, not as a connection error too.
      if (isDisallowedIntents(error)) logger.debug({ err: error, shardId }, 'gateway refused an intent');
      else logger.warn({ err: error, shardId }, 'gateway connection error');
    });
    made.on(Events.ShardDisconnect, (event, shardId) => {
      if (event.code === GatewayCloseCodes.DisallowedIntents && readChat && made === readyClient && !closed) {
        // Lost after being ready (the intent was switched off in the portal): reconnect without it.
        void reconnectWithoutMessageContent().catch((error: unknown) =>
          logger.error({ err: error }, 'could not reconnect without the Message Content intent'),
        );
        return;
      }
      logger.warn({ code: event.code, shardId }, 'gateway disconnected for good');
    });
    return made;
  }

  async function connect(): Promise<Client> {
    const current = makeClient();
    client = current;
    const ready = new Promise<void>((resolve) => current.once(Events.ClientReady, () => resolve()));
    try {
      await current.login(options.token);
      await ready;
      readyClient = current;
      return current;
    } catch (error) {
      await current
        .destroy()
        .catch((destroyError: unknown) =>
          logger.debug({ err: destroyError }, 'could not destroy the client after a failed login'),
        );
      if (readChat && isDisallowedIntents(error)) {
        warnIntentsOnce();
        readChat = false;
        return connect();
      }
      throw error;
    }
  }

  async function reconnectWithoutMessageContent(): Promise<void> {
    warnIntentsOnce();
    readChat = false;
    const old = client;
    await old
      ?.destroy()
      .catch((error: unknown) =>
        logger.debug({ err: error }, 'could not destroy the client that lost the Message Content intent'),
      );
    if (closed) return;
    await connect();
  }

  return {
    get readingChat() {
      return readChat;
    },
    get client() {
      return client;
    },
    async connect() {
      closed = false;
      return connect();
    },
    async close() {
      closed = true;
      const current = client;
      client = undefined;
      readyClient = undefined;
      await current?.destroy();
    },
  };
}
