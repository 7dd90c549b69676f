/**
 * The seeded world of the fake Discord (one guild, its channels, threads, roles and members, a DM) and
 * the JSON shapes Discord sends for them. Shapes follow what the gateway and REST API send, complete
 * enough for discord.js to build its structures without fetching anything.
 */
import { ChannelType, PermissionFlagsBits } from 'discord.js';
import type { RecordedMessage } from './types.js';

const DISCORD_EPOCH = 1420070400000n;

export function createSnowflakes(now: () => number): () => string {
  let increment = 0n;
  return () => {
    increment = (increment + 1n) & 0xfffn;
    return (((BigInt(now()) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment).toString();
  };
}

export type ChannelRef =
  | 'plain'
  | 'ageRestricted'
  | 'threadInPlain'
  | 'threadInAgeRestricted'
  | 'spoiler'
  | 'threadInSpoiler'
  | 'forum'
  | 'voice'
  | 'dm';

/**
 * Channel flag IS_SPOILER_CHANNEL (1 << 21, July 2026): members opt in to view the channel, and media
 * posted there belongs behind a spoiler. Discord sets it only on channels that are not age-restricted.
 */
export const IS_SPOILER_CHANNEL_FLAG = 1 << 21;

const EVERYONE_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.CreatePublicThreads |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.UseExternalEmojis |
  PermissionFlagsBits.UseApplicationCommands |
  // On by default in every server: user-installed apps may answer in public.
  PermissionFlagsBits.UseExternalApps |
  PermissionFlagsBits.ChangeNickname |
  PermissionFlagsBits.Connect |
  PermissionFlagsBits.Speak;

/** Default bot role: what the bot's invite asks for, Manage Messages included (to suppress embeds). */
export const DEFAULT_BOT_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.UseExternalEmojis |
  PermissionFlagsBits.ManageMessages;

const MODERATOR_PERMISSIONS = PermissionFlagsBits.ManageGuild | PermissionFlagsBits.ManageMessages;

/** What a bot may do in its own DM channel (REST checks). */
export const DM_APP_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.UseExternalEmojis |
  PermissionFlagsBits.AddReactions;

/**
 * The interaction's `app_permissions` in (group) DMs between users, as documented: Attach Files, Embed
 * Links and Mention Everyone.
 */
export const PRIVATE_CHANNEL_APP_PERMISSIONS =
  PermissionFlagsBits.AttachFiles | PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.MentionEveryone;

/** The interaction's `app_permissions` in the DM with the app's bot user: the above plus Use External Emojis. */
export const BOT_DM_APP_PERMISSIONS = PRIVATE_CHANNEL_APP_PERMISSIONS | PermissionFlagsBits.UseExternalEmojis;

/**
 * A user-installed app in a server it is not in: `app_permissions` follows the invoking member's
 * permissions in the channel (discord/discord-api-docs#7251), limited here to the bits a message the app
 * posts through the interaction can use, those Discord documents for (group) DMs plus View Channel, Send
 * Messages (in Threads) and Read Message History. Discord documents no formula: an approximation.
 */
export const USER_INSTALL_APP_PERMISSION_MASK =
  BOT_DM_APP_PERMISSIONS |
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.ReadMessageHistory;

export interface SeedUser {
  readonly id: string;
  readonly username: string;
  readonly bot: boolean;
}

export interface SeedChannel {
  readonly id: string;
  readonly type: ChannelType;
  readonly name: string;
  readonly nsfw: boolean;
  readonly parentId: string | null;
  readonly position: number;
  /**
   * The channel's `flags` (IS_SPOILER_CHANNEL ...). A thread's own (Discord sets none the bot reads on
   * the seeded threads: a thread of a spoiler channel is one through its parent).
   */
  readonly flags: number;
}

export interface World {
  readonly guildId: string;
  /**
   * False for a "foreign" server: the app is not installed there (no bot member, no GUILD_CREATE, REST
   * answers 403 50001); users reach the app there through their own install only.
   */
  readonly botIsMember: boolean;
  readonly guildName: string;
  readonly ownerId: string;
  readonly everyoneRoleId: string;
  readonly botRoleId: string;
  readonly moderatorRoleId: string;
  readonly botPermissions: bigint;
  readonly bot: SeedUser;
  readonly users: Map<string, SeedUser>;
  /** userId → role ids (besides @everyone). */
  readonly memberRoles: Map<string, string[]>;
  /** Channels and threads by id; `fake.deleteChannel` takes them out. */
  readonly channels: Map<string, SeedChannel>;
  /**
   * Channel id → the permissions a member overwrite on that channel denies the bot (`fake.denyBot`);
   * threads take their parent's.
   */
  readonly botDenied: Map<string, bigint>;
  readonly refs: Record<ChannelRef, string> & { category: string };
  readonly dmChannelId: string;
  /** The user the DM channel is with. */
  readonly dmUserId: string;
  readonly joinedAt: string;
  /**
   * The server's `preferred_locale` (Discord's default for a new server is `en-US`): in the guild object
   * (GUILD_CREATE, GUILD_UPDATE, GET /guilds/:id) and as interactions' `guild_locale`; `fake.updateGuild`
   * changes it.
   */
  preferredLocale: string;
}

/**
 * A snowflake (from `snowflake`) moved a few milliseconds on so that its guild shard,
 * `(id >> 22) % count`, is `shard`.
 */
export function snowflakeOnShard(snowflake: () => string, shard: number, count: number): string {
  const id = BigInt(snowflake());
  const n = BigInt(count);
  const delta = (((BigInt(shard) - ((id >> 22n) % n)) % n) + n) % n;
  return (id + (delta << 22n)).toString();
}

/** The shard a guild's events go to: `(guild_id >> 22) % num_shards`. */
export function shardOfGuild(guildId: string, count: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(count));
}

export function createWorld(options: {
  snowflake: () => string;
  /** Default: a fresh snowflake. */
  guildId?: string;
  guildName?: string;
  botUserId: string;
  botUsername: string;
  botPermissions: bigint;
  now: () => number;
  /** Default true; false builds a server the bot is not in (see World.botIsMember). */
  botIsMember?: boolean;
  /** Default `en-US`. */
  preferredLocale?: string;
}): World {
  const id = options.snowflake;
  const guildId = options.guildId ?? id();
  const owner: SeedUser = { id: id(), username: 'guild_owner', bot: false };
  const member: SeedUser = { id: id(), username: 'plain_member', bot: false };
  const other: SeedUser = { id: id(), username: 'other_member', bot: false };
  const bot: SeedUser = { id: options.botUserId, username: options.botUsername, bot: true };
  const botRoleId = id();
  const moderatorRoleId = id();
  const category = id();
  const plain = id();
  const ageRestricted = id();
  const forum = id();
  const voice = id();
  const threadInPlain = id();
  const threadInAgeRestricted = id();
  const dm = id();
  // Made after the others, so that the ids of everything seeded before spoiler channels stay as they were.
  const spoiler = id();
  const threadInSpoiler = id();
  const channel = (
    cid: string,
    type: ChannelType,
    name: string,
    nsfw: boolean,
    parentId: string | null,
    position: number,
    flags = 0,
  ): [string, SeedChannel] => [cid, { id: cid, type, name, nsfw, parentId, position, flags }];
  const channels = new Map<string, SeedChannel>([
    channel(category, ChannelType.GuildCategory, 'Text Channels', false, null, 0),
    channel(plain, ChannelType.GuildText, 'general', false, category, 0),
    channel(ageRestricted, ChannelType.GuildText, 'mature-art', true, category, 1),
    channel(forum, ChannelType.GuildForum, 'art-forum', false, category, 2),
    channel(voice, ChannelType.GuildVoice, 'Lounge', false, null, 3),
    channel(threadInPlain, ChannelType.PublicThread, 'general thread', false, plain, 0),
    channel(threadInAgeRestricted, ChannelType.PublicThread, 'mature thread', false, ageRestricted, 0),
    channel(spoiler, ChannelType.GuildText, 'spoilers', false, category, 4, IS_SPOILER_CHANNEL_FLAG),
    channel(threadInSpoiler, ChannelType.PublicThread, 'spoiler thread', false, spoiler, 0),
  ]);
  const botIsMember = options.botIsMember ?? true;
  return {
    guildId,
    botIsMember,
    guildName: options.guildName ?? 'Fake Guild',
    ownerId: owner.id,
    everyoneRoleId: guildId,
    botRoleId,
    moderatorRoleId,
    botPermissions: options.botPermissions,
    bot,
    users: new Map([owner, member, other, bot].map((u) => [u.id, u])),
    memberRoles: new Map([
      [owner.id, [moderatorRoleId]],
      [member.id, []],
      [other.id, []],
      ...(botIsMember ? [[bot.id, [botRoleId]] as [string, string[]]] : []),
    ]),
    channels,
    botDenied: new Map(),
    refs: {
      category,
      plain,
      ageRestricted,
      forum,
      voice,
      threadInPlain,
      threadInAgeRestricted,
      spoiler,
      threadInSpoiler,
      dm,
    },
    dmChannelId: dm,
    dmUserId: member.id,
    joinedAt: new Date(options.now() - 86_400_000).toISOString(),
    preferredLocale: options.preferredLocale ?? 'en-US',
  };
}

export function userOf(world: World, userId: string): SeedUser {
  return world.users.get(userId) ?? { id: userId, username: `user_${userId.slice(-6)}`, bot: false };
}

export function userPayload(user: SeedUser): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: user.bot ? null : user.username.replace(/_/g, ' '),
    avatar: null,
    bot: user.bot,
    system: false,
    public_flags: 0,
    flags: 0,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
  };
}

export function rolesPayload(world: World): Record<string, unknown>[] {
  const role = (id: string, name: string, permissions: bigint, position: number, extra: object = {}) => ({
    id,
    name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: permissions.toString(),
    managed: false,
    mentionable: false,
    flags: 0,
    ...extra,
  });
  return [
    role(world.everyoneRoleId, '@everyone', EVERYONE_PERMISSIONS, 0),
    ...(world.botIsMember
      ? [
          role(world.botRoleId, world.bot.username, world.botPermissions, 1, {
            managed: true,
            tags: { bot_id: world.bot.id },
          }),
        ]
      : []),
    role(world.moderatorRoleId, 'Moderators', MODERATOR_PERMISSIONS | EVERYONE_PERMISSIONS, 2),
  ];
}

export function memberPayload(
  world: World,
  userId: string,
  extra: { permissions?: bigint } = {},
): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    user: userPayload(userOf(world, userId)),
    nick: null,
    avatar: null,
    banner: null,
    roles: world.memberRoles.get(userId) ?? [],
    joined_at: world.joinedAt,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
  if (extra.permissions !== undefined) payload['permissions'] = extra.permissions.toString();
  return payload;
}

/** Guild-wide permissions of a member: the OR of @everyone and its roles (Administrator means all). */
export function memberPermissions(world: World, userId: string): bigint {
  if (userId === world.ownerId) return ALL_PERMISSIONS;
  let bits = EVERYONE_PERMISSIONS;
  for (const roleId of world.memberRoles.get(userId) ?? []) {
    if (roleId === world.botRoleId) bits |= world.botPermissions;
    if (roleId === world.moderatorRoleId) bits |= MODERATOR_PERMISSIONS | EVERYONE_PERMISSIONS;
  }
  if ((bits & PermissionFlagsBits.Administrator) !== 0n) return ALL_PERMISSIONS;
  return bits;
}

const ALL_PERMISSIONS = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

/**
 * The bot's permissions in one channel of the world: its guild-wide permissions less what the channel's
 * member overwrite denies it (a thread: its parent's overwrite), the way Discord and discord.js's
 * `permissionsFor` compute them. Administrator (or owning the guild) bypasses overwrites.
 */
export function botChannelPermissions(world: World, channelId: string): bigint {
  if (!world.botIsMember) return 0n;
  const base = memberPermissions(world, world.bot.id);
  if ((base & PermissionFlagsBits.Administrator) !== 0n) return base;
  const channel = world.channels.get(channelId);
  const holder = channel !== undefined && isThread(channel) ? channel.parentId : channelId;
  return base & ~(holder === null ? 0n : (world.botDenied.get(holder) ?? 0n));
}

/** The channel's permission_overwrites as Discord sends them (the bot's member overwrite, if any). */
function permissionOverwritesPayload(world: World, channelId: string): Record<string, unknown>[] {
  const denied = world.botDenied.get(channelId);
  return denied === undefined ? [] : [{ id: world.bot.id, type: 1, allow: '0', deny: denied.toString() }];
}

export function isThread(channel: SeedChannel): boolean {
  return (
    channel.type === ChannelType.PublicThread ||
    channel.type === ChannelType.PrivateThread ||
    channel.type === ChannelType.AnnouncementThread
  );
}

/** A guild channel or thread as the gateway and GET /channels/:id send it. */
export function channelPayload(
  world: World,
  channel: SeedChannel,
  now: () => number,
): Record<string, unknown> {
  if (isThread(channel)) {
    return {
      id: channel.id,
      type: channel.type,
      guild_id: world.guildId,
      name: channel.name,
      parent_id: channel.parentId,
      owner_id: world.ownerId,
      last_message_id: null,
      rate_limit_per_user: 0,
      flags: channel.flags,
      message_count: 1,
      member_count: 2,
      total_message_sent: 1,
      thread_metadata: {
        archived: false,
        auto_archive_duration: 1440,
        archive_timestamp: new Date(now()).toISOString(),
        locked: false,
        create_timestamp: world.joinedAt,
      },
      applied_tags: [],
    };
  }
  const base: Record<string, unknown> = {
    id: channel.id,
    type: channel.type,
    guild_id: world.guildId,
    name: channel.name,
    position: channel.position,
    permission_overwrites: permissionOverwritesPayload(world, channel.id),
    parent_id: channel.parentId,
    nsfw: channel.nsfw,
    flags: channel.flags,
  };
  if (channel.type === ChannelType.GuildCategory) return base;
  if (channel.type === ChannelType.GuildVoice) {
    return {
      ...base,
      bitrate: 64000,
      user_limit: 0,
      rtc_region: null,
      last_message_id: null,
      rate_limit_per_user: 0,
    };
  }
  if (channel.type === ChannelType.GuildForum) {
    return {
      ...base,
      topic: null,
      last_message_id: null,
      rate_limit_per_user: 0,
      available_tags: [],
      default_reaction_emoji: null,
      default_sort_order: null,
      default_forum_layout: 0,
      default_thread_rate_limit_per_user: 0,
    };
  }
  return {
    ...base,
    topic: null,
    last_message_id: null,
    rate_limit_per_user: 0,
    default_auto_archive_duration: 1440,
  };
}

/**
 * A partial channel as interactions carry it in `data.resolved.channels` (and, where the bot is not in the
 * server, as the interaction's `channel`): only the documented fields `id, name, type, permissions,
 * last_message_id, nsfw, parent_id, guild_id, flags, rate_limit_per_user, topic, position`, threads with
 * `thread_metadata` (and, as in the OpenAPI ThreadResponse, no `nsfw` of their own: a thread is
 * age-restricted through its parent).
 */
export function partialChannelPayload(
  world: World,
  channel: SeedChannel,
  now: () => number,
  permissions: { permissions: bigint; appPermissions?: bigint },
): Record<string, unknown> {
  const base: Record<string, unknown> = {
    id: channel.id,
    type: channel.type,
    guild_id: world.guildId,
    name: channel.name,
    parent_id: channel.parentId,
    flags: channel.flags,
    last_message_id: null,
    rate_limit_per_user: 0,
    permissions: permissions.permissions.toString(),
    ...(permissions.appPermissions === undefined
      ? {}
      : { app_permissions: permissions.appPermissions.toString() }),
  };
  if (isThread(channel)) {
    const full = channelPayload(world, channel, now);
    return { ...base, thread_metadata: full['thread_metadata'] };
  }
  return {
    ...base,
    nsfw: channel.nsfw,
    position: channel.position,
    ...(channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildForum
      ? { topic: null }
      : {}),
  };
}

/** A DM between users or a group DM (the bot is in neither): reached only through a user install. */
export interface PrivateChannel {
  readonly id: string;
  readonly type: ChannelType.DM | ChannelType.GroupDM;
  /** Every user in it. */
  readonly recipientIds: readonly string[];
  /** Group DMs only. */
  readonly name?: string;
  readonly ownerId?: string;
}

/**
 * A private channel as an interaction from it carries it (PrivateChannelResponse /
 * PrivateGroupChannelResponse of the OpenAPI description): `recipients` are the users other than the one
 * who invoked the interaction.
 */
export function privateChannelPayload(
  world: World,
  channel: PrivateChannel,
  viewerId: string,
): Record<string, unknown> {
  const recipients = channel.recipientIds
    .filter((id) => id !== viewerId)
    .map((id) => userPayload(userOf(world, id)));
  const base = { id: channel.id, type: channel.type, last_message_id: null, flags: 0, recipients };
  if (channel.type === ChannelType.DM) return base;
  return {
    ...base,
    name: channel.name ?? null,
    icon: null,
    owner_id: channel.ownerId ?? channel.recipientIds[0],
  };
}

/** HAS_SNAPSHOT: the message forwards another (Message Forwarding). */
export const HAS_SNAPSHOT_FLAG = 1 << 14;

/**
 * The `message_snapshots[].message` of a forward: the documented subset (type, content, embeds,
 * attachments, timestamp, edited_timestamp, flags, mentions, mention_roles, components; stickers left
 * out), the fields MinimalContentMessageResponse of the OpenAPI description requires.
 */
export function snapshotOf(world: World, message: RecordedMessage): Record<string, unknown> {
  const full = messagePayload(world, message);
  const snapshot: Record<string, unknown> = {};
  for (const key of [
    'type',
    'content',
    'embeds',
    'attachments',
    'timestamp',
    'edited_timestamp',
    'flags',
    'mentions',
    'mention_roles',
    'components',
  ]) {
    snapshot[key] = structuredClone(full[key]);
  }
  return snapshot;
}

export function dmChannelPayload(world: World): Record<string, unknown> {
  return {
    id: world.dmChannelId,
    type: ChannelType.DM,
    last_message_id: null,
    flags: 0,
    recipients: [userPayload(userOf(world, world.dmUserId))],
  };
}

export function guildPayload(world: World): Record<string, unknown> {
  return {
    id: world.guildId,
    name: world.guildName,
    icon: null,
    icon_hash: null,
    splash: null,
    discovery_splash: null,
    owner_id: world.ownerId,
    region: 'deprecated',
    afk_channel_id: null,
    afk_timeout: 300,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: 1,
    default_message_notifications: 1,
    explicit_content_filter: 2,
    roles: rolesPayload(world),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: world.refs.plain,
    system_channel_flags: 0,
    rules_channel_id: null,
    max_presences: null,
    max_members: 500000,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: world.preferredLocale,
    public_updates_channel_id: null,
    max_video_channel_users: 25,
    max_stage_video_channel_users: 50,
    approximate_member_count: world.memberRoles.size,
    approximate_presence_count: 1,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    safety_alerts_channel_id: null,
    incidents_data: null,
  };
}

/** GUILD_CREATE's `d`: the guild plus the gateway-only fields. */
export function guildCreatePayload(world: World, now: () => number): Record<string, unknown> {
  const channels = [...world.channels.values()];
  return {
    ...guildPayload(world),
    joined_at: world.joinedAt,
    large: false,
    unavailable: false,
    member_count: world.memberRoles.size,
    voice_states: [],
    members: [...world.memberRoles.keys()].map((userId) => memberPayload(world, userId)),
    channels: channels.filter((c) => !isThread(c)).map((c) => channelPayload(world, c, now)),
    threads: channels.filter(isThread).map((c) => channelPayload(world, c, now)),
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
    lazy: true,
  };
}

/** A message as REST answers it (and, with guild_id/member added, as MESSAGE_CREATE sends it). */
export function messagePayload(
  world: World,
  message: RecordedMessage,
  extra: { interactionMetadata?: Record<string, unknown>; type?: number } = {},
): Record<string, unknown> {
  const reference = message.messageReference;
  // A reply is type 19 (REPLY); a forward stays 0 (DEFAULT), its reference typed 1 (FORWARD).
  const isReply = reference !== undefined && (reference.type ?? 0) === 0;
  const payload: Record<string, unknown> = {
    id: message.id,
    type: extra.type ?? (isReply ? 19 : 0),
    channel_id: message.channelId,
    author: userPayload(userOf(world, message.authorId)),
    content: message.content,
    timestamp: new Date(message.createdAt).toISOString(),
    edited_timestamp: message.editedAt === undefined ? null : new Date(message.editedAt).toISOString(),
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    mention_channels: [],
    attachments: message.attachments,
    embeds: message.embeds,
    components: componentsPayload(message.components, message.attachments),
    pinned: false,
    flags: message.flags,
    reactions: [],
  };
  if (message.nonce !== undefined) payload['nonce'] = message.nonce;
  if (message.webhookId !== undefined) {
    payload['webhook_id'] = message.webhookId;
    payload['application_id'] = message.webhookId;
  }
  if (reference !== undefined) payload['message_reference'] = { type: 0, ...reference };
  if (message.messageSnapshots !== undefined) {
    payload['message_snapshots'] = message.messageSnapshots.map((m) => ({ message: structuredClone(m) }));
  }
  if (extra.interactionMetadata !== undefined) payload['interaction_metadata'] = extra.interactionMetadata;
  return payload;
}

/** Normalise embeds as Discord echoes them back (type rich, no nulls). */
export function echoEmbeds(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null)
    .map((embed) => {
      const out: Record<string, unknown> = { type: 'rich' };
      for (const [key, val] of Object.entries(embed)) if (val !== null && val !== undefined) out[key] = val;
      return out;
    });
}

/**
 * A message's components as Discord sends them back: the tree as the bot sent it, every component given
 * an `id` (the docs: "generated sequentially if left empty", never reusing one the bot set; numbered
 * depth-first here, a section's accessory after its texts), and `attachment://name` media resolved to the
 * uploaded attachment (its url, proxy_url, content_type and attachment_id; a file component also gets
 * its `name` and `size`).
 */
function componentsPayload(
  components: readonly Record<string, unknown>[],
  attachments: readonly Record<string, unknown>[],
): Record<string, unknown>[] {
  const tree = structuredClone(components) as Record<string, unknown>[];
  const nodes: Record<string, unknown>[] = [];
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(collect);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const node = value as Record<string, unknown>;
    if (typeof node['type'] !== 'number') return;
    nodes.push(node);
    collect(node['components']);
    collect(node['accessory']);
  };
  collect(tree);
  const used = new Set(nodes.map((n) => n['id']).filter((id) => typeof id === 'number' && id > 0));
  let next = 1;
  for (const node of nodes) {
    if (typeof node['id'] === 'number' && node['id'] > 0) continue;
    while (used.has(next)) next += 1;
    node['id'] = next;
    used.add(next);
  }
  /** Resolves an `attachment://name` media item in place; the attachment it names, if uploaded. */
  const resolve = (media: unknown): Record<string, unknown> | undefined => {
    if (typeof media !== 'object' || media === null) return undefined;
    const item = media as Record<string, unknown>;
    const url = item['url'];
    if (typeof url !== 'string' || !/^attachment:\/\//i.test(url)) return undefined;
    const attachment = attachments.find((a) => a['filename'] === url.slice('attachment://'.length));
    if (attachment === undefined) return undefined;
    Object.assign(item, {
      url: attachment['url'],
      proxy_url: attachment['proxy_url'],
      content_type: attachment['content_type'],
      attachment_id: attachment['id'],
      flags: 0,
    });
    return attachment;
  };
  for (const node of nodes) {
    resolve(node['media']);
    for (const item of Array.isArray(node['items']) ? node['items'] : []) {
      if (typeof item === 'object' && item !== null) resolve((item as Record<string, unknown>)['media']);
    }
    const file = resolve(node['file']);
    if (file !== undefined) Object.assign(node, { name: file['filename'], size: file['size'] });
  }
  return tree;
}
