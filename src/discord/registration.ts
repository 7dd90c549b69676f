/**
 * Registering the command list with Discord. `npm run deploy-commands` always registers; the bot at start
 * registers only when the definitions changed since the last registration it made (the hash of their JSON
 * is kept in the store), so restarts do not spend Discord's tight command-write limits.
 */
import { createHash } from 'node:crypto';
import {
  ApplicationIntegrationType,
  InteractionContextType,
  Routes,
  type REST,
  type RESTPostAPIApplicationCommandsJSONBody,
} from 'discord.js';
import type Keyv from 'keyv';
import type { Logger } from '../logger.js';
import type { Command } from './contract.js';

/**
 * A command body as sent. discord-api-types types `default_member_permissions` as a string (what the
 * builders write); Discord's own OpenAPI description types it as an integer, and the wire takes both.
 */
export type CommandBody = WithIntegerPermissions<RESTPostAPIApplicationCommandsJSONBody>;

/** Distributes over the union of body kinds, so each keeps its own fields. */
type WithIntegerPermissions<Body> = Body extends unknown
  ? Omit<Body, 'default_member_permissions'> & {
      default_member_permissions?: string | number | null | undefined;
    }
  : never;

/**
 * Where a command may be used when it does not say: installed to a server only, used in servers and in the
 * bot's DMs. Left unset, Discord reads `integration_types` as the app's install types of the moment, so
 * turning on user installs in the Developer Portal would silently expose commands built for servers only
 * (their rating rule, `/settings` for servers the bot is not in). A command opens itself to user installs
 * by saying so.
 */
const DEFAULT_INTEGRATION_TYPES = [ApplicationIntegrationType.GuildInstall] as const;
const DEFAULT_CONTEXTS = [InteractionContextType.Guild, InteractionContextType.BotDM] as const;

/**
 * The bodies to register: `integration_types` and `contexts` always explicit, `default_member_permissions`
 * as the integer the OpenAPI description asks for.
 */
export function commandBodies(commands: readonly Pick<Command<unknown>, 'data'>[]): CommandBody[] {
  return commands.map((command): CommandBody => {
    const data = {
      ...command.data,
      integration_types: command.data.integration_types ?? [...DEFAULT_INTEGRATION_TYPES],
      contexts: command.data.contexts ?? [...DEFAULT_CONTEXTS],
    };
    const permissions = data.default_member_permissions;
    if (typeof permissions !== 'string' || !/^\d+$/.test(permissions)) return data;
    const value = Number(permissions);
    if (!Number.isSafeInteger(value)) return data;
    return { ...data, default_member_permissions: value };
  });
}

export function commandsHash(bodies: readonly CommandBody[]): string {
  return createHash('sha256').update(JSON.stringify(bodies)).digest('hex');
}

export interface RegisterOptions {
  readonly rest: REST;
  readonly applicationId: string;
  /** One server (instant, for development) instead of every server. */
  readonly guildId?: string | undefined;
  readonly bodies: readonly CommandBody[];
}

/** Replaces the application's commands with `bodies` (a bulk overwrite: removed commands disappear). */
export async function registerCommands(options: RegisterOptions): Promise<number> {
  const route =
    options.guildId === undefined
      ? Routes.applicationCommands(options.applicationId)
      : Routes.applicationGuildCommands(options.applicationId, options.guildId);
  const result: unknown = await options.rest.put(route, { body: options.bodies });
  return Array.isArray(result) ? result.length : options.bodies.length;
}

export async function registerIfChanged(
  options: RegisterOptions & { readonly store: Keyv; readonly logger: Logger },
): Promise<'registered' | 'unchanged'> {
  const scope = options.guildId === undefined ? 'global' : `guild:${options.guildId}`;
  const key = `registration:${options.applicationId}:${scope}`;
  const hash = commandsHash(options.bodies);
  const previous: unknown = await options.store.get(key);
  if (previous === hash) {
    options.logger.debug({ scope }, 'commands unchanged since the last registration');
    return 'unchanged';
  }
  const count = await registerCommands(options);
  await options.store.set(key, hash);
  options.logger.info({ scope, count }, 'registered commands with Discord');
  return 'registered';
}
