import {
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
  type SlashCommandChannelOption,
  type SlashCommandStringOption,
} from 'discord.js';
import type { Incoming, Reply } from '../../src/discord/contract.js';
import { escapeMarkdown } from '../../src/render/index.js';
import { permissionReport } from './permissions.js';
import type { ButtonHandler, ChatCommand, CommandContext } from '../shared/context.js';
import { runChannelSubcommand, SERVER_SITE_CHOICE } from './channel.js';
import { openPanel, panelButtons, panelModals, panelSelects } from './panel.js';
import { languageChoices, runLanguageSubcommand } from './language.js';
import { askReset, resetButtons } from './reset.js';
import { SETTINGS_CHANNEL_TYPES } from './scope.js';
import { setServerFilter } from './server-filter.js';
import { showSettings } from './show.js';
import { PRESET_CHOICES, runTagsSubcommand, scopeOption } from './tags.js';
import { DEFAULT_SITE_CHOICE, siteChoices } from '../shared/site-directory.js';
import { sayIn } from '../shared/say.js';
import { textReply } from '../shared/text-reply.js';
export { describeFilter } from '../../src/render/filter-summary.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { requiredGuildId } from '../../src/discord/preconditions.js';
import type { Site } from '../../src/philomena/sites.js';

/** One subcommand of /settings, run for a server by a member allowed to change its settings. */
export type Subcommand = (
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  guildId: string,
) => Promise<Reply>;

const references: Subcommand = async (interaction, context, guildId) => {
  const on = interaction.options.getBoolean('enabled', true);
  await context.settings.setImageReferences(guildId, on);
  return textReply(sayIn(context.locale)(on ? 'settings.references.on' : 'settings.references.off'));
};

const chooseSite: Subcommand = async (interaction, context, guildId) => {
  const choice = interaction.options.getString('site', true);
  // The default choice follows BOORU_URL (nothing stored), so it stays right if the owner changes it.
  const backToDefault = choice === DEFAULT_SITE_CHOICE;
  const site = backToDefault ? context.sites.defaultSite : context.sites.byId(choice);
  if (site === undefined) throw new UserFacingError('settings.unknown-site', 'That site is not supported.');
  const record = await context.settings.setSite(guildId, backToDefault ? undefined : site.id);
  const filterId = context.sites.filterFor(site, record.filters);
  const params = { name: escapeMarkdown(site.name), url: site.baseUrl };
  return textReply(
    filterId === undefined
      ? sayIn(context.locale)('settings.site.set', params)
      : sayIn(context.locale)('settings.site.set-with-filter', { ...params, filter: String(filterId) }),
  );
};

const chooseFilter: Subcommand = async (interaction, context, guildId) =>
  textReply(await setServerFilter(context, guildId, interaction.options.getInteger('filter_id', true)));

/** `show` is answered in `execute` (it needs the server's channels and the command's options). */
const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  reset: (_interaction, context, guildId) => askReset(context, guildId),
  references,
  site: chooseSite,
  filter: chooseFilter,
  channel: runChannelSubcommand,
  language: runLanguageSubcommand,
  panel: (_interaction, context, guildId) => openPanel(context, guildId),
};

export interface SettingsCommandOptions {
  /** The configured site (BOORU_URL): offered by name when it is not a known site. */
  readonly defaultSite?: Site;
  /** Whether the bot reads chat for links (UNFURL): `/settings show` then checks the chat permissions too. */
  readonly readsChat?: boolean;
  /** `/settings export` and `/settings import` (transfer.ts); a list made only to be registered goes without. */
  readonly transfer?: {
    readonly export: Subcommand;
    readonly import: Subcommand;
    readonly buttons: Readonly<Record<string, ButtonHandler>>;
  };
}

/** A `channel:` option of the channels that can have settings of their own. */
function channelOption(option: SlashCommandChannelOption, description: string, required = false) {
  return option
    .setName('channel')
    .setDescription(description)
    .setRequired(required)
    .addChannelTypes(...SETTINGS_CHANNEL_TYPES);
}

function tagsOption(option: SlashCommandStringOption, description: string) {
  return option.setName('tags').setDescription(description).setRequired(true).setMaxLength(2000);
}

export function createSettingsCommand(options: SettingsCommandOptions = {}): ChatCommand {
  return {
    kind: 'chat',
    data: new SlashCommandBuilder()
      .setName('settings')
      .setDescription("This server's site, filter, rules and channels")
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
      .addSubcommand((sub) =>
        sub
          .setName('show')
          .setDescription('What applies in this server, or in one channel, and where each setting comes from')
          .addChannelOption((option) => channelOption(option, 'A channel: what applies there')),
      )
      .addSubcommand((sub) =>
        sub.setName('reset').setDescription('Clear everything this server set (asks first; feeds stay)'),
      )
      .addSubcommand((sub) =>
        sub.setName('panel').setDescription('Every setting of this server and its channels, in one panel'),
      )
      .addSubcommand((sub) =>
        sub
          .setName('channel')
          .setDescription("One channel's own settings, on top of the server's (no option: show them)")
          .addChannelOption((option) => channelOption(option, 'The channel', true))
          .addIntegerOption((option) =>
            option
              .setName('filter_id')
              .setDescription('A filter for this channel: the number in the filter page URL')
              .setMinValue(1),
          )
          .addStringOption((option) =>
            option
              .setName('site')
              .setDescription('A site for this channel')
              .addChoices(
                { name: "The server's site", value: SERVER_SITE_CHOICE },
                ...siteChoices(options.defaultSite),
              ),
          )
          .addBooleanOption((option) =>
            option.setName('unfurl').setDescription('Whether links posted here get cards'),
          )
          .addBooleanOption((option) =>
            option.setName('references').setDescription('Whether >>123 here gets the card of image 123'),
          )
          .addBooleanOption((option) =>
            option.setName('reset').setDescription("True: everything back to the server's for this channel"),
          ),
      )
      .addSubcommandGroup((group) =>
        group
          .setName('tags')
          .setDescription("This server's own hidden and spoilered tags, or a channel's")
          .addSubcommand((sub) =>
            sub
              .setName('hide')
              .setDescription('Hide images with these tags: no picture, tags or description')
              .addStringOption((option) => tagsOption(option, 'Tag names, separated by commas'))
              .addChannelOption((option) =>
                channelOption(option, 'Only in this channel (default: the server)'),
              ),
          )
          .addSubcommand((sub) =>
            sub
              .setName('spoiler')
              .setDescription("Put pictures with these tags behind Discord's spoiler")
              .addStringOption((option) => tagsOption(option, 'Tag names, separated by commas'))
              .addChannelOption((option) =>
                channelOption(option, 'Only in this channel (default: the server)'),
              ),
          )
          .addSubcommand((sub) =>
            sub
              .setName('unhide')
              .setDescription('Take tags out of the hidden and spoilered lists')
              .addStringOption((option) => tagsOption(option, 'Tag names, separated by commas'))
              .addChannelOption((option) =>
                channelOption(option, "A channel's lists (default: the server's)"),
              ),
          )
          .addSubcommand((sub) =>
            sub
              .setName('preset')
              .setDescription('Hide a documented set of tags for a common wish')
              .addStringOption((option) =>
                option
                  .setName('preset')
                  .setDescription('The set')
                  .setRequired(true)
                  .addChoices(PRESET_CHOICES),
              )
              .addChannelOption((option) =>
                channelOption(option, 'Only in this channel (default: the server)'),
              ),
          ),
      )
      .addSubcommand((sub) =>
        sub
          .setName('language')
          .setDescription('The language of unfurl replies and feed posts (no option: show it)')
          .addStringOption((option) =>
            option
              .setName('language')
              .setDescription('The language to write them in')
              .addChoices(languageChoices()),
          )
          .addChannelOption((option) => channelOption(option, 'Only in this channel (default: the server)')),
      )
      .addSubcommand((sub) =>
        sub.setName('export').setDescription("A file of this server's settings and feeds, to keep or copy"),
      )
      .addSubcommand((sub) =>
        sub
          .setName('import')
          .setDescription('Settings and feeds from an exported file (shows the changes first)')
          .addAttachmentOption((option) =>
            option.setName('file').setDescription('A file made by /settings export').setRequired(true),
          ),
      )
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
      if (interaction.options.getSubcommandGroup() === 'tags') {
        return runTagsSubcommand(interaction, context, guildId);
      }
      const subcommand = interaction.options.getSubcommand(true);
      if (subcommand === 'show') {
        const scope = scopeOption(interaction);
        const permissions =
          scope.kind === 'server'
            ? permissionReport(context.server, options.readsChat ?? true, sayIn(context.locale))
            : [];
        return showSettings(context, guildId, scope, permissions, interaction.guildLocale ?? null);
      }
      if (subcommand === 'export' || subcommand === 'import') {
        if (options.transfer === undefined)
          throw new Error('/settings is not configured with its store here');
        return options.transfer[subcommand](interaction, context, guildId);
      }
      const run = SUBCOMMANDS[subcommand];
      if (run === undefined) throw new UserFacingError('settings.unknown-setting', 'Unknown setting.');
      return run(interaction, context, guildId);
    },
    buttons: { ...resetButtons, ...panelButtons, ...(options.transfer?.buttons ?? {}) },
    selects: panelSelects,
    modals: panelModals,
  };
}
