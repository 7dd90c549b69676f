/**
 * The runtime's own options: what src/discord needs to know of the deployment, declared here so that it
 * never reads the app's configuration (src/config.ts). The composition root maps the configuration onto
 * them (src/runtime-options.ts).
 */
import type { ShardChoice } from './client-options.js';
import type { InteractionRoutesLimit } from './interaction-rest.js';

/** A sliding-window rate: `limit` actions in any span of `windowMs`. */
export interface RateLimit {
  readonly limit: number;
  readonly windowMs: number;
}

export interface RuntimeOptions {
  /** The bot's token (DISCORD_TOKEN). */
  readonly token: string;
  /** REST base handed to discord.js (`rest.api`); undefined: Discord's own. */
  readonly apiUrl?: string | undefined;
  /** The gateway shards this process connects; 'auto': every shard Discord recommends. */
  readonly shards: ShardChoice;
  /** Where commands are registered from; undefined: learnt from Discord at login. */
  readonly applicationId?: string | undefined;
  /** Registers the commands in this server only (fast to update while developing); undefined: globally. */
  readonly guildId?: string | undefined;
  /** Whether to read chat (the message handlers, e.g. the unfurler): asks for the Message Content intent. */
  readonly readChat: boolean;
  /** Commands per member; undefined means no limit (buttons and autocomplete then have none either). */
  readonly commandRateLimit?: RateLimit | undefined;
  /**
   * 'exempt' (default): interaction answers are not held to Discord's global 50 requests a second, as
   * Discord does not hold them (interaction-rest.ts); 'global': @discordjs/rest's own behaviour, which
   * does (DISCORD_INTERACTIONS_GLOBAL_LIMIT=on, for comparison in the bench).
   */
  readonly interactionRoutes?: InteractionRoutesLimit | undefined;
  /** The board site the bot serves by default: named in the "bot ready" line, nothing more. */
  readonly siteId: string;
}
