/**
 * The types a test meets when it drives the local Discord (the scenario helpers of scenario/*.ts): the
 * seeded servers, where an interaction comes from and through which install, what each `send...` takes,
 * and the handles they give back. `index.ts` re-exports them all but CommonInteractionOptions.
 */
import type { ChannelRef } from '../payloads.js';
import type { Choice, RecordedMessage, RecordedResponse } from '../types.js';

/** One seeded server: `fake.guild` is `fake.guilds[0]`. */
export interface FakeGuild {
  readonly id: string;
  readonly name: string;
  /** `(id >> 22) % shards`: the shard whose session receives its events. */
  readonly shard: number;
  readonly ownerId: string;
  readonly memberId: string;
  readonly otherMemberId: string;
  readonly roles: { readonly everyone: string; readonly bot: string; readonly moderators: string };
  readonly channels: {
    readonly category: string;
    readonly plain: string;
    readonly ageRestricted: string;
    readonly threadInPlain: string;
    readonly threadInAgeRestricted: string;
    /** A plain text channel with the IS_SPOILER_CHANNEL flag (1 << 21), and a thread in it. */
    readonly spoiler: string;
    readonly threadInSpoiler: string;
    readonly forum: string;
    readonly voice: string;
  };
}

/**
 * A server the bot is not in (`fake.foreignGuild`): built like `fake.guild` (owner, plain member, other
 * member, the same channels: plain, age-restricted, a thread in each, forum, voice) but without the bot's
 * member or role. Interactions come from it only through a user install (`install: 'user'`).
 */
export interface FakeForeignGuild {
  readonly id: string;
  readonly name: string;
  /** `(id >> 22) % shards`: the shard its interactions go to (they carry its guild_id). */
  readonly shard: number;
  readonly ownerId: string;
  readonly memberId: string;
  readonly otherMemberId: string;
  readonly roles: { readonly everyone: string; readonly moderators: string };
  readonly channels: FakeGuild['channels'];
}

/**
 * DMs between users, which the bot is not in (context 2, PRIVATE_CHANNEL): `dm` (type 1) between the plain
 * member and the other member of `fake.guild`, `groupDm` (type 3) of owner, plain member and other member.
 * Also usable as channel targets `'privateDm'` and `'groupDm'`.
 */
export interface FakePrivateChannels {
  readonly dm: string;
  readonly groupDm: string;
}

/**
 * An interaction the fake dispatched although Discord would not have offered the command there: a
 * registered command whose `contexts` leave out where it was used, or whose `integration_types` (or a guild
 * command) leave out the installation it was reached through. A test that expects Discord's behaviour
 * expects this list empty; the bot should register the command for that place.
 */
export interface UnavailableCommand {
  readonly name: string;
  readonly interactionId: string;
  /** 0 server, 1 bot DM, 2 private channel. */
  readonly context: number;
  readonly install: InstallKind;
  readonly reason: string;
  readonly at: number;
}

/** An event the fake would have dispatched, but no live session held its shard. */
export interface UndeliveredEvent {
  readonly t: string;
  readonly shard: number;
  readonly guildId: string | undefined;
  readonly at: number;
}

/** The DMs between users of `fake.privateChannels`. */
export type PrivateChannelRef = 'privateDm' | 'groupDm';

export type ChannelTarget = ChannelRef | PrivateChannelRef | (string & {});

/**
 * Through which installation of the app the user reaches it: 'guild' (the app installed in the server, or
 * the bot's DM reached through it: `authorizing_integration_owners` "0"), 'user' (the user's own install:
 * "1" → the user), 'both'. Default: 'guild' in the bot's servers and its DM, 'user' in servers the bot is
 * not in and in DMs between users (where nothing else can reach it).
 */
export type InstallKind = 'guild' | 'user' | 'both';

/** An option as Discord sends it (type from ApplicationCommandOptionType). */
export interface InteractionOption {
  readonly name: string;
  readonly type: number;
  readonly value?: string | number | boolean;
  readonly focused?: boolean;
  readonly options?: readonly InteractionOption[];
}

export type OptionValues = Readonly<Record<string, string | number | boolean>>;

export interface AttachmentInput {
  /** Name of the attachment option. */
  readonly option: string;
  readonly filename: string;
  readonly contentType?: string;
  /** Bytes the fake serves at the attachment URL. */
  readonly data?: Buffer | string;
  /** Overrides the URL (e.g. an image on the local Philomena); then `data` is not served. */
  readonly url?: string;
  readonly size?: number;
  readonly width?: number;
  readonly height?: number;
}

export interface CommonInteractionOptions {
  /**
   * A channel of the bot's servers (or a ref such as 'plain'), the bot's DM ('dm'), a channel of a server
   * the bot is not in (`fake.foreignGuild.channels.*`), or a DM between users ('privateDm', 'groupDm').
   */
  readonly channel: ChannelTarget;
  /** Default: the plain member of the channel's server (`fake.guild.memberId` for DMs). */
  readonly userId?: string;
  /** Member permissions (guild only); default: what the user's roles grant. */
  readonly permissions?: bigint | string;
  readonly locale?: string;
  /** See InstallKind; 'guild' or 'both' where the app is not installed throws. */
  readonly install?: InstallKind;
  /**
   * false: the server turned off Use External Apps (1 << 50) for this member here; it is taken out of the
   * member's permissions, and in a server the bot is not in Discord then makes every response and
   * follow-up ephemeral (`forcedEphemeral`). Default: as the permissions say (the fake's @everyone has it).
   */
  readonly externalApps?: boolean;
}

export interface CommandOptions extends CommonInteractionOptions {
  readonly name: string;
  /** Raw options, or `{ optionName: value }` typed from the registered command (or inferred). */
  readonly options?: readonly InteractionOption[] | OptionValues;
  readonly subcommand?: string;
  readonly subcommandGroup?: string;
  readonly attachments?: readonly AttachmentInput[];
}

export interface AutocompleteOptions extends CommonInteractionOptions {
  readonly name: string;
  readonly options?: readonly InteractionOption[] | OptionValues;
  /** The option being typed (marked `focused: true`); not needed when raw options carry `focused`. */
  readonly focused?: string;
  readonly subcommand?: string;
  readonly subcommandGroup?: string;
}

/** A member using a component of one of the bot's messages (sendButton, sendSelect). */
export interface ComponentOptions extends Omit<CommonInteractionOptions, 'channel'> {
  /** The component's custom_id; it may be nested anywhere in the tree (containers, sections ...). */
  readonly customId: string;
  /** The bot's message carrying the component. */
  readonly message: RecordedMessage | { readonly id: string };
  /** Default: the message's channel. */
  readonly channel?: ChannelTarget;
}

export type ButtonOptions = ComponentOptions;

export interface SelectOptions extends ComponentOptions {
  /**
   * The values the member picks: each among the select's options' values, at most once, between its
   * min_values and max_values (default 1 and 1).
   */
  readonly values: readonly string[];
}

/** A member picking channels in a channel select (component type 8) of one of the bot's messages. */
export interface ChannelSelectOptions extends ComponentOptions {
  /**
   * Channel ids (or refs such as 'plain') of the message's server: each of a type the select's
   * `channel_types` takes (all when it names none), at most once, between its min_values and max_values
   * (default 1 and 1).
   */
  readonly values: readonly string[];
}

/**
 * A member submitting a modal the bot showed in answer to `opener` (callback 9), as Discord's client
 * sends it: by the member who saw it, from the same channel, carrying the message whose component opened
 * it. `values` by the fields' custom_ids: text for a text input (left out: its prefilled value, or
 * empty), the picked values for a string select. Refused like the client would refuse it: no modal
 * shown, an unknown field, a required field empty, text under min_length or over max_length, picks the
 * select does not offer or outside its min_values..max_values.
 */
export interface ModalSubmitOptions {
  readonly opener: InteractionHandle | { readonly id: string };
  readonly values?: Readonly<Record<string, string | readonly string[]>>;
  readonly locale?: string;
}

export interface TargetMessageInput {
  /** An existing message (e.g. from sendMessage); otherwise one is created from the fields below. */
  readonly id?: string;
  readonly content?: string;
  readonly embeds?: readonly Record<string, unknown>[];
  readonly attachments?: readonly Record<string, unknown>[];
  readonly authorId?: string;
  /** Create the target as a forward of this message (content must then be empty). */
  readonly forwardOf?: ForwardSource;
}

/**
 * What a forwarded message forwards: an existing message (`id`: a RecordedMessage or MessageHandle fits),
 * or one described by its fields, which lives in `channel` (stored there as a user's message) or, without
 * one, in a channel of a server the bot cannot see (fresh message, channel and guild ids).
 */
export interface ForwardSource {
  readonly id?: string;
  readonly content?: string;
  readonly embeds?: readonly Record<string, unknown>[];
  readonly attachments?: readonly Record<string, unknown>[];
  readonly authorId?: string;
  readonly channel?: ChannelTarget;
}

export interface MessageCommandOptions extends CommonInteractionOptions {
  readonly name: string;
  readonly targetMessage: TargetMessageInput;
}

export interface SendMessageOptions {
  readonly channel: ChannelTarget;
  /** Must be empty or left out with `forwardOf` (Discord sends a forward's comment as its own message). */
  readonly content?: string;
  /** Default: the plain member. */
  readonly authorId?: string;
  readonly bot?: boolean;
  readonly embeds?: readonly Record<string, unknown>[];
  readonly attachments?: readonly Record<string, unknown>[];
  /** Reply to this message. */
  readonly replyTo?: string;
  /**
   * Forward this message: MESSAGE_CREATE with empty content, embeds and attachments of its own, flag
   * HAS_SNAPSHOT (1 << 14), `message_reference: { type: 1, message_id, channel_id, guild_id? }` and the
   * original in `message_snapshots: [{ message }]` (blanked too without the Message Content intent).
   */
  readonly forwardOf?: ForwardSource;
}

export interface InteractionHandle {
  readonly id: string;
  readonly token: string;
  /** The INTERACTION_CREATE payload as dispatched. */
  readonly payload: Record<string, unknown>;
  /** The first accepted callback and its latency; rejects if none arrives within the answer window. */
  readonly acknowledged: Promise<{ type: number; ms: number }>;
  /**
   * The completed reply: the callback-4 message; after a defer (5) the reply once an edit of @original or
   * the first follow-up has filled it in; after a deferred update (6) the message once @original is
   * edited; the updated message (7). A snapshot; rejects after `timeoutMs` (default 5000).
   */
  finalReply(timeoutMs?: number): Promise<RecordedMessage>;
  /** Callback, edits, follow-ups and deletions in order (refused ones included, with their status). */
  readonly responses: readonly RecordedResponse[];
  /** The choices of an accepted autocomplete answer. */
  autocompleteChoices(timeoutMs?: number): Promise<Choice[]>;
  /** The reply message as it is now, if any. */
  replyMessage(): RecordedMessage | undefined;
  /** Follow-up messages as they are now. */
  followUps(): RecordedMessage[];
  /**
   * Discord forces this interaction's answers ephemeral (user install, server the bot is not in, no Use
   * External Apps): every reply, defer and follow-up is made ephemeral; `responses[i].forcedEphemeral` marks
   * those that did not ask.
   */
  readonly forcedEphemeral: boolean;
}

export interface MessageHandle {
  readonly id: string;
  readonly channelId: string;
  readonly message: RecordedMessage;
  /** The bot's messages replying to this one (message_reference). */
  replies(): RecordedMessage[];
}

/** What `updateChannel` changes; what it leaves out stays. */
export interface ChannelChange {
  readonly nsfw?: boolean;
  /** The whole flags field, as Discord's Modify Channel takes it. */
  readonly flags?: number;
}

/** What `updateGuild` changes; what it leaves out stays. */
export interface GuildChange {
  /** A Discord locale (`de`, `es-ES` ...), as Modify Guild takes `preferred_locale`. */
  readonly preferredLocale?: string;
}
