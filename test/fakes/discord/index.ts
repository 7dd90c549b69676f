/**
 * The local Discord for end-to-end tests: REST (`/api/v10`) and the gateway WebSocket on 127.0.0.1,
 * reached by an unmodified discord.js 14 client through its REST base URL:
 *
 *   const fake = await startFakeDiscord();
 *   const client = new Client({ intents, rest: { api: fake.apiUrl } });
 *   await client.login(fake.token);              // GET /gateway/bot → gateway → READY + GUILD_CREATE
 *   const slash = fake.sendCommand({ name: 'image', options: { id: 1 }, channel: 'plain' });
 *   const reply = await slash.finalReply();      // the reply, or the edit after a defer
 *   expect(fake.violations).toEqual([]);         // nothing real Discord would have refused
 *   expect(fake.mentionRisks).toEqual([]);       // nothing could ping anyone
 *   client.destroy(); await fake.close();
 *
 * Seeded world (`fake.guild`): one guild owned by `ownerId` with a category, a plain text channel
 * (`channels.plain`, nsfw false), an age-restricted text channel (`channels.ageRestricted`, nsfw true), a
 * spoiler channel (`channels.spoiler`: nsfw false, `flags` IS_SPOILER_CHANNEL 1 << 21), a forum and a
 * voice channel, a public thread in each text channel, roles @everyone / the bot's managed
 * role (`botPermissions`, Manage Messages included by default) / Moderators (Manage Guild + Manage
 * Messages, held by the owner), and members owner, `memberId` (plain member) and `otherMemberId`. A DM
 * channel (`dmChannelId`) with the plain member.
 *
 * Shards: `startFakeDiscord({ shards: 2, maxConcurrency: 1, guilds: 4 })` recommends 2 shards in GET
 * /gateway/bot and accepts IDENTIFY `shard: [id, 2]` only (else 4010). The world then holds `guilds`
 * servers (default one per shard), built like `fake.guild` (which stays the first, on shard 0) with ids
 * on shard `i % shards` (`fake.guilds[i].shard`); REST knows every server's guild, channels and members
 * (a background poster can post into any of them). A session's
 * READY and GUILD_CREATEs cover its shard's guilds; interactions and MESSAGE_CREATE go to the session of
 * the guild's shard (DMs to shard 0), and with no such session they are recorded in `undelivered`. At
 * most one IDENTIFY per 5 s per bucket `shard_id % maxConcurrency`: one more is a 'gateway' violation
 * closed with 4008 (`identifies` has each IDENTIFY's shard id and time); not checked by the default
 * single-shard fake unless `identifyLimit: true`.
 *
 * Events towards the bot: `sendCommand`, `sendAutocomplete`, `sendButton` and `sendSelect` (string
 * select; either component may be nested in containers or sections), `sendMessageCommand` (message
 * context menu), `sendMessage` (MESSAGE_CREATE, content blanked unless the Message Content intent is
 * held, as Discord does). What the bot did: `requests` (every REST call), `violations` (every refusal real
 * Discord would have made, also answered with Discord's status and JSON error), `mentionRisks` (message
 * bodies whose allowed_mentions is not `{ parse: [] }`), `channelMessages(channel)`,
 * `registeredCommands(guildId?)`, `nonceReplays` (sends with `nonce` + `enforce_nonce: true` repeating a
 * nonce of the bot's in that channel within 5 minutes: answered with the earlier message, nothing new).
 * Faults: `inject({ route, status, retryAfter, times })` (429 with the headers discord.js reads, 5xx ...),
 * `dropGateway(code)` (the client resumes), `requestReconnect()`. Changes to the world, each also sent
 * over the gateway: `deleteChannel(channel)` (then 404 10003, CHANNEL_DELETE), `denyBot(channel, bits)`
 * / `allowBot(channel)` (a member overwrite: then 403 50013 Missing Permissions, or 50001 Missing Access
 * without View Channel; CHANNEL_UPDATE with the new permission_overwrites), `updateChannel(channel, { nsfw,
 * flags })` (CHANNEL_UPDATE; Discord's refusals thrown: the spoiler flag on an age-restricted channel,
 * either way round, and a thread's). GET /channels/:id answers `nsfw` and `flags` for channels and
 * `parent_id` for threads (a thread is age-restricted, or a spoiler channel's, when its parent is); so do
 * GUILD_CREATE, CHANNEL_UPDATE and an interaction's `channel` (the partial one too).
 *
 * User installs: `fake.foreignGuilds` (option `foreignGuilds`, default 1; `fake.foreignGuild` the first)
 * are servers the bot is NOT in, built like `fake.guild` (plain and age-restricted channels, a thread in
 * each ...) but with no bot member: no READY entry, GUILD_CREATE or MESSAGE_CREATE, and REST on their
 * channels, members and guild commands answers 403 50001 Missing Access (GET /guilds/:id 404 10004).
 * `fake.privateChannels` (`'privateDm'`, `'groupDm'`) are a DM and a group DM between users (REST: 403
 * 50001). Interactions there (`sendCommand({ channel: fake.foreignGuild.channels.plain })`, `channel:
 * 'groupDm'`) come as Discord sends them for a user-installed app: `context` 0 (server) or 2 (private
 * channel), `authorizing_integration_owners: { "1": user }`, a partial `channel` (a thread: `parent_id`,
 * no `nsfw`), `member` with `permissions` in a server and `user` elsewhere, and `app_permissions` (the
 * documented DM bits; in a server, the member's permissions limited to message bits, an approximation).
 * Every interaction carries `context` and owners: in the bot's servers and DM "0" (guild id, or "0" in the
 * DM); option `install: 'user' | 'guild' | 'both'` says through which installs the user came (default:
 * 'guild' where the app is installed, 'user' elsewhere). A registered command's `integration_types` /
 * `contexts` decide which keys Discord sends; dispatching one where Discord would not offer it is
 * recorded in `unavailableCommands`. `externalApps: false` takes Use External Apps (1 << 50) from the
 * member: in a server the bot is not in, every response and follow-up is then made ephemeral
 * (`handle.forcedEphemeral`, `responses[i].forcedEphemeral`). Authorized by a user install only, an
 * interaction gets at most 5 follow-up messages: the 6th is refused 400 40094 (a 'followup-limit'
 * violation). Interaction webhooks need no guild of the bot's and work for all of these.
 *
 * Resolved data: chat-input options of type user, channel, role and mentionable come with
 * `data.resolved` (users and members, partial channels, roles); a channel option's value may be a ref
 * ('ageRestricted'). Forwards: `sendMessage({ channel, forwardOf: message | { content, embeds, attachments,
 * channel? } })` dispatches a message with no content of its own, HAS_SNAPSHOT, `message_reference` type 1
 * and the original in `message_snapshots` (blanked with the content without the Message Content intent);
 * `sendMessageCommand({ targetMessage: { forwardOf } })` targets such a forward.
 *
 * Components V2 (flag IS_COMPONENTS_V2, 1 << 15): such bodies are checked as Discord does (no content,
 * embeds, poll or stickers; containers, sections, text displays, thumbnails, media galleries, files and
 * separators; at most 40 components counting nested ones and 4,000 characters over all text displays);
 * the flag stays on a message through its edits, a defer cannot set it (the edit that fills the reply in
 * does). `v2.ts` reads the trees back: `textOf`, `galleryItemsOf`, `componentsOfType`, `isComponentsV2`.
 *
 * Timing rules: an interaction callback later than `answerWindowMs` (default 3000) is refused with
 * 404 10062 Unknown interaction; a second callback with 400 40060; webhook calls after `tokenLifetimeMs`
 * (15 min) with 401 50027. Bodies are checked against its copy of Discord's OpenAPI description
 * (openapi.json) plus the documented limits (see validate.ts; docs/discord-platform.md).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ChannelType,
  ComponentType,
  PermissionFlagsBits,
} from 'discord.js';
import {
  INTENT_DIRECT_MESSAGES,
  INTENT_GUILDS,
  INTENT_GUILD_MESSAGES,
  INTENT_MESSAGE_CONTENT,
  createFakeGateway,
} from './gateway.js';
import type { FakeGateway, IdentifyRecord } from './gateway.js';
import {
  BOT_DM_APP_PERMISSIONS,
  DEFAULT_BOT_PERMISSIONS,
  HAS_SNAPSHOT_FLAG,
  IS_SPOILER_CHANNEL_FLAG,
  PRIVATE_CHANNEL_APP_PERMISSIONS,
  USER_INSTALL_APP_PERMISSION_MASK,
  botChannelPermissions,
  channelPayload,
  createSnowflakes,
  createWorld,
  dmChannelPayload,
  guildCreatePayload,
  memberPayload,
  memberPermissions,
  messagePayload,
  isThread,
  partialChannelPayload,
  privateChannelPayload,
  rolesPayload,
  shardOfGuild,
  snapshotOf,
  snowflakeOnShard,
  userOf,
  userPayload,
} from './payloads.js';
import type { ChannelRef, PrivateChannel, SeedChannel, World } from './payloads.js';
import { createFakeRest } from './rest.js';
import { createState } from './state.js';
import type { InjectRule, InteractionRecord, StoredCommand } from './state.js';
import type {
  Choice,
  GatewayClose,
  MentionRisk,
  NonceReplay,
  RecordedMessage,
  RecordedRequest,
  RecordedResponse,
  Violation,
} from './types.js';
import { componentWithCustomId, customIdsOf, type ComponentJson } from './v2.js';
import { precompile } from './validate.js';

export type {
  Choice,
  GatewayClose,
  MentionRisk,
  NonceReplay,
  RecordedMessage,
  RecordedRequest,
  RecordedResponse,
  Violation,
} from './types.js';
export type { InjectRule } from './state.js';
export type { IdentifyRecord } from './gateway.js';
export { isSilentMentions } from './rest.js';
export { IS_SPOILER_CHANNEL_FLAG } from './payloads.js';
export {
  allComponents,
  componentCount,
  componentWithCustomId,
  componentsOfType,
  customIdsOf,
  galleryItemsOf,
  isComponentsV2,
  textLength,
  textOf,
  type ComponentJson,
  type ComponentSource,
  type GalleryItem,
  type HasComponents,
} from './v2.js';

export interface FakeDiscordOptions {
  readonly token?: string;
  readonly applicationId?: string;
  readonly botUserId?: string;
  readonly botUsername?: string;
  /** Permissions of the bot's role in the guild (default: view, send, embed, attach, history, manage messages). */
  readonly botPermissions?: bigint;
  /** Default true; false → IDENTIFY with MESSAGE_CONTENT (1 << 15) is closed with 4014. */
  readonly allowMessageContentIntent?: boolean;
  /** Default false: GUILD_MEMBERS (1 << 1) is refused with 4014. */
  readonly allowGuildMembersIntent?: boolean;
  /** Default false: GUILD_PRESENCES (1 << 8) is refused with 4014. */
  readonly allowPresenceIntent?: boolean;
  /** Default 3000. */
  readonly answerWindowMs?: number;
  /** Default 15 minutes. */
  readonly tokenLifetimeMs?: number;
  /** Default 2000 (Discord sends ~41 s; short keeps heartbeats exercised in tests). */
  readonly heartbeatIntervalMs?: number;
  /** Clock used for every timing rule (default Date.now). */
  readonly now?: () => number;
  /** Shard count GET /gateway/bot recommends and IDENTIFY must use (default 1). */
  readonly shards?: number;
  /** session_start_limit.max_concurrency (default 1). */
  readonly maxConcurrency?: number;
  /** Servers in the world (default: one per shard); server i is on shard i % shards. */
  readonly guilds?: number;
  /**
   * Enforce the identify limit (one IDENTIFY per 5 s per bucket). Default: on when `shards` > 1 or
   * `maxConcurrency` is given; off for the plain single-shard fake, whose suites restart a bot (a new
   * discord.js client, hence a fresh identify throttler) against it within 5 s, as before.
   */
  readonly identifyLimit?: boolean;
  /**
   * Servers the bot is NOT in (default 1, `fake.foreignGuilds`): users reach the app there through their
   * own install only. The bot gets no READY entry, GUILD_CREATE or MESSAGE_CREATE for them; REST answers
   * 403 50001 Missing Access on their channels, members and commands (GET /guilds/:id 404 10004).
   */
  readonly foreignGuilds?: number;
  /**
   * The app's installation contexts as set in the Developer Portal (default [0, 1], Discord's default for
   * new apps): what a global command registered without `integration_types` supports.
   */
  readonly appIntegrationTypes?: readonly number[];
}

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

interface CommonInteractionOptions {
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

export interface FakeDiscord {
  readonly apiUrl: string;
  readonly gatewayUrl: string;
  readonly token: string;
  readonly applicationId: string;
  readonly botUserId: string;
  /** The first server (on shard 0). */
  readonly guild: FakeGuild;
  /** Every seeded server, `guild` first. */
  readonly guilds: readonly FakeGuild[];
  /** Servers the bot is not in (`foreignGuilds` option, default 1). */
  readonly foreignGuilds: readonly FakeForeignGuild[];
  /** The first of them; throws when started with `foreignGuilds: 0`. */
  readonly foreignGuild: FakeForeignGuild;
  readonly privateChannels: FakePrivateChannels;
  /** Interactions dispatched where Discord would not have offered the command (see UnavailableCommand). */
  readonly unavailableCommands: readonly UnavailableCommand[];
  /** Events not delivered because no session held their shard. */
  readonly undelivered: readonly UndeliveredEvent[];
  readonly dmChannelId: string;
  whenReady(): Promise<void>;
  whenResumed(): Promise<void>;
  sendCommand(options: CommandOptions): InteractionHandle;
  sendAutocomplete(options: AutocompleteOptions): InteractionHandle;
  /**
   * A click on a button (type 2) of a bot message, found anywhere in its tree (action rows, containers, a
   * section's accessory): INTERACTION_CREATE type 3 with `data: { custom_id, component_type: 2, id }` and
   * the message. Throws when the message is unknown or deleted or has no button with that custom_id.
   */
  sendButton(options: ButtonOptions): InteractionHandle;
  /**
   * A pick in a string select (type 3) of a bot message, found anywhere in its tree: INTERACTION_CREATE
   * type 3 with `data: { custom_id, component_type: 3, values, id }` and the message (discord.js:
   * `isStringSelectMenu()`). Throws when the select is missing or disabled, or `values` are not among its
   * options, repeat one, or are fewer than min_values or more than max_values. Answer it as a button's:
   * callbacks 4, 5, 6, 7.
   */
  sendSelect(options: SelectOptions): InteractionHandle;
  sendMessageCommand(options: MessageCommandOptions): InteractionHandle;
  sendMessage(options: SendMessageOptions): Promise<MessageHandle>;
  readonly requests: readonly RecordedRequest[];
  readonly violations: readonly Violation[];
  readonly mentionRisks: readonly MentionRisk[];
  /** Messages in a channel the bot posted, or edited (e.g. suppressed embeds on), in order. */
  channelMessages(channel: ChannelTarget): RecordedMessage[];
  /** Every stored message of a channel, the bot's and the users'. */
  allMessages(channel: ChannelTarget): RecordedMessage[];
  /**
   * Sends with `nonce` + `enforce_nonce: true` that repeated a nonce of the bot's in the same channel
   * within 5 minutes (the fake's clock): nothing was created, the earlier message was answered (200).
   */
  readonly nonceReplays: readonly NonceReplay[];
  /**
   * Deletes a channel (any server's) or thread: REST on it answers 404 10003 Unknown Channel from then
   * on, and the session holding the server's shard gets CHANNEL_DELETE (THREAD_DELETE for a thread, with
   * only id, guild_id, parent_id and type). A channel's threads go with it (no events of their own: a
   * discord.js client drops them with the parent); a category's channels move out of it (CHANNEL_UPDATE
   * each). Messages already sent stay readable through `channelMessages` / `allMessages`.
   */
  deleteChannel(channel: ChannelTarget): void;
  /**
   * Adds a member overwrite on a channel (not a thread: threads follow their parent) denying the bot
   * `permissions` (OR-ed with what an earlier call denied). REST then answers 403 50001 Missing Access
   * where the bot loses View Channel, else 403 50013 Missing Permissions for what it lacks (embeds are
   * dropped silently without Embed Links, as Discord does); the session of the server's shard gets
   * CHANNEL_UPDATE carrying the new `permission_overwrites`, so discord.js's `permissionsFor` agrees.
   */
  denyBot(channel: ChannelTarget, permissions: bigint): void;
  /** Removes the bot's overwrite on that channel again (CHANNEL_UPDATE with it gone). */
  allowBot(channel: ChannelTarget): void;
  /**
   * Changes a channel's age restriction (`nsfw`) and `flags` (e.g. IS_SPOILER_CHANNEL_FLAG, 1 << 21) as a
   * server admin would; the session of its server's shard gets CHANNEL_UPDATE, and GET /channels/:id and
   * interactions carry the new values. Throws what Discord refuses: a spoiler channel that is
   * age-restricted (Discord offers the flag only on channels that are not, and age restriction only on
   * channels without it), and `nsfw` or `flags` on a thread (a thread follows its parent: change that).
   */
  updateChannel(channel: ChannelTarget, change: ChannelChange): void;
  /**
   * The bot removed from one of its servers (kicked, or the server deleted; default `fake.guild`): the
   * session holding its shard gets GUILD_DELETE without `unavailable` (discord.js: `guildDelete`), later
   * sessions get no READY entry or GUILD_CREATE for it, and REST on its channels answers 403 50001
   * Missing Access, as for a server the bot is not in.
   */
  removeBot(guildId?: string): void;
  message(id: string): RecordedMessage | undefined;
  registeredCommands(guildId?: string): StoredCommand[];
  inject(rule: InjectRule): void;
  /**
   * A file on the fake's CDN (its own origin: the one place besides Discord's CDN the bot downloads
   * attachments from), for an attachment's `url`: these bytes, or a host that resets the connection
   * ('reset') or sends the headers and one byte and then nothing ('stall'). Returns its URL.
   */
  cdnFile(filename: string, content: Uint8Array | 'reset' | 'stall'): string;
  /** Close the gateway socket (1006 = abrupt, without a close frame). The session stays resumable. */
  dropGateway(code?: number): void;
  /** Send op 7 RECONNECT. */
  requestReconnect(): void;
  readonly gatewayCloses: readonly GatewayClose[];
  readonly identifies: readonly IdentifyRecord[];
  readonly resumes: FakeGateway['resumes'];
  /** Resolves when `check` returns something other than undefined (re-checked on every change). */
  waitFor<T>(check: () => T | undefined, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/** MessageFlags.Loading: a deferred reply not yet filled in. */
const LOADING_FLAG = 1 << 7;
const EPHEMERAL_FLAG = 1 << 6;
const DEFAULT_TOKEN = 'MTA5.fake-discord.bot-token-for-tests';

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const now = options.now ?? Date.now;
  const snowflake = createSnowflakes(now);
  const applicationId = options.applicationId ?? snowflake();
  const botUserId = options.botUserId ?? applicationId;
  const token = options.token ?? DEFAULT_TOKEN;
  const shards = options.shards ?? 1;
  const maxConcurrency = options.maxConcurrency ?? 1;
  if (!Number.isInteger(shards) || shards < 1) throw new Error(`fake Discord: shards ${shards}`);
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
    throw new Error(`fake Discord: maxConcurrency ${maxConcurrency}`);
  }
  const guildCount = options.guilds ?? shards;
  const worlds: World[] = [];
  for (let i = 0; i < guildCount; i += 1) {
    worlds.push(
      createWorld({
        snowflake,
        botUserId,
        botUsername: options.botUsername ?? 'philomena-bot',
        botPermissions: options.botPermissions ?? DEFAULT_BOT_PERMISSIONS,
        now,
        // One shard: the ids exactly as before (every guild is on shard 0).
        ...(shards === 1 ? {} : { guildId: snowflakeOnShard(snowflake, i % shards, shards) }),
        ...(i === 0 ? {} : { guildName: `Fake Guild ${i + 1}` }),
      }),
    );
  }
  const world = worlds[0] as World;
  const foreignWorlds: World[] = [];
  for (let i = 0; i < (options.foreignGuilds ?? 1); i += 1) {
    foreignWorlds.push(
      createWorld({
        snowflake,
        botUserId,
        botUsername: options.botUsername ?? 'philomena-bot',
        botPermissions: 0n,
        now,
        botIsMember: false,
        ...(shards === 1 ? {} : { guildId: snowflakeOnShard(snowflake, i % shards, shards) }),
        guildName: `Foreign Guild ${i + 1}`,
      }),
    );
  }
  // DMs between users of the first server (the bot is in neither).
  const other = [...world.users.values()].find((u) => u.username === 'other_member')?.id ?? world.ownerId;
  const privateChannels = new Map<string, PrivateChannel>();
  const privateDm: PrivateChannel = {
    id: snowflake(),
    type: ChannelType.DM,
    recipientIds: [world.dmUserId, other],
  };
  const groupDm: PrivateChannel = {
    id: snowflake(),
    type: ChannelType.GroupDM,
    recipientIds: [world.ownerId, world.dmUserId, other],
    name: 'art friends',
    ownerId: world.ownerId,
  };
  for (const c of [privateDm, groupDm]) privateChannels.set(c.id, c);
  const privateRefs: Record<PrivateChannelRef, string> = { privateDm: privateDm.id, groupDm: groupDm.id };
  const appIntegrationTypes = options.appIntegrationTypes ?? [0, 1];
  const unavailableCommands: UnavailableCommand[] = [];
  const shardOf = (guildId: string): number => shardOfGuild(guildId, shards);
  const undelivered: UndeliveredEvent[] = [];
  const state = createState({
    token,
    applicationId,
    world,
    worlds,
    foreignWorlds,
    privateChannels,
    answerWindowMs: options.answerWindowMs ?? 3000,
    tokenLifetimeMs: options.tokenLifetimeMs ?? 15 * 60_000,
    now,
    snowflake,
    shards,
    maxConcurrency,
  });
  // Compile the schemas now, so that the first callback is not slowed by it.
  precompile([
    'CreateMessageInteractionCallbackRequest',
    'UpdateMessageInteractionCallbackRequest',
    'ApplicationCommandAutocompleteCallbackRequest',
    'IncomingWebhookUpdateRequestPartial',
    'IncomingWebhookRequestPartial',
    'MessageCreateRequest',
    'MessageEditRequestPartial',
  ]);

  let port = 0;
  const gatewayUrl = (): string => `ws://127.0.0.1:${port}/gateway`;
  const rest = createFakeRest(state, gatewayUrl);
  const gateway = createFakeGateway({
    token,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 2000,
    allowMessageContentIntent: options.allowMessageContentIntent ?? true,
    allowGuildMembersIntent: options.allowGuildMembersIntent ?? false,
    allowPresenceIntent: options.allowPresenceIntent ?? false,
    shardCount: shards,
    maxConcurrency,
    identifyLimit: options.identifyLimit ?? (shards > 1 || options.maxConcurrency !== undefined),
    onSessionStart: () => {
      state.sessionStartsRemaining = Math.max(0, state.sessionStartsRemaining - 1);
    },
    newSessionId: () => randomBytes(16).toString('hex'),
    resumeUrl: () => `ws://127.0.0.1:${port}/gateway/resume`,
    readyPayload: (sessionId, shard) => ({
      v: 10,
      user: { ...userPayload(world.bot), verified: true, mfa_enabled: true, email: null },
      guilds: worlds
        .filter((w) => shardOf(w.guildId) === shard[0] && !state.removedFrom.has(w.guildId))
        .map((w) => ({ id: w.guildId, unavailable: true })),
      session_id: sessionId,
      session_type: 'normal',
      resume_gateway_url: `ws://127.0.0.1:${port}/gateway/resume`,
      shard: [...shard],
      application: { id: applicationId, flags: 1 << 19 },
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: ['rotterdam'],
      user_settings: {},
      auth: {},
      _trace: ['["fake-discord",{"micros":0}]'],
    }),
    afterReady: (intents, shard) =>
      (intents & INTENT_GUILDS) === 0
        ? []
        : worlds
            .filter((w) => shardOf(w.guildId) === shard[0] && !state.removedFrom.has(w.guildId))
            .map((w) => ({ t: 'GUILD_CREATE', d: guildCreatePayload(w, now) })),
    violation: (v) => state.violation(v),
    now,
  });

  const server = createServer((request, response) => rest.handle(request, response));
  server.on('upgrade', (request, socket, head) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === gateway.path || path.startsWith(`${gateway.path}/`)) {
      gateway.handleUpgrade(request, socket, head);
    } else {
      socket.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  state.baseUrl = `http://127.0.0.1:${port}`;

  // ---------------------------------------------------------------------------------------------------

  /** Channels `deleteChannel` took out, with their server: their messages stay readable. */
  const deletedChannels = new Map<string, { world: World; channel: SeedChannel }>();

  function channelIdOf(target: ChannelTarget, { deleted = false }: { deleted?: boolean } = {}): string {
    const id =
      target in world.refs
        ? world.refs[target as keyof typeof world.refs]
        : target in privateRefs
          ? privateRefs[target as PrivateChannelRef]
          : target;
    if (
      id === world.dmChannelId ||
      privateChannels.has(id) ||
      [...worlds, ...foreignWorlds].some((w) => w.channels.has(id))
    ) {
      return id;
    }
    if (deletedChannels.has(id)) {
      if (deleted) return id;
      throw new Error(`fake Discord: channel ${target} was deleted`);
    }
    throw new Error(`fake Discord: unknown channel ${target}`);
  }

  /** A live guild channel or thread and its server (not the DM). */
  function guildChannel(target: ChannelTarget, what: string): { w: World; channel: SeedChannel } {
    const id = channelIdOf(target);
    const w = worlds.find((candidate) => candidate.channels.has(id));
    const channel = w?.channels.get(id);
    if (w === undefined || channel === undefined)
      throw new Error(`fake Discord: ${what} needs a guild channel`);
    return { w, channel };
  }

  /** CHANNEL_UPDATE (sent with the Guilds intent) to the session of the channel's server. */
  function dispatchChannelUpdate(w: World, channel: SeedChannel): void {
    const d = channelPayload(w, channel, now);
    dispatchToShard('CHANNEL_UPDATE', w.guildId, (intents) => ((intents & INTENT_GUILDS) === 0 ? null : d));
  }

  /** The server a channel belongs to (the DM: the first world, whose plain member it is with). */
  function worldOf(channelId: string): World {
    return [...worlds, ...foreignWorlds].find((w) => w.channels.has(channelId)) ?? world;
  }

  /** Where a channel is: a server (the bot's, or one it is not in), the bot's DM, a DM between users. */
  type Place =
    | { readonly kind: 'guild'; readonly w: World; readonly channel: SeedChannel }
    | { readonly kind: 'botDm' }
    | { readonly kind: 'private'; readonly channel: PrivateChannel };

  function placeOf(channelId: string): Place {
    if (channelId === world.dmChannelId) return { kind: 'botDm' };
    const privateChannel = privateChannels.get(channelId);
    if (privateChannel !== undefined) return { kind: 'private', channel: privateChannel };
    for (const w of [...worlds, ...foreignWorlds]) {
      const channel = w.channels.get(channelId);
      if (channel !== undefined) return { kind: 'guild', w, channel };
    }
    throw new Error(`fake Discord: unknown channel ${channelId}`);
  }

  /** The interaction context type of a place: 0 GUILD, 1 BOT_DM, 2 PRIVATE_CHANNEL. */
  const contextOf = (place: Place): number => (place.kind === 'guild' ? 0 : place.kind === 'botDm' ? 1 : 2);

  /** Is the app installed where the place is (its own server, or its DM)? */
  const appInstalledAt = (place: Place): boolean =>
    place.kind === 'botDm' || (place.kind === 'guild' && place.w.botIsMember);

  /**
   * Dispatch to the session holding the guild's shard (a DM: shard 0); with none, Discord would not
   * deliver it either, so the fake records it in `undelivered`.
   */
  function dispatchToShard(
    t: string,
    guildId: string | undefined,
    build: (intents: number) => unknown,
  ): void {
    const shard = guildId === undefined ? 0 : shardOf(guildId);
    if (gateway.dispatch(t, build, shard) === 0) undelivered.push({ t, shard, guildId, at: now() });
  }

  /** The registered command by that name: a guild command only in its own server (Discord shows it nowhere else). */
  function commandNamed(name: string, type: number, channelId: string): StoredCommand | undefined {
    const place = placeOf(channelId);
    const guildList =
      place.kind === 'guild' && place.w.botIsMember ? (state.guildCommands.get(place.w.guildId) ?? []) : [];
    return [...guildList, ...state.globalCommands].find((c) => c.name === name && c.type === type);
  }

  const numberList = (value: unknown): number[] | undefined =>
    Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : undefined;

  /**
   * `authorizing_integration_owners` as Discord builds it: "0" (the guild id, "0" in the bot's DM) when the
   * app is installed there, the user came through it and the command supports guild installs; "1" (the
   * user) when the user came through their own install and the command supports user installs. A command
   * Discord would not have offered there is still dispatched (with the keys the install asked for) and
   * recorded in `unavailableCommands`.
   */
  function authorize(
    place: Place,
    install: InstallKind | undefined,
    userId: string,
    command: StoredCommand | undefined,
    interactionId: string,
  ): Record<string, string> {
    const installed = appInstalledAt(place);
    const chosen = install ?? (installed ? 'guild' : 'user');
    const where =
      place.kind === 'guild'
        ? `server ${place.w.guildId}`
        : place.kind === 'botDm'
          ? "the bot's DM"
          : 'a private channel';
    if (!installed && chosen !== 'user') {
      throw new Error(
        `fake Discord: the app is not installed in ${where}: only install 'user' reaches it there`,
      );
    }
    if (place.kind === 'guild' && installed && chosen === 'user') {
      throw new Error(
        `fake Discord: the app is installed in ${where}, so Discord authorizes through that install too: use install 'both'`,
      );
    }
    const context = contextOf(place);
    let viaGuild = chosen !== 'user';
    let viaUser = chosen !== 'guild';
    const problems: string[] = [];
    if (command !== undefined) {
      const guildCommand = command['guild_id'] !== undefined;
      const types = guildCommand ? [0] : (numberList(command['integration_types']) ?? appIntegrationTypes);
      // Left out (or null), contexts mean every context; guild commands live in their server only.
      const contexts = guildCommand ? [0] : (numberList(command['contexts']) ?? [0, 1, 2]);
      if (!contexts.includes(context)) {
        problems.push(`its contexts [${contexts.join(', ')}] leave out context ${context} (${where})`);
      }
      const supported = { guild: viaGuild && types.includes(0), user: viaUser && types.includes(1) };
      if (!supported.guild && !supported.user) {
        problems.push(
          `${guildCommand ? 'a guild command' : `its integration_types [${types.join(', ')}]`} leave out a ${chosen} install`,
        );
      } else {
        viaGuild = supported.guild;
        viaUser = supported.user;
      }
    }
    if (problems.length > 0) {
      unavailableCommands.push({
        name: command?.name ?? '',
        interactionId,
        context,
        install: chosen,
        reason: `Discord would not offer /${command?.name ?? ''} here: ${problems.join('; ')}`,
        at: now(),
      });
    }
    const owners: Record<string, string> = {};
    if (viaGuild) owners['0'] = place.kind === 'guild' ? place.w.guildId : '0';
    if (viaUser) owners['1'] = userId;
    return owners;
  }

  /** Definitions of the options at the level the values go (inside subcommand/group when given). */
  function optionDefinitions(
    command: StoredCommand | undefined,
    group: string | undefined,
    sub: string | undefined,
  ): Record<string, unknown>[] {
    const list = (value: unknown): Record<string, unknown>[] =>
      Array.isArray(value)
        ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null)
        : [];
    let level = list(command?.['options']);
    for (const name of [group, sub]) {
      if (name === undefined) continue;
      level = list(level.find((o) => o['name'] === name)?.['options']);
    }
    return level;
  }

  function inferType(value: string | number | boolean): number {
    if (typeof value === 'boolean') return ApplicationCommandOptionType.Boolean;
    if (typeof value === 'number') {
      return Number.isInteger(value)
        ? ApplicationCommandOptionType.Integer
        : ApplicationCommandOptionType.Number;
    }
    return ApplicationCommandOptionType.String;
  }

  function buildOptions(
    command: StoredCommand | undefined,
    input: readonly InteractionOption[] | OptionValues | undefined,
    spec: { group?: string | undefined; sub?: string | undefined; focused?: string | undefined },
    attachmentOptions: InteractionOption[],
  ): InteractionOption[] {
    let leaf: InteractionOption[];
    if (Array.isArray(input)) {
      leaf = [...(input as readonly InteractionOption[])];
    } else {
      const defs = optionDefinitions(command, spec.group, spec.sub);
      leaf = Object.entries((input ?? {}) as OptionValues).map(([name, value]) => {
        const def = defs.find((d) => d['name'] === name);
        const type = typeof def?.['type'] === 'number' ? def['type'] : inferType(value);
        return { name, type, value, ...(spec.focused === name ? { focused: true } : {}) };
      });
    }
    leaf.push(...attachmentOptions);
    if (spec.sub !== undefined) {
      leaf = [{ name: spec.sub, type: ApplicationCommandOptionType.Subcommand, options: leaf }];
    }
    if (spec.group !== undefined) {
      leaf = [{ name: spec.group, type: ApplicationCommandOptionType.SubcommandGroup, options: leaf }];
    }
    return leaf;
  }

  /**
   * The live message a component interaction starts from and the component with `customId` on it, found
   * anywhere in its tree (action rows, containers, a section's accessory); throws like a member who
   * could not click it.
   */
  function componentOn(
    target: ComponentOptions['message'],
    customId: string,
    caller: string,
  ): { message: RecordedMessage; component: ComponentJson } {
    const message = state.messages.get(target.id);
    if (message === undefined || message.deleted) {
      throw new Error(`fake Discord: ${caller} on unknown message ${target.id}`);
    }
    const component = componentWithCustomId(message, customId);
    if (component === undefined) {
      const present = customIdsOf(message);
      throw new Error(
        `fake Discord: message ${message.id} has no component ${customId} (has: ${present.join(', ') || 'none'})`,
      );
    }
    return { message, component };
  }

  /**
   * INTERACTION_CREATE type 3 for a component of `message`: `data` plus the component's `id` as Discord
   * numbered it, and the message as Discord sends it (with the interaction it answered, if any).
   */
  function dispatchComponent(
    message: RecordedMessage,
    opts: ComponentOptions,
    data: Record<string, unknown>,
  ): InteractionHandle {
    const interaction =
      message.interactionId === undefined ? undefined : state.interactions.get(message.interactionId);
    const payloadMessage = messagePayload(
      world,
      message,
      interaction === undefined
        ? {}
        : {
            type: interaction.type === 2 ? 20 : 0,
            interactionMetadata: {
              id: interaction.id,
              type: interaction.type,
              user: userPayload(userOf(world, interaction.userId)),
              authorizing_integration_owners: { ...interaction.owners },
            },
          },
    );
    const numbered = componentWithCustomId(
      payloadMessage['components'] as unknown[],
      String(data['custom_id']),
    );
    // A component on an interaction's answer is authorized by that interaction's installs (its user
    // install stays the one of the user who ran the command, whoever clicks).
    return dispatchInteraction(
      3,
      { ...opts, channel: opts.channel ?? message.channelId },
      { ...(numbered === undefined ? {} : { id: numbered['id'] }), ...data },
      { componentMessageId: message.id, message: payloadMessage, owners: interaction?.owners },
    );
  }

  function createHandle(record: InteractionRecord, payload: Record<string, unknown>): InteractionHandle {
    let acknowledged: Promise<{ type: number; ms: number }> | undefined;
    const snapshot = (message: RecordedMessage): RecordedMessage => structuredClone(message);
    const completed = (): RecordedMessage | undefined => {
      const { ackType } = record;
      if (ackType === undefined) return undefined;
      const message =
        record.originalMessageId === undefined ? undefined : state.messages.get(record.originalMessageId);
      if (message === undefined) return undefined;
      if (ackType === 4 || ackType === 7) return snapshot(message);
      if (ackType === 5) return (message.flags & LOADING_FLAG) === 0 ? snapshot(message) : undefined;
      if (ackType === 6) {
        const edited = record.responses.some((r) => r.kind === 'edit-original' && r.status === 200);
        return edited ? snapshot(message) : undefined;
      }
      return undefined;
    };
    return {
      id: record.id,
      token: record.token,
      payload,
      get acknowledged() {
        acknowledged ??= state.waitFor(
          () =>
            record.ackType === undefined || record.ackAt === undefined
              ? undefined
              : { type: record.ackType, ms: record.ackAt - record.dispatchedAt },
          state.answerWindowMs + 200,
          () => `interaction ${record.id} to be acknowledged`,
        );
        return acknowledged;
      },
      finalReply(timeoutMs = 5000) {
        return state.waitFor(completed, timeoutMs, () => {
          const seen = record.responses.map((r) => `${r.kind}${r.callbackType ?? ''}:${r.status}`).join(', ');
          return `the final reply to interaction ${record.id} (responses so far: ${seen || 'none'})`;
        });
      },
      responses: record.responses,
      autocompleteChoices(timeoutMs = 5000) {
        return state.waitFor(
          () => record.choices,
          timeoutMs,
          () => `autocomplete choices for interaction ${record.id}`,
        );
      },
      replyMessage() {
        const id = record.originalMessageId;
        const message = id === undefined ? undefined : state.messages.get(id);
        return message === undefined ? undefined : snapshot(message);
      },
      followUps() {
        return [...record.followupIds].flatMap((id) => {
          const message = state.messages.get(id);
          return message === undefined ? [] : [snapshot(message)];
        });
      },
      forcedEphemeral: record.forceEphemeral,
    };
  }

  /** The Use External Apps bit (1 << 50). */
  const USE_EXTERNAL_APPS = PermissionFlagsBits.UseExternalApps;

  function dispatchInteraction(
    type: number,
    common: CommonInteractionOptions,
    data: Record<string, unknown>,
    extra: {
      componentMessageId?: string;
      message?: Record<string, unknown>;
      /** The registered command, to check where Discord offers it. */
      command?: StoredCommand | undefined;
      /** A component on a message answering another interaction keeps that interaction's owners. */
      owners?: Readonly<Record<string, string>> | undefined;
    } = {},
  ): InteractionHandle {
    const channelId = channelIdOf(common.channel);
    const place = placeOf(channelId);
    const w = place.kind === 'guild' ? place.w : world;
    const userId = common.userId ?? w.dmUserId;
    const inGuild = place.kind === 'guild';
    const id = snowflake();
    const interactionToken = `aW50ZXJhY3Rpb24${randomBytes(48).toString('base64url')}`;
    const context = contextOf(place);
    const authorized = authorize(place, common.install, userId, extra.command, id);
    const owners = extra.owners ?? authorized;
    let memberPerms =
      common.permissions === undefined ? memberPermissions(w, userId) : BigInt(common.permissions);
    if (common.externalApps === false) memberPerms &= ~USE_EXTERNAL_APPS;
    // "If Use External Apps is disabled and your app is not installed to the server, your app's responses
    // will be ephemeral for the end user."
    const forceEphemeral =
      place.kind === 'guild' && !place.w.botIsMember && (memberPerms & USE_EXTERNAL_APPS) === 0n;
    let channelJson: Record<string, unknown>;
    let appPermissions: bigint;
    if (place.kind === 'guild' && place.w.botIsMember) {
      channelJson = { ...channelPayload(w, place.channel, now), permissions: memberPerms.toString() };
      appPermissions = botChannelPermissions(w, channelId);
    } else if (place.kind === 'guild') {
      // The bot is not in this server: the partial channel is all the interaction tells of it.
      appPermissions = memberPerms & USER_INSTALL_APP_PERMISSION_MASK;
      channelJson = partialChannelPayload(w, place.channel, now, { permissions: memberPerms });
    } else if (place.kind === 'botDm') {
      channelJson = dmChannelPayload(world);
      appPermissions = BOT_DM_APP_PERMISSIONS;
    } else {
      channelJson = privateChannelPayload(world, place.channel, userId);
      appPermissions = PRIVATE_CHANNEL_APP_PERMISSIONS;
    }
    if (type === 2 && data['type'] === ApplicationCommandType.ChatInput) {
      resolveOptionData(data, place, memberPerms, userId);
    }
    const payload: Record<string, unknown> = {
      id,
      application_id: applicationId,
      type,
      data,
      token: interactionToken,
      version: 1,
      locale: common.locale ?? 'en-US',
      entitlements: [],
      attachment_size_limit: 10 * 1024 * 1024,
      channel_id: channelId,
      channel: channelJson,
      app_permissions: appPermissions.toString(),
      authorizing_integration_owners: { ...owners },
      context,
    };
    if (inGuild) {
      payload['guild_id'] = w.guildId;
      payload['guild_locale'] = 'en-US';
      payload['guild'] = { id: w.guildId, locale: 'en-US', features: [] };
      payload['member'] = memberPayload(w, userId, { permissions: memberPerms });
    } else {
      payload['user'] = userPayload(userOf(world, userId));
    }
    if (extra.message !== undefined) payload['message'] = extra.message;
    const record: InteractionRecord = {
      id,
      token: interactionToken,
      type,
      channelId,
      guildId: inGuild ? w.guildId : undefined,
      userId,
      context,
      owners,
      forceEphemeral,
      dispatchedAt: now(),
      componentMessageId: extra.componentMessageId,
      ackType: undefined,
      ackAt: undefined,
      originalMessageId: undefined,
      ephemeral: false,
      choices: undefined,
      responses: [],
      followupIds: new Set(),
      deadline: undefined,
    };
    record.deadline = setTimeout(() => {
      if (record.ackType === undefined) {
        state.violation({
          kind: 'late-answer',
          message: `interaction ${id} (${String(data['name'] ?? data['custom_id'])}) not answered within ${state.answerWindowMs} ms`,
        });
      }
    }, state.answerWindowMs);
    record.deadline.unref();
    state.interactions.set(id, record);
    state.interactionsByToken.set(interactionToken, record);
    // Events with a guild_id go to its shard (a server the bot is not in too); the rest to shard 0.
    dispatchToShard('INTERACTION_CREATE', inGuild ? w.guildId : undefined, () => payload);
    return createHandle(record, payload);
  }

  /**
   * `data.resolved` for user, channel, role and mentionable options, as Discord sends it: users (and, in a
   * server, members without user, deaf and mute, with permissions), partial channels, roles. Channel
   * option values may be refs ('plain', 'threadInPlain' ...), turned into ids here.
   */
  function resolveOptionData(
    data: Record<string, unknown>,
    place: Place,
    memberPerms: bigint,
    userId: string,
  ): void {
    const users: Record<string, unknown> = {};
    const members: Record<string, unknown> = {};
    const channels: Record<string, unknown> = {};
    const roles: Record<string, unknown> = {};
    const w = place.kind === 'guild' ? place.w : world;
    const roleList = place.kind === 'guild' ? rolesPayload(w) : [];
    const addUser = (userId: string): boolean => {
      users[userId] = userPayload(userOf(w, userId));
      if (place.kind === 'guild' && w.memberRoles.has(userId)) {
        const member = memberPayload(w, userId, { permissions: memberPermissions(w, userId) });
        for (const key of ['user', 'deaf', 'mute']) delete member[key];
        members[userId] = member;
      }
      return true;
    };
    const addRole = (roleId: string): boolean => {
      const role = roleList.find((r) => r['id'] === roleId);
      if (role === undefined) return false;
      roles[roleId] = role;
      return true;
    };
    const walk = (options: unknown): unknown =>
      !Array.isArray(options)
        ? options
        : options.map((raw: unknown) => {
            if (typeof raw !== 'object' || raw === null) return raw;
            const option = { ...(raw as Record<string, unknown>) };
            if (Array.isArray(option['options'])) option['options'] = walk(option['options']);
            const value = option['value'];
            if (typeof value !== 'string' || option['focused'] === true) return option;
            switch (option['type']) {
              case ApplicationCommandOptionType.User:
                addUser(value);
                break;
              case ApplicationCommandOptionType.Role:
                addRole(value);
                break;
              case ApplicationCommandOptionType.Mentionable:
                if (!addRole(value)) addUser(value);
                break;
              case ApplicationCommandOptionType.Channel: {
                let channelId: string;
                try {
                  channelId = channelIdOf(value);
                } catch {
                  break; // A channel the fake does not know: left unresolved.
                }
                option['value'] = channelId;
                const target = placeOf(channelId);
                if (target.kind === 'guild') {
                  channels[channelId] = partialChannelPayload(target.w, target.channel, now, {
                    permissions: memberPerms,
                    appPermissions: target.w.botIsMember
                      ? botChannelPermissions(target.w, channelId)
                      : memberPerms & USER_INSTALL_APP_PERMISSION_MASK,
                  });
                } else if (target.kind === 'botDm') {
                  channels[channelId] = dmChannelPayload(world);
                } else {
                  channels[channelId] = privateChannelPayload(world, target.channel, userId);
                }
                break;
              }
              default:
                break;
            }
            return option;
          });
    data['options'] = walk(data['options']);
    const resolved: Record<string, unknown> = {
      ...(typeof data['resolved'] === 'object' && data['resolved'] !== null
        ? (data['resolved'] as Record<string, unknown>)
        : {}),
    };
    if (Object.keys(users).length > 0) resolved['users'] = users;
    if (Object.keys(members).length > 0) resolved['members'] = members;
    if (Object.keys(channels).length > 0) resolved['channels'] = channels;
    if (Object.keys(roles).length > 0) resolved['roles'] = roles;
    if (Object.keys(resolved).length > 0) data['resolved'] = resolved;
  }

  function attachmentInputs(
    inputs: readonly AttachmentInput[] | undefined,
    channelId: string,
  ): { options: InteractionOption[]; resolved: Record<string, unknown> } {
    const resolved: Record<string, unknown> = {};
    const optionsOut: InteractionOption[] = [];
    for (const input of inputs ?? []) {
      const id = snowflake();
      const contentType = input.contentType ?? 'image/png';
      const cdnPath = `/cdn/attachments/${channelId}/${id}/${encodeURIComponent(input.filename)}`;
      const data = input.data === undefined ? undefined : Buffer.from(input.data);
      if (data !== undefined && input.url === undefined) state.files.set(cdnPath, { data, contentType });
      const url = input.url ?? `${state.baseUrl}${cdnPath}`;
      resolved[id] = {
        id,
        filename: input.filename,
        size: input.size ?? data?.length ?? 0,
        url,
        proxy_url: url,
        content_type: contentType,
        ...(input.width === undefined ? {} : { width: input.width }),
        ...(input.height === undefined ? {} : { height: input.height }),
        ephemeral: true,
      };
      optionsOut.push({ name: input.option, type: ApplicationCommandOptionType.Attachment, value: id });
    }
    return { options: optionsOut, resolved };
  }

  /** The guild id of a channel of any server; undefined for DMs. */
  function guildIdOf(channelId: string): string | undefined {
    const place = placeOf(channelId);
    return place.kind === 'guild' ? place.w.guildId : undefined;
  }

  /**
   * The message_reference and snapshot of a forward of `source`: an existing message, or one made from the
   * fields (stored in `source.channel`, or from a server the bot cannot see: fresh ids, nothing stored).
   */
  function forwardFrom(source: ForwardSource): {
    reference: NonNullable<RecordedMessage['messageReference']>;
    snapshot: Record<string, unknown>;
  } {
    let original: RecordedMessage;
    let reference: NonNullable<RecordedMessage['messageReference']>;
    if (source.id !== undefined) {
      const found = state.messages.get(source.id);
      if (found === undefined || found.deleted) {
        throw new Error(`fake Discord: cannot forward unknown or deleted message ${source.id}`);
      }
      if ((found.flags & EPHEMERAL_FLAG) !== 0) {
        throw new Error(`fake Discord: ephemeral message ${source.id} cannot be forwarded`);
      }
      original = found;
    } else if (source.channel !== undefined) {
      original = storeUserMessage(channelIdOf(source.channel), {
        content: source.content,
        authorId: source.authorId,
        embeds: source.embeds,
        attachments: source.attachments,
      });
    } else {
      const channelId = snowflake();
      original = {
        id: snowflake(),
        channelId,
        authorId: source.authorId ?? world.ownerId,
        bot: false,
        content: source.content ?? '',
        embeds: [...(source.embeds ?? [])],
        components: [],
        allowedMentions: undefined,
        flags: 0,
        messageReference: undefined,
        attachments: (source.attachments ?? []).map((a) => ({ id: snowflake(), ...a })),
        interactionId: undefined,
        webhookId: undefined,
        createdAt: now() - 60_000,
        editedAt: undefined,
        edits: 0,
        deleted: false,
      };
      reference = { type: 1, message_id: original.id, channel_id: channelId, guild_id: snowflake() };
      return { reference, snapshot: snapshotOf(world, original) };
    }
    const guildId = guildIdOf(original.channelId);
    reference = {
      type: 1,
      message_id: original.id,
      channel_id: original.channelId,
      ...(guildId === undefined ? {} : { guild_id: guildId }),
    };
    return { reference, snapshot: snapshotOf(worldOf(original.channelId), original) };
  }

  function storeUserMessage(
    channelId: string,
    input: {
      content?: string | undefined;
      authorId?: string | undefined;
      embeds?: readonly Record<string, unknown>[] | undefined;
      attachments?: readonly Record<string, unknown>[] | undefined;
      replyTo?: string | undefined;
      forwardOf?: ForwardSource | undefined;
    },
  ): RecordedMessage {
    const forward = input.forwardOf === undefined ? undefined : forwardFrom(input.forwardOf);
    if (
      forward !== undefined &&
      ((input.content ?? '') !== '' ||
        (input.embeds ?? []).length > 0 ||
        (input.attachments ?? []).length > 0 ||
        input.replyTo !== undefined)
    ) {
      throw new Error(
        'fake Discord: a forward carries no content, embeds, attachments or reply of its own (Discord sends a comment as a separate message)',
      );
    }
    const guildId = guildIdOf(channelId);
    const message: RecordedMessage = {
      id: snowflake(),
      channelId,
      authorId: input.authorId ?? worldOf(channelId).dmUserId,
      bot: false,
      content: input.content ?? '',
      embeds: [...(input.embeds ?? [])],
      components: [],
      allowedMentions: undefined,
      flags: forward === undefined ? 0 : HAS_SNAPSHOT_FLAG,
      messageReference:
        forward !== undefined
          ? forward.reference
          : input.replyTo === undefined
            ? undefined
            : {
                message_id: input.replyTo,
                channel_id: channelId,
                ...(guildId === undefined ? {} : { guild_id: guildId }),
              },
      ...(forward === undefined ? {} : { messageSnapshots: [forward.snapshot] }),
      attachments: (input.attachments ?? []).map((a) => ({ id: snowflake(), ...a })),
      interactionId: undefined,
      webhookId: undefined,
      createdAt: now(),
      editedAt: undefined,
      edits: 0,
      deleted: false,
    };
    state.storeMessage(message);
    return message;
  }

  const resolveUserMessage = (message: RecordedMessage): Record<string, unknown> =>
    messagePayload(world, message);

  const guildOf = (w: World): FakeGuild => ({
    id: w.guildId,
    name: w.guildName,
    shard: shardOf(w.guildId),
    ownerId: w.ownerId,
    memberId: w.dmUserId,
    otherMemberId: [...w.users.values()].find((u) => u.username === 'other_member')?.id ?? '',
    roles: { everyone: w.everyoneRoleId, bot: w.botRoleId, moderators: w.moderatorRoleId },
    channels: {
      category: w.refs.category,
      plain: w.refs.plain,
      ageRestricted: w.refs.ageRestricted,
      threadInPlain: w.refs.threadInPlain,
      threadInAgeRestricted: w.refs.threadInAgeRestricted,
      spoiler: w.refs.spoiler,
      threadInSpoiler: w.refs.threadInSpoiler,
      forum: w.refs.forum,
      voice: w.refs.voice,
    },
  });
  const guilds = worlds.map(guildOf);
  const foreignGuilds = foreignWorlds.map((w): FakeForeignGuild => {
    const { roles, ...rest } = guildOf(w);
    return { ...rest, roles: { everyone: roles.everyone, moderators: roles.moderators } };
  });

  const fake: FakeDiscord = {
    apiUrl: `${state.baseUrl}/api`,
    gatewayUrl: gatewayUrl(),
    token,
    applicationId,
    botUserId,
    guild: guilds[0] as FakeGuild,
    guilds,
    foreignGuilds,
    get foreignGuild() {
      const first = foreignGuilds[0];
      if (first === undefined) throw new Error('fake Discord: started with foreignGuilds: 0');
      return first;
    },
    privateChannels: { dm: privateDm.id, groupDm: groupDm.id },
    unavailableCommands,
    undelivered,
    dmChannelId: world.dmChannelId,
    whenReady: () => gateway.whenReady(),
    whenResumed: () => gateway.whenResumed(),

    sendCommand(opts) {
      const channelId = channelIdOf(opts.channel);
      const command = commandNamed(opts.name, ApplicationCommandType.ChatInput, channelId);
      const attachments = attachmentInputs(opts.attachments, channelId);
      const data: Record<string, unknown> = {
        id: command?.id ?? snowflake(),
        name: opts.name,
        type: ApplicationCommandType.ChatInput,
        options: buildOptions(
          command,
          opts.options,
          { group: opts.subcommandGroup, sub: opts.subcommand },
          attachments.options,
        ),
      };
      if (command?.['guild_id'] !== undefined) data['guild_id'] = command['guild_id'];
      if (Object.keys(attachments.resolved).length > 0)
        data['resolved'] = { attachments: attachments.resolved };
      return dispatchInteraction(2, opts, data, { command });
    },

    sendAutocomplete(opts) {
      const command = commandNamed(opts.name, ApplicationCommandType.ChatInput, channelIdOf(opts.channel));
      const data: Record<string, unknown> = {
        id: command?.id ?? snowflake(),
        name: opts.name,
        type: ApplicationCommandType.ChatInput,
        options: buildOptions(
          command,
          opts.options,
          { group: opts.subcommandGroup, sub: opts.subcommand, focused: opts.focused },
          [],
        ),
      };
      if (command?.['guild_id'] !== undefined) data['guild_id'] = command['guild_id'];
      return dispatchInteraction(4, opts, data, { command });
    },

    sendButton(opts) {
      const { message, component } = componentOn(opts.message, opts.customId, 'sendButton');
      if (component.type !== ComponentType.Button) {
        throw new Error(
          `fake Discord: ${opts.customId} on message ${message.id} is a component of type ${component.type}, not a button`,
        );
      }
      return dispatchComponent(message, opts, {
        custom_id: opts.customId,
        component_type: ComponentType.Button,
      });
    },

    sendSelect(opts) {
      const { message, component } = componentOn(opts.message, opts.customId, 'sendSelect');
      if (component.type !== ComponentType.StringSelect) {
        throw new Error(
          `fake Discord: ${opts.customId} on message ${message.id} is a component of type ${component.type}, not a string select`,
        );
      }
      if (component['disabled'] === true) {
        throw new Error(`fake Discord: the select ${opts.customId} on message ${message.id} is disabled`);
      }
      const offered = (Array.isArray(component['options']) ? component['options'] : []).flatMap(
        (option: unknown) =>
          typeof option === 'object' &&
          option !== null &&
          typeof (option as { value?: unknown }).value === 'string'
            ? [(option as { value: string }).value]
            : [],
      );
      const foreign = opts.values.filter((v) => !offered.includes(v));
      if (foreign.length > 0) {
        throw new Error(
          `fake Discord: the select ${opts.customId} offers no ${foreign.join(', ')} (offers: ${offered.join(', ')})`,
        );
      }
      if (new Set(opts.values).size !== opts.values.length) {
        throw new Error(`fake Discord: a member picks each option of ${opts.customId} at most once`);
      }
      const min = typeof component['min_values'] === 'number' ? component['min_values'] : 1;
      const max = typeof component['max_values'] === 'number' ? component['max_values'] : 1;
      if (opts.values.length < min || opts.values.length > max) {
        throw new Error(
          `fake Discord: the select ${opts.customId} takes ${min}..${max} values, not ${opts.values.length}`,
        );
      }
      return dispatchComponent(message, opts, {
        custom_id: opts.customId,
        component_type: ComponentType.StringSelect,
        values: [...opts.values],
      });
    },

    sendMessageCommand(opts) {
      const channelId = channelIdOf(opts.channel);
      const command = commandNamed(opts.name, ApplicationCommandType.Message, channelId);
      const existing =
        opts.targetMessage.id === undefined ? undefined : state.messages.get(opts.targetMessage.id);
      const target =
        existing ??
        storeUserMessage(channelId, {
          content: opts.targetMessage.content,
          authorId: opts.targetMessage.authorId,
          embeds: opts.targetMessage.embeds,
          attachments: opts.targetMessage.attachments,
          forwardOf: opts.targetMessage.forwardOf,
        });
      const data: Record<string, unknown> = {
        id: command?.id ?? snowflake(),
        name: opts.name,
        type: ApplicationCommandType.Message,
        target_id: target.id,
        // The full target, snapshots of a forward included, whatever intents the bot holds.
        resolved: { messages: { [target.id]: resolveUserMessage(target) } },
      };
      if (command?.['guild_id'] !== undefined) data['guild_id'] = command['guild_id'];
      return dispatchInteraction(2, opts, data, { command });
    },

    async sendMessage(opts) {
      const channelId = channelIdOf(opts.channel);
      const place = placeOf(channelId);
      if (!appInstalledAt(place)) {
        throw new Error(
          `fake Discord: the bot is not in channel ${channelId} (a server it is not in, or a DM between users): Discord sends it no MESSAGE_CREATE`,
        );
      }
      const w = worldOf(channelId);
      const authorId = opts.authorId ?? w.dmUserId;
      if (opts.bot === true && !w.users.has(authorId)) {
        w.users.set(authorId, { id: authorId, username: `bot_${authorId.slice(-4)}`, bot: true });
      }
      const message = storeUserMessage(channelId, {
        content: opts.content,
        authorId,
        embeds: opts.embeds,
        attachments: opts.attachments,
        replyTo: opts.replyTo,
        forwardOf: opts.forwardOf,
      });
      const inGuild = channelId !== world.dmChannelId;
      const full = messagePayload(w, message);
      if (opts.bot === true) full['author'] = { ...(full['author'] as object), bot: true };
      dispatchToShard('MESSAGE_CREATE', inGuild ? w.guildId : undefined, (intents) => {
        if ((intents & (inGuild ? INTENT_GUILD_MESSAGES : INTENT_DIRECT_MESSAGES)) === 0) return null;
        // Discord names the channel's type in every MESSAGE_CREATE (Message Create Extra Fields): a client
        // that has never seen a DM channel builds it from this and the author, as discord.js does.
        const d: Record<string, unknown> = {
          ...full,
          channel_type: inGuild ? w.channels.get(channelId)?.type : ChannelType.DM,
        };
        if (inGuild) {
          d['guild_id'] = w.guildId;
          const member = memberPayload(w, authorId);
          delete member['user'];
          d['member'] = member;
        }
        const mentionsBot = message.content.includes(`<@${world.bot.id}>`);
        if ((intents & INTENT_MESSAGE_CONTENT) === 0 && inGuild && !mentionsBot) {
          // Without the Message Content intent Discord blanks these fields (a forward's snapshots too: they
          // hold the same user content).
          Object.assign(d, { content: '', embeds: [], attachments: [], components: [], poll: undefined });
          if (Array.isArray(d['message_snapshots'])) {
            d['message_snapshots'] = (d['message_snapshots'] as { message: Record<string, unknown> }[]).map(
              (snapshot) => ({
                message: { ...snapshot.message, content: '', embeds: [], attachments: [], components: [] },
              }),
            );
          }
        }
        return d;
      });
      return {
        id: message.id,
        channelId,
        message,
        replies: () =>
          state
            .messagesIn(channelId)
            .filter((m) => m.authorId === w.bot.id && m.messageReference?.message_id === message.id),
      };
    },

    get requests() {
      return state.requests;
    },
    get violations() {
      return state.violations;
    },
    get mentionRisks() {
      return state.mentionRisks;
    },
    channelMessages(channel) {
      return state
        .messagesIn(channelIdOf(channel, { deleted: true }))
        .filter((m) => m.authorId === world.bot.id || m.edits > 0);
    },
    allMessages(channel) {
      return state.messagesIn(channelIdOf(channel, { deleted: true }));
    },
    get nonceReplays() {
      return state.nonceReplays;
    },

    deleteChannel(target) {
      const { w, channel } = guildChannel(target, 'deleteChannel');
      const gone = [
        channel,
        ...[...w.channels.values()].filter((c) => isThread(c) && c.parentId === channel.id),
      ];
      for (const c of gone) {
        w.channels.delete(c.id);
        w.botDenied.delete(c.id);
        deletedChannels.set(c.id, { world: w, channel: c });
      }
      if (isThread(channel)) {
        // Discord sends THREAD_DELETE for a thread, with only these fields.
        const d = { id: channel.id, guild_id: w.guildId, parent_id: channel.parentId, type: channel.type };
        dispatchToShard('THREAD_DELETE', w.guildId, (intents) =>
          (intents & INTENT_GUILDS) === 0 ? null : d,
        );
      } else {
        const d = channelPayload(w, channel, now);
        dispatchToShard('CHANNEL_DELETE', w.guildId, (intents) =>
          (intents & INTENT_GUILDS) === 0 ? null : d,
        );
        // The channels of a deleted category stay, outside any category.
        for (const child of [...w.channels.values()]) {
          if (child.parentId !== channel.id || isThread(child)) continue;
          const moved: SeedChannel = { ...child, parentId: null };
          w.channels.set(child.id, moved);
          dispatchChannelUpdate(w, moved);
        }
      }
      state.notify();
    },

    denyBot(target, permissions) {
      const { w, channel } = guildChannel(target, 'denyBot');
      if (isThread(channel)) {
        throw new Error('fake Discord: threads have no overwrites of their own: deny on the parent channel');
      }
      w.botDenied.set(channel.id, (w.botDenied.get(channel.id) ?? 0n) | permissions);
      dispatchChannelUpdate(w, channel);
      state.notify();
    },

    allowBot(target) {
      const { w, channel } = guildChannel(target, 'allowBot');
      if (!w.botDenied.delete(channel.id)) return;
      dispatchChannelUpdate(w, channel);
      state.notify();
    },

    updateChannel(target, change) {
      const { w, channel } = guildChannel(target, 'updateChannel');
      if (isThread(channel)) {
        throw new Error(
          'fake Discord: a thread has no age restriction or spoiler flag of its own: change its parent channel',
        );
      }
      const next: SeedChannel = {
        ...channel,
        ...(change.nsfw === undefined ? {} : { nsfw: change.nsfw }),
        ...(change.flags === undefined ? {} : { flags: change.flags }),
      };
      if (next.nsfw && (next.flags & IS_SPOILER_CHANNEL_FLAG) !== 0) {
        // Discord offers the spoiler flag only on channels that are not age-restricted (and the reverse).
        throw new Error(
          'fake Discord: Discord refuses a spoiler channel (IS_SPOILER_CHANNEL) that is age-restricted (nsfw)',
        );
      }
      w.channels.set(channel.id, next);
      dispatchChannelUpdate(w, next);
      state.notify();
    },
    removeBot(guildId = world.guildId) {
      if (!worlds.some((w) => w.guildId === guildId)) {
        throw new Error(`fake Discord: removeBot: the bot is not in server ${guildId}`);
      }
      if (state.removedFrom.has(guildId)) return;
      state.removedFrom.add(guildId);
      dispatchToShard('GUILD_DELETE', guildId, () => ({ id: guildId }));
      state.notify();
    },
    message(id) {
      return state.messages.get(id);
    },
    registeredCommands(guildId) {
      return guildId === undefined ? state.globalCommands : (state.guildCommands.get(guildId) ?? []);
    },
    cdnFile(filename, content) {
      const cdnPath = `/cdn/attachments/${snowflake()}/${snowflake()}/${encodeURIComponent(filename)}`;
      state.files.set(
        cdnPath,
        typeof content === 'string'
          ? { data: Buffer.from([0x89]), contentType: 'image/png', fault: content }
          : { data: Buffer.from(content), contentType: 'image/png' },
      );
      return `${state.baseUrl}${cdnPath}`;
    },
    inject(rule) {
      state.injections.push({ ...rule, times: rule.times ?? 1 });
    },
    dropGateway(code = 4000) {
      gateway.drop(code);
    },
    requestReconnect() {
      gateway.requestReconnect();
    },
    get gatewayCloses() {
      return gateway.closes;
    },
    get identifies() {
      return gateway.identifies;
    },
    get resumes() {
      return gateway.resumes;
    },
    waitFor(check, timeoutMs = 5000) {
      return state.waitFor(check, timeoutMs, () => 'a condition');
    },
    async close() {
      for (const interaction of state.interactions.values()) {
        if (interaction.deadline !== undefined) clearTimeout(interaction.deadline);
      }
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
