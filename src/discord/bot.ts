/**
 * The bot: a discord.js client wired to the router, the unfurler and command registration. main.ts and
 * the end-to-end tests both build it here, so the tests run exactly what production runs.
 *
 * Gateway close 4014 (a privileged intent not enabled for the application) would otherwise end the
 * connection for good; since only unfurling needs Message Content, the bot says so once and carries on
 * without it.
 *
 * Stopping is graceful when asked to be: new interactions get a short "restarting" answer and new
 * messages are not unfurled, work in flight gets up to `graceMs` to finish (its replies need the
 * connection, so the client is destroyed only after), then the connection closes.
 */
import { Client, Events, GatewayCloseCodes, type ClientOptions } from 'discord.js';
import type Keyv from 'keyv';
import { allCommands } from '../../commands/index.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { ClientRegistry } from '../philomena/registry.js';
import type { Command, CommandContext } from './contract.js';
import { discordClientOptions } from './client-options.js';
import { attachmentHosts, createDownloader } from '../../commands/reverse/download.js';
import { createReverseGate } from '../../commands/reverse/reverse-gate.js';
import { createInFlightTracker } from './in-flight.js';
import { commandBodies, registerIfChanged } from './registration.js';
import { createInteractionRouter } from './router.js';
import { createGuildSettings } from '../../commands/shared/guild-settings.js';
import { createSiteDirectory } from '../../commands/shared/site-directory.js';
import { createInteractionState } from './button-state.js';
import { createUnfurlHandler } from '../../commands/unfurl/unfurl.js';
import { runWithRequestContext } from '../philomena/request-context.js';

export interface BotDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: Keyv;
  readonly registry: ClientRegistry;
  /** Merged over the bot's own discord.js options (tests: timeouts, REST tuning). */
  readonly clientOptions?: Partial<ClientOptions>;
  /** Default: every command of commands/index.ts. */
  readonly commands?: readonly Command[];
  readonly download?: CommandContext['download'];
  readonly now?: () => number;
  readonly autocompleteTimeoutMs?: number;
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
}

export const DISALLOWED_INTENTS_LINE =
  'Discord refused the Message Content intent (gateway close 4014): enable the Message Content intent in the Developer Portal (your application → Bot → Privileged Gateway Intents) or set UNFURL=off. Running on without link unfurling.';

function isDisallowedIntents(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /disallowed intents/i.test(error.message) || ('code' in error && error.code === 'DisallowedIntents');
}

export function createBot(deps: BotDeps): Bot {
  const { config, logger } = deps;
  const commands = deps.commands ?? allCommands({ defaultSite: deps.config.site });
  const sites = createSiteDirectory({ defaultSite: config.site, defaultFilterId: config.booruFilterId });
  const settings = createGuildSettings({ store: deps.store, logger });
  const router = createInteractionRouter({
    commands,
    logger,
    registry: deps.registry,
    settings,
    sites,
    state: createInteractionState(deps.store),
    download: deps.download ?? createDownloader({ allowedHosts: attachmentHosts(config.discordApiUrl) }),
    reverseGate: createReverseGate(),
    ...(deps.now === undefined ? {} : { now: deps.now }),
    ...(deps.autocompleteTimeoutMs === undefined
      ? {}
      : { autocompleteTimeoutMs: deps.autocompleteTimeoutMs }),
    commandRateLimit: config.commandRateLimit,
  });
  const unfurl = createUnfurlHandler({
    sites,
    registry: deps.registry,
    settings,
    logger,
    rateLimit: config.unfurlRateLimit,
    ...(deps.now === undefined ? {} : { now: deps.now }),
  });
  const inFlight = createInFlightTracker(logger);
  let draining = false;

  let unfurlOn = config.unfurl;
  let client: Client | undefined;
  /** The client that reached ready: only its later 4014 means "reconnect without the intent". */
  let readyClient: Client | undefined;
  let stopped = false;
  let intentsWarned = false;

  function warnIntentsOnce(): void {
    if (intentsWarned) return;
    intentsWarned = true;
    logger.warn(DISALLOWED_INTENTS_LINE);
  }

  function makeClient(): Client {
    const made = new Client({
      ...discordClientOptions({ unfurl: unfurlOn, apiUrl: config.discordApiUrl }),
      ...deps.clientOptions,
    });
    made.on(Events.InteractionCreate, (interaction) => {
      // Tracked even while draining: the "restarting" answer must go out before the connection closes.
      inFlight.track(router.handle(interaction), {
        interactionId: interaction.id,
        guildId: interaction.guildId,
        handler: 'interaction',
      });
    });
    if (unfurlOn) {
      made.on(Events.MessageCreate, (message) => {
        if (draining) return;
        // The unfurl's board calls queue behind members' commands, shared fairly between servers.
        const requester = {
          priority: 'unfurl',
          server: message.guildId ?? 'dm',
          member: message.author.id,
        } as const;
        inFlight.track(
          runWithRequestContext(requester, () => unfurl(message)),
          {
            messageId: message.id,
            guildId: message.guildId,
            channelId: message.channelId,
            handler: 'unfurl',
          },
        );
      });
    }
    made.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
    made.on(Events.Warn, (message) => logger.warn({ discord: message }, 'discord client warning'));
    made.on(Events.ShardError, (error, shardId) => {
      // A refused intent is reported once, as one clear line (below), not as a connection error too.
      if (isDisallowedIntents(error)) logger.debug({ err: error, shardId }, 'gateway refused an intent');
      else logger.warn({ err: error, shardId }, 'gateway connection error');
    });
    made.on(Events.ShardDisconnect, (event, shardId) => {
      if (
        event.code === GatewayCloseCodes.DisallowedIntents &&
        unfurlOn &&
        made === readyClient &&
        !stopped
      ) {
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

  async function connect(): Promise<void> {
    const current = makeClient();
    client = current;
    const ready = new Promise<void>((resolve) => current.once(Events.ClientReady, () => resolve()));
    try {
      await current.login(config.discordToken);
      await ready;
      readyClient = current;
    } catch (error) {
      await current
        .destroy()
        .catch((destroyError: unknown) =>
          logger.debug({ err: destroyError }, 'could not destroy the client after a failed login'),
        );
      if (unfurlOn && isDisallowedIntents(error)) {
        warnIntentsOnce();
        unfurlOn = false;
        return connect();
      }
      throw error;
    }
  }

  async function reconnectWithoutMessageContent(): Promise<void> {
    warnIntentsOnce();
    unfurlOn = false;
    const old = client;
    await old
      ?.destroy()
      .catch((error: unknown) =>
        logger.debug({ err: error }, 'could not destroy the client that lost the Message Content intent'),
      );
    if (stopped) return;
    await connect();
  }

  async function register(current: Client): Promise<void> {
    const applicationId = config.discordApplicationId ?? current.application?.id;
    if (applicationId === undefined) {
      logger.warn('the application id is unknown: commands not registered (set DISCORD_APPLICATION_ID)');
      return;
    }
    try {
      await registerIfChanged({
        rest: current.rest,
        applicationId,
        guildId: config.discordGuildId,
        bodies: commandBodies(commands),
        store: deps.store,
        logger,
      });
    } catch (error) {
      // The bot still answers the commands Discord already has; the next start tries again.
      logger.error({ err: error }, 'could not register commands with Discord');
    }
  }

  return {
    get inFlight() {
      return inFlight.size;
    },
    async start() {
      stopped = false;
      draining = false;
      router.setAccepting(true);
      await connect();
      if (client) await register(client);
      logger.info({ unfurl: unfurlOn, site: config.site.id, user: client?.user?.id }, 'bot ready');
    },
    async stop(options = {}) {
      draining = true;
      router.setAccepting(false);
      const graceMs = options.graceMs ?? 0;
      const waiting = inFlight.size;
      if (waiting > 0 && graceMs > 0) logger.info({ inFlight: waiting, graceMs }, 'finishing work in flight');
      const unfinished = await inFlight.idle(graceMs);
      if (unfinished > 0 && graceMs > 0) {
        logger.warn({ unfinished, graceMs }, 'work still in flight when the grace period ended');
      }
      stopped = true;
      const current = client;
      client = undefined;
      readyClient = undefined;
      await current?.destroy();
      return { unfinished };
    },
  };
}
