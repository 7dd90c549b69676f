/**
 * The sites the bot understands (every known site and the configured one) and the filter rule: a server's
 * filter belongs to the site it was set for; BOORU_FILTER_ID applies on the configured site only.
 */
import { createLinkRecogniser } from '../../src/philomena/links.js';
import { KNOWN_SITES, type Site } from '../../src/philomena/sites.js';
import type { SiteDirectory } from '../../src/discord/contract.js';

export function createSiteDirectory(options: {
  readonly defaultSite: Site;
  readonly defaultFilterId: number | undefined;
}): SiteDirectory {
  const { defaultSite, defaultFilterId } = options;
  const all = defaultSite.known ? KNOWN_SITES : [...KNOWN_SITES, defaultSite];
  const recogniseLinks = createLinkRecogniser(all);
  return {
    defaultSite,
    all,
    recogniseLinks,
    byId: (id) => all.find((site) => site.id === id),
    filterFor(site, guildFilters) {
      const own = guildFilters[site.id];
      if (own !== undefined) return own;
      return site.id === defaultSite.id ? defaultFilterId : undefined;
    },
  };
}
