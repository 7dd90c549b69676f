/**
 * The contract of a command file (`commands/*.ts`): plain data plus handlers that receive everything they
 * need as arguments. The router (router.ts) acknowledges every interaction before calling a handler, so a
 * handler only ever edits the deferred reply (`editReply`) or adds to it (`followUp`).
 */
import type {
  ApplicationCommandOptionChoiceData,
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  MessageContextMenuCommandInteraction,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
  RESTPostAPIContextMenuApplicationCommandsJSONBody,
} from 'discord.js';
import type { Logger } from '../logger.js';
import type { ImageLink } from '../philomena/links.js';
import type { ClientRegistry } from '../philomena/registry.js';
import type { Site } from '../philomena/sites.js';
import type { Download } from '../../commands/reverse/download.js';
import type { ReverseGate } from '../../commands/reverse/reverse-gate.js';
import type { GuildSettings } from '../../commands/shared/guild-settings.js';
import type { InteractionState } from './button-state.js';

/** What one interaction sees: the server's site and filter, and whether the channel allows non-safe images. */
export interface View {
  readonly site: Site;
  /** The filter to apply on `site`; undefined means the site's own default. */
  readonly filterId: number | undefined;
  readonly ageRestricted: boolean;
  /** Null in DMs. */
  readonly guildId: string | null;
  /** The same channel on another site (a link's own site), with this server's filter for that site. */
  forSite(site: Site): View;
}

/** The sites whose links and ids the bot understands: every known site and the configured one. */
export interface SiteDirectory {
  readonly defaultSite: Site;
  readonly all: readonly Site[];
  /** The site of an id as `Site.id`, or undefined. */
  byId(id: string): Site | undefined;
  /** Image links of every site in `text`, in order of appearance, deduplicated. */
  recogniseLinks(text: string): ImageLink[];
  /** The view of `site` for a server: its filter there (or BOORU_FILTER_ID on the default site). */
  filterFor(site: Site, guildFilters: Readonly<Record<string, number>>): number | undefined;
}

export interface CommandContext {
  readonly logger: Logger;
  readonly view: View;
  readonly registry: ClientRegistry;
  readonly settings: GuildSettings;
  readonly sites: SiteDirectory;
  /** Short-lived state behind buttons (search queries, reverse-search results). */
  readonly state: InteractionState;
  readonly now: () => number;
  /** Opens a Discord attachment as a size-capped stream; injectable for tests. */
  readonly download: Download;
  /** One reverse search per member at a time, a few file searches per process (reverse-gate.ts). */
  readonly reverseGate: ReverseGate;
}

/** How the router acknowledges a button click before its handler runs. */
export type ButtonDeferral = 'update' | 'ephemeral' | 'public';

export interface ButtonHandler {
  /** Decided from the custom_id and the clicker alone: it runs before the 3 s deadline, without I/O. */
  defer(interaction: ButtonInteraction, args: readonly string[]): ButtonDeferral;
  run(interaction: ButtonInteraction, args: readonly string[], context: CommandContext): Promise<void>;
}

export interface ChatCommand {
  readonly kind: 'chat';
  readonly data: RESTPostAPIChatInputApplicationCommandsJSONBody;
  /** Whether the first reply is ephemeral; default false. */
  ephemeral?(interaction: ChatInputCommandInteraction): boolean;
  execute(interaction: ChatInputCommandInteraction, context: CommandContext): Promise<void>;
  /** Choices for the focused option; the router answers within 3 s whatever happens. */
  autocomplete?(
    interaction: AutocompleteInteraction,
    context: CommandContext & { readonly signal: AbortSignal },
  ): Promise<ApplicationCommandOptionChoiceData[]>;
  /** Button handlers keyed by the first two segments of their custom_id, `<namespace>:<action>`. */
  readonly buttons?: Readonly<Record<string, ButtonHandler>>;
}

export interface MessageCommand {
  readonly kind: 'message';
  readonly data: RESTPostAPIContextMenuApplicationCommandsJSONBody;
  ephemeral?(interaction: MessageContextMenuCommandInteraction): boolean;
  execute(interaction: MessageContextMenuCommandInteraction, context: CommandContext): Promise<void>;
  readonly buttons?: Readonly<Record<string, ButtonHandler>>;
}

export type Command = ChatCommand | MessageCommand;
