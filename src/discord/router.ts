/**
 * The interaction router: dispatch only. For each interaction it makes one child logger, asks admission
 * (limits, the shutdown gate), acknowledges before any handler runs (so every interaction is answered
 * within Discord's 3 s), builds the features' context, runs the handler and hands what it returns (or
 * throws) to the one writer (outbox.ts). Nothing here throws out.
 *
 * Every board call a handler makes runs in the request context of its server and member (the budget
 * shares a site's slots fairly between them), autocomplete in its own small capped share.
 */
import {
  type APIModalInteractionResponseCallbackData,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChannelSelectMenuInteraction,
  type StringSelectMenuInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type MessageContextMenuCommandInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { Logger } from '../logger.js';
import { runWithRequestContext, type RequestContext } from '../philomena/request-context.js';
import { answersForcedPrivate, showsPrivateNote, withPrivateNote } from './external-apps.js';
import { answerChoices, createOutbox, type Ack, type Answerable } from './outbox.js';
import { createAdmissions, type AdmissionKind } from './admission.js';
import { answerAutocomplete } from './autocomplete.js';
import type {
  ButtonHandler,
  ChannelFacts,
  InteractionChannel,
  ComponentDeferral,
  ComponentHandler,
  ModalHandler,
  SelectHandler,
  ChatCommand,
  Command,
  ContextFactory,
  FormOpener,
  InteractionKind,
  MessageCommand,
  Reply,
  RuntimeObserver,
} from './contract.js';
import type { ServerDirectory } from './server-facts.js';
import { decodeCustomId } from './custom-id.js';
import { UNWATCHED, watchInteraction, type Watch } from './observed.js';
import type { RateLimit } from './options.js';
import { runtimeErrorText, RUNTIME_ERROR_IDS, UserFacingError, type DescribeError } from './failures.js';
import { refusalOf, type Requirements } from './preconditions.js';

export { RESTARTING_TEXT, tryAgainText } from './admission.js';

export interface RouterDeps<C> {
  readonly commands: readonly Command<C>[];
  /** Builds the features' context for an interaction, after it was acknowledged. */
  readonly context: ContextFactory<C>;
  /** The servers the bot's shards hold, for the context's `server`; default none. */
  readonly servers?: ServerDirectory;
  readonly logger: Logger;
  /** What a member reads for a failure; default: the runtime's own (UserFacingError, Discord refusals). */
  readonly describeError?: DescribeError;
  readonly now?: () => number;
  /** How long autocomplete may take before the router answers with no choices; default 2200 ms. */
  readonly autocompleteTimeoutMs?: number;
  /** Commands per member; undefined means no limit (buttons and autocomplete then have none either). */
  readonly commandRateLimit?: RateLimit | undefined;
  /** Told when each interaction is acknowledged and answered (metrics); default: nobody. */
  readonly observer?: RuntimeObserver;
  /** How long a command's `form` may take before the command is deferred instead; default FORM_TIMEOUT_MS. */
  readonly formTimeoutMs?: number;
}

/**
 * How long a command's `form` (contract.ts `FormOpener`) may take to decide. A modal must be the first
 * answer, within Discord's 3 s; what is left of them after this still covers the callback itself, or the
 * deferral of a command whose form came too late.
 */
const FORM_TIMEOUT_MS = 1500;

/**
 * What a form must leave of Discord's 3 s (counted from the interaction's creation, so a gateway or event
 * loop already behind shortens the form's time, not the deferral's): enough for the deferral after a
 * late form to reach Discord.
 */
const FORM_DEFERRAL_ROOM_MS = 1200;
const ANSWER_WINDOW_MS = 3000;

/** What came of asking a command for its form. */
type FormOutcome<C> =
  | {
      readonly kind: 'done';
      readonly context: C;
      readonly modal: APIModalInteractionResponseCallbackData | undefined;
    }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'late' };

export interface InteractionRouter {
  /** `facts`: what the raw interaction said of its channel, for when discord.js made no channel of it. */
  handle(interaction: Interaction, facts?: ChannelFacts): Promise<void>;
  /**
   * When false, every new interaction gets a short "restarting" answer instead of running (autocomplete:
   * no choices); work already started runs on. True (the default) takes work again.
   */
  setAccepting(accepting: boolean): void;
}

const UNKNOWN_COMMAND = 'This command is not available any more.';

/** What a member used on a message or in a modal: routed by `<namespace>:<action>` of its custom_id. */
type RoutedComponent =
  ButtonInteraction | StringSelectMenuInteraction | ChannelSelectMenuInteraction | ModalSubmitInteraction;

function isRoutedComponent(interaction: Interaction): interaction is RoutedComponent {
  return (
    interaction.isButton() ||
    interaction.isStringSelectMenu() ||
    interaction.isChannelSelectMenu() ||
    interaction.isModalSubmit()
  );
}

/** Who the board calls of `interaction` are for: its server (or the DM) and its member. */
function requesterOf(interaction: Pick<Interaction, 'guildId' | 'user' | 'isAutocomplete'>): RequestContext {
  return {
    priority: interaction.isAutocomplete() ? 'autocomplete' : 'interactive',
    server: interaction.guildId ?? 'dm',
    member: interaction.user.id,
  };
}

function admissionKind(interaction: Interaction): AdmissionKind | undefined {
  if (interaction.isAutocomplete()) return 'autocomplete';
  if (isRoutedComponent(interaction)) return 'button';
  if (interaction.isChatInputCommand() || interaction.isMessageContextMenuCommand()) return 'command';
  return undefined;
}

export function createInteractionRouter<C>(deps: RouterDeps<C>): InteractionRouter {
  const now = deps.now ?? Date.now;
  const describeError = deps.describeError ?? runtimeErrorText;
  const autocompleteTimeoutMs = deps.autocompleteTimeoutMs ?? 2200;
  const formTimeoutMs = deps.formTimeoutMs ?? FORM_TIMEOUT_MS;
  /** The features' context: with the interaction's channel and what the bot knows of its server. */
  const contextOf = (interaction: Interaction, logger: Logger, facts: ChannelFacts | undefined): Promise<C> =>
    deps.context(
      interaction,
      logger,
      // discord.js's channel (a DM's), else what the raw interaction said of it.
      (interaction.channel ?? facts ?? null) satisfies InteractionChannel,
      interaction.guildId === null ? undefined : deps.servers?.server(interaction.guildId),
    );
  const admissions = createAdmissions({ commandRateLimit: deps.commandRateLimit, now });
  const outbox = createOutbox({ describeError, logger: deps.logger });
  const observer = deps.observer ?? {};
  const chat = new Map<string, ChatCommand<C>>();
  const message = new Map<string, MessageCommand<C>>();
  const buttons = new Map<string, ButtonHandler<C>>();
  const selects = new Map<string, SelectHandler<C>>();
  const modals = new Map<string, ModalHandler<C>>();
  const taken = (key: string) => buttons.has(key) || selects.has(key) || modals.has(key);
  for (const command of deps.commands) {
    const table = command.kind === 'chat' ? chat : message;
    if (table.has(command.data.name)) throw new Error(`two commands are named ${command.data.name}`);
    if (command.kind === 'chat') chat.set(command.data.name, command);
    else message.set(command.data.name, command);
    for (const [key, handler] of Object.entries(command.buttons ?? {})) {
      if (buttons.has(key)) throw new Error(`two button handlers for ${key}`);
      buttons.set(key, handler);
    }
    for (const [key, handler] of Object.entries(command.selects ?? {})) {
      if (taken(key)) throw new Error(`two component handlers for ${key}`);
      selects.set(key, handler);
    }
    for (const [key, handler] of Object.entries(command.modals ?? {})) {
      if (taken(key)) throw new Error(`two component handlers for ${key}`);
      modals.set(key, handler);
    }
  }

  /** The name the observer files an interaction under: only names the bot knows, never free text. */
  function observedAs(interaction: Interaction): { kind: InteractionKind; command: string } | undefined {
    if (interaction.isChatInputCommand() || interaction.isAutocomplete()) {
      const known = chat.has(interaction.commandName);
      return {
        kind: interaction.isAutocomplete() ? 'autocomplete' : 'command',
        command: known ? interaction.commandName : 'unknown',
      };
    }
    if (interaction.isMessageContextMenuCommand()) {
      return {
        kind: 'command',
        command: message.has(interaction.commandName) ? interaction.commandName : 'unknown',
      };
    }
    if (isRoutedComponent(interaction)) {
      const key = decodeCustomId(interaction.customId)?.key;
      const table: ReadonlyMap<string, unknown> = interaction.isButton()
        ? buttons
        : interaction.isModalSubmit()
          ? modals
          : selects;
      return {
        kind: interaction.isModalSubmit() ? 'modal' : 'button',
        command: key !== undefined && table.has(key) ? key : 'unknown',
      };
    }
    return undefined;
  }

  /**
   * Asks `form` for a form within `formTimeoutMs` (less when the interaction is already old), with the
   * context built for it. A late answer is left to settle unseen (a failure in it is logged): the command
   * is deferred and runs as if it had none.
   */
  async function askForm<I extends Interaction>(
    interaction: I,
    form: FormOpener<I, C>,
    logger: Logger,
    facts: ChannelFacts | undefined,
  ): Promise<FormOutcome<C>> {
    const left = interaction.createdTimestamp + ANSWER_WINDOW_MS - FORM_DEFERRAL_ROOM_MS - now();
    const waitMs = Math.min(formTimeoutMs, left);
    if (waitMs <= 0) return { kind: 'late' };
    let settled = false;
    const decided = (async (): Promise<FormOutcome<C>> => {
      const context = await contextOf(interaction, logger, facts);
      return { kind: 'done', context, modal: await form(interaction, context) };
    })().catch((error: unknown): FormOutcome<C> => {
      if (settled) logger.info({ err: error }, 'a form that came too late failed');
      return { kind: 'failed', error };
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<FormOutcome<C>>((resolve) => {
      timer = setTimeout(() => {
        settled = true;
        resolve({ kind: 'late' });
      }, waitMs);
    });
    try {
      return await Promise.race([decided, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A slash command or a message menu command: acknowledged as it asks, then run, then answered. */
  async function runCommand<I extends ChatInputCommandInteraction | MessageContextMenuCommandInteraction>(
    interaction: I,
    command: {
      readonly requires?: Requirements;
      readonly form?: FormOpener<I, C>;
      ephemeral?(interaction: I): boolean;
      execute(interaction: I, context: C): Promise<Reply>;
    },
    logger: Logger,
    watched: Watch,
    facts: ChannelFacts | undefined,
  ): Promise<void> {
    let ack: Ack = 'none';
    try {
      let ready: C | undefined;
      // A form must be the first answer: asked for before any deferral, and only of a member the command serves.
      if (command.form !== undefined && refusalOf(interaction, command.requires) === undefined) {
        const outcome = await askForm(interaction, command.form, logger, facts);
        if (outcome.kind === 'done' && outcome.modal !== undefined) {
          await outbox.showModal(interaction, outcome.modal);
          watched.acknowledged();
          watched.answered('ok');
          return;
        }
        if (outcome.kind === 'failed' && outcome.error instanceof UserFacingError) throw outcome.error;
        if (outcome.kind === 'failed') logger.warn({ err: outcome.error }, 'the form could not be decided');
        if (outcome.kind === 'late')
          logger.info({ timeoutMs: formTimeoutMs }, 'the form came too late, or its time had passed');
        if (outcome.kind === 'done') ready = outcome.context;
      }
      const asked = command.ephemeral?.(interaction) ?? false;
      // Where Discord shows the answer to the member alone anyway, answer privately and say why.
      const forced = !asked && answersForcedPrivate(interaction);
      const ephemeral = asked || forced;
      ack = await outbox.defer(interaction, ephemeral);
      watched.acknowledged();
      // Checked after the deferral, so the refusal is as private as the answer, and before any I/O.
      const refused = refusalOf(interaction, command.requires);
      if (refused !== undefined) throw refused;
      const reply = await command.execute(
        interaction,
        ready ?? (await contextOf(interaction, logger, facts)),
      );
      await outbox.send(interaction, ack, forced ? withPrivateNote(reply, interaction.locale) : reply);
      watched.answered('ok');
    } catch (error) {
      await outbox.answerError(interaction, ack, error, logger);
      watched.failed(error);
    }
  }

  /**
   * A button, a select or a modal submit: acknowledged as its handler decides from the custom_id alone
   * (for a click, possibly with a modal, which ends it here), then run.
   */
  async function runComponent<I extends RoutedComponent>(
    interaction: I,
    table: ReadonlyMap<string, ComponentHandler<C, I>>,
    logger: Logger,
    watched: Watch,
    facts: ChannelFacts | undefined,
  ): Promise<void> {
    const decoded = decodeCustomId(interaction.customId);
    const handler = decoded === undefined ? undefined : table.get(decoded.key);
    if (decoded === undefined || handler === undefined) {
      logger.info({ customId: interaction.customId }, 'component not handled here');
      const gone = interaction.isModalSubmit()
        ? new UserFacingError(RUNTIME_ERROR_IDS.formGone, 'This form no longer works.')
        : new UserFacingError(RUNTIME_ERROR_IDS.buttonGone, 'This button no longer works.');
      await outbox.answerError(interaction, 'none', gone, logger);
      watched.failed(gone);
      return;
    }
    let ack: Ack = 'none';
    try {
      const asked: ComponentDeferral = handler.defer(interaction, decoded.args);
      if (typeof asked === 'object') {
        // A modal is the click's only answer; what the member types comes back as a modal submit.
        if (interaction.isModalSubmit())
          throw new Error(`the modal handler ${decoded.key} answered with a modal`);
        await outbox.showModal(interaction, asked.modal);
        watched.acknowledged();
        watched.answered('ok');
        return;
      }
      // Only a modal opened from a message has a message to update.
      const opener = interaction.isModalSubmit()
        ? interaction.isFromMessage()
          ? interaction.message
          : undefined
        : interaction.message;
      const deferral = asked === 'update' && opener === undefined ? 'ephemeral' : asked;
      // The note goes on a new answer Discord makes private against the handler's wish, and stays on a
      // page that replaces one that had it (a V2 page would drop it).
      let noted: boolean;
      if (deferral === 'update' && opener !== undefined) {
        noted = showsPrivateNote(opener);
        ack = await outbox.deferUpdate(interaction);
      } else {
        noted = deferral !== 'ephemeral' && answersForcedPrivate(interaction);
        const ephemeral = deferral === 'ephemeral' || noted;
        ack = await outbox.defer(interaction, ephemeral);
      }
      watched.acknowledged();
      const context = await contextOf(interaction, logger, facts);
      const reply = await handler.run(interaction, decoded.args, context);
      await outbox.send(interaction, ack, noted ? withPrivateNote(reply, interaction.locale) : reply);
      watched.answered('ok');
    } catch (error) {
      await outbox.answerError(interaction, ack, error, logger);
      watched.failed(error);
    }
  }

  async function runAutocomplete(
    interaction: AutocompleteInteraction,
    command: ChatCommand<C> | undefined,
    logger: Logger,
    watched: Watch,
    facts: ChannelFacts | undefined,
  ): Promise<void> {
    const autocomplete = command?.autocomplete;
    // Choices only for members the command would serve (they may show a server's private data).
    if (autocomplete === undefined || refusalOf(interaction, command?.requires) !== undefined) {
      await answerChoices(interaction, [], logger);
      watched.answered('ok');
      return;
    }
    // answerAutocomplete answers whatever happens (no choices on a failure), and logs what went wrong.
    await answerAutocomplete(
      interaction,
      async (signal) =>
        autocomplete(interaction, {
          ...(await contextOf(interaction, logger, facts)),
          signal,
        }),
      { logger, timeoutMs: autocompleteTimeoutMs, describeError },
    );
    watched.answered('ok');
  }

  /** True when the interaction was answered here (shutting down, or over its member's limit). */
  async function turnedAway(interaction: Interaction, logger: Logger, watched: Watch): Promise<boolean> {
    const kind = admissionKind(interaction);
    if (kind === undefined) return false;
    const admission = admissions.admit(interaction, kind);
    if (admission.ok) return false;
    logger.info({ kind }, `interaction turned away: ${admission.why}`);
    if (interaction.isAutocomplete()) {
      await answerChoices(interaction, [], logger, true);
    } else if (
      interaction.isChatInputCommand() ||
      interaction.isMessageContextMenuCommand() ||
      isRoutedComponent(interaction)
    ) {
      await outbox.answerBriefly(interaction, admission.text, logger);
    }
    watched.answered('turned_away');
    return true;
  }

  async function unknownCommand(interaction: Answerable, logger: Logger, watched: Watch): Promise<void> {
    const unknown = new UserFacingError(RUNTIME_ERROR_IDS.commandUnknown, UNKNOWN_COMMAND);
    await outbox.answerError(interaction, 'none', unknown, logger);
    watched.failed(unknown);
  }

  async function dispatch(
    interaction: Interaction,
    logger: Logger,
    watched: Watch,
    facts: ChannelFacts | undefined,
  ): Promise<void> {
    if (interaction.isChatInputCommand()) {
      const command = chat.get(interaction.commandName);
      if (command) await runCommand<typeof interaction>(interaction, command, logger, watched, facts);
      else await unknownCommand(interaction, logger, watched);
    } else if (interaction.isMessageContextMenuCommand()) {
      const command = message.get(interaction.commandName);
      if (command) await runCommand<typeof interaction>(interaction, command, logger, watched, facts);
      else await unknownCommand(interaction, logger, watched);
    } else if (interaction.isAutocomplete()) {
      await runAutocomplete(interaction, chat.get(interaction.commandName), logger, watched, facts);
    } else if (interaction.isButton()) {
      await runComponent(interaction, buttons, logger, watched, facts);
    } else if (interaction.isStringSelectMenu() || interaction.isChannelSelectMenu()) {
      await runComponent<StringSelectMenuInteraction | ChannelSelectMenuInteraction>(
        interaction,
        selects,
        logger,
        watched,
        facts,
      );
    } else if (interaction.isModalSubmit()) {
      await runComponent(interaction, modals, logger, watched, facts);
    }
  }

  return {
    setAccepting(value) {
      admissions.setAccepting(value);
    },
    async handle(interaction, facts) {
      const name =
        interaction.isChatInputCommand() || interaction.isContextMenuCommand() || interaction.isAutocomplete()
          ? interaction.commandName
          : isRoutedComponent(interaction)
            ? decodeCustomId(interaction.customId)?.key
            : undefined;
      const logger = deps.logger.child({
        interactionId: interaction.id,
        guildId: interaction.guildId,
        command: name,
      });
      const observed = observedAs(interaction);
      const watched: Watch = observed
        ? watchInteraction(observer, describeError, observed.kind, observed.command)
        : UNWATCHED;
      try {
        if (await turnedAway(interaction, logger, watched)) return;
        await runWithRequestContext(requesterOf(interaction), () =>
          dispatch(interaction, logger, watched, facts),
        );
      } catch (error) {
        logger.error({ err: error }, 'interaction handling failed');
      }
    },
  };
}
