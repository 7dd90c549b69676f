/**
 * `/me`: a member's own settings (issue 20 §3), kept under their user id (member-settings.ts) and usable
 * everywhere the bot can be reached, installed to a server or to the member. Every answer is private: what
 * a member keeps for themselves is nobody else's business.
 *
 * - `/me unfurl enabled:` the member's own links are not unfurled anywhere while off;
 * - `/me filter filter_id:` (or `reset:`) a public or system board filter for the places no server decides
 *   (DMs, group DMs, servers without the bot: commands/shared/view.ts); checked with the board exactly as
 *   `/settings filter` checks (commands/shared/board-filters.ts);
 * - `/me show` everything kept about the member, and where each applies;
 * - `/me forget` deletes all of it at once.
 * - `/me hide tags:` and `/me unhide tags:` the member's own hidden tags (at most 200), applied to what
 *   they ask for everywhere and never to what other members see.
 */
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { Incoming, Reply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import type { Site } from '../../src/philomena/sites.js';
import { describeFilter } from '../../src/render/filter-summary.js';
import { escapeMarkdown } from '../../src/render/index.js';
import { filterTagNames, usableFilter } from '../shared/board-filters.js';
import {
  LOOKUP_CONTEXTS,
  LOOKUP_INSTALLS,
  type ChatCommand,
  type CommandContext,
} from '../shared/context.js';
import { DEFAULT_SITE_CHOICE, siteChoices } from '../shared/site-directory.js';
import { textReply } from '../shared/text-reply.js';
import {
  changeLists,
  checkedNames,
  tagNamesLine,
  unhideNames,
  type ListsChange,
} from '../shared/tag-changes.js';
import { TAG_LIST_MAX } from '../shared/tag-lists.js';
import { memberFacing, type MemberSettings, type MemberSettingsRecord } from './member-settings.js';

/** Where a member's filter applies, said the same way in every answer. */
const WHERE_FILTER_APPLIES =
  'It applies to what you ask for in DMs, group DMs and servers without the bot; a server with the bot uses its own filter.';

type Subcommand = (
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  members: MemberSettings,
) => Promise<Reply>;

async function unfurl(
  interaction: Incoming<ChatInputCommandInteraction>,
  _context: CommandContext,
  members: MemberSettings,
): Promise<Reply> {
  const on = interaction.options.getBoolean('enabled', true);
  await members.setUnfurl(interaction.user.id, on);
  return textReply(
    on
      ? 'Links you post are unfurled again, wherever a server lets the bot unfurl.'
      : 'Links you post are no longer unfurled: the bot leaves your messages alone, in every server and DM. Other members\u2019 links still unfurl. Turn it back on with `/me unfurl enabled:True`.',
  );
}

/** The site a `site:` choice names; the bot's own site when none was given. */
function chosenSite(interaction: Incoming<ChatInputCommandInteraction>, context: CommandContext): Site {
  const choice = interaction.options.getString('site');
  if (choice === null || choice === DEFAULT_SITE_CHOICE) return context.sites.defaultSite;
  const site = context.sites.byId(choice);
  if (site === undefined) {
    throw new UserFacingError('me.unknown-site', 'Unknown site: pick one from the list.');
  }
  return site;
}

async function filter(
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  members: MemberSettings,
): Promise<Reply> {
  const site = chosenSite(interaction, context);
  const id = interaction.options.getInteger('filter_id');
  const reset = interaction.options.getBoolean('reset') === true;
  const siteName = escapeMarkdown(site.name);
  if (id !== null && reset) {
    throw new UserFacingError(
      'me.filter-and-reset',
      'Give either a `filter_id` to use or `reset:True` to clear yours, not both.',
    );
  }
  if (reset) {
    await members.setFilter(interaction.user.id, site.id, undefined);
    return textReply(
      `Your filter on ${siteName} is cleared: where no server decides, the bot's default filter applies again.`,
    );
  }
  if (id === null) {
    const own = (await members.get(interaction.user.id)).filters[site.id];
    return textReply(
      own === undefined
        ? `You have no filter of your own on ${siteName}. Set one with \`/me filter filter_id:\` (the number in the filter page URL). ${WHERE_FILTER_APPLIES}`
        : `Your filter on ${siteName} is ${own}. ${WHERE_FILTER_APPLIES} Clear it with \`/me filter reset:True\`.`,
    );
  }
  const chosen = await usableFilter(id, site, context);
  await members.setFilter(interaction.user.id, site.id, chosen.id);
  const names = await filterTagNames(context.registry.client(site), chosen, context.logger);
  return textReply(
    `Your filter on ${siteName} is set. ${WHERE_FILTER_APPLIES}\n${describeFilter(chosen, site, names)}`,
  );
}

/** Everything kept about the member, plainly, each with where it applies. */
function describeMember(record: MemberSettingsRecord, sites: CommandContext['sites']): string {
  const filters = Object.entries(record.filters).map(([siteId, filterId]) => {
    const name = sites.byId(siteId)?.name ?? siteId;
    return `  • ${escapeMarkdown(name)}: filter ${filterId}`;
  });
  const tags = record.hiddenTags.map((tag) => `\`${tag.replaceAll('`', "'")}\``);
  return [
    'What the bot keeps about you (only you see this):',
    record.unfurl
      ? '• Unfurling of links you post: on (the default).'
      : '• Unfurling of links you post: **off**: the bot unfurls none of your links, in any server or DM.',
    filters.length === 0
      ? "• Your filters: none; the bot's default applies where no server decides."
      : `• Your filters, for DMs, group DMs and servers without the bot (a server with the bot uses its own):\n${filters.join('\n')}`,
    '`/me forget` deletes all of it at once. Besides this, a search or reverse search you run keeps its query and your id for 15 minutes, so that only you can page through it; that goes by itself.',
    tags.length === 0
      ? '• Your hidden tags: none.'
      : `• Your hidden tags (${tags.length}), hidden from what you ask for, wherever you ask: ${tags.join(', ')}`,
  ].join('\n');
}

async function show(
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  members: MemberSettings,
): Promise<Reply> {
  const record = await members.get(interaction.user.id);
  // The hidden tags come last: a long list is what the 2,000 characters cut, never the rest.
  return textReply(describeMember(record, context.sites));
}

async function forget(
  interaction: Incoming<ChatInputCommandInteraction>,
  _context: CommandContext,
  members: MemberSettings,
): Promise<Reply> {
  await members.forget(interaction.user.id);
  return textReply(
    'Deleted everything the bot kept about you (your unfurl choice, filters and hidden tags). You start again from the defaults.',
  );
}

/**
 * `/me hide tags:` and `/me unhide tags:`: the member's own hidden tags, applied to what they ask for
 * (commands/index.ts). Names added are checked with the board of the place's site, as a server's are.
 */
function ownTags(action: 'hide' | 'unhide'): Subcommand {
  return async (interaction, context, members) => {
    const raw = interaction.options.getString('tags', true);
    const deps = { registry: context.registry, ageRestricted: context.view.ageRestricted };
    // Unhiding by an alias (or another spelling) removes the tag it was stored as.
    const checked =
      action === 'unhide'
        ? await unhideNames(
            raw,
            { hidden: (await members.get(interaction.user.id)).hiddenTags, spoilered: [] },
            context.view.site,
            deps,
          )
        : await checkedNames(raw, context.view.site, deps);
    let change: ListsChange | undefined;
    await members.updateHiddenTags(interaction.user.id, (current) => {
      change = changeLists({ hidden: current, spoilered: [] }, action, checked.names);
      return change.lists.hidden;
    });
    if (change === undefined) throw new Error('the member settings update ran no change');
    const lines = [
      change.changed.length === 0
        ? 'Nothing was changed.'
        : `${action === 'hide' ? 'Hidden from what you ask for' : 'No longer hidden'}: ${tagNamesLine(change.changed)}.`,
      ...(change.unchanged.length === 0
        ? []
        : [
            `${action === 'hide' ? 'Already hidden' : 'Not in your list'}: ${tagNamesLine(change.unchanged, 400)}.`,
          ]),
      `Your list holds ${change.lists.hidden.length} tags (at most ${TAG_LIST_MAX}). It applies to your commands and what they show you, everywhere; never to what other members see.`,
      ...checked.notes,
    ];
    return textReply(lines.join('\n'));
  };
}

const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  unfurl,
  filter,
  show,
  forget,
  hide: ownTags('hide'),
  unhide: ownTags('unhide'),
};

export interface MeCommandOptions {
  /** Where member records live; undefined in a list made only to be registered (deploy-commands). */
  readonly members?: MemberSettings;
  /** The configured site (BOORU_URL): offered by name when it is not a known site. */
  readonly defaultSite?: Site;
}

export function createMeCommand(options: MeCommandOptions = {}): ChatCommand {
  return {
    kind: 'chat',
    data: new SlashCommandBuilder()
      .setName('me')
      .setDescription('Your own settings: they follow you everywhere, and only you see them')
      .setIntegrationTypes(LOOKUP_INSTALLS)
      .setContexts(LOOKUP_CONTEXTS)
      .addSubcommand((sub) =>
        sub
          .setName('unfurl')
          .setDescription('Whether the bot unfurls links you post, anywhere (on by default)')
          .addBooleanOption((option) =>
            option.setName('enabled').setDescription('On or off').setRequired(true),
          ),
      )
      .addSubcommand((sub) =>
        sub
          .setName('filter')
          .setDescription('Your board filter in DMs and servers without the bot (no option: show it)')
          .addIntegerOption((option) =>
            option
              .setName('filter_id')
              .setDescription('A public or system filter: the number in the filter page URL')
              .setMinValue(1),
          )
          .addBooleanOption((option) =>
            option.setName('reset').setDescription("True: clear yours, back to the bot's default"),
          )
          .addStringOption((option) =>
            option
              .setName('site')
              .setDescription("The site (default: the bot's own)")
              .addChoices(siteChoices(options.defaultSite)),
          ),
      )
      .addSubcommand((sub) =>
        sub
          .setName('hide')
          .setDescription('Hide images with these tags from what you ask for, everywhere')
          .addStringOption((option) =>
            option
              .setName('tags')
              .setDescription('Tag names, separated by commas')
              .setRequired(true)
              .setMaxLength(2000),
          ),
      )
      .addSubcommand((sub) =>
        sub
          .setName('unhide')
          .setDescription('Take tags out of your own hidden list')
          .addStringOption((option) =>
            option
              .setName('tags')
              .setDescription('Tag names, separated by commas')
              .setRequired(true)
              .setMaxLength(2000),
          ),
      )
      .addSubcommand((sub) =>
        sub.setName('show').setDescription('Everything the bot keeps about you, and where it applies'),
      )
      .addSubcommand((sub) =>
        sub.setName('forget').setDescription('Delete everything the bot keeps about you'),
      )
      .toJSON(),
    ephemeral: () => true,
    async execute(interaction, context) {
      const { members } = options;
      if (members === undefined) throw new Error('/me is not configured in this command list');
      const run = SUBCOMMANDS[interaction.options.getSubcommand(true)];
      if (run === undefined) throw new UserFacingError('me.unknown-subcommand', 'Unknown /me subcommand.');
      try {
        return await run(interaction, context, members);
      } catch (error) {
        throw memberFacing(error);
      }
    },
  };
}
