/**
 * What every feature gets for one interaction, and the runtime's contract specialised to it. The runtime
 * (src/discord) is generic over this context and never imports it; the composition root builds it
 * (commands/index.ts `createFeatures`).
 */
import { ApplicationIntegrationType, InteractionContextType } from 'discord.js';
import type {
  ButtonHandler as RuntimeButtonHandler,
  SelectHandler as RuntimeSelectHandler,
  ModalHandler as RuntimeModalHandler,
  ChatCommand as RuntimeChatCommand,
  Command as RuntimeCommand,
} from '../../src/discord/contract.js';
import type { ButtonState } from '../../src/discord/button-state.js';
import type { KnownServer } from '../../src/discord/contract.js';
import type { Logger } from '../../src/logger.js';
import type { ClientRegistry } from '../../src/philomena/registry.js';
import type { Download } from './download.js';
import type { ReverseGate } from './reverse-gate.js';
import type { GuildSettings } from './guild-settings.js';
import type { MemberKeys } from './member-keys.js';
import type { SiteDirectory } from './site-directory.js';
import type { View } from './view.js';

export interface CommandContext {
  readonly logger: Logger;
  /**
   * The language of the member who used the command, button or form (Discord's `interaction.locale`):
   * every answer to them is in it (src/i18n: `shippedTranslator().t(context.locale, key, params)`).
   */
  readonly locale: string;
  /**
   * The server's preferred locale as Discord reports it with the interaction (`guild_locale`): what
   * unfurls and feed posts follow where the server set no language. Absent outside servers.
   */
  readonly guildLocale?: string | null;
  readonly view: View;
  /**
   * What the bot knows of the interaction's server when its shards hold it (its channels with the bot's
   * own permissions there, its name): src/discord/server-facts.ts. Undefined in DMs and in servers the bot
   * is not in (a user install).
   */
  readonly server?: KnownServer;
  /**
   * The member who used the command, button or form (Discord's user id): whose own key, if they linked
   * one, reads what they asked for (member-board.ts `boardFor`).
   */
  readonly userId: string;
  readonly registry: ClientRegistry;
  readonly settings: GuildSettings;
  readonly sites: SiteDirectory;
  /** Short-lived state behind buttons (search queries, reverse-search results). */
  readonly state: ButtonState;
  readonly now: () => number;
  /** Opens a Discord attachment as a size-capped stream; injectable for tests. */
  readonly download: Download;
  /** One reverse search per member at a time, a few file searches per process (reverse-gate.ts). */
  readonly reverseGate: ReverseGate;
  /** Search results read per board call while paging (config SEARCH_WINDOW, 1..50). */
  readonly searchWindow: number;
  /**
   * Members' own board keys (issue 22), sealed at rest; `linking` is false without MEMBER_KEY_SECRET. A
   * key read here goes only to `registry.memberClient(site, ...)` for its own member's requests on its site.
   */
  readonly memberKeys: MemberKeys;
}

export type Command = RuntimeCommand<CommandContext>;
export type ChatCommand = RuntimeChatCommand<CommandContext>;
export type ButtonHandler = RuntimeButtonHandler<CommandContext>;
export type SelectHandler = RuntimeSelectHandler<CommandContext>;
export type ModalHandler = RuntimeModalHandler<CommandContext>;

/**
 * Where the lookup commands and menus can be used: installed to a server or to a member, in servers, in
 * the bot's DMs and in members' own DMs and group DMs. (`/settings` and `/feed` stay server-only.)
 */
export const LOOKUP_INSTALLS = [
  ApplicationIntegrationType.GuildInstall,
  ApplicationIntegrationType.UserInstall,
];
export const LOOKUP_CONTEXTS = [
  InteractionContextType.Guild,
  InteractionContextType.BotDM,
  InteractionContextType.PrivateChannel,
];
