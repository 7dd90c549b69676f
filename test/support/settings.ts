/**
 * Driving `/settings` end to end (test/e2e/settings-*.test.ts): the command as the server owner (who has
 * Manage Server) or another member, the server's record read back from the store the bot writes, and the
 * custom ids of the panel's controls found by what they are.
 */
import type { Harness } from './harness.js';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { customIdsOf } from '../fakes/discord/v2.js';
import { createGuildSettings, type GuildSettingsRecord } from '../../commands/shared/guild-settings.js';
import { createLogger } from '../../src/logger.js';
import { createFeedStore } from '../../commands/feed/feed-store.js';

export interface SettingsCall {
  readonly subcommand: string;
  readonly group?: string;
  readonly options?: Readonly<Record<string, string | number | boolean>>;
  /** Where it is used (default the plain channel of the first server). */
  readonly channel?: string;
  /** Default: the owner of the first server. */
  readonly userId?: string;
  readonly attachments?: Parameters<Harness['discord']['sendCommand']>[0]['attachments'];
}

/** `/settings ...`, answered: the final reply. */
export function settings(h: Pick<Harness, 'discord'>, call: SettingsCall): Promise<RecordedMessage> {
  return h.discord
    .sendCommand({
      name: 'settings',
      subcommand: call.subcommand,
      ...(call.group === undefined ? {} : { subcommandGroup: call.group }),
      options: call.options ?? {},
      channel: call.channel ?? 'plain',
      userId: call.userId ?? h.discord.guild.ownerId,
      ...(call.attachments === undefined ? {} : { attachments: call.attachments }),
    })
    .finalReply();
}

/** `/settings tags <action> tags:<names> [channel:]`. */
export function tags(
  h: Pick<Harness, 'discord'>,
  action: 'hide' | 'spoiler' | 'unhide',
  names: string,
  channel?: string,
): Promise<RecordedMessage> {
  return settings(h, {
    group: 'tags',
    subcommand: action,
    options: { tags: names, ...(channel === undefined ? {} : { channel }) },
  });
}

/** The server's settings record as the bot stored it (a fresh reader over the same store). */
export function storedRecord(h: Pick<Harness, 'store'>, guildId: string): Promise<GuildSettingsRecord> {
  return createGuildSettings({ store: h.store, logger: createLogger({ level: 'silent' }) }).get(guildId);
}

/** Writes a server's record directly (a bed for the bounds), as the bot would have. */
export async function writeRecord(
  h: Pick<Harness, 'store'>,
  guildId: string,
  record: GuildSettingsRecord,
): Promise<void> {
  await createGuildSettings({ store: h.store, logger: createLogger({ level: 'silent' }) }).update(
    guildId,
    () => record,
  );
}

/** The one custom id on `message` that matches `pattern` (throws when none or several do). */
export function idOn(message: RecordedMessage, pattern: RegExp): string {
  const found = customIdsOf(message).filter((id) => pattern.test(id));
  if (found.length !== 1) {
    throw new Error(`${found.length} custom ids match ${String(pattern)}: ${customIdsOf(message).join(' ')}`);
  }
  return found[0] ?? '';
}

/** The server's feeds as the bot stored them: channel, site, query and whether paused. */
export async function storedFeeds(
  h: Pick<Harness, 'store'>,
  guildId: string,
): Promise<{ channelId: string; siteId: string; query: string; paused: boolean }[]> {
  const feeds = await createFeedStore(h.store).list(guildId);
  return feeds
    .map((feed) => ({
      channelId: feed.channelId,
      siteId: feed.siteId,
      query: feed.query,
      paused: feed.paused !== undefined,
    }))
    .sort((a, b) => a.query.localeCompare(b.query));
}

/** `/feed add query: channel: [site:]` by the owner of `guild` (default the first server), in its plain channel. */
export function addFeed(
  h: Pick<Harness, 'discord'>,
  query: string,
  channel: string,
  guild: { readonly ownerId: string; readonly channels: { readonly plain: string } } = h.discord.guild,
  site?: string,
): Promise<RecordedMessage> {
  return h.discord
    .sendCommand({
      name: 'feed',
      subcommand: 'add',
      options: { query, channel, ...(site === undefined ? {} : { site }) },
      channel: guild.channels.plain,
      userId: guild.ownerId,
    })
    .finalReply();
}
