/**
 * The sites the bot understands (every known site and the configured one) and the filter rule: a server's
 * filter belongs to the site it was set for; BOORU_FILTER_ID applies on the configured site only.
 */
import {
  createLinkRecogniser,
  createPageLinkRecogniser,
  type ImageLink,
  type PageLink,
} from '../../src/philomena/links.js';
import { KNOWN_SITES, type Site } from '../../src/philomena/sites.js';
import type { TagRule } from '../../src/render/content-rules.js';
import { floorRules, type FloorOptions } from '../../src/render/floor.js';
import { truncate } from '../../src/render/index.js';

/** The sites whose links and ids the bot understands: every known site and the configured one. */
export interface SiteDirectory {
  readonly defaultSite: Site;
  readonly all: readonly Site[];
  /** The site of an id as `Site.id`, or undefined. */
  byId(id: string): Site | undefined;
  /** Image links of every site in `text`, in order of appearance, deduplicated. */
  recogniseLinks(text: string): ImageLink[];
  /** Tag page and search links of every site in `text`, in order of appearance, deduplicated. */
  recognisePages(text: string): PageLink[];
  /** The view of `site` for a server: its filter there (or BOORU_FILTER_ID on the default site). */
  filterFor(site: Site, guildFilters: Readonly<Record<string, number>>): number | undefined;
  /** The operator's floor on `site` (src/render/floor.ts): the same for every site, known or not. */
  floorFor(site: Site): readonly TagRule[];
}

export function createSiteDirectory(options: {
  readonly defaultSite: Site;
  readonly defaultFilterId: number | undefined;
  /** The floor's settings (FLOOR_DEFAULTS, NEVER_SHOW_TAGS); the defaults alone when not given. */
  readonly floor?: FloorOptions;
}): SiteDirectory {
  const { defaultSite, defaultFilterId } = options;
  const floor = floorRules(options.floor ?? { defaults: true, neverShow: [] });
  const all = defaultSite.known ? KNOWN_SITES : [...KNOWN_SITES, defaultSite];
  const recogniseLinks = createLinkRecogniser(all);
  const recognisePages = createPageLinkRecogniser(all);
  return {
    defaultSite,
    all,
    recogniseLinks,
    recognisePages,
    byId: (id) => all.find((site) => site.id === id),
    filterFor(site, guildFilters) {
      const own = guildFilters[site.id];
      if (own !== undefined) return own;
      return site.id === defaultSite.id ? defaultFilterId : undefined;
    },
    floorFor: () => floor,
  };
}

/** The `site` choice that means "the site this bot is configured for" (BOORU_URL), whatever it is. */
export const DEFAULT_SITE_CHOICE = 'default';
const CHOICE_NAME_MAX = 100;

/**
 * The choices of a `site` option (`/settings site`, `/me filter`): every known site, and the bot's own site
 * when it is not one of them (a custom BOORU_URL), so that it can be chosen again. Without `defaultSite` (a
 * caller that does not know the configuration) the own site is offered under a generic name.
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
