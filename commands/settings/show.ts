/**
 * `/settings show [channel:]`: what applies, and where each setting comes from (the channel's own, the
 * server's, the bot's default). For the server: its site and filter (described by the board), references,
 * its own tags, which channels set something of their own, and what the bot cannot do in which channel.
 * For a channel: its effective site, filter, unfurls, references, language and tags, each with its source.
 */
import type { Reply } from '../../src/discord/contract.js';
import { NotFoundError } from '../../src/errors.js';
import { describeFilter } from '../../src/render/filter-summary.js';
import { escapeMarkdown } from '../../src/render/index.js';
import { filterTagNames } from '../shared/board-filters.js';
import type { CommandContext } from '../shared/context.js';
import { TAG_LIST_MAX, type GuildSettingsRecord } from '../shared/guild-settings.js';
import { sayEnglish, sayIn, type Say } from '../shared/say.js';
import type { SiteDirectory } from '../shared/site-directory.js';
import { tagNamesLine } from '../shared/tag-changes.js';
import { textReply } from '../shared/text-reply.js';
import { filterIn } from '../shared/view.js';
import { languageLine } from './language.js';
import { channelOf, listsOf, SERVER_SCOPE, siteOf, type Scope } from './scope.js';

/** Which list a tags line is about (its catalogue keys: `<key>` and `<key>.none`). */
type TagsLineKey =
  | 'settings.show.hidden'
  | 'settings.show.spoilered'
  | 'settings.show.channel.hidden'
  | 'settings.show.channel.spoilered';

/** A list of tag names for the answer, with its size and bound. */
function tagsLine(say: Say, key: TagsLineKey, names: readonly string[], max = 500): string {
  return names.length === 0
    ? say(`${key}.none`)
    : say(key, { count: names.length, max: TAG_LIST_MAX, names: tagNamesLine(names, max, say) });
}

/** Where a setting of a channel comes from (a select in the catalogue's messages). */
type From = 'channel' | 'server' | 'default';

/** Channels named in the server's answer; the rest are counted. */
const CHANNELS_NAMED = 20;

/**
 * The settings that apply in `scope`, each with its source, in `say`'s language: no board call (the filter
 * by its id). The server's lists come before the channels' and the tags last: a long answer is cut at its end.
 * `guildLocale` is Discord's preferred locale of the server (null: none; undefined: not known here), which
 * the language of unfurls and feed posts follows where nothing set one.
 */
export function describeScope(
  record: GuildSettingsRecord,
  scope: Scope,
  sites: SiteDirectory,
  say: Say = sayEnglish,
  guildLocale?: string | null,
): string[] {
  const site = siteOf(record, scope, sites);
  if (scope.kind === 'server') {
    const channels = Object.keys(record.channels ?? {});
    const server = listsOf(record, SERVER_SCOPE);
    const named = channels
      .slice(0, CHANNELS_NAMED)
      .map((id) => `<#${id}>`)
      .join(', ');
    return [
      say('settings.show.site', {
        name: escapeMarkdown(site.name),
        url: site.baseUrl,
        default: record.siteId === undefined ? 'yes' : 'no',
      }),
      say('settings.show.references', { state: record.imageReferences === false ? 'off' : 'on' }),
      channels.length === 0
        ? say('settings.show.channels.none')
        : channels.length > CHANNELS_NAMED
          ? say('settings.show.channels.some-more', {
              count: channels.length,
              channels: named,
              more: channels.length - CHANNELS_NAMED,
            })
          : say('settings.show.channels.some', { count: channels.length, channels: named }),
      languageLine(record, scope, say, guildLocale),
      tagsLine(say, 'settings.show.hidden', server.hidden),
      tagsLine(say, 'settings.show.spoilered', server.spoilered),
    ];
  }
  const own = channelOf(record, scope);
  const filterId = filterIn(record, scope.channelId, site, sites);
  const filterFrom: From =
    own.filters?.[site.id] !== undefined
      ? 'channel'
      : record.filters[site.id] !== undefined
        ? 'server'
        : 'default';
  const references = own.imageReferences ?? record.imageReferences !== false;
  const lists = listsOf(record, scope);
  const server = listsOf(record, SERVER_SCOPE);
  const fromOwn = (set: boolean, otherwise: From): From => (set ? 'channel' : otherwise);
  return [
    say('settings.show.channel.heading', { channel: `<#${scope.channelId}>` }),
    say('settings.show.channel.site', {
      name: escapeMarkdown(site.name),
      from: fromOwn(own.siteId !== undefined, 'server'),
    }),
    filterId === undefined
      ? say('settings.show.channel.filter.default', { from: filterFrom })
      : say('settings.show.channel.filter', { id: String(filterId), from: filterFrom }),
    say('settings.show.channel.unfurls', {
      state: own.unfurl === false ? 'off' : 'on',
      from: fromOwn(own.unfurl !== undefined, 'default'),
    }),
    say('settings.show.channel.references', {
      state: references ? 'on' : 'off',
      from: fromOwn(own.imageReferences !== undefined, 'server'),
    }),
    languageLine(record, scope, say, guildLocale),
    `• ${tagsLine(say, 'settings.show.channel.hidden', lists.hidden, 400)}`,
    `• ${tagsLine(say, 'settings.show.channel.spoilered', lists.spoilered, 300)}`,
    say('settings.show.channel.server-lists', {
      hidden: server.hidden.length,
      spoilered: server.spoilered.length,
    }),
  ];
}

/** The server's filter, described by the board (or why it cannot be). */
async function filterLines(
  context: CommandContext,
  record: GuildSettingsRecord,
  say: Say,
): Promise<string[]> {
  // The server's own site and filter, whatever the channel the command was used in sets for itself.
  const site = siteOf(record, SERVER_SCOPE, context.sites);
  const filterId = context.sites.filterFor(site, record.filters);
  if (filterId === undefined) return [say('settings.show.filter.site-default')];
  const own = record.filters[site.id] !== undefined ? 'yes' : 'no';
  try {
    const client = context.registry.client(site);
    const filter = await client.filter(filterId);
    if (!filter.system && !filter.public) throw new NotFoundError('a private filter', { site: site.id });
    const names = await filterTagNames(client, filter, context.logger);
    return [say('settings.show.filter.heading', { own }), describeFilter(filter, site, names)];
  } catch (error) {
    context.logger.info({ err: error, filterId }, 'could not read the filter for /settings show');
    // A private filter set before the bot stopped lending its key (or one deleted since): the board
    // ignores a filter_id the bot cannot see and applies its default, so say that, and nothing more.
    return [
      say(
        error instanceof NotFoundError
          ? 'settings.show.filter.not-public'
          : 'settings.show.filter.undescribed',
        {
          own,
          id: String(filterId),
        },
      ),
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
  guildLocale?: string | null,
): Promise<Reply> {
  const record = await context.settings.get(guildId);
  const say = sayIn(context.locale);
  const lines = describeScope(record, scope, context.sites, say, guildLocale);
  if (scope.kind === 'channel') return textReply(lines.join('\n'));
  const [site = '', references = '', channels = '', language = '', ...tags] = lines;
  const filter = await filterLines(context, record, say);
  // What the bot cannot do comes before the tag lists: a long answer is cut at its end.
  return textReply([site, ...filter, references, channels, language, ...permissions, ...tags].join('\n'));
}
