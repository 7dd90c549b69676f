/**
 * The bot: the gateway session wired to the interaction router, the message handlers and command
 * registration. It knows Discord and no feature: the commands, the message handlers and the features'
 * context come in from the composition root (main.ts; the end-to-end tests build the same).
 *
 * Stopping is graceful when asked to be: new interactions get a short "restarting" answer and new
 * messages are not read, work in flight gets up to `graceMs` to finish (its replies need the connection,
 * so the client is destroyed only after), then the connection closes.
 */
import { Events, Message, Status, type Client, type ClientOptions } from 'discord.js';
import type Keyv from 'keyv';
import type { Logger } from '../logger.js';
import { runWithRequestContext } from '../philomena/request-context.js';
import { createChannelPoster } from './channel-poster.js';
import type {
  BackgroundTask,
  ChannelFacts,
  Command,
  ContextFactory,
  MessageHandler,
  MessagePlace,
  RuntimeObserver,
} from './contract.js';
import { createGatewaySession } from './gateway-session.js';
import { createInteractionChannels } from './interaction-channels.js';
import type { IdentifyThrottlerFactory } from './identify.js';
import { createInFlightTracker } from './in-flight.js';
import { commandBodies, registerIfChanged } from './registration.js';
import { observeRateLimits } from './observed.js';
import { createInteractionRouter } from './router.js';
import type { DescribeError } from './failures.js';
import type { RuntimeOptions } from './options.js';
import { replyToMessage } from './outbox.js';
import { createServerFacts, type ServerFacts } from './server-facts.js';

export { DISALLOWED_INTENTS_LINE } from './gateway-session.js';

export interface BotDeps<C> {
  /** The runtime's own options (main.ts maps the configuration onto them: src/runtime-options.ts). */
  readonly options: RuntimeOptions;
  readonly logger: Logger;
  /** Where the hash of the last registered command list is kept. */
  readonly store: Keyv;
  readonly commands: readonly Command<C>[];
  /** The features' context for one interaction. */
  readonly context: ContextFactory<C>;
  /** Readers of chat messages (the unfurler); they run only when UNFURL is on. */
  readonly messageHandlers?: readonly MessageHandler[];
  /** Work of the features' own (feed polls), started once ready and stopped first on stop. */
  readonly tasks?: readonly BackgroundTask[];
  /** What a member reads for a failure (the features' errors included). */
  readonly describeError?: DescribeError;
  /** Merged over the bot's own discord.js options (tests: timeouts, REST tuning). */
  readonly clientOptions?: Partial<ClientOptions>;
  readonly now?: () => number;
  readonly autocompleteTimeoutMs?: number;
  /** How long a command's form may take before it is deferred instead (router.ts FORM_TIMEOUT_MS). */
  readonly formTimeoutMs?: number;
  /** Told of interactions (acknowledged, answered) and Discord rate limits, for metrics; default nobody. */
  readonly observer?: RuntimeObserver;
  /** Identifies spaced with the bot's other processes (shards over processes); default per process. */
  readonly identify?: IdentifyThrottlerFactory;
  /** What the bot's shards hold of their servers (server-facts.ts); default a new, empty one. */
  readonly servers?: ServerFacts;
}

/** A raw MESSAGE_CREATE's fields the runtime reads before building the message. */
function messageFields(d: unknown): { channelId: string; guildId: string | null } | undefined {
  if (typeof d !== 'object' || d === null) return undefined;
  const channelId = 'channel_id' in d && typeof d.channel_id === 'string' ? d.channel_id : undefined;
  if (channelId === undefined || !('author' in d) || typeof d.author !== 'object' || d.author === null) {
    return undefined;
  }
  const guildId = 'guild_id' in d && typeof d.guild_id === 'string' ? d.guild_id : null;
  return { channelId, guildId };
}

/**
 * A discord.js message of a raw MESSAGE_CREATE. discord.js keeps no server or channel (the bot's facts do:
 * server-facts.ts), so it drops a server's messages before any event; the message is built the way
 * discord.js builds one it was given whole (a context menu's target), with no channel object of its own.
 */
function messageOf(client: Client, d: object): Message {
  const made: unknown = Reflect.construct(Message, [client, d]);
  if (!(made instanceof Message)) throw new TypeError('discord.js built no message');
  return made;
}

/** One owned gateway shard and whether it is connected and ready. */
export interface ShardState {
  readonly shard: number;
  readonly ready: boolean;
}

/** One gateway shard's heartbeat round trip, as discord.js last measured it. */
export interface ShardPing {
  readonly shard: number;
  /** Milliseconds; -1 before the first heartbeat was acknowledged. */
  readonly ms: number;
}

export interface StopOptions {
  /** How long work in flight may take to finish before the connection closes anyway. Default 0. */
  readonly graceMs?: number;
}

export interface StopResult {
  /** Interactions and unfurls still running when the connection closed (0: everything finished). */
  readonly unfinished: number;
}

export interface Bot {
  /** Logs in, waits until ready, registers commands if they changed. Rejects if Discord refuses the login. */
  start(): Promise<void>;
  /** Stops taking new work, lets work in flight finish (bounded by `graceMs`), then disconnects. */
  stop(options?: StopOptions): Promise<StopResult>;
  /** Interactions and unfurls being handled right now. */
  readonly inFlight: number;
  /** Every owned shard connected and ready, and not stopping: what a readiness check asks. */
  readonly ready: boolean;
  /** The shards this process owns (SHARD_IDS, or all) and which are ready; none before the first login. */
  shardStates(): readonly ShardState[];
  /** Each shard's last heartbeat round trip (none while not connected). */
  gatewayPings(): readonly ShardPing[];
}

export function createBot<C>(deps: BotDeps<C>): Bot {
  const { options, logger } = deps;
  const servers = deps.servers ?? createServerFacts();
  const router = createInteractionRouter({
    commands: deps.commands,
    context: deps.context,
    servers,
    logger,
    ...(deps.describeError === undefined ? {} : { describeError: deps.describeError }),
    ...(deps.now === undefined ? {} : { now: deps.now }),
    ...(deps.autocompleteTimeoutMs === undefined
      ? {}
      : { autocompleteTimeoutMs: deps.autocompleteTimeoutMs }),
    ...(deps.formTimeoutMs === undefined ? {} : { formTimeoutMs: deps.formTimeoutMs }),
    commandRateLimit: options.commandRateLimit,
    ...(deps.observer === undefined ? {} : { observer: deps.observer }),
  });
  const messageHandlers = deps.messageHandlers ?? [];
  const inFlight = createInFlightTracker(logger);
  let draining = false;

  async function readMessage(
    client: Client,
    message: Message,
    place: MessagePlace,
    handler: MessageHandler,
  ): Promise<void> {
    const answer = await handler.handle(message, place);
    if (answer === undefined) return;
    try {
      await replyToMessage(
        client.rest,
        message,
        answer,
        place.channel !== null && 'botPermissions' in place.channel ? place.channel.botPermissions : 0n,
        logger.child({ messageId: message.id, guildId: message.guildId }),
      );
    } catch (error) {
      logger.warn({ err: error, messageId: message.id, handler: handler.name }, `${handler.name} failed`);
    }
  }

  function attach(client: Client, readChat: boolean): void {
    const { observer } = deps;
    const channels = createInteractionChannels(client, servers);
    observeRateLimits(client, observer);
    const reading = readChat && messageHandlers.length > 0;
    client.on(Events.Raw, (packet: unknown) => {
      // Every dispatch keeps the servers' facts; the bot leaving a server tells the background tasks.
      for (const removed of servers.apply(packet)?.removed ?? []) serverRemoved(removed);
      if (
        reading &&
        typeof packet === 'object' &&
        packet !== null &&
        't' in packet &&
        packet.t === 'MESSAGE_CREATE'
      ) {
        const d = 'd' in packet ? packet.d : undefined;
        const fields = messageFields(d);
        if (fields !== undefined && typeof d === 'object' && d !== null) readChatMessage(client, d, fields);
      }
    });
    client.on(Events.InteractionCreate, (interaction) => {
      // Tracked even while draining: the "restarting" answer must go out before the connection closes.
      inFlight.track(router.handle(interaction, channels.take(interaction.id)), {
        interactionId: interaction.id,
        guildId: interaction.guildId,
        handler: 'interaction',
      });
    });
  }

  /** GUILD_DELETE without `unavailable` (never an outage): the bot left or was removed. */
  function serverRemoved(guildId: string): void {
    for (const task of deps.tasks ?? []) {
      try {
        task.serverRemoved?.(guildId);
      } catch (error) {
        logger.warn({ err: error, task: task.name, guildId }, 'a background task failed');
      }
    }
  }

  function readChatMessage(
    client: Client,
    d: object,
    fields: { readonly channelId: string; readonly guildId: string | null },
  ): void {
    if (draining) return;
    let message: Message;
    try {
      message = messageOf(client, d);
    } catch (error) {
      logger.warn({ err: error, channelId: fields.channelId }, 'a chat message could not be read');
      return;
    }
    const server = fields.guildId === null ? undefined : servers.server(fields.guildId);
    const dm: ChannelFacts = {
      id: fields.channelId,
      type: 1,
      nsfw: false,
      flags: 0,
      parent: null,
      parentId: null,
    };
    const place: MessagePlace = {
      // A DM's channel is the DM; a server's is what the bot knows of it (none: judged as no channel).
      channel: fields.guildId === null ? dm : (server?.channel(fields.channelId) ?? null),
      guildLocale: server?.locale ?? null,
    };
    // Board calls for chat queue behind members' commands, shared fairly between servers.
    const requester = {
      priority: 'unfurl',
      server: message.guildId ?? 'dm',
      member: message.author.id,
    } as const;
    for (const handler of messageHandlers) {
      inFlight.track(
        runWithRequestContext(requester, () => readMessage(client, message, place, handler)),
        {
          messageId: message.id,
          guildId: message.guildId,
          channelId: message.channelId,
          handler: handler.name,
        },
      );
    }
  }

  const session = createGatewaySession({
    token: options.token,
    apiUrl: options.apiUrl,
    readChat: options.readChat,
    logger,
    attach,
    shards: options.shards,
    interactionRoutes: options.interactionRoutes,
    ...(deps.identify === undefined ? {} : { identify: deps.identify }),
    ...(deps.clientOptions === undefined ? {} : { clientOptions: deps.clientOptions }),
  });

  async function register(current: Client): Promise<void> {
    const applicationId = options.applicationId ?? current.application?.id;
    if (applicationId === undefined) {
      logger.warn('the application id is unknown: commands not registered (set DISCORD_APPLICATION_ID)');
      return;
    }
    try {
      await registerIfChanged({
        rest: current.rest,
        applicationId,
        guildId: options.guildId,
        bodies: commandBodies(deps.commands),
        store: deps.store,
        logger,
      });
    } catch (error) {
      // The bot still answers the commands Discord already has; the next start tries again.
      logger.error({ err: error }, 'could not register commands with Discord');
    }
  }

  function shardStates(): ShardState[] {
    const client = session.client;
    if (client === undefined) return [];
    const owned = client.options.shards;
    const ids = Array.isArray(owned) ? owned : [...client.ws.shards.keys()];
    return ids.map((id) => ({ shard: id, ready: client.ws.shards.get(id)?.status === Status.Ready }));
  }

  return {
    get inFlight() {
      return inFlight.size;
    },
    get ready() {
      if (draining || session.client?.isReady() !== true) return false;
      const states = shardStates();
      return states.length > 0 && states.every((state) => state.ready);
    },
    shardStates,
    gatewayPings() {
      const client = session.client;
      if (client === undefined) return [];
      return [...client.ws.shards.values()].map((shard) => ({ shard: shard.id, ms: shard.ping }));
    },
    async start() {
      draining = false;
      router.setAccepting(true);
      await session.connect();
      const client = session.client;
      if (client) await register(client);
      if (client) {
        for (const task of deps.tasks ?? []) {
          try {
            task.start(createChannelPoster(client, { servers }));
          } catch (error) {
            logger.error({ err: error, task: task.name }, 'a background task could not start');
          }
        }
      }
      logger.info(
        {
          unfurl: session.readingChat,
          site: options.siteId,
          user: client?.user?.id,
          shards: shardStates().map((state) => state.shard),
          shardCount: client?.options.shardCount,
        },
        'bot ready',
      );
    },
    async stop(options = {}) {
      draining = true;
      router.setAccepting(false);
      // Background work first: a poll under way finishes its post and cursor write, no new one starts.
      await Promise.all(
        (deps.tasks ?? []).map((task) =>
          task
            .stop()
            .catch((error: unknown) =>
              logger.warn({ err: error, task: task.name }, 'a background task did not stop cleanly'),
            ),
        ),
      );
      const graceMs = options.graceMs ?? 0;
      const waiting = inFlight.size;
      if (waiting > 0 && graceMs > 0) logger.info({ inFlight: waiting, graceMs }, 'finishing work in flight');
      const unfinished = await inFlight.idle(graceMs);
      if (unfinished > 0 && graceMs > 0) {
        logger.warn({ unfinished, graceMs }, 'work still in flight when the grace period ended');
      }
      await session.close();
      return { unfinished };
    },
  };
}
