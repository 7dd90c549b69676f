/**
 * What the operator should hear once at start about the board settings: that the API key is not used
 * (members' text must never run with the owner's rights, so it goes with no request), and whether
 * BOORU_FILTER_ID is a filter the board applies to anonymous requests (a private one is silently ignored).
 * Neither stops the bot: a board that cannot be reached now is checked by every command later anyway.
 */
import { NotFoundError } from './errors.js';
import type { Logger } from './logger.js';
import type { PhilomenaClient } from './philomena/client/types.js';

export const KEY_NOT_USED =
  'BOORU_API_KEY is set but not used: the bot sends no key with any request, so members’ searches never run with your account’s rights (my:upvotes, my:uploads, private filters, staff fields). You can remove it.';

export const FLOOR_DEFAULTS_OFF =
  "FLOOR_DEFAULTS=off: the floor's default rules are off, so images that sexualise minors (foalcon, lolicon, young characters at a rating other than safe ...) can be shown in age-restricted channels, which Discord's Community Guidelines forbid anywhere on Discord. Only NEVER_SHOW_TAGS is applied. Remove the setting to turn the defaults back on.";

/** Said at every start while the floor's defaults are off: an operator must never forget it. */
export function checkFloor(options: { readonly defaults: boolean; readonly logger: Logger }): void {
  if (!options.defaults) options.logger.warn(FLOOR_DEFAULTS_OFF);
}

function filterNotUsable(filterId: number, site: string): string {
  return `BOORU_FILTER_ID ${filterId} is not a public or system filter on ${site}: the board ignores it for the bot's anonymous requests and applies its default filter. Make the filter public on the site (Filters → Edit → Public) or choose another.`;
}

export async function checkBoardSettings(options: {
  readonly apiKey: string | undefined;
  readonly filterId: number | undefined;
  readonly client: Pick<PhilomenaClient, 'filter' | 'site'>;
  readonly logger: Logger;
}): Promise<void> {
  const { apiKey, filterId, client, logger } = options;
  if (apiKey !== undefined) logger.warn(KEY_NOT_USED);
  if (filterId === undefined) return;
  try {
    const filter = await client.filter(filterId);
    if (!filter.public && !filter.system) logger.warn(filterNotUsable(filterId, client.site.name));
    else logger.info({ filterId, filter: filter.name }, 'BOORU_FILTER_ID checked with the site');
  } catch (error) {
    if (error instanceof NotFoundError) logger.warn(filterNotUsable(filterId, client.site.name));
    else logger.info({ err: error, filterId }, 'could not check BOORU_FILTER_ID with the site now');
  }
}
