/**
 * User installs (docs/discord-platform.md, "User installs"): which registered command an interaction
 * names where it is used, `authorizing_integration_owners` as Discord builds it from the installs the user
 * came through and the command's `integration_types` / `contexts` (recording in `unavailableCommands`
 * what Discord would not have offered), and what an interaction tells of its place: the member's
 * permissions, the channel (partial in a server the bot is not in), `app_permissions`, and whether Discord
 * forces the answers ephemeral (no Use External Apps there).
 */
import { PermissionFlagsBits } from 'discord.js';
import {
  BOT_DM_APP_PERMISSIONS,
  PRIVATE_CHANNEL_APP_PERMISSIONS,
  USER_INSTALL_APP_PERMISSION_MASK,
  botChannelPermissions,
  channelPayload,
  dmChannelPayload,
  memberPermissions,
  partialChannelPayload,
  privateChannelPayload,
  type World,
} from '../payloads.js';
import type { StoredCommand } from '../state.js';
import { appInstalledAt, contextOf, type Place, type Scenario } from './context.js';
import type { CommonInteractionOptions, InstallKind } from './types.js';

/** The Use External Apps bit (1 << 50). */
const USE_EXTERNAL_APPS = PermissionFlagsBits.UseExternalApps;

const numberList = (value: unknown): number[] | undefined =>
  Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : undefined;

/** What an interaction tells of where it was used, and for whom. */
export interface PlaceFacts {
  /** The member's permissions as the interaction carries them. */
  readonly memberPerms: bigint;
  /** Discord makes every response and follow-up ephemeral. */
  readonly forceEphemeral: boolean;
  readonly channelJson: Record<string, unknown>;
  readonly appPermissions: bigint;
}

export interface UserInstalls {
  /** The registered command by that name: a guild command only in its own server (Discord shows it nowhere else). */
  commandNamed(name: string, type: number, channelId: string): StoredCommand | undefined;
  /**
   * `authorizing_integration_owners` as Discord builds it: "0" (the guild id, "0" in the bot's DM) when the
   * app is installed there, the user came through it and the command supports guild installs; "1" (the
   * user) when the user came through their own install and the command supports user installs. A command
   * Discord would not have offered there is still dispatched (with the keys the install asked for) and
   * recorded in `unavailableCommands`.
   */
  authorize(
    place: Place,
    install: InstallKind | undefined,
    userId: string,
    command: StoredCommand | undefined,
    interactionId: string,
  ): Record<string, string>;
  placeFacts(
    place: Place,
    w: World,
    channelId: string,
    common: CommonInteractionOptions,
    userId: string,
  ): PlaceFacts;
}

export function createUserInstalls(scenario: Scenario): UserInstalls {
  const { state, world, now, appIntegrationTypes, unavailableCommands, placeOf } = scenario;

  function commandNamed(name: string, type: number, channelId: string): StoredCommand | undefined {
    const place = placeOf(channelId);
    const guildList =
      place.kind === 'guild' && place.w.botIsMember ? (state.guildCommands.get(place.w.guildId) ?? []) : [];
    return [...guildList, ...state.globalCommands].find((c) => c.name === name && c.type === type);
  }

  function authorize(
    place: Place,
    install: InstallKind | undefined,
    userId: string,
    command: StoredCommand | undefined,
    interactionId: string,
  ): Record<string, string> {
    const installed = appInstalledAt(place);
    const chosen = install ?? (installed ? 'guild' : 'user');
    const where =
      place.kind === 'guild'
        ? `server ${place.w.guildId}`
        : place.kind === 'botDm'
          ? "the bot's DM"
          : 'a private channel';
    if (!installed && chosen !== 'user') {
      throw new Error(
        `fake Discord: the app is not installed in ${where}: only install 'user' reaches it there`,
      );
    }
    if (place.kind === 'guild' && installed && chosen === 'user') {
      throw new Error(
        `fake Discord: the app is installed in ${where}, so Discord authorizes through that install too: use install 'both'`,
      );
    }
    const context = contextOf(place);
    let viaGuild = chosen !== 'user';
    let viaUser = chosen !== 'guild';
    const problems: string[] = [];
    if (command !== undefined) {
      const guildCommand = command['guild_id'] !== undefined;
      const types = guildCommand ? [0] : (numberList(command['integration_types']) ?? appIntegrationTypes);
      // Left out (or null), contexts mean every context; guild commands live in their server only.
      const contexts = guildCommand ? [0] : (numberList(command['contexts']) ?? [0, 1, 2]);
      if (!contexts.includes(context)) {
        problems.push(`its contexts [${contexts.join(', ')}] leave out context ${context} (${where})`);
      }
      const supported = { guild: viaGuild && types.includes(0), user: viaUser && types.includes(1) };
      if (!supported.guild && !supported.user) {
        problems.push(
          `${guildCommand ? 'a guild command' : `its integration_types [${types.join(', ')}]`} leave out a ${chosen} install`,
        );
      } else {
        viaGuild = supported.guild;
        viaUser = supported.user;
      }
    }
    if (problems.length > 0) {
      unavailableCommands.push({
        name: command?.name ?? '',
        interactionId,
        context,
        install: chosen,
        reason: `Discord would not offer /${command?.name ?? ''} here: ${problems.join('; ')}`,
        at: now(),
      });
    }
    const owners: Record<string, string> = {};
    if (viaGuild) owners['0'] = place.kind === 'guild' ? place.w.guildId : '0';
    if (viaUser) owners['1'] = userId;
    return owners;
  }

  function placeFacts(
    place: Place,
    w: World,
    channelId: string,
    common: CommonInteractionOptions,
    userId: string,
  ): PlaceFacts {
    let memberPerms =
      common.permissions === undefined ? memberPermissions(w, userId) : BigInt(common.permissions);
    if (common.externalApps === false) memberPerms &= ~USE_EXTERNAL_APPS;
    // "If Use External Apps is disabled and your app is not installed to the server, your app's responses
    // will be ephemeral for the end user."
    const forceEphemeral =
      place.kind === 'guild' && !place.w.botIsMember && (memberPerms & USE_EXTERNAL_APPS) === 0n;
    let channelJson: Record<string, unknown>;
    let appPermissions: bigint;
    if (place.kind === 'guild' && place.w.botIsMember) {
      channelJson = { ...channelPayload(w, place.channel, now), permissions: memberPerms.toString() };
      appPermissions = botChannelPermissions(w, channelId);
    } else if (place.kind === 'guild') {
      // The bot is not in this server: the partial channel is all the interaction tells of it.
      appPermissions = memberPerms & USER_INSTALL_APP_PERMISSION_MASK;
      channelJson = partialChannelPayload(w, place.channel, now, { permissions: memberPerms });
    } else if (place.kind === 'botDm') {
      channelJson = dmChannelPayload(world);
      appPermissions = BOT_DM_APP_PERMISSIONS;
    } else {
      channelJson = privateChannelPayload(world, place.channel, userId);
      appPermissions = PRIVATE_CHANNEL_APP_PERMISSIONS;
    }
    return { memberPerms, forceEphemeral, channelJson, appPermissions };
  }

  return { commandNamed, authorize, placeFacts };
}
