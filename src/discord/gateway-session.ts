/**
 * The gateway session: one discord.js client at a time, logged in, ready, and destroyed on stop.
 *
 * Gateway close 4014 (a privileged intent not enabled for the application) would otherwise end the
 * connection for good. Only reading chat needs Message Content, so the session says so once and connects
 * again without it, at login or later (the intent switched off in the portal while the bot runs).
 */
import { Client, Events, GatewayCloseCodes, type ClientOptions } from 'discord.js';
import type { Logger } from '../logger.js';
import { discordClientOptions, type ShardChoice } from './client-options.js';
import type { IdentifyThrottlerFactory } from './identify.js';

export const DISALLOWED_INTENTS_LINE =
  'Discord refused the Message Content intent (gateway close 4014): enable the Message Content intent in the Developer Portal (your application → Bot → Privileged Gateway Intents) or set UNFURL=off. Running on without link unfurling.';

function isDisallowedIntents(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /disallowed intents/i.test(error.message) || ('code' in error && error.code === 'DisallowedIntents');
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
    const made = new Client({
      ...discordClientOptions({
        unfurl: readChat,
        apiUrl: options.apiUrl,
        ...(options.shards === undefined ? {} : { shards: options.shards }),
        identify: options.identify,
      }),
      ...options.clientOptions,
    });
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
