/**
 * What an import would do to one server: the file's settings and feeds fitted to the target (settings of
 * channels it does not have, and of sites this bot does not know, dropped and listed: a file from another
 * server is meant to be imported), and the preview of what changes compared with now, bounded to one
 * Discord message.
 */
import { escapeMarkdown, MESSAGE_CONTENT_MAX, truncate } from '../../src/render/index.js';
import {
  compactChannel,
  type ChannelSettingsRecord,
  type GuildSettingsRecord,
} from '../shared/guild-settings.js';
import type { FileFeed, TransferFile } from './transfer-file.js';

export interface ImportPlan {
  /** What the server's record becomes. */
  readonly settings: GuildSettingsRecord;
  /** What the server's feeds become. */
  readonly feeds: readonly FileFeed[];
  /** Channels of the file this server does not have (their settings and feeds left out). */
  readonly droppedChannels: readonly string[];
  /** Sites of the file this bot does not know (their site choice, filters and feeds left out). */
  readonly droppedSites: readonly string[];
}

export interface ImportTarget {
  /** The server's channels that can hold settings (text-like channels, forums, media; not threads). */
  readonly channelIds: ReadonlySet<string>;
  /** The server's channels a feed can post into (as `/feed add` allows: threads included, forums not). */
  readonly feedChannelIds: ReadonlySet<string>;
  readonly knownSite: (siteId: string) => boolean;
}

export function planImport(file: TransferFile, target: ImportTarget): ImportPlan {
  const droppedChannels = new Set<string>();
  const droppedSites = new Set<string>();
  const site = (id: string | undefined): string | undefined => {
    if (id === undefined || target.knownSite(id)) return id;
    droppedSites.add(id);
    return undefined;
  };
  const filters = (all: Readonly<Record<string, number>> | undefined): Record<string, number> =>
    Object.fromEntries(Object.entries(all ?? {}).filter(([id]) => site(id) !== undefined));
  const channels: Record<string, ChannelSettingsRecord> = {};
  for (const [id, channel] of Object.entries(file.settings.channels ?? {})) {
    if (!target.channelIds.has(id)) {
      droppedChannels.add(id);
      continue;
    }
    const kept = compactChannel({
      ...channel,
      siteId: site(channel.siteId),
      filters: filters(channel.filters),
    });
    if (kept !== undefined) channels[id] = kept;
  }
  // The file's record went through guildRecordOf: its lists are compact already; only channels may empty.
  const { channels: _fileChannels, ...server } = file.settings;
  const settings: GuildSettingsRecord = {
    ...server,
    siteId: site(file.settings.siteId),
    filters: filters(file.settings.filters),
    ...(Object.keys(channels).length > 0 ? { channels } : {}),
  };
  const feeds = file.feeds.filter((feed) => {
    if (!target.feedChannelIds.has(feed.channelId)) droppedChannels.add(feed.channelId);
    else if (site(feed.siteId) !== undefined) return true;
    return false;
  });
  return {
    settings,
    feeds,
    droppedChannels: [...droppedChannels],
    droppedSites: [...droppedSites],
  };
}

/** How many items of one list the preview names before "and N more". */
const LIST_SHOWN = 8;

function listed(items: readonly string[]): string {
  const shown = items.slice(0, LIST_SHOWN).join(', ');
  return items.length > LIST_SHOWN ? `${shown} and ${items.length - LIST_SHOWN} more` : shown;
}

const tag = (name: string): string => escapeMarkdown(truncate(name, 60));
const channel = (id: string): string => `<#${id}>`;
const feedName = (feed: FileFeed): string =>
  `"${escapeMarkdown(truncate(feed.query, 60))}" in ${channel(feed.channelId)}`;
const feedKey = (feed: FileFeed): string => JSON.stringify([feed.channelId, feed.siteId, feed.query]);

function tagChanges(label: string, before: readonly string[] = [], after: readonly string[] = []): string[] {
  const added = after.filter((name) => !before.includes(name));
  const removed = before.filter((name) => !after.includes(name));
  return [
    ...(added.length > 0 ? [`${label} added: ${listed(added.map(tag))}`] : []),
    ...(removed.length > 0 ? [`${label} removed: ${listed(removed.map(tag))}`] : []),
  ];
}

/** Lines that fit one message with `head` and `tail`; the lines left out are counted instead. */
function fitted(head: string, lines: readonly string[], tail: string): string {
  const budget = MESSAGE_CONTENT_MAX - head.length - tail.length - 40;
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cut = truncate(line, 400);
    if (used + cut.length + 1 > budget) break;
    kept.push(cut);
    used += cut.length + 1;
  }
  const left = lines.length - kept.length;
  return [head, ...kept, ...(left > 0 ? [`…and ${left} more changes`] : []), tail].join('\n');
}

/**
 * What applying `plan` changes compared with `now`, for the member to confirm. `siteName` names a site id
 * (undefined: the bot's default site).
 */
export function previewText(
  plan: ImportPlan,
  now: { readonly settings: GuildSettingsRecord; readonly feeds: readonly FileFeed[] },
  siteName: (siteId: string | undefined) => string,
): string {
  const before = now.settings;
  const after = plan.settings;
  const lines: string[] = [];
  if (before.siteId !== after.siteId)
    lines.push(`Site: ${siteName(before.siteId)} → ${siteName(after.siteId)}`);
  for (const id of new Set([...Object.keys(before.filters), ...Object.keys(after.filters)])) {
    const [was, will] = [before.filters[id], after.filters[id]];
    if (was !== will) lines.push(`Filter on ${siteName(id)}: ${was ?? 'none'} → ${will ?? 'none'}`);
  }
  if ((before.imageReferences ?? true) !== (after.imageReferences ?? true)) {
    lines.push(`Image references: ${after.imageReferences === false ? 'off' : 'on'}`);
  }
  lines.push(...tagChanges('Hidden tags', before.hiddenTags, after.hiddenTags));
  lines.push(...tagChanges('Spoilered tags', before.spoileredTags, after.spoileredTags));
  const [channelsBefore, channelsAfter] = [before.channels ?? {}, after.channels ?? {}];
  const set = Object.keys(channelsAfter).filter(
    (id) => JSON.stringify(channelsBefore[id]) !== JSON.stringify(channelsAfter[id]),
  );
  const cleared = Object.keys(channelsBefore).filter((id) => channelsAfter[id] === undefined);
  if (set.length > 0) lines.push(`Channel settings set: ${listed(set.map(channel))}`);
  if (cleared.length > 0) lines.push(`Channel settings cleared: ${listed(cleared.map(channel))}`);
  const beforeKeys = new Set(now.feeds.map(feedKey));
  const afterKeys = new Set(plan.feeds.map(feedKey));
  const added = plan.feeds.filter((feed) => !beforeKeys.has(feedKey(feed)));
  const removed = now.feeds.filter((feed) => !afterKeys.has(feedKey(feed)));
  const matched = plan.feeds.flatMap((feed) => {
    const was = now.feeds.find((old) => feedKey(old) === feedKey(feed));
    return was === undefined ? [] : [{ feed, was }];
  });
  const paused = matched.filter(({ feed, was }) => feed.paused && !was.paused).map(({ feed }) => feed);
  const resumed = matched.filter(({ feed, was }) => !feed.paused && was.paused).map(({ feed }) => feed);
  if (added.length > 0) lines.push(`Feeds added: ${listed(added.map(feedName))}`);
  if (removed.length > 0) lines.push(`Feeds removed: ${listed(removed.map(feedName))}`);
  if (paused.length > 0) lines.push(`Feeds paused: ${listed(paused.map(feedName))}`);
  if (resumed.length > 0) lines.push(`Feeds resumed: ${listed(resumed.map(feedName))}`);
  const unchanged = matched.length - paused.length - resumed.length;
  // Said only beside a change: a file that changes nothing says so in one line.
  if (unchanged > 0 && lines.length > 0) lines.push(`Feeds kept as they are: ${unchanged}`);
  if (plan.droppedChannels.length > 0) {
    lines.push(
      `Left out, not channels of this server: ${listed(plan.droppedChannels.map((id) => `\`${id}\``))}`,
    );
  }
  if (plan.droppedSites.length > 0) {
    lines.push(
      `Left out, sites this bot does not know: ${listed(plan.droppedSites.map((id) => escapeMarkdown(truncate(id, 40))))}`,
    );
  }
  const head =
    lines.length === 0
      ? 'Importing this file changes nothing on this server.'
      : 'Importing this file would change:';
  return fitted(
    head,
    lines.map((line) => `- ${line}`),
    'Apply it? (The buttons work for 15 minutes.)',
  );
}
