/**
 * The seeded servers as tests see them (`fake.guilds`, `fake.foreignGuilds`) and the changes a server's
 * admin makes to them, each also sent over the gateway to the session holding the server's shard:
 * `deleteChannel`, `denyBot` / `allowBot` (a member overwrite), `updateChannel` (age restriction and
 * flags, with Discord's refusals thrown) and `removeBot`.
 */
import {
  IS_SPOILER_CHANNEL_FLAG,
  channelPayload,
  guildPayload,
  isThread,
  type SeedChannel,
  type World,
} from '../payloads.js';
import { INTENT_GUILDS } from '../gateway.js';
import type { Scenario } from './context.js';
import type { ChannelChange, ChannelTarget, FakeForeignGuild, FakeGuild, GuildChange } from './types.js';

/** `fake.guilds` and `fake.foreignGuilds`: ids, shards, members, roles and channel ids of each server. */
export function seededGuilds(scenario: Scenario): {
  guilds: FakeGuild[];
  foreignGuilds: FakeForeignGuild[];
} {
  const { worlds, foreignWorlds, shardOf } = scenario;
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
  return { guilds, foreignGuilds };
}

export interface GuildChanges {
  deleteChannel(channel: ChannelTarget): void;
  denyBot(channel: ChannelTarget, permissions: bigint): void;
  allowBot(channel: ChannelTarget): void;
  updateChannel(channel: ChannelTarget, change: ChannelChange): void;
  removeBot(guildId?: string): void;
  updateGuild(change: GuildChange, guildId?: string): void;
}

export function createGuildChanges(scenario: Scenario): GuildChanges {
  const { state, world, worlds, now, deletedChannels, guildChannel, dispatchToShard } = scenario;

  /** CHANNEL_UPDATE (sent with the Guilds intent) to the session of the channel's server. */
  function dispatchChannelUpdate(w: World, channel: SeedChannel): void {
    const d = channelPayload(w, channel, now);
    dispatchToShard('CHANNEL_UPDATE', w.guildId, (intents) => ((intents & INTENT_GUILDS) === 0 ? null : d));
  }

  return {
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
    updateGuild(change, guildId = world.guildId) {
      const w = worlds.find((candidate) => candidate.guildId === guildId);
      if (w === undefined || state.removedFrom.has(guildId)) {
        throw new Error(`fake Discord: updateGuild: the bot is not in server ${guildId}`);
      }
      if (change.preferredLocale !== undefined) w.preferredLocale = change.preferredLocale;
      // GUILD_UPDATE (Guilds intent) carries the guild object, as GET /guilds/:id answers it.
      const d = guildPayload(w);
      dispatchToShard('GUILD_UPDATE', guildId, (intents) => ((intents & INTENT_GUILDS) === 0 ? null : d));
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
  };
}
