/**
 * The view of one interaction or message: which site, which filter, whether the channel is
 * age-restricted, and whether it is a spoiler channel. Resolved fresh each time so a settings change
 * applies at once.
 */
import type { Site } from '../../src/philomena/sites.js';
import type { ContentRules } from '../../src/render/content-rules.js';
import { isAgeRestrictedChannel, isSpoilerChannel, type ChannelLike } from './safety.js';
import type { GuildSettings } from './guild-settings.js';
import type { SiteDirectory } from './site-directory.js';

/** What one interaction sees: the server's site and filter, and whether the channel allows non-safe images. */
export interface View {
  readonly site: Site;
  /** The filter to apply on `site`; undefined means the site's own default. */
  readonly filterId: number | undefined;
  readonly ageRestricted: boolean;
  /**
   * A spoiler channel (or a thread of one): for the rating rule a plain channel (`ageRestricted` is then
   * false), and every picture posted here goes behind Discord's spoiler (cardContext carries it into the
   * cards, so whatever renders with this view spoilers them).
   */
  readonly spoilerChannel: boolean;
  /** Null in DMs. */
  readonly guildId: string | null;
  /** Whether `>>123` references in chat get cards here (a server setting; on by default and in DMs). */
  readonly imageReferences: boolean;
  /** The rules in layers that apply here, outermost first: the operator's floor (more layers to come). */
  readonly rules: ContentRules;
  /** The same channel on another site (a link's own site), with this server's filter for that site. */
  forSite(site: Site): View;
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
   * The member's own filters (`/me filter`), given only where no server decides (a DM, a group DM, a
   * server without the bot). A filter the server's record holds for the site still wins.
   */
  readonly memberFilters?: Readonly<Record<string, number>>;
}): View {
  const { guildId, guildFilters, sites, memberFilters } = options;
  const imageReferences = options.imageReferences ?? true;
  const spoilerChannel = options.spoilerChannel ?? false;
  // Fail closed: Discord never makes a channel both, and one that says so is read as the plain one.
  const ageRestricted = options.ageRestricted && !spoilerChannel;
  const build = (site: Site): View => ({
    site,
    filterId: guildFilters[site.id] ?? memberFilters?.[site.id] ?? sites.filterFor(site, guildFilters),
    ageRestricted,
    spoilerChannel,
    guildId,
    imageReferences,
    rules: { hidden: sites.floorFor(site) },
    forSite: build,
  });
  return build(options.site);
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
    /** The member's own filters where no server decides (see `makeView`); the caller reads them. */
    readonly memberFilters?: Readonly<Record<string, number>>;
  },
  deps: { readonly settings: GuildSettings; readonly sites: SiteDirectory },
): Promise<View> {
  const { sites } = deps;
  const record = input.guildId === null ? undefined : await deps.settings.get(input.guildId);
  const site = (record?.siteId === undefined ? undefined : sites.byId(record.siteId)) ?? sites.defaultSite;
  return makeView({
    site,
    guildId: input.guildId,
    // Not in a server means a DM: never age-restricted, whatever the channel object says.
    ageRestricted: input.guildId !== null && isAgeRestrictedChannel(input.channel),
    // Nor a spoiler channel. In a server, a channel the bot cannot identify counts as one (fail closed).
    spoilerChannel: input.guildId !== null && (input.channel === null || isSpoilerChannel(input.channel)),
    guildFilters: record?.filters ?? {},
    sites,
    imageReferences: record?.imageReferences !== false,
    ...(input.memberFilters === undefined ? {} : { memberFilters: input.memberFilters }),
  });
}
