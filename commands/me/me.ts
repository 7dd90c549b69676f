/**
 * `/me`: a member's own settings (issue 20 §3), kept under their user id (member-settings.ts) and usable
 * everywhere the bot can be reached, installed to a server or to the member. Every answer is private: what
 * a member keeps for themselves is nobody else's business, and each is in their own language (issue 21: the
 * `me.` keys of locales/, through `context.locale`); board words and command names stay as written.
 *
 * - `/me unfurl enabled:` the member's own links are not unfurled anywhere while off;
 * - `/me filter filter_id:` (or `reset:`) a public or system board filter for the places no server decides
 *   (DMs, group DMs, servers without the bot: commands/shared/view.ts); checked with the board exactly as
 *   `/settings filter` checks (commands/shared/board-filters.ts);
 * - `/me show` everything kept about the member, and where each applies;
 * - `/me forget` deletes all of it at once.
 * - `/me hide tags:` and `/me unhide tags:` the member's own hidden tags (at most 200), applied to what
 *   they ask for everywhere and never to what other members see.
 * - `/me link [site:]` and `/me unlink site:` the member's own board account (issue 22): me-keys.ts; `/me
 *   show` lists the linked sites (never a key) and `/me forget` deletes the keys too.
 */
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import { STATE_TTL_MS } from '../../src/discord/button-state.js';
import type { Incoming, Reply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { shippedTranslator, type MessageParams, type Translator } from '../../src/i18n/index.js';
import type { Site } from '../../src/philomena/sites.js';
import { describeFilter } from '../../src/render/filter-summary.js';
import { escapeMarkdown, MESSAGE_CONTENT_MAX, truncateMarkdown } from '../../src/render/index.js';
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
import { forgetKeys, link, linkComponents, linkedLines, unlink } from './me-keys.js';
import { memberFacing, type MemberSettings, type MemberSettingsRecord } from './member-settings.js';

/** A message of the `me.` catalogue keys in the language of the member who asked (every answer is theirs). */
type Say = (key: string, params?: MessageParams) => string;

type Subcommand = (
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  members: MemberSettings,
  say: Say,
) => Promise<Reply>;

/** How long a search keeps its query for paging: as long as its buttons work. */
const PAGING_MINUTES = STATE_TTL_MS / 60_000;

async function unfurl(
  interaction: Incoming<ChatInputCommandInteraction>,
  _context: CommandContext,
  members: MemberSettings,
  say: Say,
): Promise<Reply> {
  const on = interaction.options.getBoolean('enabled', true);
  await members.setUnfurl(interaction.user.id, on);
  return textReply(say(on ? 'me.unfurl.on' : 'me.unfurl.off'));
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
  say: Say,
): Promise<Reply> {
  const site = chosenSite(interaction, context);
  const id = interaction.options.getInteger('filter_id');
  const reset = interaction.options.getBoolean('reset') === true;
  const siteName = escapeMarkdown(site.name);
  const where = say('me.filter.where');
  if (id !== null && reset) {
    throw new UserFacingError(
      'me.filter-and-reset',
      'Give either a `filter_id` to use or `reset:True` to clear yours, not both.',
    );
  }
  if (reset) {
    await members.setFilter(interaction.user.id, site.id, undefined);
    return textReply(say('me.filter.cleared', { site: siteName }));
  }
  if (id === null) {
    const own = (await members.get(interaction.user.id)).filters[site.id];
    // A filter id is a name, not a quantity: a string, as the board's URL writes it, never "12,345".
    return textReply(
      own === undefined
        ? `${say('me.filter.none', { site: siteName })} ${where}`
        : `${say('me.filter.current', { site: siteName, filter: String(own) })} ${where} ${say('me.filter.clear-hint')}`,
    );
  }
  const chosen = await usableFilter(id, site, context);
  await members.setFilter(interaction.user.id, site.id, chosen.id);
  const names = await filterTagNames(context.registry.client(site), chosen, context.logger);
  return textReply(
    `${say('me.filter.set', { site: siteName })} ${where}\n${describeFilter(chosen, site, names, { say })}`,
  );
}

/** Everything kept about the member, plainly, each with where it applies. */
function describeMember(record: MemberSettingsRecord, sites: CommandContext['sites'], say: Say): string {
  const filters = Object.entries(record.filters).map(([siteId, filterId]) => {
    const name = sites.byId(siteId)?.name ?? siteId;
    return say('me.show.filter-line', { site: escapeMarkdown(name), filter: String(filterId) });
  });
  const tags = record.hiddenTags.map((tag) => `\`${tag.replaceAll('`', "'")}\``);
  return [
    say('me.show.title'),
    say(record.unfurl ? 'me.show.unfurl-on' : 'me.show.unfurl-off'),
    filters.length === 0 ? say('me.show.filters-none') : `${say('me.show.filters')}\n${filters.join('\n')}`,
    say('me.show.forget', { minutes: PAGING_MINUTES }),
    tags.length === 0
      ? say('me.show.tags-none')
      : say('me.show.tags', { count: tags.length, tags: tags.join(', ') }),
  ].join('\n');
}

async function show(
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  members: MemberSettings,
  say: Say,
): Promise<Reply> {
  const record = await members.get(interaction.user.id);
  const keys = (await linkedLines(interaction.user.id, context.memberKeys, context.sites, say)).join('\n');
  // The hidden tags come last of the settings: a long list is what the 2,000 characters cut, never the
  // rest; the linked accounts follow, whole (at most LINKED_SITES_MAX short lines), room kept for them.
  const settings = truncateMarkdown(
    describeMember(record, context.sites, say),
    MESSAGE_CONTENT_MAX - keys.length - 1,
  );
  return textReply(`${settings}\n${keys}`);
}

async function forget(
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  members: MemberSettings,
  say: Say,
): Promise<Reply> {
  // The keys first: of everything kept, they matter most.
  const keys = await forgetKeys(interaction.user.id, context, say);
  await members.forget(interaction.user.id);
  return textReply(`${say('me.forget.done')} ${keys}`);
}

/**
 * `/me hide tags:` and `/me unhide tags:`: the member's own hidden tags, applied to what they ask for
 * (commands/index.ts). Names added are checked with the board of the place's site, as a server's are.
 */
function ownTags(action: 'hide' | 'unhide'): Subcommand {
  return async (interaction, context, members, say) => {
    const raw = interaction.options.getString('tags', true);
    const deps = { registry: context.registry, ageRestricted: context.view.ageRestricted, say };
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
        ? say('me.tags.nothing-changed')
        : say(`me.${action}.changed`, { tags: tagNamesLine(change.changed, 900, say) }),
      ...(change.unchanged.length === 0
        ? []
        : [say(`me.${action}.unchanged`, { tags: tagNamesLine(change.unchanged, 400, say) })]),
      say('me.tags.count', { count: change.lists.hidden.length, max: TAG_LIST_MAX }),
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
  link: (interaction, context, _members, say) => Promise.resolve(link(interaction, context, say)),
  unlink: (interaction, context, _members, say) => unlink(interaction, context, say),
};

export interface MeCommandOptions {
  /** Where member records live; undefined in a list made only to be registered (deploy-commands). */
  readonly members?: MemberSettings;
  /** The configured site (BOORU_URL): offered by name when it is not a known site. */
  readonly defaultSite?: Site;
  /** The catalogues the answers come from: the shipped ones unless a test brings its own (the pseudo-locale). */
  readonly translator?: Translator;
}

export function createMeCommand(options: MeCommandOptions = {}): ChatCommand {
  const translator = () => options.translator ?? shippedTranslator();
  const components = linkComponents({ translator, defaultSite: options.defaultSite });
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
        sub
          .setName('link')
          .setDescription('Link your own board account with its API key, for your own requests')
          .addStringOption((option) =>
            option
              .setName('site')
              .setDescription("The site (default: this server's, else the bot's own)")
              .addChoices(siteChoices(options.defaultSite)),
          ),
      )
      .addSubcommand((sub) =>
        sub
          .setName('unlink')
          .setDescription("Delete your board account's key for a site, at once")
          .addStringOption((option) =>
            option
              .setName('site')
              .setDescription('The site whose key to delete')
              .setRequired(true)
              .addChoices(siteChoices(options.defaultSite)),
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
    buttons: components.buttons,
    modals: components.modals,
    async execute(interaction, context) {
      const { members } = options;
      if (members === undefined) throw new Error('/me is not configured in this command list');
      const run = SUBCOMMANDS[interaction.options.getSubcommand(true)];
      if (run === undefined) throw new UserFacingError('me.unknown-subcommand', 'Unknown /me subcommand.');
      try {
        const words = translator();
        const say: Say = (key, params) => words.t(context.locale, key, params);
        return await run(interaction, context, members, say);
      } catch (error) {
        throw memberFacing(error);
      }
    },
  };
}
