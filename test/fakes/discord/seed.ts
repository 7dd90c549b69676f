/**
 * The world one fake starts with: the bot's servers (server i on shard i % shards), the servers it is
 * not in (reached through user installs only), and two DMs between users of the first server. Ids come
 * from the fake's snowflakes in this order, so that a one-shard fake keeps the ids it always had.
 */
import { ChannelType } from 'discord.js';
import { DEFAULT_BOT_PERMISSIONS, createWorld, snowflakeOnShard } from './payloads.js';
import type { PrivateChannel, World } from './payloads.js';
import type { PrivateChannelRef } from './scenario/types.js';

export interface Seed {
  /** The first server (on shard 0): the bot's user and its DM live here. */
  readonly world: World;
  readonly worlds: World[];
  readonly foreignWorlds: World[];
  readonly privateChannels: Map<string, PrivateChannel>;
  readonly privateRefs: Record<PrivateChannelRef, string>;
}

export function seedWorlds(options: {
  readonly snowflake: () => string;
  readonly now: () => number;
  readonly botUserId: string;
  readonly botUsername?: string | undefined;
  readonly botPermissions?: bigint | undefined;
  readonly shards: number;
  readonly guilds?: number | undefined;
  readonly foreignGuilds?: number | undefined;
  /** The `preferred_locale` of each of the bot's servers, in order (default `en-US`). */
  readonly guildLocales?: readonly string[] | undefined;
}): Seed {
  const { snowflake, now, botUserId, shards } = options;
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
        ...(options.guildLocales?.[i] === undefined ? {} : { preferredLocale: options.guildLocales[i] }),
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
  return { world, worlds, foreignWorlds, privateChannels, privateRefs };
}
