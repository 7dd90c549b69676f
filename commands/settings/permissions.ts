/**
 * What the bot cannot do in this server's channels, for `/settings show`: per text channel where one of
 * the permissions the bot uses is missing, which ones, and what each costs, said plainly. The one that
 * matters most for safety is Manage Messages: without it the bot cannot hide Discord's own preview of a
 * board link, and that preview shows the picture whatever its rating.
 */
import { ChannelType, PermissionFlagsBits } from 'discord.js';
import type { KnownChannel, KnownServer } from '../../src/discord/contract.js';
import { sayEnglish, type Say } from '../shared/say.js';

interface Need {
  readonly bit: bigint;
  /**
   * Its catalogue key, `settings.permissions.need.<id>`: the permission as Discord's client names it in
   * that language, and what the channel loses without it.
   */
  readonly id: string;
  /** Only when the bot reads chat (UNFURL on). */
  readonly chat: boolean;
}

const NEEDS: readonly Need[] = [
  { bit: PermissionFlagsBits.ViewChannel, id: 'view-channel', chat: false },
  { bit: PermissionFlagsBits.SendMessages, id: 'send-messages', chat: false },
  { bit: PermissionFlagsBits.EmbedLinks, id: 'embed-links', chat: false },
  { bit: PermissionFlagsBits.ReadMessageHistory, id: 'read-message-history', chat: true },
  // Without it Discord's own preview of a board link stays, whatever the picture's rating.
  { bit: PermissionFlagsBits.ManageMessages, id: 'manage-messages', chat: true },
];

const TEXT_TYPES: ReadonlySet<ChannelType> = new Set([
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildVoice,
]);

/** Channels listed at most; the rest are counted. */
const MAX_CHANNELS = 10;

/**
 * Lines for `/settings show` naming each channel where the bot lacks something, or one line saying it
 * has all it needs, in `say`'s language. `readsChat`: whether link unfurling is on (the chat permissions matter only then).
 * A channel is named by its mention alone (`<#id>`), never by its name: Manage Server does
 * not let the admin see every channel, and Discord shows a mention's name only to those who can.
 */
export function permissionReport(
  server: KnownServer | undefined,
  readsChat: boolean,
  say: Say = sayEnglish,
): string[] {
  if (server === undefined) return [];
  const needs = NEEDS.filter((need) => readsChat || !need.chat);
  const problems: { channel: KnownChannel; missing: Need[] }[] = [];
  for (const channel of server.channels()) {
    if (!TEXT_TYPES.has(channel.type)) continue;
    const missing = needs.filter((need) => (channel.botPermissions & need.bit) === 0n);
    // A channel the bot cannot see at all: only that is worth saying.
    const seen = missing.some((need) => need.bit === PermissionFlagsBits.ViewChannel);
    if (missing.length > 0) problems.push({ channel, missing: seen ? missing.slice(0, 1) : missing });
  }
  if (problems.length === 0) return [say('settings.permissions.all-granted')];
  const lines = [say('settings.permissions.heading')];
  for (const { channel, missing } of problems.slice(0, MAX_CHANNELS)) {
    const what = missing.map((need) => say(`settings.permissions.need.${need.id}`)).join('; ');
    lines.push(`- <#${channel.id}>: ${what}`);
  }
  if (problems.length > MAX_CHANNELS) {
    lines.push(say('settings.permissions.more', { count: problems.length - MAX_CHANNELS }));
  }
  return lines;
}
