import {
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { Command, CommandContext } from '../src/bot/command.js';
import { escapeMarkdown, NO_MENTIONS } from '../src/bot/render/index.js';
import { UserFacingError } from '../src/bot/user-error.js';
import { NotFoundError } from '../src/errors.js';
import type { Filter } from '../src/philomena/schemas.js';
import { KNOWN_SITES, type Site } from '../src/philomena/sites.js';

const DESCRIPTION_MAX = 300;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function complexRules(text: string | null): number {
  return (text ?? '').split(/\r?\n/).filter((line) => line.trim() !== '').length;
}

/** What a filter does, in a few lines: name, what it hides and what it spoilers. */
export function describeFilter(filter: Filter, site: Site): string {
  const hiddenRules = complexRules(filter.hidden_complex);
  const spoileredRules = complexRules(filter.spoilered_complex);
  const lines = [
    `**${escapeMarkdown(filter.name)}** (filter ${filter.id} on ${escapeMarkdown(site.name)})`,
    `Hides ${plural(filter.hidden_tag_ids.length, 'tag')}${hiddenRules > 0 ? ` and ${plural(hiddenRules, 'complex rule')}` : ''}.`,
    `Spoilers ${plural(filter.spoilered_tag_ids.length, 'tag')}${spoileredRules > 0 ? ` and ${plural(spoileredRules, 'complex rule')}` : ''}.`,
  ];
  const description = filter.description.trim();
  if (description !== '') {
    const short =
      description.length > DESCRIPTION_MAX ? `${description.slice(0, DESCRIPTION_MAX - 1)}…` : description;
    lines.push(`> ${escapeMarkdown(short).replace(/\r?\n/g, ' ')}`);
  }
  return lines.join('\n');
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
  if (site.id === context.sites.defaultSite.id) {
    const own = await client.userFilters({ perPage: 50 }).catch(() => undefined);
    if (own?.items.some((f) => f.id === id)) return filter;
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
      const filter = await context.registry.client(site).filter(filterId);
      lines.push(`Filter${own ? '' : ' (the bot default)'}:`, describeFilter(filter, site));
    } catch (error) {
      context.logger.info({ err: error, filterId }, 'could not read the filter for /settings show');
      lines.push(
        `Filter: ${filterId}${own ? '' : ' (the bot default)'} (the site did not describe it just now).`,
      );
    }
  }
  await reply(interaction, lines.join('\n'));
}

export const settingsCommand = {
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
            .addChoices(KNOWN_SITES.map((site) => ({ name: site.name, value: site.id }))),
        ),
    )
    .toJSON(),
  ephemeral: () => true,
  async execute(interaction, context) {
    const guildId = interaction.guildId;
    if (guildId === null) throw new UserFacingError('Settings belong to a server: use this command in one.');
    // Discord hides the command from members without Manage Server, but a server can override that.
    if (!interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild)) {
      throw new UserFacingError('Only members with the Manage Server permission can change these settings.');
    }
    const sub = interaction.options.getSubcommand(true);
    switch (sub) {
      case 'show':
        return show(interaction, context, guildId);
      case 'reset':
        await context.settings.reset(guildId);
        return reply(interaction, 'Settings reset: this server uses the bot defaults again.');
      case 'site': {
        const site = context.sites.byId(interaction.options.getString('site', true));
        if (site === undefined) throw new UserFacingError('That site is not supported.');
        const record = await context.settings.setSite(guildId, site.id);
        const filterId = context.sites.filterFor(site, record.filters);
        return reply(
          interaction,
          `This server now uses **${escapeMarkdown(site.name)}** (${site.baseUrl}).` +
            (filterId === undefined ? ' Its default filter applies.' : ` Filter ${filterId} applies there.`),
        );
      }
      case 'filter': {
        const id = interaction.options.getInteger('filter_id', true);
        const site = context.view.site;
        const filter = await usableFilter(id, site, context);
        await context.settings.setFilter(guildId, site.id, filter.id);
        return reply(
          interaction,
          `Filter set for ${escapeMarkdown(site.name)}:\n${describeFilter(filter, site)}`,
        );
      }
      default:
        throw new UserFacingError('Unknown setting.');
    }
  },
} satisfies Command;
