/**
 * The contract between the runtime (src/discord) and the features (commands/): plain data plus handlers
 * that get what they need as arguments and RETURN what to send. Only the runtime writes to Discord: it
 * acknowledges every interaction before a handler runs, sends the handler's reply, and answers a thrown
 * error, so it always knows what was sent.
 *
 * The runtime knows no feature: the features' own context (`C`: the board clients, the server's view, the
 * settings ...) is built for each interaction by a factory the composition root passes in.
 */
import type {
  APIEmbed,
  APIMessageTopLevelComponent,
  APIModalInteractionResponseCallbackData,
  ApplicationCommandOptionChoiceData,
  AutocompleteInteraction,
  ButtonInteraction,
  ChannelSelectMenuInteraction,
  ChatInputCommandInteraction,
  Interaction,
  Message,
  MessageContextMenuCommandInteraction,
  ModalSubmitInteraction,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
  RESTPostAPIContextMenuApplicationCommandsJSONBody,
  StringSelectMenuInteraction,
} from 'discord.js';
import type { Logger } from '../logger.js';
import type { Requirements } from './preconditions.js';
import type { KnownChannel, KnownServer } from './server-facts.js';

// What the bot knows of a server (server-facts.ts), as features read it.
export type { KnownChannel, KnownServer } from './server-facts.js';

/**
 * A message as a handler gives it. The runtime adds `allowed_mentions` (nobody) to every send.
 *
 * Two forms: the classic one (content, embeds, action rows), or Components V2 (`componentsV2: true`:
 * containers, text displays, media galleries ... at the top level, and neither content nor embeds, which
 * Discord refuses beside the flag). The runtime sets the IS_COMPONENTS_V2 flag from `componentsV2`; once a
 * message has it, every later edit of that message must be V2 too (Discord cannot take the flag off).
 *
 * `files` are uploaded with the message (at most 10, each at most 8 MiB). A body is the whole message's
 * attachments: when it replaces a message (a button deferred as an update), the message keeps exactly the
 * body's files, so a page without `files` takes earlier ones off rather than leaving a stale export on it,
 * and a page with them does not stack a second copy. Taking the buttons off an expired message
 * (`expired`) keeps whatever files it has.
 */
export type MessageBody =
  | {
      readonly content?: string;
      readonly embeds?: readonly APIEmbed[];
      readonly components?: readonly APIMessageTopLevelComponent[];
      readonly componentsV2?: false;
      readonly files?: readonly OutgoingFile[];
    }
  | {
      readonly componentsV2: true;
      readonly components: readonly APIMessageTopLevelComponent[];
      readonly content?: never;
      readonly embeds?: never;
      /** A V2 message shows a file only through a File (or media) component naming `attachment://<name>`. */
      readonly files?: readonly OutgoingFile[];
    };

/** A file sent with a message: `name` is what members download and what `attachment://` refers to. */
export interface OutgoingFile {
  readonly name: string;
  readonly data: Buffer;
  readonly description?: string;
}

/**
 * What a handler answers with:
 * - `message`: fill the deferred reply (a command) or replace the clicked message (a button deferred as
 *   an update);
 * - `expired`: take the buttons off the clicked message, then tell the clicker `text` privately;
 * - `private`: tell the member `text` privately, leaving any message as it is (a public "thinking…" is
 *   removed first, so a private answer never shows publicly).
 */
export type Reply =
  | { readonly kind: 'message'; readonly body: MessageBody }
  | { readonly kind: 'expired'; readonly text: string }
  | { readonly kind: 'private'; readonly text: string };

export const messageReply = (body: MessageBody): Reply => ({ kind: 'message', body });

/** What a handler may read of an interaction: its data, never the methods that answer it. */
export type Incoming<T extends Interaction> = Omit<
  T,
  | 'reply'
  | 'editReply'
  | 'deferReply'
  | 'deferUpdate'
  | 'followUp'
  | 'deleteReply'
  | 'update'
  | 'respond'
  | 'showModal'
  | 'fetchReply'
>;

/** How the runtime acknowledges a button click (or a modal submit) before its handler runs. */
export type ButtonDeferral = 'update' | 'ephemeral' | 'public';

/**
 * A message component's acknowledgement: a deferral, or a modal to show in answer to the click (Discord
 * takes a modal only as the first answer). With a modal the runtime does not call `run`: what the member
 * types arrives later as a modal submit, routed by the modal's custom_id to a command's `modals`.
 */
export type ComponentDeferral = ButtonDeferral | { readonly modal: APIModalInteractionResponseCallbackData };

/**
 * What a member used: a button, a string or channel select (whose `values` the handler reads: the
 * options' values, or channel ids), or a modal's submit button (`fields` holds what was typed).
 */
export type ComponentInteraction =
  ButtonInteraction | StringSelectMenuInteraction | ChannelSelectMenuInteraction | ModalSubmitInteraction;

export interface ComponentHandler<C, I extends ComponentInteraction> {
  /**
   * Decided from the custom_id and the member alone: it runs before the 3 s deadline, without I/O. A
   * modal submit cannot answer with another modal; 'update' there replaces the message whose component
   * opened the modal (a modal opened otherwise is answered as 'ephemeral').
   */
  defer(
    interaction: Incoming<I>,
    args: readonly string[],
  ): I extends ModalSubmitInteraction ? ButtonDeferral : ComponentDeferral;
  run(interaction: Incoming<I>, args: readonly string[], context: C): Promise<Reply>;
}

export type ButtonHandler<C> = ComponentHandler<C, ButtonInteraction>;
/** A string or channel select menu's handler: keyed like buttons, by `<namespace>:<action>` of its custom_id. */
export type SelectHandler<C> = ComponentHandler<
  C,
  StringSelectMenuInteraction | ChannelSelectMenuInteraction
>;
/** A modal submit's handler, keyed by `<namespace>:<action>` of the modal's custom_id. */
export type ModalHandler<C> = ComponentHandler<C, ModalSubmitInteraction>;

/**
 * A command whose first answer may be a form (a modal: Discord takes one only as the first answer, so it
 * cannot follow a deferral). Run before anything is acknowledged, with the interaction's context, for at
 * most `FORM_TIMEOUT_MS` (src/discord/router.ts): a modal returned in time is shown and `execute` is not
 * run (what the member types arrives as a modal submit, routed by the modal's custom_id to `modals`);
 * undefined, a late answer or a failure defers and runs `execute` as usual, so `execute` must make the
 * same checks and say something useful when everything was fine but the form could not open in time.
 * A `UserFacingError` thrown here is the answer (privately), so a refusal needs no `execute` round.
 */
export type FormOpener<I, C> = (
  interaction: I,
  context: C,
) => Promise<APIModalInteractionResponseCallbackData | undefined>;

export interface ChatCommand<C> {
  readonly kind: 'chat';
  readonly data: RESTPostAPIChatInputApplicationCommandsJSONBody;
  /** What it needs before it runs (a server, member permissions), checked by the runtime; preconditions.ts. */
  readonly requires?: Requirements;
  /** Whether the first reply is ephemeral; default false. */
  ephemeral?(interaction: Incoming<ChatInputCommandInteraction>): boolean;
  execute(interaction: Incoming<ChatInputCommandInteraction>, context: C): Promise<Reply>;
  /** A form to open as the first answer instead of running `execute`: see `FormOpener`. */
  readonly form?: FormOpener<Incoming<ChatInputCommandInteraction>, C>;
  /** Choices for the focused option; the runtime answers within 3 s whatever happens. */
  autocomplete?(
    interaction: Incoming<AutocompleteInteraction>,
    context: C & { readonly signal: AbortSignal },
  ): Promise<ApplicationCommandOptionChoiceData[]>;
  /** Button handlers keyed by the first two segments of their custom_id, `<namespace>:<action>`. */
  readonly buttons?: Readonly<Record<string, ButtonHandler<C>>>;
  /** String and channel select handlers, keyed the same way (one key space with the buttons). */
  readonly selects?: Readonly<Record<string, SelectHandler<C>>>;
  /** Modal submit handlers, keyed by the modal's custom_id the same way (one key space with the others). */
  readonly modals?: Readonly<Record<string, ModalHandler<C>>>;
}

export interface MessageCommand<C> {
  readonly kind: 'message';
  readonly data: RESTPostAPIContextMenuApplicationCommandsJSONBody;
  readonly requires?: Requirements;
  ephemeral?(interaction: Incoming<MessageContextMenuCommandInteraction>): boolean;
  execute(interaction: Incoming<MessageContextMenuCommandInteraction>, context: C): Promise<Reply>;
  /** A form to open as the first answer instead of running `execute`: see `FormOpener`. */
  readonly form?: FormOpener<Incoming<MessageContextMenuCommandInteraction>, C>;
  readonly buttons?: Readonly<Record<string, ButtonHandler<C>>>;
  readonly selects?: Readonly<Record<string, SelectHandler<C>>>;
  readonly modals?: Readonly<Record<string, ModalHandler<C>>>;
}

export type Command<C> = ChatCommand<C> | MessageCommand<C>;

/** A reply to a chat message, and whether Discord's own preview of that message should be hidden. */
export interface MessageAnswer {
  readonly body: MessageBody;
  /** Hide the message's own link previews; done only where the bot may (Manage Messages). */
  readonly hidePreviews: boolean;
}

/**
 * Reads chat messages (the unfurler). Registered the way commands are; like them it returns what to send
 * (nothing: no reply) and the runtime sends it, as a reply that pings nobody.
 */
export interface MessageHandler {
  readonly name: string;
  handle(message: Message, place: MessagePlace): Promise<MessageAnswer | undefined>;
}

/**
 * Where a chat message was written, as the runtime knows it (discord.js keeps no server or channel:
 * server-facts.ts): its channel (a DM's, or a server channel with the bot's permissions there; null when
 * the bot does not know the channel) and its server's preferred locale (null in a DM).
 */
export interface MessagePlace {
  readonly channel: ChannelFacts | KnownChannel | null;
  readonly guildLocale: string | null;
}

/** What a poster needs to know of a channel: its type and age restriction, and a thread's parent's. */
export interface ChannelFacts {
  readonly id: string;
  readonly type: number;
  readonly nsfw: boolean;
  /** The channel's raw flags (IS_SPOILER_CHANNEL 1 << 21: a spoiler channel, see commands/shared/safety.ts). */
  readonly flags: number;
  /** A thread's parent channel (threads have no age restriction or spoiler flag of their own); null otherwise. */
  readonly parent: { readonly type: number; readonly nsfw: boolean; readonly flags: number } | null;
  /** A thread's parent channel id, known even when the parent is not (a server's settings per channel follow it). */
  readonly parentId?: string | null;
}

export type PostResult =
  | { readonly ok: true; readonly messageId: string }
  | { readonly ok: false; readonly reason: 'missing' | 'forbidden' | 'failed'; readonly detail: string };

/** Posting to channels on the bot's own initiative (channel-poster.ts makes it; outbox.ts writes). */
export interface ChannelPoster {
  /**
   * The channel as it is now, or null when Discord says it is gone: from the live cache when this process
   * receives its server's events (its shard), else read from Discord. Rejects with `ChannelForbiddenError`
   * when Discord refuses to show it.
   */
  channel(channelId: string, guildId?: string): Promise<ChannelFacts | null>;
  /**
   * Whether this process receives the server's events (the server is in its live cache): its channels are
   * then read without a request to Discord.
   */
  holds(guildId: string): boolean;
  /**
   * The server's preferred locale as Discord reports it now (the language of what nobody asked for, unless
   * the server set one): from the live cache when this process holds the server (GUILD_UPDATE keeps it
   * current), else read from Discord and kept a few minutes; null when Discord does not show it. Optional:
   * a poster without it leaves posts in the server's or channel's language, else English.
   */
  guildLocale?(guildId: string): Promise<string | null>;
  /** Posts `body` once per `nonce` (at most 25 characters). */
  post(channelId: string, body: MessageBody, nonce: string): Promise<PostResult>;
}

/**
 * Work a feature does on its own, not in answer to anything (feed polls): started once the bot is ready,
 * with a way to post to channels, and stopped first when the bot stops (before the work in flight drains).
 */
export interface BackgroundTask {
  readonly name: string;
  start(poster: ChannelPoster): void;
  /**
   * The bot was removed from a server (kicked, or the server deleted: Discord's GUILD_DELETE without
   * `unavailable`, never an outage). Called in the process that held the server.
   */
  serverRemoved?(guildId: string): void;
  /** Stops starting new work and waits for the work under way. */
  stop(): Promise<void>;
}

/**
 * The channel an interaction came from: discord.js's channel, or what the raw interaction said of it where
 * discord.js made none (a user-installed command in a server the bot is not in); null when neither.
 */
export type InteractionChannel = NonNullable<Interaction['channel']> | ChannelFacts | null;

/** Builds the features' context for one interaction (its view, the clients, the logger ...). */
export type ContextFactory<C> = (
  interaction: Interaction,
  logger: Logger,
  channel: InteractionChannel,
  /** What the bot knows of the interaction's server (its channels, its own permissions), when it holds it. */
  server?: KnownServer,
) => Promise<C>;

/** Which kind of interaction an observed event is about. */
export type InteractionKind = 'command' | 'button' | 'modal' | 'autocomplete';

/**
 * How an interaction ended: answered (`ok`), answered with an expected failure the member can act on
 * (`user_error`: not found, bad query, the board is busy ...), failed (`error`: unexpected, or Discord
 * refused the answer), or answered at once without running (`turned_away`: over a member's limit, or the
 * bot is restarting).
 */
export type InteractionOutcome = 'ok' | 'user_error' | 'error' | 'turned_away';

export interface AcknowledgedEvent {
  readonly kind: InteractionKind;
  /** The command's name, or a button's `<namespace>:<action>`; `unknown` for what the bot does not know. */
  readonly command: string;
  /** From the bot receiving the interaction to Discord taking the acknowledgement (the 3 s budget). */
  readonly ms: number;
}

export interface AnsweredEvent extends AcknowledgedEvent {
  readonly outcome: InteractionOutcome;
  /** With `user_error` and `error`: the identifier of what the member read (failures.ts), label-safe. */
  readonly errorId?: string;
}

/**
 * What the runtime tells whoever watches it (the composition root passes the metrics). Every field is
 * low-cardinality: never a server, member or query. Each method is optional, called synchronously, and
 * must not throw (what it throws is ignored).
 */
export interface RuntimeObserver {
  /** An interaction was deferred: the first answer Discord took. */
  acknowledged?(event: AcknowledgedEvent): void;
  /** The interaction's last answer went out, or failed: its outcome and the time since it was received. */
  answered?(event: AnsweredEvent): void;
  /** discord.js's REST client waited for a Discord rate limit (its `rateLimited` event). */
  discordRateLimited?(event: { readonly scope: string; readonly global: boolean }): void;
}
