/**
 * What a server setting applies to: the whole server, or one of its channels (whose own settings win over
 * the server's; a thread follows its parent, so threads are not settings targets). Read and written in the
 * server's one record (commands/shared/guild-settings.ts).
 */
import { ChannelType, PermissionFlagsBits, type Interaction } from 'discord.js';
import { UserFacingError } from '../../src/discord/failures.js';
import type { Site } from '../../src/philomena/sites.js';
import type { ChannelSettingsRecord, GuildSettingsRecord } from '../shared/guild-settings.js';
import type { SiteDirectory } from '../shared/site-directory.js';
import type { LayerLists } from '../shared/tag-changes.js';

export type Scope = { readonly kind: 'server' } | { readonly kind: 'channel'; readonly channelId: string };

export const SERVER_SCOPE: Scope = { kind: 'server' };

/**
 * The channel types that can have settings of their own (what a `channel:` option offers). Not media
 * channels: Discord's API description does not take their type in `channel_types`.
 */
export const SETTINGS_CHANNEL_TYPES = [
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildForum,
  ChannelType.GuildVoice,
  ChannelType.GuildStageVoice,
] as const;

/** The channel's own settings in `record`; empty when it has none (or the scope is the server). */
export function channelOf(record: GuildSettingsRecord, scope: Scope): ChannelSettingsRecord {
  return scope.kind === 'server' ? {} : (record.channels?.[scope.channelId] ?? {});
}

/** `record` with the channel's own settings replaced by `change(current)`. */
export function withChannel(
  record: GuildSettingsRecord,
  channelId: string,
  change: (current: ChannelSettingsRecord) => ChannelSettingsRecord,
): GuildSettingsRecord {
  const channels = { ...record.channels };
  channels[channelId] = change(channels[channelId] ?? {});
  return { ...record, channels };
}

/** `record` without the channel's own settings. */
export function withoutChannel(record: GuildSettingsRecord, channelId: string): GuildSettingsRecord {
  const { [channelId]: _gone, ...channels } = record.channels ?? {};
  return { ...record, channels };
}

/** The scope's own tag lists. */
export function listsOf(record: GuildSettingsRecord, scope: Scope): LayerLists {
  const own = scope.kind === 'server' ? record : channelOf(record, scope);
  return { hidden: own.hiddenTags ?? [], spoilered: own.spoileredTags ?? [] };
}

/** `record` with the scope's tag lists replaced. */
export function withLists(record: GuildSettingsRecord, scope: Scope, lists: LayerLists): GuildSettingsRecord {
  if (scope.kind === 'server') {
    return { ...record, hiddenTags: lists.hidden, spoileredTags: lists.spoilered };
  }
  return withChannel(record, scope.channelId, (current) => ({
    ...current,
    hiddenTags: lists.hidden,
    spoileredTags: lists.spoilered,
  }));
}

/** The site that applies in the scope: the channel's own, else the server's, else BOORU_URL's. */
export function siteOf(record: GuildSettingsRecord, scope: Scope, sites: SiteDirectory): Site {
  const id = channelOf(record, scope).siteId ?? record.siteId;
  return (id === undefined ? undefined : sites.byId(id)) ?? sites.defaultSite;
}

/**
 * The server of a settings button, select or form, once the member who used it is seen to be allowed to
 * change the settings (permissions can change while a panel is open; the command's own check ran once).
 */
export function settingsGuildOf(interaction: Pick<Interaction, 'guildId' | 'memberPermissions'>): string {
  const guildId = interaction.guildId;
  if (guildId === null || interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) !== true) {
    throw new UserFacingError(
      'settings.manage-server',
      'Only members with the Manage Server permission can change these settings.',
    );
  }
  return guildId;
}
