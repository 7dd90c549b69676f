/**
 * `/settings show [channel:]`: what applies, and where each setting comes from (the channel's own, the
 * server's, the bot's default). For the server: its site and filter (described by the board), references,
 * its own tags, which channels set something of their own, and what the bot cannot do in which channel.
 * For a channel: its effective site, filter, unfurls, references and tags, each with its source.
 */
import type { Reply } from '../../src/discord/contract.js';
import { NotFoundError } from '../../src/errors.js';
import { describeFilter } from '../../src/render/filter-summary.js';
import { escapeMarkdown } from '../../src/render/index.js';
import { filterTagNames, MAKE_IT_PUBLIC } from '../shared/board-filters.js';
import type { CommandContext } from '../shared/context.js';
import { TAG_LIST_MAX, type GuildSettingsRecord } from '../shared/guild-settings.js';
import type { SiteDirectory } from '../shared/site-directory.js';
import { tagNamesLine } from '../shared/tag-changes.js';
import { textReply } from '../shared/text-reply.js';
import { filterIn } from '../shared/view.js';
import { channelOf, listsOf, SERVER_SCOPE, siteOf, type Scope } from './scope.js';

/** A list of tag names for the answer, with its size and bound. */
function tagsLine(label: string, names: readonly string[], max = 500): string {
  return names.length === 0
    ? `${label}: none.`
    : `${label} (${names.length} of ${TAG_LIST_MAX}): ${tagNamesLine(names, max)}`;
}

/** Where a setting of a channel comes from. */
const FROM_CHANNEL = "this channel's own";
const FROM_SERVER = "the server's";

/**
 * The settings that apply in `scope`, each with its source: no board call (the filter by its id).
 * The server's lists come before the channels' and the tags last: a long answer is cut at its end.
 */
export function describeScope(record: GuildSettingsRecord, scope: Scope, sites: SiteDirectory): string[] {
  const site = siteOf(record, scope, sites);
  if (scope.kind === 'server') {
    const channels = Object.keys(record.channels ?? {});
    const server = listsOf(record, SERVER_SCOPE);
    return [
      `Site: **${escapeMarkdown(site.name)}** (${site.baseUrl})${record.siteId === undefined ? ' (the default)' : ''}`,
      `Image references: ${record.imageReferences === false ? 'off' : 'on'} (\`>>123\` in chat gets a card; /settings references)`,
      channels.length === 0
        ? 'Channels with settings of their own: none (/settings channel).'
        : `Channels with settings of their own (${channels.length}): ${channels
            .slice(0, 20)
            .map((id) => `<#${id}>`)
            .join(', ')}${channels.length > 20 ? `, and ${channels.length - 20} more` : ''}`,
      tagsLine('Hidden tags', server.hidden),
      tagsLine('Spoilered tags', server.spoilered),
    ];
  }
  const own = channelOf(record, scope);
  const filterId = filterIn(record, scope.channelId, site, sites);
  const filterFrom =
    own.filters?.[site.id] !== undefined
      ? FROM_CHANNEL
      : record.filters[site.id] !== undefined
        ? FROM_SERVER
        : 'the bot default';
  const references = own.imageReferences ?? record.imageReferences !== false;
  const lists = listsOf(record, scope);
  const server = listsOf(record, SERVER_SCOPE);
  return [
    `Settings in <#${scope.channelId}>:`,
    `• Site: **${escapeMarkdown(site.name)}** (${own.siteId === undefined ? FROM_SERVER : FROM_CHANNEL})`,
    `• Filter: ${filterId === undefined ? "the site's default" : String(filterId)} (${filterFrom})`,
    `• Unfurls of links: ${own.unfurl === false ? 'off' : 'on'} (${own.unfurl === undefined ? 'the default' : FROM_CHANNEL})`,
    `• Image references: ${references ? 'on' : 'off'} (${own.imageReferences === undefined ? FROM_SERVER : FROM_CHANNEL})`,
    `• ${tagsLine("Hidden tags of this channel's own, on top of the server's", lists.hidden, 400)}`,
    `• ${tagsLine("Spoilered tags of this channel's own", lists.spoilered, 300)}`,
    `• The server's own: ${server.hidden.length} hidden and ${server.spoilered.length} spoilered tags (/settings show).`,
  ];
}

/** The server's filter, described by the board (or why it cannot be). */
async function filterLines(context: CommandContext, record: GuildSettingsRecord): Promise<string[]> {
  // The server's own site and filter, whatever the channel the command was used in sets for itself.
  const site = siteOf(record, SERVER_SCOPE, context.sites);
  const filterId = context.sites.filterFor(site, record.filters);
  if (filterId === undefined) return [`Filter: the site's default filter.`];
  const own = record.filters[site.id] !== undefined;
  const label = `Filter${own ? '' : ' (the bot default)'}`;
  try {
    const client = context.registry.client(site);
    const filter = await client.filter(filterId);
    if (!filter.system && !filter.public) throw new NotFoundError('a private filter', { site: site.id });
    const names = await filterTagNames(client, filter, context.logger);
    return [`${label}:`, describeFilter(filter, site, names)];
  } catch (error) {
    context.logger.info({ err: error, filterId }, 'could not read the filter for /settings show');
    // A private filter set before the bot stopped lending its key (or one deleted since): the board
    // ignores a filter_id the bot cannot see and applies its default, so say that, and nothing more.
    return [
      error instanceof NotFoundError
        ? `${label}: ${filterId}, which is not public (private or deleted), so the site applies its default filter instead. Pick a system or public filter with /settings filter, or ${MAKE_IT_PUBLIC}.`
        : `${label}: ${filterId} (the site did not describe it just now).`,
    ];
  }
}

/**
 * `/settings show`: for a channel (`channel:`) what applies there; for the server its settings, the
 * filter as the board describes it, and `permissions` (what the bot cannot do where) at the end.
 */
export async function showSettings(
  context: CommandContext,
  guildId: string,
  scope: Scope,
  permissions: readonly string[],
): Promise<Reply> {
  const record = await context.settings.get(guildId);
  if (scope.kind === 'channel') return textReply(describeScope(record, scope, context.sites).join('\n'));
  const [site = '', references = '', channels = '', ...tags] = describeScope(record, scope, context.sites);
  const filter = await filterLines(context, record);
  // What the bot cannot do comes before the tag lists: a long answer is cut at its end.
  return textReply([site, ...filter, references, channels, ...permissions, ...tags].join('\n'));
}
