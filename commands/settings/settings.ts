import {
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { Incoming, Reply } from '../../src/discord/contract.js';
import { escapeMarkdown } from '../../src/render/index.js';
import { describeFilter } from '../../src/render/filter-summary.js';
import { filterTagNames, MAKE_IT_PUBLIC, usableFilter } from '../shared/board-filters.js';
import { permissionReport } from './permissions.js';
import type { ChatCommand, CommandContext } from '../shared/context.js';
import { DEFAULT_SITE_CHOICE, siteChoices } from '../shared/site-directory.js';
import { textReply } from '../shared/text-reply.js';
export { describeFilter } from '../../src/render/filter-summary.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { requiredGuildId } from '../../src/discord/preconditions.js';
import { NotFoundError } from '../../src/errors.js';
import type { Site } from '../../src/philomena/sites.js';

/** One subcommand of /settings, run for a server by a member allowed to change its settings. */
type Subcommand = (
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  guildId: string,
) => Promise<Reply>;

async function showWith(context: CommandContext, guildId: string, extra: readonly string[]): Promise<Reply> {
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
  lines.push(
    `Image references: ${record.imageReferences === false ? 'off' : 'on'} (\`>>123\` in chat gets a card; /settings references)`,
  );
  return textReply([...lines, ...extra].join('\n'));
}

const reset: Subcommand = async (_interaction, context, guildId) => {
  await context.settings.reset(guildId);
  return textReply('Settings reset: this server uses the bot defaults again.');
};

const references: Subcommand = async (interaction, context, guildId) => {
  const on = interaction.options.getBoolean('enabled', true);
  await context.settings.setImageReferences(guildId, on);
  return textReply(
    on
      ? "Image references on: `>>123` in chat gets the card of image 123 on this server's site."
      : 'Image references off: `>>123` in chat is left alone (links to images still get cards).',
  );
};

const chooseSite: Subcommand = async (interaction, context, guildId) => {
  const choice = interaction.options.getString('site', true);
  // The default choice follows BOORU_URL (nothing stored), so it stays right if the owner changes it.
  const backToDefault = choice === DEFAULT_SITE_CHOICE;
  const site = backToDefault ? context.sites.defaultSite : context.sites.byId(choice);
  if (site === undefined) throw new UserFacingError('settings.unknown-site', 'That site is not supported.');
  const record = await context.settings.setSite(guildId, backToDefault ? undefined : site.id);
  const filterId = context.sites.filterFor(site, record.filters);
  return textReply(
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
  return textReply(`Filter set for ${escapeMarkdown(site.name)}:\n${describeFilter(filter, site, names)}`);
};

/** `show` is answered in `execute` (it needs the server's channels and the command's options). */
const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  reset,
  references,
  site: chooseSite,
  filter: chooseFilter,
};

export interface SettingsCommandOptions {
  /** The configured site (BOORU_URL): offered by name when it is not a known site. */
  readonly defaultSite?: Site;
  /** Whether the bot reads chat for links (UNFURL): `/settings show` then checks the chat permissions too. */
  readonly readsChat?: boolean;
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
          .setName('references')
          .setDescription('Whether >>123 in chat gets the card of image 123 (on by default)')
          .addBooleanOption((option) =>
            option.setName('enabled').setDescription('On or off').setRequired(true),
          ),
      )
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
    // Discord hides the command from members without Manage Server, but a server can override that.
    requires: {
      guild: true,
      memberPermissions: PermissionFlagsBits.ManageGuild,
      refusals: {
        guild: { id: 'settings.server-only', text: 'Settings belong to a server: use this command in one.' },
        memberPermissions: {
          id: 'settings.manage-server',
          text: 'Only members with the Manage Server permission can change these settings.',
        },
      },
    },
    ephemeral: () => true,
    async execute(interaction, context) {
      const guildId = requiredGuildId(interaction);
      const subcommand = interaction.options.getSubcommand(true);
      if (subcommand === 'show') {
        return showWith(context, guildId, permissionReport(interaction.guild, options.readsChat ?? true));
      }
      const run = SUBCOMMANDS[subcommand];
      if (run === undefined) throw new UserFacingError('settings.unknown-setting', 'Unknown setting.');
      return run(interaction, context, guildId);
    },
  };
}
