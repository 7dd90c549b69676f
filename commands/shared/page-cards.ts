/**
 * Cards for board pages that are not images, shared by `/tag` and link unfurls (and Show card): a tag's
 * card (description, aliases, implications, an example image under the rating rule), and a search's first
 * result with the search's total.
 */
import type { APIEmbed } from 'discord.js';
import { isPhilomenaError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import type { PhilomenaClient } from '../../src/philomena/client-types.js';
import type { Image, Tag } from '../../src/philomena/schemas.js';
import { quoteTag } from '../../src/philomena/tags.js';
import { escapeInline, imageCard, tagCard, truncate, type ImageCard } from '../../src/render/index.js';
import { safeSearchQuery } from './safety.js';
import { cardContext, filterContext } from './show-image.js';
import type { View } from './view.js';

/**
 * The example is the first search result: filtered, and only `safe` outside age-restricted channels. It
 * is an extra: when the search fails (the board limits its search paths on their own, so a 429 there is
 * common while tag pages still answer), the card is shown without it.
 */
async function exampleImage(
  client: PhilomenaClient,
  tag: Tag,
  view: View,
  logger: Logger,
): Promise<Image | undefined> {
  try {
    const examples = await client.searchImages({
      q: safeSearchQuery(quoteTag(tag.name), view.ageRestricted),
      perPage: 1,
      ...(view.filterId === undefined ? {} : { filterId: view.filterId }),
    });
    return examples.items[0];
  } catch (error) {
    if (!isPhilomenaError(error)) throw error;
    logger.info({ err: error, tag: tag.slug }, 'no example image for the tag card');
    return undefined;
  }
}

/** The card of the tag `nameOrSlug` on `view`'s site (an alias leads to its target, and says so). */
export async function tagCardEmbed(
  client: PhilomenaClient,
  nameOrSlug: string,
  view: View,
  logger: Logger,
): Promise<APIEmbed> {
  const asked = await client.tag(nameOrSlug, { followAlias: false });
  let tag: Tag = asked;
  let aliasOf: Tag | undefined;
  if (asked.aliased_tag !== null) {
    tag = await client.tag(asked.aliased_tag);
    aliasOf = asked;
  }
  const example = await exampleImage(client, tag, view, logger);
  return tagCard(tag, {
    site: view.site,
    ageRestricted: view.ageRestricted,
    ...(example === undefined ? {} : { example }),
    ...(aliasOf === undefined ? {} : { aliasOf }),
  });
}

export interface SearchCard {
  /** The first result's card; undefined when nothing matches. */
  readonly card: ImageCard | undefined;
  readonly imageId: number | undefined;
  /** One line: the query, its total on the site, and a link to the search there. */
  readonly line: string;
}

/** A search's first result (only `safe` outside age-restricted channels), and a line with its total. */
export async function searchCard(
  client: PhilomenaClient,
  query: string,
  view: View,
  logger: Logger,
): Promise<SearchCard> {
  const sent = safeSearchQuery(query, view.ageRestricted);
  const [page, filter] = await Promise.all([
    client.searchImages({
      q: sent,
      perPage: 1,
      ...(view.filterId === undefined ? {} : { filterId: view.filterId }),
    }),
    filterContext(client, view.filterId, logger),
  ]);
  const first = page.items[0];
  const link = `${view.site.baseUrl}/search?q=${encodeURIComponent(sent)}`;
  const shown = `\`${truncate(query, 100).replace(/`/g, "'")}\``;
  const total = page.total.toLocaleString('en-US');
  // In <...>: Discord's own preview of a board page is not the bot's to show (it ignores the rating rule).
  const line = `Search ${shown} on ${escapeInline(view.site.name)}: ${total} result${page.total === 1 ? '' : 's'}, <${link}>`;
  return {
    card: first === undefined ? undefined : imageCard(first, cardContext(view, filter)),
    imageId: first?.id,
    line,
  };
}
