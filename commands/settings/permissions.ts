/**
 * What the bot cannot do in this server's channels, for `/settings show`: per text channel where one of
 * the permissions the bot uses is missing, which ones, and what each costs, said plainly. The one that
 * matters most for safety is Manage Messages: without it the bot cannot hide Discord's own preview of a
 * board link, and that preview shows the picture whatever its rating.
 */
import { ChannelType, PermissionFlagsBits, type Guild, type GuildBasedChannel } from 'discord.js';

interface Need {
  readonly bit: bigint;
  readonly name: string;
  /** What the channel loses without it. */
  readonly cost: string;
  /** Only when the bot reads chat (UNFURL on). */
  readonly chat: boolean;
}

const NEEDS: readonly Need[] = [
  {
    bit: PermissionFlagsBits.ViewChannel,
    name: 'View Channel',
    cost: 'no cards for links, no feeds',
    chat: false,
  },
  {
    bit: PermissionFlagsBits.SendMessages,
    name: 'Send Messages',
    cost: 'no cards for links, no feeds',
    chat: false,
  },
  { bit: PermissionFlagsBits.EmbedLinks, name: 'Embed Links', cost: 'cards arrive empty', chat: false },
  {
    bit: PermissionFlagsBits.ReadMessageHistory,
    name: 'Read Message History',
    cost: 'no replies to links in chat',
    chat: true,
  },
  {
    bit: PermissionFlagsBits.ManageMessages,
    name: 'Manage Messages',
    cost: "Discord's own preview of a board link stays, and it shows the picture whatever its rating: in a channel that is not age-restricted, that can be an adult image the bot cannot hide",
    chat: true,
  },
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
 * has all it needs. `readsChat`: whether link unfurling is on (the chat permissions matter only then).
 * A channel is named by its mention alone (`<#id>`), never by its name: Manage Server does
 * not let the admin see every channel, and Discord shows a mention's name only to those who can.
 */
export function permissionReport(guild: Guild | null, readsChat: boolean): string[] {
  const me = guild?.members.me ?? null;
  if (guild === null || me === null) return [];
  const needs = NEEDS.filter((need) => readsChat || !need.chat);
  const problems: { channel: GuildBasedChannel; missing: Need[] }[] = [];
  for (const channel of guild.channels.cache.values()) {
    if (!TEXT_TYPES.has(channel.type)) continue;
    const permissions = channel.permissionsFor(me);
    const missing = needs.filter((need) => permissions?.has(need.bit) !== true);
    // A channel the bot cannot see at all: only that is worth saying.
    const seen = missing.some((need) => need.bit === PermissionFlagsBits.ViewChannel);
    if (missing.length > 0) problems.push({ channel, missing: seen ? missing.slice(0, 1) : missing });
  }
  if (problems.length === 0) return ['Permissions: the bot has what it needs in every text channel.'];
  const lines = ['Permissions the bot lacks:'];
  for (const { channel, missing } of problems.slice(0, MAX_CHANNELS)) {
    const what = missing.map((need) => `${need.name} (${need.cost})`).join('; ');
    lines.push(`- <#${channel.id}>: ${what}`);
  }
  if (problems.length > MAX_CHANNELS) lines.push(`…and ${problems.length - MAX_CHANNELS} more channels.`);
  return lines;
}
