import {
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { ChatCommand, Command, CommandContext } from '../src/bot/command.js';
import { escapeInline, escapeMarkdown, NO_MENTIONS, truncate } from '../src/bot/render/index.js';
import { UserFacingError } from '../src/bot/user-error.js';
import { ForbiddenError, NotFoundError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import type { PhilomenaClient } from '../src/philomena/client-types.js';
import type { Filter } from '../src/philomena/schemas.js';
import { KNOWN_SITES, type Site } from '../src/philomena/sites.js';

const DESCRIPTION_MAX = 300;
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
 * its complex rules, and its description.
 */
export function describeFilter(filter: Filter, site: Site, names?: ReadonlyMap<number, string>): string {
  const lines = [
    `**${escapeMarkdown(filter.name)}** (filter ${filter.id} on ${escapeMarkdown(site.name)})`,
    listLine('Hides', filter.hidden_tag_ids, ruleLines(filter.hidden_complex), names),
    listLine('Spoilers', filter.spoilered_tag_ids, ruleLines(filter.spoilered_complex), names),
  ];
  const description = filter.description.trim();
  if (description !== '') {
    const short =
      description.length > DESCRIPTION_MAX ? `${description.slice(0, DESCRIPTION_MAX - 1)}…` : description;
    lines.push(`> ${escapeMarkdown(short).replace(/\r?\n/g, ' ')}`);
  }
  return lines.join('\n');
}

/**
 * Whether filter `id` is one of the key owner's own. A board that refuses the list (no key, or a key it
 * does not take: 403) means no; any other failure (busy, down, an unreadable answer) is thrown, so the
 * admin is told that rather than that the filter is private.
 */
async function ownedByKeyOwner(id: number, client: PhilomenaClient, logger: Logger): Promise<boolean> {
  try {
    const own = await client.userFilters({ perPage: PER_PAGE_MAX });
    return own.items.some((f) => f.id === id);
  } catch (error) {
    if (!(error instanceof ForbiddenError)) throw error;
    logger.info({ err: error, filterId: id }, "the site refused the list of the key owner's filters");
    return false;
  }
}

/** The filter if the bot may use it on `site`: system or public, or one of the key owner's own. */
async function usableFilter(id: number, site: Site, context: CommandContext): Promise<Filter> {
  const client = context.registry.client(site);
  let filter: Filter;
  try {
    filter = await client.filter(id);
  } catch (error) {
    if (error instanceof NotFoundError) {
      throw new UserFacingError(`${escapeMarkdown(site.name)} has no filter ${id} that the bot can see.`);
    }
    throw error;
  }
  if (filter.system || filter.public) return filter;
  // A private filter can only be seen with the key of its owner, which only the default site gets.
  if (site.id === context.sites.defaultSite.id && (await ownedByKeyOwner(id, client, context.logger))) {
    return filter;
  }
  throw new UserFacingError(
    `Filter ${id} is private: make it public on ${escapeMarkdown(site.name)}, or pick a system or public filter.`,
  );
}

async function reply(interaction: ChatInputCommandInteraction, content: string): Promise<void> {
  await interaction.editReply({ content, embeds: [], components: [], allowedMentions: NO_MENTIONS });
}

async function show(interaction: ChatInputCommandInteraction, context: CommandContext, guildId: string) {
  const record = await context.settings.get(guildId);
  const { site, filterId } = context.view;
  const lines = [
    `Site: **${escapeMarkdown(site.name)}** (${site.baseUrl})${record.siteId === undefined ? ' (the default)' : ''}`,
  ];
  if (filterId === undefined) {
    lines.push(`Filter: the site's default filter.`);
  } else {
    const own = record.filters[site.id] !== undefined;
    try {
      const client = context.registry.client(site);
      const filter = await client.filter(filterId);
      const names = await filterTagNames(client, filter, context.logger);
      lines.push(`Filter${own ? '' : ' (the bot default)'}:`, describeFilter(filter, site, names));
    } catch (error) {
      context.logger.info({ err: error, filterId }, 'could not read the filter for /settings show');
      lines.push(
        `Filter: ${filterId}${own ? '' : ' (the bot default)'} (the site did not describe it just now).`,
      );
    }
  }
  await reply(interaction, lines.join('\n'));
}

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
      const sub = interaction.options.getSubcommand(true);
      switch (sub) {
        case 'show':
          return show(interaction, context, guildId);
        case 'reset':
          await context.settings.reset(guildId);
          return reply(interaction, 'Settings reset: this server uses the bot defaults again.');
        case 'site': {
          const choice = interaction.options.getString('site', true);
          // The default choice follows BOORU_URL (nothing stored), so it stays right if the owner changes it.
          const backToDefault = choice === DEFAULT_SITE_CHOICE;
          const site = backToDefault ? context.sites.defaultSite : context.sites.byId(choice);
          if (site === undefined) throw new UserFacingError('That site is not supported.');
          const record = await context.settings.setSite(guildId, backToDefault ? undefined : site.id);
          const filterId = context.sites.filterFor(site, record.filters);
          return reply(
            interaction,
            `This server now uses **${escapeMarkdown(site.name)}** (${site.baseUrl}).` +
              (filterId === undefined
                ? ' Its default filter applies.'
                : ` Filter ${filterId} applies there.`),
          );
        }
        case 'filter': {
          const id = interaction.options.getInteger('filter_id', true);
          const site = context.view.site;
          const filter = await usableFilter(id, site, context);
          await context.settings.setFilter(guildId, site.id, filter.id);
          const names = await filterTagNames(context.registry.client(site), filter, context.logger);
          return reply(
            interaction,
            `Filter set for ${escapeMarkdown(site.name)}:\n${describeFilter(filter, site, names)}`,
          );
        }
        default:
          throw new UserFacingError('Unknown setting.');
      }
    },
  } satisfies Command;
}
