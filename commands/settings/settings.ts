import {
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
} from 'discord.js';
import { messageReply, type Incoming, type Reply } from '../../src/discord/contract.js';
import {
  escapeInline,
  escapeMarkdown,
  MESSAGE_CONTENT_MAX,
  truncate,
  truncateMarkdown,
} from '../../src/render/index.js';
import type { ChatCommand, CommandContext } from '../shared/context.js';
import { UserFacingError } from '../../src/discord/user-error.js';
import { NotFoundError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import type { PhilomenaClient } from '../../src/philomena/client-types.js';
import type { Filter } from '../../src/philomena/schemas.js';
import { KNOWN_SITES, type Site } from '../../src/philomena/sites.js';

/** Characters of the filter's name (the board sets no limit) and of its description, before escaping. */
const NAME_MAX = 100;
const DESCRIPTION_MAX = 300;
/**
 * What `describeFilter` may take: the bounded parts alone (escaped name, two tag lists, two rule blocks,
 * escaped description) could add up to about 2,300 characters, past Discord's 2,000 for a message, so the
 * description gets what room is left. The rest of the 2,000 is for the reply's own first line.
 */
export const DESCRIBE_FILTER_MAX = 1_700;
/** Tags named per list; the rest are counted ("and 12 more"). */
const NAMED_TAGS_MAX = 15;
/** Characters of one list of tag names, and of one kind of complex rules. */
const TAG_LIST_MAX = 350;
const RULES_MAX = 300;
const RULE_LINES_MAX = 5;
/** Philomena's largest page. */
const PER_PAGE_MAX = 50;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function ruleLines(text: string | null): string[] {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * The names of the first tags each list of `filter` holds (the filter gives ids only), in one tag search
 * by `id:` (an int field of Philomena's tag search). Undefined when the board does not answer: the caller
 * falls back to counts.
 */
export async function filterTagNames(
  client: Pick<PhilomenaClient, 'searchTags'>,
  filter: Filter,
  logger: Logger,
): Promise<ReadonlyMap<number, string> | undefined> {
  const ids = [
    ...new Set([
      ...filter.hidden_tag_ids.slice(0, NAMED_TAGS_MAX),
      ...filter.spoilered_tag_ids.slice(0, NAMED_TAGS_MAX),
    ]),
  ];
  if (ids.length === 0) return new Map();
  try {
    const page = await client.searchTags({
      q: ids.map((id) => `id:${id}`).join(' || '),
      perPage: Math.min(PER_PAGE_MAX, ids.length),
    });
    return new Map(page.items.map((tag) => [tag.id, tag.name]));
  } catch (error) {
    logger.info({ err: error, filterId: filter.id }, 'could not name the tags of a filter; showing counts');
    return undefined;
  }
}

/** `explicit, grotesque and 3 more`: escaped names (sorted), as many as fit, the rest counted. */
function tagList(ids: readonly number[], names: ReadonlyMap<number, string>): string {
  const known = ids
    .slice(0, NAMED_TAGS_MAX)
    .flatMap((id) => {
      const name = names.get(id);
      return name === undefined ? [] : [name];
    })
    .sort((a, b) => a.localeCompare(b));
  const shown: string[] = [];
  let length = 0;
  for (const name of known) {
    const escaped = escapeInline(name);
    if (length + escaped.length + 2 > TAG_LIST_MAX) break;
    shown.push(escaped);
    length += escaped.length + 2;
  }
  const more = ids.length - shown.length;
  if (shown.length === 0) return '';
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** The rules in a code block: nothing in it formats or pings; a backtick cannot close it early. */
function rulesBlock(lines: readonly string[]): string {
  const kept = lines.slice(0, RULE_LINES_MAX).map((line) => line.replaceAll('`', '\u02cb'));
  let body = truncate(kept.join('\n'), RULES_MAX);
  if (lines.length > kept.length && !body.endsWith('\u2026')) body += '\n\u2026';
  return `\`\`\`\n${body}\n\`\`\``;
}

function listLine(
  verb: string,
  ids: readonly number[],
  rules: readonly string[],
  names: ReadonlyMap<number, string> | undefined,
): string {
  const counts = `${verb} ${plural(ids.length, 'tag')}${rules.length > 0 ? ` and ${plural(rules.length, 'complex rule')}` : ''}`;
  const list = names === undefined ? '' : tagList(ids, names);
  const line = list === '' ? `${counts}.` : `${counts}: ${list}.`;
  return rules.length > 0 ? `${line}\n${rulesBlock(rules)}` : line;
}

/**
 * What a filter does: name, the tags it hides and spoilers (named when `names` has them, else counted),
 * its complex rules, and its description; at most `max` characters (the description is cut to fit).
 */
export function describeFilter(
  filter: Filter,
  site: Site,
  names?: ReadonlyMap<number, string>,
  max: number = DESCRIBE_FILTER_MAX,
): string {
  const lines = [
    `**${escapeInline(truncate(filter.name, NAME_MAX))}** (filter ${filter.id} on ${escapeInline(site.name)})`,
    listLine('Hides', filter.hidden_tag_ids, ruleLines(filter.hidden_complex), names),
    listLine('Spoilers', filter.spoilered_tag_ids, ruleLines(filter.spoilered_complex), names),
  ];
  const description = filter.description.trim();
  const room = max - lines.join('\n').length - '\n> '.length;
  if (description !== '' && room > 20) {
    // Escaping can double the text, so it is cut again, escaped, to the room left.
    const escaped = escapeInline(truncate(description, DESCRIPTION_MAX));
    lines.push(`> ${truncate(escaped, room)}`);
  }
  return truncateMarkdown(lines.join('\n'), max);
}

/** How an admin makes their own filter usable: the bot looks filters up anonymously, as anyone would. */
const MAKE_IT_PUBLIC = 'make it public on the site (Filters \u2192 edit the filter \u2192 tick "public")';

/**
 * The filter if the bot may use it on `site`: a system or a public one. The bot asks without the API key,
 * so the key owner's private filters look like anyone else's: not there (the board answers 404). An admin
 * can neither use the owner's private filters nor read them by trying ids.
 */
async function usableFilter(id: number, site: Site, context: CommandContext): Promise<Filter> {
  let filter: Filter;
  try {
    filter = await context.registry.client(site).filter(id);
  } catch (error) {
    if (error instanceof NotFoundError) {
      throw new UserFacingError(
        `${escapeMarkdown(site.name)} has no public filter ${id}. If it is your own private filter, ${MAKE_IT_PUBLIC} and try again, or pick a system or public filter.`,
      );
    }
    throw error;
  }
  if (filter.system || filter.public) return filter;
  // A board that shows a private filter anyway still does not get it used, nor shown.
  throw new UserFacingError(`Filter ${id} is private: ${MAKE_IT_PUBLIC}, or pick a system or public filter.`);
}

/**
 * Every reply fits Discord's 2,000 characters: past it Discord refuses the whole message, and the admin
 * would read "Something went wrong" about a setting that was in fact saved.
 */
function reply(content: string): Reply {
  return messageReply({
    content: truncateMarkdown(content, MESSAGE_CONTENT_MAX),
    embeds: [],
    components: [],
  });
}

/** One subcommand of /settings, run for a server by a member allowed to change its settings. */
type Subcommand = (
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  guildId: string,
) => Promise<Reply>;

const show: Subcommand = async (_interaction, context, guildId) => {
  const record = await context.settings.get(guildId);
  const { site, filterId } = context.view;
  const lines = [
    `Site: **${escapeMarkdown(site.name)}** (${site.baseUrl})${record.siteId === undefined ? ' (the default)' : ''}`,
  ];
  if (filterId === undefined) {
    lines.push(`Filter: the site's default filter.`);
  } else {
    const own = record.filters[site.id] !== undefined;
    const label = `Filter${own ? '' : ' (the bot default)'}`;
    try {
      const client = context.registry.client(site);
      const filter = await client.filter(filterId);
      if (!filter.system && !filter.public) throw new NotFoundError('a private filter', { site: site.id });
      const names = await filterTagNames(client, filter, context.logger);
      lines.push(`${label}:`, describeFilter(filter, site, names));
    } catch (error) {
      context.logger.info({ err: error, filterId }, 'could not read the filter for /settings show');
      // A private filter set before the bot stopped lending its key (or one deleted since): the board
      // ignores a filter_id the bot cannot see and applies its default, so say that, and nothing more.
      lines.push(
        error instanceof NotFoundError
          ? `${label}: ${filterId}, which is not public (private or deleted), so the site applies its default filter instead. Pick a system or public filter with /settings filter, or ${MAKE_IT_PUBLIC}.`
          : `${label}: ${filterId} (the site did not describe it just now).`,
      );
    }
  }
  return reply(lines.join('\n'));
};

const reset: Subcommand = async (_interaction, context, guildId) => {
  await context.settings.reset(guildId);
  return reply('Settings reset: this server uses the bot defaults again.');
};

const chooseSite: Subcommand = async (interaction, context, guildId) => {
  const choice = interaction.options.getString('site', true);
  // The default choice follows BOORU_URL (nothing stored), so it stays right if the owner changes it.
  const backToDefault = choice === DEFAULT_SITE_CHOICE;
  const site = backToDefault ? context.sites.defaultSite : context.sites.byId(choice);
  if (site === undefined) throw new UserFacingError('That site is not supported.');
  const record = await context.settings.setSite(guildId, backToDefault ? undefined : site.id);
  const filterId = context.sites.filterFor(site, record.filters);
  return reply(
    `This server now uses **${escapeMarkdown(site.name)}** (${site.baseUrl}).` +
      (filterId === undefined ? ' Its default filter applies.' : ` Filter ${filterId} applies there.`),
  );
};

const chooseFilter: Subcommand = async (interaction, context, guildId) => {
  const id = interaction.options.getInteger('filter_id', true);
  const site = context.view.site;
  const filter = await usableFilter(id, site, context);
  await context.settings.setFilter(guildId, site.id, filter.id);
  const names = await filterTagNames(context.registry.client(site), filter, context.logger);
  return reply(`Filter set for ${escapeMarkdown(site.name)}:\n${describeFilter(filter, site, names)}`);
};

const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  show,
  reset,
  site: chooseSite,
  filter: chooseFilter,
};

/** The `site` choice that means "the site this bot is configured for" (BOORU_URL), whatever it is. */
export const DEFAULT_SITE_CHOICE = 'default';
const CHOICE_NAME_MAX = 100;

/**
 * The choices of `/settings site`: every known site, and the bot's own site when it is not one of them
 * (a custom BOORU_URL), so that a server can come back to it. Without `defaultSite` (a caller that does not
 * know the configuration) the own site is offered under a generic name.
 */
export function siteChoices(defaultSite?: Site): { name: string; value: string }[] {
  const known = KNOWN_SITES.map((site) => ({ name: site.name, value: site.id }));
  if (defaultSite?.known === true) return known;
  const name =
    defaultSite === undefined
      ? "This bot's default site"
      : truncate(`${defaultSite.name} (this bot's default)`, CHOICE_NAME_MAX);
  return [...known, { name, value: DEFAULT_SITE_CHOICE }];
}

export interface SettingsCommandOptions {
  /** The configured site (BOORU_URL): offered by name when it is not a known site. */
  readonly defaultSite?: Site;
}

export function createSettingsCommand(options: SettingsCommandOptions = {}): ChatCommand {
  return {
    kind: 'chat',
    data: new SlashCommandBuilder()
      .setName('settings')
      .setDescription("This server's site and filter")
      .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
      .setContexts(InteractionContextType.Guild)
      .addSubcommand((sub) =>
        sub
          .setName('filter')
          .setDescription('Use a filter of the site for everything the bot shows in this server')
          .addIntegerOption((option) =>
            option
              .setName('filter_id')
              .setDescription('The number in the filter page URL')
              .setRequired(true)
              .setMinValue(1),
          ),
      )
      .addSubcommand((sub) => sub.setName('show').setDescription("Show this server's site and filter"))
      .addSubcommand((sub) => sub.setName('reset').setDescription('Go back to the bot defaults'))
      .addSubcommand((sub) =>
        sub
          .setName('site')
          .setDescription('Which site this server uses')
          .addStringOption((option) =>
            option
              .setName('site')
              .setDescription('The site')
              .setRequired(true)
              .addChoices(siteChoices(options.defaultSite)),
          ),
      )
      .toJSON(),
    ephemeral: () => true,
    async execute(interaction, context) {
      const guildId = interaction.guildId;
      if (guildId === null)
        throw new UserFacingError('Settings belong to a server: use this command in one.');
      // Discord hides the command from members without Manage Server, but a server can override that.
      if (!interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild)) {
        throw new UserFacingError(
          'Only members with the Manage Server permission can change these settings.',
        );
      }
      const run = SUBCOMMANDS[interaction.options.getSubcommand(true)];
      if (run === undefined) throw new UserFacingError('Unknown setting.');
      return run(interaction, context, guildId);
    },
  };
}
