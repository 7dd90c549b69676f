/**
 * The interaction router: a map from the command list, one child logger per interaction, the view
 * resolved per interaction, and the acknowledgement made before any handler runs (so every interaction is
 * answered within Discord's 3 s). Failures meet one handler that maps them to a short ephemeral text.
 * Nothing here throws out: a reply that cannot be sent (expired token, Discord 5xx) is logged.
 *
 * Abuse limits are checked here, before any board call: commands per member (COMMAND_RATE_LIMIT), and
 * two apart from it over the same window, so paging through results does not use up a member's commands:
 * buttons at BUTTON_FACTOR times the command limit and autocomplete (one call per keystroke pause) at
 * AUTOCOMPLETE_FACTOR times. Over the limit, a command or button gets a short ephemeral answer with
 * when to try again; autocomplete simply gets no choices.
 */
import {
  MessageFlags,
  type ApplicationCommandOptionChoiceData,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type MessageContextMenuCommandInteraction,
} from 'discord.js';
import type { RateLimit } from '../config.js';
import type { Logger } from '../logger.js';
import type { ClientRegistry } from '../philomena/registry.js';
import { runWithRequestContext, type RequestContext } from '../philomena/request-context.js';
import type {
  ButtonDeferral,
  ButtonHandler,
  ChatCommand,
  Command,
  CommandContext,
  MessageCommand,
  SiteDirectory,
} from './contract.js';
import { createKeyedLimiter, type KeyedLimiter } from './keyed-limiter.js';
import { decodeCustomId } from './custom-id.js';
import { NO_MENTIONS } from '../bot/render/index.js';
import type { GuildSettings } from '../../commands/shared/guild-settings.js';
import type { InteractionState } from './button-state.js';
import { CHOICE_TEXT_MAX } from '../../commands/shared/tag-suggestions.js';
import { discordFailureOf, UserFacingError, userErrorText, type DiscordFailure } from './user-error.js';
import { resolveView } from '../../commands/shared/view.js';

export interface RouterDeps {
  readonly commands: readonly Command[];
  readonly logger: Logger;
  readonly registry: ClientRegistry;
  readonly settings: GuildSettings;
  readonly sites: SiteDirectory;
  readonly state: InteractionState;
  readonly download: CommandContext['download'];
  readonly reverseGate: CommandContext['reverseGate'];
  readonly now?: () => number;
  /** How long autocomplete may take before the router answers with no choices; default 2200 ms. */
  readonly autocompleteTimeoutMs?: number;
  /** Commands per member; undefined means no limit (buttons and autocomplete then have none either). */
  readonly commandRateLimit?: RateLimit | undefined;
}

export interface InteractionRouter {
  handle(interaction: Interaction): Promise<void>;
  /**
   * When false, every new interaction gets a short "restarting" answer instead of running (autocomplete:
   * no choices); work already started runs on. True (the default) takes work again.
   */
  setAccepting(accepting: boolean): void;
}

export const BUTTON_FACTOR = 3;
export const AUTOCOMPLETE_FACTOR = 10;
export const RESTARTING_TEXT = 'The bot is restarting. Try again in a moment.';

/** Discord's relative timestamp (`in 5 seconds`), rounded up so it never says "now" too early. */
export function tryAgainText(what: string, retryAfterMs: number, wallClockMs = Date.now()): string {
  const at = Math.ceil((wallClockMs + retryAfterMs) / 1000);
  return `You are ${what} too quickly. Try again <t:${at}:R>.`;
}

interface Limiters {
  readonly command: KeyedLimiter;
  readonly button: KeyedLimiter;
  readonly autocomplete: KeyedLimiter;
}

function createLimiters(rate: RateLimit | undefined, now: () => number): Limiters | undefined {
  if (rate === undefined) return undefined;
  const make = (factor: number) =>
    createKeyedLimiter({ limit: rate.limit * factor, windowMs: rate.windowMs, now });
  return { command: make(1), button: make(BUTTON_FACTOR), autocomplete: make(AUTOCOMPLETE_FACTOR) };
}

/** How the router acknowledged an interaction: decides how an error is shown. */
export type Ack = 'none' | 'reply-ephemeral' | 'reply-public' | 'update';

const CHOICES_MAX = 25;
const UNKNOWN_COMMAND = 'This command is not available any more.';

/** Discord rejects the whole answer if one choice breaks a limit: drop what does not fit. */
export function fitChoices(
  choices: readonly ApplicationCommandOptionChoiceData[],
): ApplicationCommandOptionChoiceData[] {
  const fitted: ApplicationCommandOptionChoiceData[] = [];
  const seen = new Set<string>();
  for (const choice of choices) {
    const name =
      choice.name.length > CHOICE_TEXT_MAX ? `${choice.name.slice(0, CHOICE_TEXT_MAX - 1)}…` : choice.name;
    const value = choice.value;
    if (name.length === 0) continue;
    if (typeof value === 'string' && (value.length === 0 || value.length > CHOICE_TEXT_MAX)) continue;
    const key = String(value);
    if (seen.has(key)) continue;
    seen.add(key);
    fitted.push({ name, value });
    if (fitted.length === CHOICES_MAX) break;
  }
  return fitted;
}

/** Discord's limits on an interaction token: 3 s to acknowledge, then 15 min to edit and follow up. */
const ANSWER_WINDOW_MS = 3000;
const TOKEN_LIFETIME_MS = 15 * 60_000;
/** Kept off the end of the token's life, so a call does not start just as the token dies. */
const TOKEN_MARGIN_MS = 30_000;

/**
 * Whether the interaction's token can still take a call, by its age on Discord's clock (the snowflake):
 * unacknowledged, only within the answer window; acknowledged, within the token lifetime.
 */
export function tokenUsable(
  interaction: Pick<Interaction, 'createdTimestamp'>,
  ack: Ack,
  wallClockMs: number,
): boolean {
  const age = wallClockMs - interaction.createdTimestamp;
  return ack === 'none' ? age < ANSWER_WINDOW_MS : age < TOKEN_LIFETIME_MS - TOKEN_MARGIN_MS;
}

/** One line, and nothing more is sent with that token: Discord would refuse every call the same way. */
function logDeadToken(logger: Logger, failure: DiscordFailure, ack: Ack): void {
  logger.warn(
    { discordCode: failure.code, discordStatus: failure.status, ack },
    ack === 'none'
      ? 'interaction expired or answered elsewhere before the bot acknowledged it; left unanswered'
      : 'interaction token expired before the answer was sent; left unanswered',
  );
}

export function createInteractionRouter(deps: RouterDeps): InteractionRouter {
  const now = deps.now ?? Date.now;
  const autocompleteTimeoutMs = deps.autocompleteTimeoutMs ?? 2200;
  const limiters = createLimiters(deps.commandRateLimit, now);
  let accepting = true;
  const chat = new Map<string, ChatCommand>();
  const message = new Map<string, MessageCommand>();
  const buttons = new Map<string, ButtonHandler>();
  for (const command of deps.commands) {
    const table = command.kind === 'chat' ? chat : message;
    if (table.has(command.data.name)) throw new Error(`two commands are named ${command.data.name}`);
    if (command.kind === 'chat') chat.set(command.data.name, command);
    else message.set(command.data.name, command);
    for (const [key, handler] of Object.entries(command.buttons ?? {})) {
      if (buttons.has(key)) throw new Error(`two button handlers for ${key}`);
      buttons.set(key, handler);
    }
  }

  async function contextFor(interaction: Interaction, logger: Logger): Promise<CommandContext> {
    const view = await resolveView(
      { guildId: interaction.guildId, channel: interaction.channel },
      { settings: deps.settings, sites: deps.sites },
    );
    return {
      logger,
      view,
      registry: deps.registry,
      settings: deps.settings,
      sites: deps.sites,
      state: deps.state,
      now,
      download: deps.download,
      reverseGate: deps.reverseGate,
    };
  }

  /**
   * Shows `error` to the member, ephemerally; logs what is not an expected board or input failure.
   *
   * Discord's own refusals are told apart: a dead token (expired, or answered elsewhere) gets one warning
   * and no further call with it; a call Discord did not take (5xx or 4xx after the REST client's retries)
   * gets a warning with Discord's code and status, and one private follow-up while the token still works.
   */
  async function answerError(
    interaction: ChatInputCommandInteraction | MessageContextMenuCommandInteraction | ButtonInteraction,
    ack: Ack,
    error: unknown,
    logger: Logger,
  ): Promise<void> {
    const failure = discordFailureOf(error);
    if (failure?.kind === 'token-dead') {
      logDeadToken(logger, failure, ack);
      return;
    }
    const { text, expected } = userErrorText(error);
    if (failure !== undefined) {
      logger.warn(
        { err: error, discordCode: failure.code, discordStatus: failure.status, ack },
        'Discord delivery failure',
      );
      if (!tokenUsable(interaction, ack, Date.now())) {
        logger.info({ ack }, 'interaction token no longer usable: the member is not told');
        return;
      }
    } else if (expected) logger.info({ err: error }, 'interaction failed with an expected error');
    else logger.error({ err: error }, 'interaction failed');
    const payload = { content: text, embeds: [], components: [], allowedMentions: NO_MENTIONS };
    const privately = { content: text, allowedMentions: NO_MENTIONS, flags: MessageFlags.Ephemeral } as const;
    try {
      switch (ack) {
        case 'none':
          await interaction.reply({ ...payload, flags: MessageFlags.Ephemeral });
          break;
        case 'reply-ephemeral':
          // After a failed edit, a follow-up (another route) fills the deferred private reply instead.
          if (failure === undefined) await interaction.editReply(payload);
          else await interaction.followUp(privately);
          break;
        case 'reply-public':
          // A public "thinking…" would turn the error public: remove it and answer privately instead.
          try {
            await interaction.deleteReply();
          } catch (deleteError) {
            if (discordFailureOf(deleteError)?.kind === 'token-dead') throw deleteError;
            logger.debug({ err: deleteError }, 'could not remove the deferred reply');
          }
          await interaction.followUp(privately);
          break;
        case 'update':
          await interaction.followUp(privately);
          break;
      }
    } catch (replyError) {
      const again = discordFailureOf(replyError);
      if (again?.kind === 'token-dead') logDeadToken(logger, again, ack);
      else
        logger.warn(
          { err: replyError, discordCode: again?.code, discordStatus: again?.status },
          'could not tell the member about a failure',
        );
    }
  }

  async function handleChat(
    interaction: ChatInputCommandInteraction | MessageContextMenuCommandInteraction,
    command: Command,
    logger: Logger,
  ): Promise<void> {
    let ack: Ack = 'none';
    try {
      const ephemeral =
        command.kind === 'chat' && interaction.isChatInputCommand()
          ? (command.ephemeral?.(interaction) ?? false)
          : command.kind === 'message' && interaction.isMessageContextMenuCommand()
            ? (command.ephemeral?.(interaction) ?? false)
            : false;
      await interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
      ack = ephemeral ? 'reply-ephemeral' : 'reply-public';
      const context = await contextFor(interaction, logger);
      if (command.kind === 'chat' && interaction.isChatInputCommand())
        await command.execute(interaction, context);
      else if (command.kind === 'message' && interaction.isMessageContextMenuCommand()) {
        await command.execute(interaction, context);
      }
    } catch (error) {
      await answerError(interaction, ack, error, logger);
    }
  }

  async function handleAutocomplete(
    interaction: AutocompleteInteraction,
    command: ChatCommand,
    logger: Logger,
  ): Promise<void> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), autocompleteTimeoutMs);
    });
    let choices: ApplicationCommandOptionChoiceData[] = [];
    try {
      const work = (async () => {
        const context = await contextFor(interaction, logger);
        return command.autocomplete
          ? command.autocomplete(interaction, { ...context, signal: controller.signal })
          : [];
      })();
      // The late result is dropped, but its rejection must not go unhandled.
      work.catch((error: unknown) => logger.debug({ err: error }, 'late autocomplete failed'));
      const result = await Promise.race([work, timeout]);
      if (result === 'timeout') {
        controller.abort();
        logger.info(
          { timeoutMs: autocompleteTimeoutMs },
          'autocomplete timed out; answering with no choices',
        );
      } else {
        choices = fitChoices(result);
      }
    } catch (error) {
      const { expected } = userErrorText(error);
      if (expected) logger.info({ err: error }, 'autocomplete failed');
      else logger.error({ err: error }, 'autocomplete failed');
    } finally {
      clearTimeout(timer);
    }
    try {
      await interaction.respond(choices);
    } catch (error) {
      const failure = discordFailureOf(error);
      // Late autocomplete answers are common (the member kept typing): a warning, without a stack.
      logger.warn(
        failure === undefined ? { err: error } : { discordCode: failure.code, discordStatus: failure.status },
        'could not answer autocomplete',
      );
    }
  }

  async function handleButton(interaction: ButtonInteraction, logger: Logger): Promise<void> {
    const decoded = decodeCustomId(interaction.customId);
    const handler = decoded === undefined ? undefined : buttons.get(decoded.key);
    if (decoded === undefined || handler === undefined) {
      logger.info({ customId: interaction.customId }, 'button not handled here');
      await answerError(interaction, 'none', new UserFacingError('This button no longer works.'), logger);
      return;
    }
    let ack: Ack = 'none';
    try {
      const deferral: ButtonDeferral = handler.defer(interaction, decoded.args);
      if (deferral === 'update') {
        await interaction.deferUpdate();
        ack = 'update';
      } else {
        const ephemeral = deferral === 'ephemeral';
        await interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
        ack = ephemeral ? 'reply-ephemeral' : 'reply-public';
      }
      const context = await contextFor(interaction, logger);
      await handler.run(interaction, decoded.args, context);
    } catch (error) {
      await answerError(interaction, ack, error, logger);
    }
  }

  /** An ephemeral one-line answer in place of running anything; a failure to send it is only logged. */
  async function answerBriefly(
    interaction: ChatInputCommandInteraction | MessageContextMenuCommandInteraction | ButtonInteraction,
    text: string,
    logger: Logger,
  ): Promise<void> {
    try {
      await interaction.reply({ content: text, allowedMentions: NO_MENTIONS, flags: MessageFlags.Ephemeral });
    } catch (error) {
      const failure = discordFailureOf(error);
      if (failure?.kind === 'token-dead') logDeadToken(logger, failure, 'none');
      else logger.warn({ err: error }, 'could not answer briefly');
    }
  }

  /** True when the interaction was answered here (shutting down, or over its member's limit). */
  async function turnedAway(interaction: Interaction, logger: Logger): Promise<boolean> {
    const kind = interaction.isAutocomplete()
      ? 'autocomplete'
      : interaction.isButton()
        ? 'button'
        : interaction.isChatInputCommand() || interaction.isMessageContextMenuCommand()
          ? 'command'
          : undefined;
    if (kind === undefined) return false;
    let text: string;
    if (!accepting) {
      logger.info('interaction turned away: shutting down');
      text = RESTARTING_TEXT;
    } else {
      const taken = limiters?.[kind].take(interaction.user.id);
      if (taken === undefined || taken.ok) return false;
      logger.debug({ kind, retryAfterMs: taken.retryAfterMs }, 'member over the rate limit');
      text = tryAgainText(kind === 'button' ? 'clicking' : 'using commands', taken.retryAfterMs);
    }
    if (interaction.isAutocomplete()) {
      await interaction.respond([]).catch((error: unknown) => {
        logger.debug({ err: error }, 'could not answer autocomplete');
      });
    } else if (
      interaction.isChatInputCommand() ||
      interaction.isMessageContextMenuCommand() ||
      interaction.isButton()
    ) {
      await answerBriefly(interaction, text, logger);
    }
    return true;
  }

  return {
    setAccepting(value) {
      accepting = value;
    },
    async handle(interaction) {
      const name =
        interaction.isChatInputCommand() || interaction.isContextMenuCommand() || interaction.isAutocomplete()
          ? interaction.commandName
          : interaction.isButton()
            ? interaction.customId.split(':', 2).join(':')
            : undefined;
      const logger = deps.logger.child({
        interactionId: interaction.id,
        guildId: interaction.guildId,
        command: name,
      });
      try {
        if (await turnedAway(interaction, logger)) return;
        // Every board call this interaction makes is queued as its server's and member's (budget.ts
        // shares a site's slots fairly between them), autocomplete in its own small capped share.
        await runWithRequestContext(requesterOf(interaction), () => dispatch(interaction, logger));
      } catch (error) {
        logger.error({ err: error }, 'interaction handling failed');
      }
    },
  };

  async function dispatch(interaction: Interaction, logger: Logger): Promise<void> {
    if (interaction.isChatInputCommand()) {
      const command = chat.get(interaction.commandName);
      if (command) await handleChat(interaction, command, logger);
      else await answerError(interaction, 'none', new UserFacingError(UNKNOWN_COMMAND), logger);
    } else if (interaction.isMessageContextMenuCommand()) {
      const command = message.get(interaction.commandName);
      if (command) await handleChat(interaction, command, logger);
      else await answerError(interaction, 'none', new UserFacingError(UNKNOWN_COMMAND), logger);
    } else if (interaction.isAutocomplete()) {
      const command = chat.get(interaction.commandName);
      if (command) await handleAutocomplete(interaction, command, logger);
      else
        await interaction.respond([]).catch((error: unknown) => {
          logger.debug({ err: error }, 'could not answer autocomplete of an unknown command');
        });
    } else if (interaction.isButton()) {
      await handleButton(interaction, logger);
    }
  }
}

/** Who the board calls of `interaction` are for: its server (or the DM) and its member. */
export function requesterOf(
  interaction: Pick<Interaction, 'guildId' | 'user' | 'isAutocomplete'>,
): RequestContext {
  return {
    priority: interaction.isAutocomplete() ? 'autocomplete' : 'interactive',
    server: interaction.guildId ?? 'dm',
    member: interaction.user.id,
  };
}
