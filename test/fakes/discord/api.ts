/**
 * The local Discord as a test holds it: the options it starts with and the handle `startFakeDiscord`
 * (server.ts) gives back. What each part of the handle does is in the scenario/ file that implements it.
 */
import type { FakeGateway, IdentifyRecord } from './gateway.js';
import type {
  AutocompleteOptions,
  ButtonOptions,
  ChannelChange,
  ChannelTarget,
  GuildChange,
  CommandOptions,
  FakeForeignGuild,
  FakeGuild,
  FakePrivateChannels,
  InteractionHandle,
  MessageCommandOptions,
  MessageHandle,
  SelectOptions,
  ChannelSelectOptions,
  ModalSubmitOptions,
  SendMessageOptions,
  UnavailableCommand,
  UndeliveredEvent,
} from './scenario/types.js';
import type { InjectRule, StoredCommand } from './state.js';
import type {
  GatewayClose,
  MentionRisk,
  NonceReplay,
  RecordedMessage,
  RecordedRequest,
  Violation,
} from './types.js';

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
  /**
   * The `preferred_locale` of each of the bot's servers, in order (`fake.guilds`; default `en-US`): sent in
   * GUILD_CREATE and GET /guilds/:id, and as `guild_locale` in their interactions.
   */
  readonly guildLocales?: readonly string[];
  /**
   * Discord's global rate limit: 50 requests in each second per bot token on every route but the
   * interaction routes, 429 `global` past it (global-limit.ts). Default on.
   */
  readonly globalRateLimit?: boolean;
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
  /**
   * A pick in a channel select (type 8) of a bot message: INTERACTION_CREATE type 3 with `data:
   * { custom_id, component_type: 8, values, resolved: { channels }, id }` (each channel partial, with the
   * member's `permissions`; threads with `thread_metadata`) and the message (discord.js:
   * `isChannelSelectMenu()`). Throws when the select is missing or disabled, a value is not a channel of
   * the message's server or of a type its `channel_types` takes, repeats, or the count is outside
   * min_values..max_values.
   */
  sendChannelSelect(options: ChannelSelectOptions): InteractionHandle;
  /**
   * Submits the modal the bot answered `opener` with (callback 9): INTERACTION_CREATE type 5 by the same
   * member in the same channel, with `message` when a message component opened the modal (see
   * ModalSubmitOptions for what is refused). Answer it with 4, 5, or (from a message) 6, 7.
   */
  submitModal(options: ModalSubmitOptions): InteractionHandle;
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
  /**
   * A server admin changes the server's Community settings (default `fake.guild`): its `preferred_locale`.
   * The session holding its shard gets GUILD_UPDATE (the guild object, as Discord sends it), and GET
   * /guilds/:id and later interactions' `guild_locale` carry the new value.
   */
  updateGuild(change: GuildChange, guildId?: string): void;
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
