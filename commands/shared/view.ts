/**
 * The view of one interaction or message: which site, which filter, whether the channel is
 * age-restricted, whether it is a spoiler channel, and the rules in layers that apply there (the floor,
 * the server's own tags, the channel's, the member's). Resolved fresh each time so a settings change
 * applies at once. A channel's own settings win over the server's; a thread follows its parent channel.
 *
 * Whose filter (issue 22 §2, `filterBy`): the channel's, else the server's for the site, else the member's
 * own (`/me filter`), else, for a member who linked their board account on the site, the account's
 * current filter (no `filter_id` at all: the board applies it, docs/board-behaviour.md "The API key"),
 * else the site's default (BOORU_FILTER_ID). Where the member's or their account's filter decides and they
 * linked the site, what they asked for is read with their own key (`ownAccount`; member-board.ts), which
 * also makes a private filter of theirs usable. Everything else the view holds (the rating rule, the floor,
 * the server's and channel's tags) is the same whoever's filter applies: an account never widens it.
 */
import { ChannelType } from 'discord.js';
import type { Site } from '../../src/philomena/sites.js';
import type { ContentRules, RuleLayer, TagRule } from '../../src/render/content-rules.js';
import { isAgeRestrictedChannel, isSpoilerChannel, type ChannelLike } from './safety.js';
import type { ChannelSettingsRecord, GuildSettings, GuildSettingsRecord } from './guild-settings.js';
import type { SiteDirectory } from './site-directory.js';
import { SOURCE_LOCALE } from '../../src/i18n/index.js';

/** Who chose the view's filter (see the header); `account` is the linked account's current filter. */
export type FilterSource = 'channel' | 'server' | 'member' | 'account' | 'default';

/** What one interaction sees: the server's site and filter, and whether the channel allows non-safe images. */
export interface View {
  readonly site: Site;
  /**
   * The filter to apply on `site`; undefined means the site's own default, or with `filterBy: 'account'`
   * the account's current filter (the request then carries the member's key and no `filter_id`).
   */
  readonly filterId: number | undefined;
  readonly filterBy: FilterSource;
  /**
   * Whether what the member asked for here is read with their own key for `site` (member-board.ts
   * `boardFor`): they linked the site, and neither the channel nor the server chose a filter for it.
   */
  readonly ownAccount: boolean;
  readonly ageRestricted: boolean;
  /**
   * A spoiler channel (or a thread of one): for the rating rule a plain channel (`ageRestricted` is then
   * false), and every picture posted here goes behind Discord's spoiler (cardContext carries it into the
   * cards, so whatever renders with this view spoilers them).
   */
  readonly spoilerChannel: boolean;
  /** Null in DMs. */
  readonly guildId: string | null;
  /** The channel whose own settings apply here (a thread's parent); null when none can (a DM). */
  readonly channelId: string | null;
  /** Whether `>>123` references in chat get cards here (the channel's setting, else the server's; on by default). */
  readonly imageReferences: boolean;
  /** Whether links posted here get cards (the channel's setting; on by default). */
  readonly unfurl: boolean;
  /**
   * The rules in layers that apply here, outermost first: the operator's floor, the server's own tags, the
   * channel's, and the member's own hidden tags when they asked (src/render/content-rules.ts).
   */
  readonly rules: ContentRules;
  /**
   * The language of what is made with this view (a Discord locale; src/i18n answers in the closest shipped
   * one): the member's for an answer to an interaction (they asked), the channel's or the server's language
   * for what nobody asked for (unfurls, feed posts).
   */
  readonly locale: string;
  /** The same channel on another site (a link's own site), with this server's filter for that site. */
  forSite(site: Site): View;
  /** This view as for a member who linked no account (their key is gone): the filter falls through. */
  withoutAccount(): View;
}

/** A layer's own tag lists, as stored. */
export interface TagLists {
  readonly hidden?: readonly string[] | undefined;
  readonly spoilered?: readonly string[] | undefined;
}

/** What the server's, the channel's and the member's own settings add to a view. */
export interface ViewLayers {
  /** The channel whose settings these are (a thread's parent). */
  readonly channelId?: string | null;
  /** The channel's own filters by `Site.id`: they win over the server's. */
  readonly channelFilters?: Readonly<Record<string, number>>;
  readonly unfurl?: boolean;
  readonly server?: TagLists;
  readonly channel?: TagLists;
  /** The member's own hidden tags: given only for what that member asked for. */
  readonly memberHidden?: readonly string[];
  /** Told of each image a rule hid or spoilered (metrics). */
  readonly observe?: ContentRules['observe'];
}

function rulesOf(tags: readonly string[] | undefined, layer: RuleLayer): TagRule[] {
  return (tags ?? []).map((tag) => ({ tag, ratings: 'any', layer }));
}

export function makeView(options: {
  readonly site: Site;
  readonly guildId: string | null;
  readonly ageRestricted: boolean;
  readonly guildFilters: Readonly<Record<string, number>>;
  readonly sites: SiteDirectory;
  readonly imageReferences?: boolean;
  /** Default false. True also forces `ageRestricted` off: a spoiler channel is never age-restricted. */
  readonly spoilerChannel?: boolean;
  /**
   * The member's own filters (`/me filter`), given only for what that member asked for. A filter the
   * channel or the server chose for the site wins; the member's applies where neither chose one (a DM, a
   * group DM, a server without the bot, a server that chose none).
   */
  readonly memberFilters?: Readonly<Record<string, number>>;
  /**
   * The sites (`Site.id`) the member linked their board account on (issue 22), given only for what that
   * member asked for (commands and their buttons; never autocomplete, unfurls or feeds).
   */
  readonly linkedSites?: ReadonlySet<string>;
  /** The server's, the channel's and the member's own layers; none when not given. */
  readonly layers?: ViewLayers;
  /** The language of what is made with this view (`View.locale`); English when not given. */
  readonly locale?: string;
}): View {
  const { guildId, guildFilters, sites, memberFilters } = options;
  const layers = options.layers ?? {};
  const channelFilters = layers.channelFilters ?? {};
  const imageReferences = options.imageReferences ?? true;
  const spoilerChannel = options.spoilerChannel ?? false;
  // Fail closed: Discord never makes a channel both, and one that says so is read as the plain one.
  const ageRestricted = options.ageRestricted && !spoilerChannel;
  // Outermost first: the floor is added per site; then the server's, the channel's, the member's own.
  const community = [
    ...rulesOf(layers.server?.hidden, 'server'),
    ...rulesOf(layers.channel?.hidden, 'channel'),
    ...rulesOf(layers.memberHidden, 'member'),
  ];
  const spoilered = [
    ...rulesOf(layers.server?.spoilered, 'server'),
    ...rulesOf(layers.channel?.spoilered, 'channel'),
  ];
  const build = (site: Site, linked: ReadonlySet<string>): View => {
    const { filterId, filterBy } = filterOf(site, {
      channel: channelFilters,
      guild: guildFilters,
      member: memberFilters ?? {},
      linked,
      sites,
    });
    return {
      site,
      filterId,
      filterBy,
      ownAccount: linked.has(site.id) && (filterBy === 'member' || filterBy === 'account'),
      ageRestricted,
      spoilerChannel,
      guildId,
      channelId: layers.channelId ?? null,
      imageReferences,
      unfurl: layers.unfurl ?? true,
      locale: options.locale ?? SOURCE_LOCALE,
      rules: {
        hidden: community.length === 0 ? sites.floorFor(site) : [...sites.floorFor(site), ...community],
        ...(spoilered.length === 0 ? {} : { spoilered }),
        ...(layers.observe === undefined ? {} : { observe: layers.observe }),
      },
      forSite: (other) => build(other, linked),
      withoutAccount: () => build(site, NO_SITES),
    };
  };
  return build(options.site, options.linkedSites ?? NO_SITES);
}

const NO_SITES: ReadonlySet<string> = new Set();

/** The filter of `site` and who chose it, in the order of the header. */
function filterOf(
  site: Site,
  by: {
    readonly channel: Readonly<Record<string, number>>;
    readonly guild: Readonly<Record<string, number>>;
    readonly member: Readonly<Record<string, number>>;
    readonly linked: ReadonlySet<string>;
    readonly sites: SiteDirectory;
  },
): { readonly filterId: number | undefined; readonly filterBy: FilterSource } {
  const channel = by.channel[site.id];
  if (channel !== undefined) return { filterId: channel, filterBy: 'channel' };
  const guild = by.guild[site.id];
  if (guild !== undefined) return { filterId: guild, filterBy: 'server' };
  const member = by.member[site.id];
  if (member !== undefined) return { filterId: member, filterBy: 'member' };
  if (by.linked.has(site.id)) return { filterId: undefined, filterBy: 'account' };
  return { filterId: by.sites.filterFor(site, by.guild), filterBy: 'default' };
}

const THREAD_TYPES: ReadonlySet<number> = new Set([
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
]);

/** The channel whose own settings apply to `channel`: itself, or a thread's parent; null when unknown. */
function settingsChannelOf(channel: ChannelLike | null): string | null {
  if (channel === null) return null;
  if (THREAD_TYPES.has(channel.type)) return channel.parentId ?? null;
  return channel.id ?? null;
}

/** The filter that applies in `channelId` on `site`: the channel's own, else the server's, else the site's default. */
export function filterIn(
  record: GuildSettingsRecord,
  channelId: string | null,
  site: Site,
  sites: SiteDirectory,
): number | undefined {
  const own = channelId === null ? undefined : record.channels?.[channelId]?.filters?.[site.id];
  return own ?? sites.filterFor(site, record.filters);
}

/** The view's layers from a server's record, for the channel whose settings apply. */
export function layersOf(record: GuildSettingsRecord | undefined, channelId: string | null): ViewLayers {
  if (record === undefined) return { channelId };
  const channel: ChannelSettingsRecord | undefined =
    channelId === null ? undefined : record.channels?.[channelId];
  return {
    channelId,
    server: { hidden: record.hiddenTags, spoilered: record.spoileredTags },
    ...(channel === undefined
      ? {}
      : {
          channel: { hidden: channel.hiddenTags, spoilered: channel.spoileredTags },
          ...(channel.filters === undefined ? {} : { channelFilters: channel.filters }),
          ...(channel.unfurl === undefined ? {} : { unfurl: channel.unfurl }),
        }),
  };
}

/**
 * The language `/settings language` chose for what nobody asked for in `channelId` (a thread's parent):
 * the channel's own, else the server's; undefined when neither set one (Discord's preferred locale then).
 */
export function languageIn(
  record: GuildSettingsRecord | undefined,
  channelId: string | null,
): string | undefined {
  const own = channelId === null ? undefined : record?.channels?.[channelId]?.language;
  return own ?? record?.language;
}

/** A locale that says something (Discord sends none, or an empty one, where there is none). */
function given(locale: string | null | undefined): string | undefined {
  return locale === null || locale === undefined || locale === '' ? undefined : locale;
}

/**
 * The language of what a view makes (issue 21, "Whose language"): the member's for an answer to what they
 * asked (the words are theirs); else the channel's language, the server's (`/settings language`), and
 * Discord's preferred locale of the server as it is now; else the source language (`makeView`'s default).
 */
export function viewLocale(input: {
  readonly memberLocale?: string | null | undefined;
  readonly language?: string | undefined;
  readonly guildLocale?: string | null | undefined;
}): { locale?: string } {
  const locale = given(input.memberLocale) ?? given(input.language) ?? given(input.guildLocale);
  return locale === undefined ? {} : { locale };
}

/**
 * The view of an interaction or message. Rejects with `SettingsUnavailableError` when the server's settings
 * cannot be read: every caller then fails closed (the command says so, the unfurl does not happen), since a
 * view built on the defaults would drop the server's site and filter without a word.
 */
export async function resolveView(
  input: {
    readonly guildId: string | null;
    readonly channel: ChannelLike | null;
    /** The member's own filters (see `makeView`); the caller reads them. */
    readonly memberFilters?: Readonly<Record<string, number>>;
    /** The sites the member linked (see `makeView`); the caller reads them, for what the member asked. */
    readonly linkedSites?: ReadonlySet<string>;
    /** The member's own hidden tags, for what that member asked for; the caller reads them. */
    readonly memberHidden?: readonly string[];
    /** The member's locale, for an answer to what they asked (it wins: the words are theirs). */
    readonly memberLocale?: string | null;
    /**
     * The server's preferred locale as Discord reports it now, for what nobody asked for: a language the
     * server or the channel set (`/settings language`) wins over it.
     */
    readonly guildLocale?: string | null;
  },
  deps: {
    readonly settings: GuildSettings;
    readonly sites: SiteDirectory;
    readonly observe?: ContentRules['observe'];
  },
): Promise<View> {
  const { sites } = deps;
  const record = input.guildId === null ? undefined : await deps.settings.get(input.guildId);
  const channelId = input.guildId === null ? null : settingsChannelOf(input.channel);
  const own = channelId === null ? undefined : record?.channels?.[channelId];
  const siteId = own?.siteId ?? record?.siteId;
  const site = (siteId === undefined ? undefined : sites.byId(siteId)) ?? sites.defaultSite;
  const layers = layersOf(record, channelId);
  return makeView({
    site,
    guildId: input.guildId,
    // Not in a server means a DM: never age-restricted, whatever the channel object says.
    ageRestricted: input.guildId !== null && isAgeRestrictedChannel(input.channel),
    // Nor a spoiler channel. In a server, a channel the bot cannot identify counts as one (fail closed).
    spoilerChannel: input.guildId !== null && (input.channel === null || isSpoilerChannel(input.channel)),
    guildFilters: record?.filters ?? {},
    sites,
    imageReferences: (own?.imageReferences ?? record?.imageReferences) !== false,
    ...viewLocale({
      memberLocale: input.memberLocale,
      language: languageIn(record, channelId),
      guildLocale: input.guildLocale,
    }),
    ...(input.memberFilters === undefined ? {} : { memberFilters: input.memberFilters }),
    ...(input.linkedSites === undefined ? {} : { linkedSites: input.linkedSites }),
    layers: {
      ...layers,
      ...(input.memberHidden === undefined || input.memberHidden.length === 0
        ? {}
        : { memberHidden: input.memberHidden }),
      ...(deps.observe === undefined ? {} : { observe: deps.observe }),
    },
  });
}
