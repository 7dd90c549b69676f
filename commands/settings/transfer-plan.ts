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
import { sayEnglish, type Say } from '../shared/say.js';
import type { FileFeed, TransferFile } from './transfer-file.js';
import { languageName } from './language.js';

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

function listed(items: readonly string[], say: Say): string {
  const shown = items.slice(0, LIST_SHOWN).join(', ');
  return items.length > LIST_SHOWN
    ? say('transfer.preview.list-more', { shown, count: items.length - LIST_SHOWN })
    : shown;
}

const tag = (name: string): string => escapeMarkdown(truncate(name, 60));
const channel = (id: string): string => `<#${id}>`;
const feedName =
  (say: Say) =>
  (feed: FileFeed): string =>
    say('transfer.preview.feed', {
      query: escapeMarkdown(truncate(feed.query, 60)),
      channel: channel(feed.channelId),
    });
const feedKey = (feed: FileFeed): string => JSON.stringify([feed.channelId, feed.siteId, feed.query]);

/** `list` names the lines' keys: `transfer.preview.<list>-added` and `-removed`. */
function tagChanges(
  say: Say,
  list: 'hidden' | 'spoilered',
  before: readonly string[] = [],
  after: readonly string[] = [],
): string[] {
  const added = after.filter((name) => !before.includes(name));
  const removed = before.filter((name) => !after.includes(name));
  return [
    ...(added.length > 0
      ? [say(`transfer.preview.${list}-added`, { tags: listed(added.map(tag), say) })]
      : []),
    ...(removed.length > 0
      ? [say(`transfer.preview.${list}-removed`, { tags: listed(removed.map(tag), say) })]
      : []),
  ];
}

/** Lines that fit one message with `head` and `tail`; the lines left out are counted instead. */
function fitted(head: string, lines: readonly string[], tail: string, say: Say): string {
  // Room for the line that counts what is left out, as long as it can be in this language.
  const more = say('transfer.preview.more-changes', { count: lines.length }).length + 1;
  const budget = MESSAGE_CONTENT_MAX - head.length - tail.length - more - 2;
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cut = truncate(line, 400);
    if (used + cut.length + 1 > budget) break;
    kept.push(cut);
    used += cut.length + 1;
  }
  const left = lines.length - kept.length;
  return [
    head,
    ...kept,
    ...(left > 0 ? [say('transfer.preview.more-changes', { count: left })] : []),
    tail,
  ].join('\n');
}

/**
 * What applying `plan` changes compared with `now`, for the member to confirm, in `say`'s language (English
 * by default). `siteName` names a site id (undefined: the bot's default site); `lead` goes before it all
 * (what the file is), so the whole fits one message.
 */
export function previewText(
  plan: ImportPlan,
  now: { readonly settings: GuildSettingsRecord; readonly feeds: readonly FileFeed[] },
  siteName: (siteId: string | undefined) => string,
  { say = sayEnglish, lead = '' }: { readonly say?: Say; readonly lead?: string } = {},
): string {
  const before = now.settings;
  const after = plan.settings;
  const lines: string[] = [];
  if (before.siteId !== after.siteId)
    lines.push(
      say('transfer.preview.site', { before: siteName(before.siteId), after: siteName(after.siteId) }),
    );
  for (const id of new Set([...Object.keys(before.filters), ...Object.keys(after.filters)])) {
    const [was, will] = [before.filters[id], after.filters[id]];
    // Filter ids are names, not quantities: written as they are, never grouped as numbers.
    const shown = (filter: number | undefined): string =>
      filter === undefined ? say('transfer.preview.filter-none') : String(filter);
    if (was !== will) {
      lines.push(
        say('transfer.preview.filter', { site: siteName(id), before: shown(was), after: shown(will) }),
      );
    }
  }
  if (before.language !== after.language) {
    const named = (language: string | undefined): string =>
      language === undefined ? say('transfer.preview.language-discord') : languageName(language);
    lines.push(
      say('transfer.preview.language', { before: named(before.language), after: named(after.language) }),
    );
  }
  if ((before.imageReferences ?? true) !== (after.imageReferences ?? true)) {
    lines.push(say('transfer.preview.references', { state: after.imageReferences === false ? 'off' : 'on' }));
  }
  lines.push(...tagChanges(say, 'hidden', before.hiddenTags, after.hiddenTags));
  lines.push(...tagChanges(say, 'spoilered', before.spoileredTags, after.spoileredTags));
  const [channelsBefore, channelsAfter] = [before.channels ?? {}, after.channels ?? {}];
  const set = Object.keys(channelsAfter).filter(
    (id) => JSON.stringify(channelsBefore[id]) !== JSON.stringify(channelsAfter[id]),
  );
  const cleared = Object.keys(channelsBefore).filter((id) => channelsAfter[id] === undefined);
  if (set.length > 0) {
    lines.push(say('transfer.preview.channels-set', { channels: listed(set.map(channel), say) }));
  }
  if (cleared.length > 0) {
    lines.push(say('transfer.preview.channels-cleared', { channels: listed(cleared.map(channel), say) }));
  }
  // Paired in order, each present feed at most once, as the import pairs them (feed-store.ts
  // `replacement`): a server may hold two feeds equal in channel, site and query.
  const left = [...now.feeds];
  const added: (typeof plan.feeds)[number][] = [];
  const matched: { feed: (typeof plan.feeds)[number]; was: (typeof now.feeds)[number] }[] = [];
  for (const feed of plan.feeds) {
    const at = left.findIndex((old) => feedKey(old) === feedKey(feed));
    const was = at === -1 ? undefined : left.splice(at, 1)[0];
    if (was === undefined) added.push(feed);
    else matched.push({ feed, was });
  }
  const removed = left;
  const paused = matched.filter(({ feed, was }) => feed.paused && !was.paused).map(({ feed }) => feed);
  const resumed = matched.filter(({ feed, was }) => !feed.paused && was.paused).map(({ feed }) => feed);
  const feedLists = [
    ['added', added],
    ['removed', removed],
    ['paused', paused],
    ['resumed', resumed],
  ] as const;
  for (const [change, list] of feedLists) {
    if (list.length > 0) {
      lines.push(say(`transfer.preview.feeds-${change}`, { feeds: listed(list.map(feedName(say)), say) }));
    }
  }
  const unchanged = matched.length - paused.length - resumed.length;
  // Said only beside a change: a file that changes nothing says so in one line.
  if (unchanged > 0 && lines.length > 0) lines.push(say('transfer.preview.feeds-kept', { count: unchanged }));
  if (plan.droppedChannels.length > 0) {
    const channels = listed(
      plan.droppedChannels.map((id) => `\`${id}\``),
      say,
    );
    lines.push(say('transfer.preview.dropped-channels', { channels }));
  }
  if (plan.droppedSites.length > 0) {
    const sites = listed(
      plan.droppedSites.map((id) => escapeMarkdown(truncate(id, 40))),
      say,
    );
    lines.push(say('transfer.preview.dropped-sites', { sites }));
  }
  const head = say(lines.length === 0 ? 'transfer.preview.unchanged' : 'transfer.preview.changes');
  return fitted(
    lead + head,
    lines.map((line) => `- ${line}`),
    say('transfer.preview.confirm'),
    say,
  );
}
