/**
 * The servers of the bench's local Discord (bench/bot-discord.ts), generated on demand: a bot in 50,000
 * servers would otherwise keep gigabytes of GUILD_CREATE text in the driver, which is not what is measured.
 * Every id is a function of the server's index, so a server's payload can be built again for each
 * IDENTIFY (a fresh session gets every server again) and the bench can address any channel or member.
 *
 * Ids are snowflakes (docs/discord-platform.md: a shard holds the servers whose `(id >> 22) % shards` is
 * its number); servers take consecutive timestamps so they spread evenly over the shards.
 */
import { ChannelType, OverwriteType, PermissionFlagsBits } from 'discord.js';

export interface WorldShape {
  readonly guilds: number;
  /**
   * Per guild. 'plain': one category, one voice channel, the rest text channels (the first of them
   * age-restricted), no threads or permission overwrites. 'issue-23': issue 23's server, 2 categories,
   * 20 text channels (2 age-restricted, one private to a role with permission overwrites), a voice channel
   * and 3 active threads (one under an age-restricted channel); `channels` is then ignored.
   */
  readonly layout?: 'plain' | 'issue-23';
  /** Per guild, 'plain' layout only: every channel, the category and the voice channel included. */
  readonly channels: number;
  /** Per guild, @everyone and the bot's managed role included. */
  readonly roles: number;
  /** Per guild, the bot included. */
  readonly members: number;
  /** Per guild: members shown online. */
  readonly presences: number;
}

export interface BenchGuild {
  readonly id: string;
  readonly textChannelIds: readonly string[];
  /** Member user ids, the bot excluded. */
  readonly memberIds: readonly string[];
}

const DISCORD_EPOCH_OFFSET = 1n << 22n;
/** 2023, in ms since Discord's epoch: servers' snowflakes. */
const GUILD_TIME = 262_000_000_000n;
/** Every other id: after every server's, in a block per server. */
const OTHER_TIME = GUILD_TIME + 100_000_000n;
const THREADS = 3;
const ISSUE_TEXT_CHANNELS = 20;

const snowflake = (ms: bigint): string => (ms * DISCORD_EPOCH_OFFSET).toString();

const EVERYONE_BITS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.UseApplicationCommands;
const BOT_BITS = EVERYONE_BITS | PermissionFlagsBits.ManageMessages | PermissionFlagsBits.AttachFiles;

export interface World {
  readonly applicationId: string;
  readonly botUser: Readonly<Record<string, unknown>>;
  readonly joinedAt: string;
  readonly guilds: readonly BenchGuild[];
  /** Which of `count` shards holds server `index`. */
  shardOf(index: number, count: number): number;
  /** The GUILD_CREATE `d` of server `index`, as JSON. */
  guildJson(index: number): string;
  /** A member's user object. */
  user(guild: number, member: number): Record<string, unknown>;
}

export function createWorld(shape: WorldShape): World {
  const issue = shape.layout === 'issue-23';
  const textChannels = issue ? ISSUE_TEXT_CHANNELS : Math.max(0, shape.channels - 2);
  const categories = issue ? 2 : 1;
  const threads = issue ? THREADS : 0;
  // Per server: roles, categories, text channels, the voice channel, threads, members (the bot's user
  // is the application's).
  const block = BigInt(shape.roles + categories + textChannels + 1 + threads + shape.members);
  const applicationId = snowflake(GUILD_TIME - 1n);
  const joinedAt = new Date(Date.now() - 86_400_000).toISOString();
  const botUser = {
    id: applicationId,
    username: 'philomena-bot',
    discriminator: '0',
    global_name: null,
    avatar: null,
    bot: true,
  };
  const guildId = (g: number): string => snowflake(GUILD_TIME + BigInt(g));
  const idOf = (g: number, k: number): string => snowflake(OTHER_TIME + BigInt(g) * block + BigInt(k));
  const roleId = (g: number, r: number): string => (r === 0 ? guildId(g) : idOf(g, r));
  const categoryId = (g: number, c: number): string => idOf(g, shape.roles + c);
  const textId = (g: number, t: number): string => idOf(g, shape.roles + categories + t);
  const voiceId = (g: number): string => idOf(g, shape.roles + categories + textChannels);
  const threadId = (g: number, t: number): string => idOf(g, shape.roles + categories + textChannels + 1 + t);
  const memberId = (g: number, m: number): string =>
    idOf(g, shape.roles + categories + textChannels + 1 + threads + m);

  function user(g: number, m: number): Record<string, unknown> {
    return {
      id: memberId(g, m),
      username: `member_${g}_${m}`,
      discriminator: '0',
      global_name: `Member ${m}`,
      avatar: null,
      bot: false,
    };
  }

  function guildJson(g: number): string {
    const id = guildId(g);
    const roles: Record<string, unknown>[] = [
      role(id, '@everyone', EVERYONE_BITS, 0, false),
      { ...role(roleId(g, 1), 'philomena-bot', BOT_BITS, 1, true), tags: { bot_id: applicationId } },
    ];
    for (let r = 2; r < shape.roles; r += 1) roles.push(role(roleId(g, r), `role ${r}`, 0n, r, false));
    const moderators = shape.roles > 2 ? roleId(g, 2) : id;
    const channels: Record<string, unknown>[] = [];
    for (let c = 0; c < categories; c += 1) {
      channels.push(
        channel(categoryId(g, c), id, ChannelType.GuildCategory, `Category ${c}`, null, c, false),
      );
    }
    for (let t = 0; t < textChannels; t += 1) {
      const parent = categoryId(g, issue && t >= textChannels / 2 ? 1 : 0);
      const nsfw = issue ? t === 1 || t === textChannels - 1 : t === 0;
      const text = channel(textId(g, t), id, ChannelType.GuildText, `chat-${t}`, parent, t, nsfw);
      if (issue && t === 2) {
        // The private channel: hidden from @everyone, open to one role and to the bot.
        text['permission_overwrites'] = [
          overwrite(id, OverwriteType.Role, 0n, PermissionFlagsBits.ViewChannel),
          overwrite(moderators, OverwriteType.Role, PermissionFlagsBits.ViewChannel, 0n),
          overwrite(applicationId, OverwriteType.Member, PermissionFlagsBits.ViewChannel, 0n),
        ];
      } else if (issue && t % 5 === 4) {
        // Some channels are read-only for @everyone.
        text['permission_overwrites'] = [
          overwrite(id, OverwriteType.Role, 0n, PermissionFlagsBits.SendMessages),
        ];
      }
      channels.push(text);
    }
    channels.push(channel(voiceId(g), id, ChannelType.GuildVoice, 'Lounge', null, textChannels, false));
    const threadList: Record<string, unknown>[] = [];
    for (let t = 0; t < threads; t += 1) {
      // The first thread's parent is age-restricted: the rating rule follows the parent.
      threadList.push(
        thread(threadId(g, t), id, textId(g, t === 0 ? 1 : 3 + t), memberId(g, 1), t, joinedAt),
      );
    }
    const members: Record<string, unknown>[] = [member(botUser, [roleId(g, 1)], joinedAt)];
    const memberIds: string[] = [];
    for (let m = 1; m < shape.members; m += 1) {
      const extra = shape.roles > 2 ? [roleId(g, 2 + (m % (shape.roles - 2)))] : [];
      members.push(member(user(g, m), extra, joinedAt));
      memberIds.push(memberId(g, m));
    }
    const presences = memberIds.slice(0, shape.presences).map((userId) => ({
      user: { id: userId },
      status: 'online',
      activities: [],
      client_status: { desktop: 'online' },
    }));
    return JSON.stringify({
      id,
      name: `Bench server ${g}`,
      icon: null,
      splash: null,
      discovery_splash: null,
      banner: null,
      description: null,
      owner_id: memberIds[0] ?? applicationId,
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 1,
      default_message_notifications: 1,
      explicit_content_filter: 2,
      features: [],
      mfa_level: 0,
      application_id: null,
      system_channel_id: textChannels > 0 ? textId(g, 0) : null,
      system_channel_flags: 0,
      rules_channel_id: null,
      public_updates_channel_id: null,
      safety_alerts_channel_id: null,
      vanity_url_code: null,
      premium_tier: 0,
      premium_subscription_count: 0,
      preferred_locale: 'en-US',
      max_members: 500_000,
      max_video_channel_users: 25,
      nsfw_level: 0,
      premium_progress_bar_enabled: false,
      roles,
      emojis: [],
      stickers: [],
      joined_at: joinedAt,
      large: false,
      unavailable: false,
      member_count: shape.members,
      voice_states: [],
      members,
      channels,
      threads: threadList,
      presences,
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
      lazy: true,
    });
  }

  const guilds: BenchGuild[] = Array.from({ length: shape.guilds }, (_, g) => ({
    id: guildId(g),
    get textChannelIds() {
      return Array.from({ length: textChannels }, (_unused, t) => textId(g, t));
    },
    get memberIds() {
      return Array.from({ length: Math.max(0, shape.members - 1) }, (_unused, m) => memberId(g, m + 1));
    },
  }));

  return {
    applicationId,
    botUser,
    joinedAt,
    guilds,
    shardOf: (index, count) => Number((GUILD_TIME + BigInt(index)) % BigInt(count)),
    guildJson,
    user,
  };
}

function role(
  id: string,
  name: string,
  permissions: bigint,
  position: number,
  managed: boolean,
): Record<string, unknown> {
  return {
    id,
    name,
    color: 0,
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: permissions.toString(),
    managed,
    mentionable: false,
    flags: 0,
  };
}

function overwrite(id: string, type: OverwriteType, allow: bigint, deny: bigint): Record<string, unknown> {
  return { id, type, allow: allow.toString(), deny: deny.toString() };
}

function channel(
  id: string,
  guildId: string,
  type: ChannelType,
  name: string,
  parentId: string | null,
  position: number,
  nsfw: boolean,
): Record<string, unknown> {
  const base = {
    id,
    type,
    guild_id: guildId,
    name,
    position,
    permission_overwrites: [],
    parent_id: parentId,
    nsfw,
    flags: 0,
  };
  if (type === ChannelType.GuildText) {
    return {
      ...base,
      topic: null,
      last_message_id: null,
      rate_limit_per_user: 0,
      default_auto_archive_duration: 1440,
    };
  }
  if (type === ChannelType.GuildVoice) {
    return {
      ...base,
      bitrate: 64_000,
      user_limit: 0,
      rtc_region: null,
      last_message_id: null,
      rate_limit_per_user: 0,
    };
  }
  return base;
}

function thread(
  id: string,
  guildId: string,
  parentId: string,
  ownerId: string,
  index: number,
  createdAt: string,
): Record<string, unknown> {
  return {
    id,
    type: ChannelType.PublicThread,
    guild_id: guildId,
    parent_id: parentId,
    owner_id: ownerId,
    name: `thread ${index}`,
    last_message_id: null,
    rate_limit_per_user: 0,
    message_count: 3,
    member_count: 2,
    total_message_sent: 3,
    flags: 0,
    thread_metadata: {
      archived: false,
      archive_timestamp: createdAt,
      auto_archive_duration: 1440,
      locked: false,
      create_timestamp: createdAt,
    },
  };
}

function member(user: object, roles: readonly string[], joinedAt: string): Record<string, unknown> {
  return {
    user,
    nick: null,
    avatar: null,
    roles,
    joined_at: joinedAt,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

/** A message as Discord returns it for a POST or PATCH of `body`. */
export function messageJson(
  id: string,
  channelId: string,
  author: object,
  body: Record<string, unknown>,
): object {
  return {
    id,
    type: body['message_reference'] === undefined ? 0 : 19,
    channel_id: channelId,
    author,
    content: typeof body['content'] === 'string' ? body['content'] : '',
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: Array.isArray(body['embeds']) ? body['embeds'] : [],
    components: Array.isArray(body['components']) ? body['components'] : [],
    pinned: false,
    flags: typeof body['flags'] === 'number' ? body['flags'] : 0,
    ...(body['message_reference'] === undefined ? {} : { message_reference: body['message_reference'] }),
  };
}
