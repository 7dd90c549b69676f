/** The app's configuration mapped onto the runtime's own options (main.ts and the tests' harness). */
import type { Config } from './config.js';
import type { RuntimeOptions } from './discord/options.js';

export function runtimeOptionsOf(config: Config): RuntimeOptions {
  return {
    token: config.discordToken,
    apiUrl: config.discordApiUrl,
    shards: config.shards,
    applicationId: config.discordApplicationId,
    guildId: config.discordGuildId,
    interactionRoutes: config.discordInteractionsGlobalLimit ? 'global' : 'exempt',
    readChat: config.unfurl,
    commandRateLimit: config.commandRateLimit,
    siteId: config.site.id,
  };
}
