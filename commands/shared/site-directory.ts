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
}

export function createSiteDirectory(options: {
  readonly defaultSite: Site;
  readonly defaultFilterId: number | undefined;
}): SiteDirectory {
  const { defaultSite, defaultFilterId } = options;
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
  };
}
