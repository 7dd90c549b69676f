/** Every command, in one list: the bot routes from it and `npm run deploy-commands` registers it. */
import type { Command } from '../src/discord/contract.js';
import type { Site } from '../src/philomena/sites.js';
import { featuredCommand } from './featured/featured.js';
import { findSourceCommand } from './reverse/find-source.js';
import { imageCommand } from './image/image.js';
import { reverseCommand } from './reverse/reverse.js';
import { searchCommand } from './search/search.js';
import { createSettingsCommand } from './settings/settings.js';
import { tagCommand } from './tag/tag.js';

/**
 * `defaultSite` is the configured site (BOORU_URL): `/settings site` offers it by name when it is not a
 * known site. Pass it wherever the list is registered, so the registration (and its hash) covers it.
 */
export function allCommands(options: { readonly defaultSite?: Site } = {}): readonly Command[] {
  return [
    imageCommand,
    searchCommand,
    tagCommand,
    reverseCommand,
    findSourceCommand,
    featuredCommand,
    createSettingsCommand(options.defaultSite === undefined ? {} : { defaultSite: options.defaultSite }),
  ];
}
