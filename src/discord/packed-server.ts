/**
 * One server's facts packed into a BigUint64Array (server-facts.ts keeps one per held server), and the
 * bot's permissions computed from them the way Discord computes them.
 *
 * Layout: a header [guild id, owner id, roles, channels, overwrites, bot roles], then roles (id,
 * permissions), channels (id; meta: type | age-restricted << 8 | spoiler << 9 | first overwrite << 16 |
 * overwrites << 40; a thread's parent id), overwrites (target, bit 63 set for a member; allow; deny), and
 * the ids of the bot's roles. Channel names are kept beside it as one string (NAME_SEPARATOR between).
 */
import { ChannelType, PermissionFlagsBits } from 'discord.js';
import type { KnownChannel } from './server-facts.js';

/** A channel or thread as the gateway sends it, once parsed (server-facts.ts). */
export interface RawChannelFields {
  readonly id: string;
  readonly type: number;
  readonly nsfw: boolean;
  readonly flags?: number | undefined;
  readonly parent_id?: string | null | undefined;
  readonly name?: string | undefined;
  readonly permission_overwrites?:
    | readonly { readonly id: string; readonly type: number; readonly allow: bigint; readonly deny: bigint }[]
    | undefined;
}

/** Not in a channel name (they are at most 100 characters of text). */
const NAME_SEPARATOR = '\u0000';

export function namesOf(model: GuildModel): string {
  return [...model.channels.values()].map((c) => c.name).join(NAME_SEPARATOR);
}

const ALL = (1n << 64n) - 1n;
const MEMBER_TARGET = 1n << 63n;
const NSFW = 1n << 8n;
const SPOILER = 1n << 9n;
const IS_SPOILER_CHANNEL = 1 << 21;
const HEADER = 6;
export const THREAD_TYPES: ReadonlySet<number> = new Set([
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
]);

interface OverwriteModel {
  readonly target: bigint;
  readonly allow: bigint;
  readonly deny: bigint;
}
export interface ChannelModel {
  readonly id: bigint;
  readonly type: number;
  readonly nsfw: boolean;
  readonly spoiler: boolean;
  /** A thread's parent channel id; 0n for a channel. */
  readonly parent: bigint;
  readonly name: string;
  readonly overwrites: readonly OverwriteModel[];
}
export interface GuildModel {
  readonly id: bigint;
  owner: bigint;
  readonly roles: Map<bigint, bigint>;
  readonly channels: Map<bigint, ChannelModel>;
  botRoles: bigint[];
}

/** Packed layout: header [guild id, owner id, roles, channels, overwrites, bot roles], then the parts. */
export function pack(model: GuildModel): BigUint64Array {
  const channels = [...model.channels.values()];
  const overwrites = channels.reduce((n, c) => n + c.overwrites.length, 0);
  const out = new BigUint64Array(
    HEADER + 2 * model.roles.size + 3 * channels.length + 3 * overwrites + model.botRoles.length,
  );
  out.set([
    model.id,
    model.owner,
    BigInt(model.roles.size),
    BigInt(channels.length),
    BigInt(overwrites),
    BigInt(model.botRoles.length),
  ]);
  let at = HEADER;
  for (const [id, permissions] of model.roles) {
    out[at++] = id;
    out[at++] = permissions;
  }
  let ow = 0;
  const owAt = at + 3 * channels.length;
  for (const c of channels) {
    out[at++] = c.id;
    out[at++] =
      BigInt(c.type & 0xff) |
      (c.nsfw ? NSFW : 0n) |
      (c.spoiler ? SPOILER : 0n) |
      (BigInt(ow) << 16n) |
      (BigInt(c.overwrites.length) << 40n);
    out[at++] = c.parent;
    for (const o of c.overwrites) {
      out[owAt + 3 * ow] = o.target;
      out[owAt + 3 * ow + 1] = o.allow;
      out[owAt + 3 * ow + 2] = o.deny;
      ow += 1;
    }
  }
  out.set(model.botRoles, owAt + 3 * overwrites);
  return out;
}

export function unpack(packed: BigUint64Array, names: string): GuildModel {
  const named = names.split(NAME_SEPARATOR);
  const word = (i: number): bigint => packed[i] ?? 0n;
  const roleCount = Number(word(2));
  const channelCount = Number(word(3));
  const overwriteCount = Number(word(4));
  const botRoleCount = Number(word(5));
  const roles = new Map<bigint, bigint>();
  let at = HEADER;
  for (let i = 0; i < roleCount; i += 1, at += 2) roles.set(word(at), word(at + 1));
  const owAt = at + 3 * channelCount;
  const channels = new Map<bigint, ChannelModel>();
  for (let i = 0; i < channelCount; i += 1, at += 3) {
    const meta = word(at + 1);
    const first = Number((meta >> 16n) & 0xffffffn);
    const count = Number((meta >> 40n) & 0xffffn);
    const overwrites: OverwriteModel[] = [];
    for (let k = first; k < first + count; k += 1) {
      overwrites.push({
        target: word(owAt + 3 * k),
        allow: word(owAt + 3 * k + 1),
        deny: word(owAt + 3 * k + 2),
      });
    }
    channels.set(word(at), {
      id: word(at),
      name: named[i] ?? '',
      type: Number(meta & 0xffn),
      nsfw: (meta & NSFW) !== 0n,
      spoiler: (meta & SPOILER) !== 0n,
      parent: word(at + 2),
      overwrites,
    });
  }
  const botRoles: bigint[] = [];
  const botAt = owAt + 3 * overwriteCount;
  for (let i = 0; i < botRoleCount; i += 1) botRoles.push(word(botAt + i));
  return { id: word(0), owner: word(1), roles, channels, botRoles };
}

export function channelModel(raw: RawChannelFields): ChannelModel {
  const thread = THREAD_TYPES.has(raw.type);
  return {
    id: BigInt(raw.id),
    type: raw.type,
    nsfw: raw.nsfw,
    spoiler: ((raw.flags ?? 0) & IS_SPOILER_CHANNEL) !== 0,
    parent: thread && raw.parent_id != null ? BigInt(raw.parent_id) : 0n,
    name: (raw.name ?? '').replaceAll(NAME_SEPARATOR, ' ').slice(0, 100),
    overwrites: (raw.permission_overwrites ?? []).map((o) => ({
      target: BigInt(o.id) | (o.type === 1 ? MEMBER_TARGET : 0n),
      allow: o.allow,
      deny: o.deny,
    })),
  };
}

/** The bot's permissions in `channel` of `model` (Discord's computation; a thread takes its parent's). */
function botPermissionsIn(model: GuildModel, channel: ChannelModel, botId: bigint): bigint {
  if (model.owner === botId) return ALL;
  let base = model.roles.get(model.id) ?? 0n;
  const botRoles = new Set(model.botRoles.filter((id) => model.roles.has(id)));
  for (const id of botRoles) base |= model.roles.get(id) ?? 0n;
  if ((base & PermissionFlagsBits.Administrator) !== 0n) return ALL;
  const source = THREAD_TYPES.has(channel.type) ? model.channels.get(channel.parent) : channel;
  // A thread whose parent the bot does not know: it may do nothing it could not do anywhere.
  if (source === undefined) return 0n;
  let everyone = { allow: 0n, deny: 0n };
  let roleAllow = 0n;
  let roleDeny = 0n;
  let member = { allow: 0n, deny: 0n };
  const me = botId | MEMBER_TARGET;
  for (const o of source.overwrites) {
    if (o.target === model.id) everyone = o;
    else if (o.target === me) member = o;
    else if (botRoles.has(o.target)) {
      roleAllow |= o.allow;
      roleDeny |= o.deny;
    }
  }
  let permissions = (base & ~everyone.deny) | everyone.allow;
  permissions = (permissions & ~roleDeny) | roleAllow;
  return (permissions & ~member.deny) | member.allow;
}

export function knownChannel(model: GuildModel, channel: ChannelModel, botId: bigint): KnownChannel {
  const thread = THREAD_TYPES.has(channel.type);
  const parent = thread ? model.channels.get(channel.parent) : undefined;
  return {
    id: String(channel.id),
    name: channel.name,
    type: channel.type,
    nsfw: channel.nsfw,
    flags: channel.spoiler ? IS_SPOILER_CHANNEL : 0,
    parentId: thread && channel.parent !== 0n ? String(channel.parent) : null,
    parent:
      parent === undefined
        ? null
        : { type: parent.type, nsfw: parent.nsfw, flags: parent.spoiler ? IS_SPOILER_CHANNEL : 0 },
    botPermissions: botPermissionsIn(model, channel, botId),
  };
}
