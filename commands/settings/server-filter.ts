/**
 * The server's filter on its site (`/settings filter`, the panel's form): checked with the board (a system
 * or public filter: commands/shared/board-filters.ts), written, and described as the board describes it.
 */
import { describeFilter } from '../../src/render/filter-summary.js';
import { escapeMarkdown } from '../../src/render/index.js';
import { filterTagNames, usableFilter } from '../shared/board-filters.js';
import type { CommandContext } from '../shared/context.js';
import { sayIn } from '../shared/say.js';
import { SERVER_SCOPE, siteOf } from './scope.js';

/** Sets the filter and resolves with the answer's text. */
export async function setServerFilter(
  context: CommandContext,
  guildId: string,
  filterId: number,
): Promise<string> {
  // The server's own site, whatever the channel the command was used in sets for itself.
  const site = siteOf(await context.settings.get(guildId), SERVER_SCOPE, context.sites);
  const filter = await usableFilter(filterId, site, context);
  await context.settings.setFilter(guildId, site.id, filter.id);
  const names = await filterTagNames(context.registry.client(site), filter, context.logger);
  const say = sayIn(context.locale);
  const heading = say('settings.filter.set', { site: escapeMarkdown(site.name) });
  return `${heading}\n${describeFilter(filter, site, names, { say })}`;
}
