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
  /** Its permission overwrites, each read on its own; `unreadable` when one of them could not be. */
  readonly overwrites?:
    | {
        readonly list: readonly {
          readonly id: string;
          readonly type: number;
          readonly allow: bigint;
          readonly deny: bigint;
        }[];
        readonly unreadable: boolean;
      }
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
/** Some of the channel's overwrites could not be read: the bot's permissions there are unknown (none). */
const UNREADABLE = 1n << 10n;
/** A type past the byte the layout keeps (none Discord has today): kept as "unknown", never aliased. */
const UNKNOWN_TYPE = 0xff;
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
  /** Some overwrites could not be read (the bot's permissions there are then none, never too many). */
  readonly unreadable: boolean;
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
      BigInt(c.type >= 0 && c.type < UNKNOWN_TYPE ? c.type : UNKNOWN_TYPE) |
      (c.nsfw ? NSFW : 0n) |
      (c.spoiler ? SPOILER : 0n) |
      (c.unreadable ? UNREADABLE : 0n) |
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
      unreadable: (meta & UNREADABLE) !== 0n,
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
    overwrites: (raw.overwrites?.list ?? []).map((o) => ({
      target: BigInt(o.id) | (o.type === 1 ? MEMBER_TARGET : 0n),
      allow: o.allow,
      deny: o.deny,
    })),
    unreadable: raw.overwrites?.unreadable ?? false,
  };
}

/**
 * Reads a packed server in place (no model built: a read per message or interaction stays cheap however
 * many channels the server has): one channel, or all of them, with the bot's permissions computed as
 * Discord computes them (owner or Administrator: all; @everyone's and the bot's roles' permissions, then
 * the channel's overwrites for @everyone, the bot's roles and the bot; a thread takes its parent's).
 */
interface Base {
  /** @everyone's and the bot's roles' permissions. */
  readonly base: bigint;
  readonly botRoles: ReadonlySet<bigint>;
  /** Owner or Administrator: every permission, whatever the overwrites. */
  readonly everything: boolean;
  /** Whom it was computed for (the bot's id is known from READY on). */
  readonly botId: bigint;
}

/**
 * The bot's server-wide permissions for the last servers read, by their packed array (a change makes a
 * new array, so an entry never goes stale): a big server (hundreds of roles) is not walked on every read,
 * and at most BASES_KEPT are kept.
 */
const bases = new Map<BigUint64Array, Base>();
const BASES_KEPT = 1_000;

function basePermissions(
  packed: BigUint64Array,
  botId: bigint,
  sameWords: (i: number, j: number) => boolean,
): Base {
  const kept = bases.get(packed);
  if (kept !== undefined && kept.botId === botId) return kept;
  const word = (i: number): bigint => packed[i] ?? 0n;
  const roleCount = Number(word(2));
  const botAt = HEADER + 2 * roleCount + 3 * Number(word(3)) + 3 * Number(word(4));
  const botRoles = new Set<bigint>();
  let base = 0n;
  for (let r = 0; r < roleCount; r += 1) {
    const at = HEADER + 2 * r;
    // @everyone's id is the server's.
    let mine = sameWords(at, 0);
    for (let i = botAt; i < packed.length && !mine; i += 1) mine = sameWords(at, i);
    if (!mine) continue;
    base |= word(at + 1);
    if (!sameWords(at, 0)) botRoles.add(word(at));
  }
  const made = {
    base,
    botRoles,
    botId,
    everything: word(1) === botId || (base & PermissionFlagsBits.Administrator) !== 0n,
  };
  bases.set(packed, made);
  if (bases.size > BASES_KEPT) {
    const oldest = bases.keys().next();
    if (!oldest.done) bases.delete(oldest.value);
  }
  return made;
}

/** The `index`th of the names joined by NAME_SEPARATOR, found without splitting them all. */
function nameAt(names: string, index: number): string {
  let start = 0;
  for (let i = 0; i < index; i += 1) {
    const next = names.indexOf(NAME_SEPARATOR, start);
    if (next < 0) return '';
    start = next + 1;
  }
  const end = names.indexOf(NAME_SEPARATOR, start);
  return names.slice(start, end < 0 ? undefined : end);
}

export function packedReader(packed: BigUint64Array, names: string, botId: bigint) {
  const word = (i: number): bigint => packed[i] ?? 0n;
  // Reading a BigUint64Array element makes a new BigInt each time: ids are compared as two 32-bit halves
  // of the same memory instead (little-endian, as every platform Node runs the bot on).
  const halves = new Uint32Array(packed.buffer, packed.byteOffset, packed.length * 2);
  const same = (i: number, lo: number, hi: number): boolean =>
    halves[2 * i] === lo && halves[2 * i + 1] === hi;
  const sameWords = (i: number, j: number): boolean => same(i, halves[2 * j] ?? 0, halves[2 * j + 1] ?? 0);
  const lowOf = (id: bigint): number => Number(id & 0xffffffffn);
  const highOf = (id: bigint): number => Number(id >> 32n);
  const roleCount = Number(word(2));
  const channelCount = Number(word(3));
  const channelsAt = HEADER + 2 * roleCount;
  const owAt = channelsAt + 3 * channelCount;
  const guildId = word(0);
  const { base, botRoles, everything } = basePermissions(packed, botId, sameWords);

  const idAt = (index: number): bigint => word(channelsAt + 3 * index);
  const metaAt = (index: number): bigint => word(channelsAt + 3 * index + 1);
  const typeOf = (meta: bigint): number => Number(meta & 0xffn);
  const indexOf = (id: bigint): number => {
    if (id === 0n) return -1;
    const lo = lowOf(id);
    const hi = highOf(id);
    for (let i = 0; i < channelCount; i += 1) if (same(channelsAt + 3 * i, lo, hi)) return i;
    return -1;
  };

  function permissionsAt(index: number): bigint {
    if (everything) return ALL;
    const meta = metaAt(index);
    const source = THREAD_TYPES.has(typeOf(meta)) ? indexOf(word(channelsAt + 3 * index + 2)) : index;
    // A thread whose parent the bot does not know, or overwrites it could not read: nothing it cannot prove.
    if (source < 0) return 0n;
    const sourceMeta = metaAt(source);
    if ((sourceMeta & UNREADABLE) !== 0n) return 0n;
    const first = Number((sourceMeta >> 16n) & 0xffffffn);
    const count = Number((sourceMeta >> 40n) & 0xffffn);
    let everyone = { allow: 0n, deny: 0n };
    let roleAllow = 0n;
    let roleDeny = 0n;
    let member = { allow: 0n, deny: 0n };
    const me = botId | MEMBER_TARGET;
    for (let k = first; k < first + count; k += 1) {
      const target = word(owAt + 3 * k);
      const allow = word(owAt + 3 * k + 1);
      const deny = word(owAt + 3 * k + 2);
      if (target === guildId) everyone = { allow, deny };
      else if (target === me) member = { allow, deny };
      else if (botRoles.has(target)) {
        roleAllow |= allow;
        roleDeny |= deny;
      }
    }
    let permissions = (base & ~everyone.deny) | everyone.allow;
    permissions = (permissions & ~roleDeny) | roleAllow;
    return (permissions & ~member.deny) | member.allow;
  }

  function channelAt(index: number, name: string): KnownChannel {
    const meta = metaAt(index);
    const type = typeOf(meta);
    const thread = THREAD_TYPES.has(type);
    const parentId = thread ? word(channelsAt + 3 * index + 2) : 0n;
    const parentIndex = thread ? indexOf(parentId) : -1;
    const parentMeta = parentIndex < 0 ? undefined : metaAt(parentIndex);
    return {
      id: String(idAt(index)),
      name,
      type,
      nsfw: (meta & NSFW) !== 0n,
      flags: (meta & SPOILER) !== 0n ? IS_SPOILER_CHANNEL : 0,
      parentId: parentId === 0n ? null : String(parentId),
      parent:
        parentMeta === undefined
          ? null
          : {
              type: typeOf(parentMeta),
              nsfw: (parentMeta & NSFW) !== 0n,
              flags: (parentMeta & SPOILER) !== 0n ? IS_SPOILER_CHANNEL : 0,
            },
      botPermissions: permissionsAt(index),
    };
  }

  return {
    channel(id: bigint): KnownChannel | undefined {
      const index = indexOf(id);
      return index < 0 ? undefined : channelAt(index, nameAt(names, index));
    },
    channels(): KnownChannel[] {
      const named = names.split(NAME_SEPARATOR);
      return Array.from({ length: channelCount }, (_, i) => channelAt(i, named[i] ?? ''));
    },
  };
}
