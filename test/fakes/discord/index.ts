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
 * forum and a voice channel, a public thread in each text channel, roles @everyone / the bot's managed
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
 * Events towards the bot: `sendCommand`, `sendAutocomplete`, `sendButton`, `sendMessageCommand` (message
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
 * without View Channel; CHANNEL_UPDATE with the new permission_overwrites). GET /channels/:id answers
 * `nsfw` for text channels and `parent_id` for threads (a thread is age-restricted when its parent is).
 *
 * Timing rules: an interaction callback later than `answerWindowMs` (default 3000) is refused with
 * 404 10062 Unknown interaction; a second callback with 400 40060; webhook calls after `tokenLifetimeMs`
 * (15 min) with 401 50027. Bodies are checked against its copy of Discord's OpenAPI description (openapi.json, from ../shared/discord) plus the
 * documented limits (see validate.ts).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationCommandOptionType, ApplicationCommandType, ChannelType } from 'discord.js';
import {
  INTENT_DIRECT_MESSAGES,
  INTENT_GUILDS,
  INTENT_GUILD_MESSAGES,
  INTENT_MESSAGE_CONTENT,
  createFakeGateway,
} from './gateway.js';
import type { FakeGateway, IdentifyRecord } from './gateway.js';
import {
  DEFAULT_BOT_PERMISSIONS,
  DM_APP_PERMISSIONS,
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
  shardOfGuild,
  snowflakeOnShard,
  userOf,
  userPayload,
} from './payloads.js';
import type { ChannelRef, SeedChannel, World } from './payloads.js';
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
    readonly forum: string;
    readonly voice: string;
  };
}

/** An event the fake would have dispatched, but no live session held its shard. */
export interface UndeliveredEvent {
  readonly t: string;
  readonly shard: number;
  readonly guildId: string | undefined;
  readonly at: number;
}

export type ChannelTarget = ChannelRef | (string & {});

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
  readonly channel: ChannelTarget;
  /** Default: the plain member (`fake.guild.memberId`). */
  readonly userId?: string;
  /** Member permissions (guild only); default: what the user's roles grant. */
  readonly permissions?: bigint | string;
  readonly locale?: string;
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

export interface ButtonOptions extends Omit<CommonInteractionOptions, 'channel'> {
  readonly customId: string;
  /** The bot's message carrying the button. */
  readonly message: RecordedMessage | { readonly id: string };
  /** Default: the message's channel. */
  readonly channel?: ChannelTarget;
}

export interface TargetMessageInput {
  /** An existing message (e.g. from sendMessage); otherwise one is created from the fields below. */
  readonly id?: string;
  readonly content?: string;
  readonly embeds?: readonly Record<string, unknown>[];
  readonly attachments?: readonly Record<string, unknown>[];
  readonly authorId?: string;
}

export interface MessageCommandOptions extends CommonInteractionOptions {
  readonly name: string;
  readonly targetMessage: TargetMessageInput;
}

export interface SendMessageOptions {
  readonly channel: ChannelTarget;
  readonly content: string;
  /** Default: the plain member. */
  readonly authorId?: string;
  readonly bot?: boolean;
  readonly embeds?: readonly Record<string, unknown>[];
  readonly attachments?: readonly Record<string, unknown>[];
  /** Reply to this message. */
  readonly replyTo?: string;
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
}

export interface MessageHandle {
  readonly id: string;
  readonly channelId: string;
  readonly message: RecordedMessage;
  /** The bot's messages replying to this one (message_reference). */
  replies(): RecordedMessage[];
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
  /** Events not delivered because no session held their shard. */
  readonly undelivered: readonly UndeliveredEvent[];
  readonly dmChannelId: string;
  whenReady(): Promise<void>;
  whenResumed(): Promise<void>;
  sendCommand(options: CommandOptions): InteractionHandle;
  sendAutocomplete(options: AutocompleteOptions): InteractionHandle;
  sendButton(options: ButtonOptions): InteractionHandle;
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
  message(id: string): RecordedMessage | undefined;
  registeredCommands(guildId?: string): StoredCommand[];
  inject(rule: InjectRule): void;
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

/** Every custom_id in a component tree (action rows, containers, sections ...). */
function customIdsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(customIdsOf);
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const own = typeof record['custom_id'] === 'string' ? [record['custom_id']] : [];
  return [...own, ...customIdsOf(record['components']), ...customIdsOf(record['accessory'])];
}

/** MessageFlags.Loading: a deferred reply not yet filled in. */
const LOADING_FLAG = 1 << 7;
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
  const shardOf = (guildId: string): number => shardOfGuild(guildId, shards);
  const undelivered: UndeliveredEvent[] = [];
  const state = createState({
    token,
    applicationId,
    world,
    worlds,
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
        .filter((w) => shardOf(w.guildId) === shard[0])
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
            .filter((w) => shardOf(w.guildId) === shard[0])
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
    const id = target in world.refs ? world.refs[target as keyof typeof world.refs] : target;
    if (id === world.dmChannelId || worlds.some((w) => w.channels.has(id))) return id;
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
    return worlds.find((w) => w.channels.has(channelId)) ?? world;
  }

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

  function commandNamed(name: string, type: number, channelId: string): StoredCommand | undefined {
    const guildList = state.guildCommands.get(worldOf(channelId).guildId) ?? [];
    return [...guildList, ...state.globalCommands].find((c) => c.name === name && c.type === type);
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
    };
  }

  function dispatchInteraction(
    type: number,
    common: CommonInteractionOptions,
    data: Record<string, unknown>,
    extra: { componentMessageId?: string; message?: Record<string, unknown> } = {},
  ): InteractionHandle {
    const channelId = channelIdOf(common.channel);
    const w = worldOf(channelId);
    const userId = common.userId ?? w.dmUserId;
    const inGuild = channelId !== world.dmChannelId;
    const id = snowflake();
    const interactionToken = `aW50ZXJhY3Rpb24${randomBytes(48).toString('base64url')}`;
    const channel = w.channels.get(channelId);
    const memberPerms =
      common.permissions === undefined ? memberPermissions(w, userId) : BigInt(common.permissions);
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
      channel:
        channel === undefined
          ? dmChannelPayload(world)
          : { ...channelPayload(w, channel, now), permissions: memberPerms.toString() },
      app_permissions: (inGuild ? botChannelPermissions(w, channelId) : DM_APP_PERMISSIONS).toString(),
      authorizing_integration_owners: inGuild ? { '0': w.guildId } : { '0': '0' },
      context: inGuild ? 0 : 1,
    };
    if (inGuild) {
      payload['guild_id'] = w.guildId;
      payload['guild_locale'] = 'en-US';
      payload['guild'] = { id: w.guildId, locale: 'en-US', features: [] };
      payload['member'] = memberPayload(w, userId, { permissions: memberPerms });
    } else {
      payload['user'] = userPayload(userOf(w, userId));
    }
    if (extra.message !== undefined) payload['message'] = extra.message;
    const record: InteractionRecord = {
      id,
      token: interactionToken,
      type,
      channelId,
      guildId: inGuild ? w.guildId : undefined,
      userId,
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
    dispatchToShard('INTERACTION_CREATE', inGuild ? w.guildId : undefined, () => payload);
    return createHandle(record, payload);
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

  function storeUserMessage(
    channelId: string,
    input: {
      content?: string | undefined;
      authorId?: string | undefined;
      embeds?: readonly Record<string, unknown>[] | undefined;
      attachments?: readonly Record<string, unknown>[] | undefined;
      replyTo?: string | undefined;
    },
  ): RecordedMessage {
    const message: RecordedMessage = {
      id: snowflake(),
      channelId,
      authorId: input.authorId ?? worldOf(channelId).dmUserId,
      bot: false,
      content: input.content ?? '',
      embeds: [...(input.embeds ?? [])],
      components: [],
      allowedMentions: undefined,
      flags: 0,
      messageReference:
        input.replyTo === undefined
          ? undefined
          : {
              message_id: input.replyTo,
              channel_id: channelId,
              ...(channelId === world.dmChannelId ? {} : { guild_id: worldOf(channelId).guildId }),
            },
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
      forum: w.refs.forum,
      voice: w.refs.voice,
    },
  });
  const guilds = worlds.map(guildOf);

  const fake: FakeDiscord = {
    apiUrl: `${state.baseUrl}/api`,
    gatewayUrl: gatewayUrl(),
    token,
    applicationId,
    botUserId,
    guild: guilds[0] as FakeGuild,
    guilds,
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
      return dispatchInteraction(2, opts, data);
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
      return dispatchInteraction(4, opts, data);
    },

    sendButton(opts) {
      const message = state.messages.get(opts.message.id);
      if (message === undefined || message.deleted) {
        throw new Error(`fake Discord: sendButton on unknown message ${opts.message.id}`);
      }
      const present = customIdsOf(message.components);
      if (!present.includes(opts.customId)) {
        throw new Error(
          `fake Discord: message ${message.id} has no component ${opts.customId} (has: ${present.join(', ') || 'none'})`,
        );
      }
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
                authorizing_integration_owners: { '0': worldOf(message.channelId).guildId },
              },
            },
      );
      return dispatchInteraction(
        3,
        { ...opts, channel: opts.channel ?? message.channelId },
        { custom_id: opts.customId, component_type: 2 },
        { componentMessageId: message.id, message: payloadMessage },
      );
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
        });
      const data: Record<string, unknown> = {
        id: command?.id ?? snowflake(),
        name: opts.name,
        type: ApplicationCommandType.Message,
        target_id: target.id,
        resolved: { messages: { [target.id]: resolveUserMessage(target) } },
      };
      if (command?.['guild_id'] !== undefined) data['guild_id'] = command['guild_id'];
      return dispatchInteraction(2, opts, data);
    },

    async sendMessage(opts) {
      const channelId = channelIdOf(opts.channel);
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
          // Without the Message Content intent Discord blanks these fields.
          Object.assign(d, { content: '', embeds: [], attachments: [], components: [], poll: undefined });
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
    message(id) {
      return state.messages.get(id);
    },
    registeredCommands(guildId) {
      return guildId === undefined ? state.globalCommands : (state.guildCommands.get(guildId) ?? []);
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
