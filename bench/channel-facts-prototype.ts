/**
 * A prototype, not wired into the bot (issue 23 §2): the facts the bot reads about a server, kept compact
 * instead of as discord.js structures. One BigUint64Array per server holds its roles (id, permissions), its
 * channels and threads (id, type, age-restricted flag, parent) and their permission overwrites (target,
 * allow, deny), and the bot's own roles; the bot's permissions in a channel are computed on read, the way
 * Discord computes them (base from @everyone and the bot's roles, then the channel's overwrites for
 * @everyone, the bot's roles and the bot itself; a thread takes its parent's). Members, users and
 * everything else of a GUILD_CREATE are dropped. bench/cache-breakdown.bench.ts measures what it costs.
 */
import { ChannelType, PermissionFlagsBits } from 'discord.js';

const HEADER = 4;
const MEMBER_TARGET = 1n << 63n;
const ALL = (1n << 64n) - 1n;
const THREAD_TYPES: ReadonlySet<number> = new Set([
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
]);

interface RawOverwrite {
  readonly id: string;
  readonly type: number;
  readonly allow: string;
  readonly deny: string;
}
interface RawChannel {
  readonly id: string;
  readonly type: number;
  readonly nsfw?: boolean;
  readonly parent_id?: string | null;
  readonly permission_overwrites?: readonly RawOverwrite[];
}
export interface RawGuild {
  readonly id: string;
  readonly roles: readonly { readonly id: string; readonly permissions: string }[];
  readonly channels: readonly RawChannel[];
  readonly threads: readonly RawChannel[];
  readonly members: readonly { readonly user: { readonly id: string }; readonly roles: readonly string[] }[];
}

export interface ChannelFact {
  readonly type: number;
  readonly ageRestricted: boolean;
  readonly parentId: string | null;
  readonly botPermissions: bigint;
}

/**
 * Layout: [roles, channels, overwrites, bot roles], then roles (id, permissions), channels (id, meta:
 * type | nsfw << 8 | (parent index + 1) << 16 | first overwrite << 32 | overwrites << 48), overwrites
 * (target, with bit 63 set for a member; allow; deny), then the indices of the bot's roles.
 */
export function packGuild(guild: RawGuild, botId: string): BigUint64Array {
  const channels = [...guild.channels, ...guild.threads];
  const overwrites = channels.reduce((n, c) => n + (c.permission_overwrites?.length ?? 0), 0);
  const roleIndex = new Map(guild.roles.map((r, i) => [r.id, i]));
  const channelIndex = new Map(channels.map((c, i) => [c.id, i]));
  const botRoles = (guild.members.find((m) => m.user.id === botId)?.roles ?? []).flatMap((id) => {
    const i = roleIndex.get(id);
    return i === undefined ? [] : [BigInt(i)];
  });
  const out = new BigUint64Array(
    HEADER + 2 * guild.roles.length + 2 * channels.length + 3 * overwrites + botRoles.length,
  );
  out.set([BigInt(guild.roles.length), BigInt(channels.length), BigInt(overwrites), BigInt(botRoles.length)]);
  let at = HEADER;
  for (const role of guild.roles) {
    out[at++] = BigInt(role.id);
    out[at++] = BigInt(role.permissions);
  }
  let ow = HEADER + 2 * guild.roles.length + 2 * channels.length;
  const owStart = ow;
  for (const channel of channels) {
    const parent = channel.parent_id == null ? 0 : (channelIndex.get(channel.parent_id) ?? -1) + 1;
    const list = channel.permission_overwrites ?? [];
    out[at++] = BigInt(channel.id);
    out[at++] =
      BigInt(channel.type) |
      (channel.nsfw === true ? 1n << 8n : 0n) |
      (BigInt(parent) << 16n) |
      (BigInt((ow - owStart) / 3) << 32n) |
      (BigInt(list.length) << 48n);
    for (const o of list) {
      out[ow++] = BigInt(o.id) | (o.type === 1 ? MEMBER_TARGET : 0n);
      out[ow++] = BigInt(o.allow);
      out[ow++] = BigInt(o.deny);
    }
  }
  out.set(botRoles, ow);
  return out;
}

/** The facts of channel `channelId` of a packed server, or undefined. */
export function channelFact(
  packed: BigUint64Array,
  channelId: string,
  botId: string,
): ChannelFact | undefined {
  const roles = Number(packed[0]);
  const channels = Number(packed[1]);
  const overwrites = Number(packed[2]);
  const botRoleCount = Number(packed[3]);
  const channelsAt = HEADER + 2 * roles;
  const owAt = channelsAt + 2 * channels;
  const wanted = BigInt(channelId);
  let index = -1;
  for (let i = 0; i < channels; i += 1) if (packed[channelsAt + 2 * i] === wanted) index = i;
  if (index < 0) return undefined;
  const metaOf = (i: number): bigint => packed[channelsAt + 2 * i + 1] ?? 0n;
  const meta = metaOf(index);
  const type = Number(meta & 0xffn);
  const parent = Number((meta >> 16n) & 0xffffn) - 1;
  const parentId = parent < 0 ? null : String(packed[channelsAt + 2 * parent]);

  const guildId = packed[HEADER] ?? 0n; // @everyone's id is the server's.
  const botRoleIds = new Set<bigint>();
  let base = packed[HEADER + 1] ?? 0n;
  for (let i = 0; i < botRoleCount; i += 1) {
    const r = Number(packed[owAt + 3 * overwrites + i]);
    botRoleIds.add(packed[HEADER + 2 * r] ?? 0n);
    base |= packed[HEADER + 2 * r + 1] ?? 0n;
  }
  if ((base & PermissionFlagsBits.Administrator) !== 0n) {
    return { type, ageRestricted: (meta & (1n << 8n)) !== 0n, parentId, botPermissions: ALL };
  }
  // A thread has its parent's permissions.
  const source = THREAD_TYPES.has(type) && parent >= 0 ? parent : index;
  const sourceMeta = metaOf(source);
  const first = Number((sourceMeta >> 32n) & 0xffffn);
  const count = Number(sourceMeta >> 48n);
  let everyone = { allow: 0n, deny: 0n };
  let roleAllow = 0n;
  let roleDeny = 0n;
  let member = { allow: 0n, deny: 0n };
  const bot = BigInt(botId) | MEMBER_TARGET;
  for (let k = first; k < first + count; k += 1) {
    const target = packed[owAt + 3 * k] ?? 0n;
    const allow = packed[owAt + 3 * k + 1] ?? 0n;
    const deny = packed[owAt + 3 * k + 2] ?? 0n;
    if (target === guildId) everyone = { allow, deny };
    else if (target === bot) member = { allow, deny };
    else if (botRoleIds.has(target)) {
      roleAllow |= allow;
      roleDeny |= deny;
    }
  }
  let permissions = (base & ~everyone.deny) | everyone.allow;
  permissions = (permissions & ~roleDeny) | roleAllow;
  permissions = (permissions & ~member.deny) | member.allow;
  const ageRestricted = (sourceMeta & (1n << 8n)) !== 0n;
  return { type, ageRestricted, parentId, botPermissions: permissions };
}
