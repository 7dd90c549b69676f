/**
 * The filter policy of /settings and /me, and the board lookups behind it: only system and public filters are
 * usable (the bot asks without the key, so a private filter is not there for it), and the names of a
 * filter's tags come from one tag search. (A member with a linked account may also choose one of their own
 * filters for themselves, private ones included: commands/me/me-filter.ts checks that with their key.)
 */
import { escapeMarkdown } from '../../src/render/index.js';
import { NAMED_TAGS_MAX } from '../../src/render/filter-summary.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { NotFoundError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { Filter } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import type { CommandContext } from './context.js';

/** Philomena's largest page. */
const PER_PAGE_MAX = 50;

/**
 * The names of the first tags each list of `filter` holds (the filter gives ids only), in one tag search
 * by `id:` (an int field of Philomena's tag search). Undefined when the board does not answer: the caller
 * falls back to counts.
 */
export async function filterTagNames(
  client: Pick<PhilomenaClient, 'searchTags'>,
  filter: Filter,
  logger: Logger,
): Promise<ReadonlyMap<number, string> | undefined> {
  const ids = [
    ...new Set([
      ...filter.hidden_tag_ids.slice(0, NAMED_TAGS_MAX),
      ...filter.spoilered_tag_ids.slice(0, NAMED_TAGS_MAX),
    ]),
  ];
  if (ids.length === 0) return new Map();
  try {
    const page = await client.searchTags({
      q: ids.map((id) => `id:${id}`).join(' || '),
      perPage: Math.min(PER_PAGE_MAX, ids.length),
    });
    return new Map(page.items.map((tag) => [tag.id, tag.name]));
  } catch (error) {
    logger.info({ err: error, filterId: filter.id }, 'could not name the tags of a filter; showing counts');
    return undefined;
  }
}

/** How an admin makes their own filter usable: the bot looks filters up anonymously, as anyone would. */
const MAKE_IT_PUBLIC = 'make it public on the site (Filters \u2192 edit the filter \u2192 tick "public")';

/**
 * The filter if the bot may use it on `site`: a system or a public one. The bot asks without the API key,
 * so the key owner's private filters look like anyone else's: not there (the board answers 404). An admin
 * can neither use the owner's private filters nor read them by trying ids.
 */
export async function usableFilter(id: number, site: Site, context: CommandContext): Promise<Filter> {
  let filter: Filter;
  try {
    filter = await context.registry.client(site).filter(id);
  } catch (error) {
    if (error instanceof NotFoundError) {
      throw new UserFacingError(
        'settings.filter-not-public',
        `${escapeMarkdown(site.name)} has no public filter ${id}. If it is your own private filter, ${MAKE_IT_PUBLIC} and try again, or pick a system or public filter.`,
        { params: { site: escapeMarkdown(site.name), filter: id } },
      );
    }
    throw error;
  }
  if (filter.system || filter.public) return filter;
  // A board that shows a private filter anyway still does not get it used, nor shown.
  throw new UserFacingError(
    'settings.filter-private',
    `Filter ${id} is private: ${MAKE_IT_PUBLIC}, or pick a system or public filter.`,
    { params: { filter: id } },
  );
}
