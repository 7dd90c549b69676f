/** Every command, in one list: the bot routes from it and `npm run deploy-commands` registers it. */
import type { Command } from '../src/bot/command.js';
import { featuredCommand } from './featured.js';
import { findSourceCommand } from './find-source.js';
import { imageCommand } from './image.js';
import { reverseCommand } from './reverse.js';
import { searchCommand } from './search.js';
import { settingsCommand } from './settings.js';
import { tagCommand } from './tag.js';

export function allCommands(): readonly Command[] {
  return [
    imageCommand,
    searchCommand,
    tagCommand,
    reverseCommand,
    findSourceCommand,
    featuredCommand,
    settingsCommand,
  ];
}
