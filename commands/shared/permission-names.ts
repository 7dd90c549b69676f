/**
 * Discord permissions as a member reads them: each under its catalogue key `permission.<name>`, written as
 * Discord's own client names it in that language (a member looks for exactly those words in the channel's
 * settings), and a list of them in the language's quotation marks (`permission.named`).
 */
import { PermissionFlagsBits } from 'discord.js';
import type { Say } from './say.js';

/** The permissions the bot names to members, by discord.js flag, with their keys' last part. */
const PERMISSION_IDS = {
  ViewChannel: 'view-channel',
  SendMessages: 'send-messages',
  SendMessagesInThreads: 'send-messages-in-threads',
  EmbedLinks: 'embed-links',
  AttachFiles: 'attach-files',
  ReadMessageHistory: 'read-message-history',
  ManageMessages: 'manage-messages',
  ManageGuild: 'manage-guild',
} as const satisfies Partial<Record<keyof typeof PermissionFlagsBits, string>>;

export type NamedPermission = keyof typeof PERMISSION_IDS;

/** The bit Discord checks for `permission`. */
export function permissionBit(permission: NamedPermission): bigint {
  return PermissionFlagsBits[permission];
}

/** The catalogue key of `permission`'s name. */
function permissionKey(permission: NamedPermission): string {
  return `permission.${PERMISSION_IDS[permission]}`;
}

/** `permissions` named in `say`'s language, each quoted as that language quotes a name, comma-separated. */
export function permissionList(permissions: readonly NamedPermission[], say: Say): string {
  return permissions
    .map((permission) => say('permission.named', { name: say(permissionKey(permission)) }))
    .join(', ');
}
