/** What `/image id:` accepts: a bare id (`1234`, `#1234`, `>>1234`) on the view's site, or a link to any site. */
import type { Site } from '../../src/philomena/sites.js';
import type { SiteDirectory } from '../shared/site-directory.js';

export interface ImageTarget {
  readonly site: Site;
  readonly imageId: number;
}

export function parseImageInput(text: string, sites: SiteDirectory, viewSite: Site): ImageTarget | undefined {
  const trimmed = text.trim();
  const bare = /^(?:#|>>)?(\d{1,15})$/.exec(trimmed);
  if (bare?.[1] !== undefined) {
    const imageId = Number(bare[1]);
    return { site: viewSite, imageId };
  }
  const link = sites.recogniseLinks(trimmed)[0];
  return link === undefined ? undefined : { site: link.site, imageId: link.imageId };
}
