/**
 * `/me`: a member's own settings (issue 20 §3), kept under their user id (member-settings.ts) and usable
 * everywhere the bot can be reached, installed to a server or to the member. Every answer is private: what
 * a member keeps for themselves is nobody else's business, and each is in their own language (issue 21: the
 * `me.` keys of locales/, through `context.locale`); board words and command names stay as written.
 *
 * - `/me unfurl enabled:` the member's own links are not unfurled anywhere while off;
 * - `/me filter filter_id:` (or `reset:`) a board filter for the places where neither the channel nor the
 *   server chose one (DMs, group DMs, servers without the bot or that chose none: commands/shared/view.ts);
 *   a public or system one, or with a linked account one of their own (me-filter.ts);
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
import { escapeMarkdown, MESSAGE_CONTENT_MAX, truncateMarkdown } from '../../src/render/index.js';
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
import { filterChoices, memberFilter } from './me-filter.js';
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

/** The site a `site:` choice names; the bot's own site when none was given; undefined when unknown. */
function siteOf(choice: string | null, context: CommandContext): Site | undefined {
  if (choice === null || choice === DEFAULT_SITE_CHOICE) return context.sites.defaultSite;
  return context.sites.byId(choice);
}

/** The site a `site:` choice names; the bot's own site when none was given. */
function chosenSite(interaction: Incoming<ChatInputCommandInteraction>, context: CommandContext): Site {
  const site = siteOf(interaction.options.getString('site'), context);
  if (site === undefined) {
    throw new UserFacingError('me.unknown-site', 'Unknown site: pick one from the list.');
  }
  return site;
}

function filter(
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  members: MemberSettings,
  say: Say,
): Promise<Reply> {
  return memberFilter(interaction, chosenSite(interaction, context), context, members, say);
}

/**
 * Everything kept about the member, plainly, each with where it applies. On a linked site (`linked`, site
 * ids) the filter line says the account reads it: the chosen filter, else the account's current one.
 */
function describeMember(
  record: MemberSettingsRecord,
  linked: ReadonlySet<string>,
  sites: CommandContext['sites'],
  say: Say,
): string {
  const siteName = (siteId: string) => escapeMarkdown(sites.byId(siteId)?.name ?? siteId);
  const chosen = Object.entries(record.filters).map(([siteId, filterId]) =>
    say(linked.has(siteId) ? 'me.show.filter-line-linked' : 'me.show.filter-line', {
      site: siteName(siteId),
      filter: String(filterId),
    }),
  );
  const accounts = [...linked]
    .filter((siteId) => record.filters[siteId] === undefined)
    .map((siteId) => say('me.show.account-line', { site: siteName(siteId) }));
  const filters = [...chosen, ...accounts];
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
  const linked = new Set((await context.memberKeys.sites(interaction.user.id)).map((site) => site.siteId));
  const keys = (await linkedLines(interaction.user.id, context.memberKeys, context.sites, say)).join('\n');
  // The hidden tags come last of the settings: a long list is what the 2,000 characters cut, never the
  // rest; the linked accounts follow, whole (at most LINKED_SITES_MAX short lines), room kept for them.
  const settings = truncateMarkdown(
    describeMember(record, linked, context.sites, say),
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
  unlink: (interaction, context, members, say) => unlink(interaction, context, say, members),
};

export interface MeCommandOptions {
  /** Where member records live; undefined in a list made only to be registered (deploy-commands). */
  readonly members?: MemberSettings;
  /** The configured site (BOORU_URL): offered by name when it is not a known site. */
  readonly defaultSite?: Site;
  /** The catalogues the answers come from: the shipped ones unless a test brings its own (the pseudo-locale). */
  readonly translator?: Translator;
  /** What other features keep about a member (the upload caps' counts): `/me forget` deletes it too. */
  readonly alsoKept?: readonly { forget(userId: string): Promise<void> }[];
}

/** `members`, whose `forget` also deletes what `alsoKept` keeps about the member (after their own record). */
function forgettingAll(members: MemberSettings, alsoKept: MeCommandOptions['alsoKept']): MemberSettings {
  if (alsoKept === undefined || alsoKept.length === 0) return members;
  return {
    ...members,
    async forget(userId) {
      await members.forget(userId);
      for (const kept of alsoKept) await kept.forget(userId);
    },
  };
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
          .setDescription('Your board filter where no server chose one (no option: show or list them)')
          .addIntegerOption((option) =>
            option
              .setName('filter_id')
              .setDescription('Your own (with a linked account), a public or a system filter: its number')
              .setMinValue(1)
              .setAutocomplete(true),
          )
          .addBooleanOption((option) =>
            option
              .setName('reset')
              .setDescription("True: clear yours, back to your account's filter or the bot's default"),
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
    async autocomplete(interaction, context) {
      const focused = interaction.options.getFocused(true);
      if (interaction.options.getSubcommand(false) !== 'filter' || focused.name !== 'filter_id') return [];
      const site = siteOf(interaction.options.getString('site'), context);
      if (site === undefined) return [];
      const words = translator();
      return filterChoices(interaction, site, context, (key, params) => words.t(context.locale, key, params));
    },
    buttons: components.buttons,
    modals: components.modals,
    async execute(interaction, context) {
      if (options.members === undefined) throw new Error('/me is not configured in this command list');
      const members = forgettingAll(options.members, options.alsoKept);
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
