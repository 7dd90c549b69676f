/**
 * What the bot knows of the servers its shards hold, kept compact instead of as discord.js structures
 * (issue 23 §2: discord.js's guild, channel and role caches cost about 40 KiB a server; this about 1).
 *
 * The gateway's own packets keep it (`apply`, fed every raw dispatch): GUILD_CREATE / UPDATE / DELETE,
 * CHANNEL_CREATE / UPDATE / DELETE, THREAD_CREATE / UPDATE / DELETE / LIST_SYNC, GUILD_ROLE_CREATE /
 * UPDATE / DELETE and the bot's own GUILD_MEMBER_UPDATE. Per server it keeps its name and preferred locale,
 * and one BigUint64Array with its roles (id, permissions), its channels and active threads (id, type,
 * age-restricted and spoiler flags, a thread's parent), their permission overwrites and the bot's roles.
 * Members, users, messages and everything else of a server are never kept.
 *
 * The bot's permissions in a channel are computed on read the way Discord computes them: owner or
 * Administrator has all; else @everyone's and the bot's roles' permissions, then the channel's overwrites
 * for @everyone, for the bot's roles (denies, then allows), and for the bot itself; a thread takes its
 * parent's. discord.js's `permissionsFor` reads the same, so every self-check says what it said before.
 */
import { z } from 'zod';
import type { ChannelFacts } from './contract.js';
import {
  channelModel,
  packedReader,
  namesOf,
  pack,
  THREAD_TYPES,
  unpack,
  type ChannelModel,
  type RawChannelFields,
  type GuildModel,
} from './packed-server.js';

/** A channel of a held server with what the bot may do there. */
export interface KnownChannel extends ChannelFacts {
  /** The channel's name as Discord last said it (choices name feeds' channels by it). */
  readonly name: string;
  readonly parentId: string | null;
  /** The bot's permissions in the channel (a thread: its parent's), as Discord computes them. */
  readonly botPermissions: bigint;
}

/** What the bot knows of one server its shards hold. */
export interface KnownServer {
  readonly id: string;
  readonly name: string;
  /** Discord's `preferred_locale`, as the last GUILD_CREATE or GUILD_UPDATE said. */
  readonly locale: string;
  /** A channel or active thread of the server, or undefined when the bot does not know it. */
  channel(channelId: string): KnownChannel | undefined;
  /** Every channel and active thread the bot knows of the server. */
  channels(): KnownChannel[];
}

/** The servers this process's shards hold, read-only: what features ask. */
export interface ServerDirectory {
  /** Whether this process receives the server's events (it was in a GUILD_CREATE and not removed since). */
  holds(guildId: string): boolean;
  server(guildId: string): KnownServer | undefined;
  /** How many servers are held (the memory bench, metrics). */
  readonly size: number;
}

/** What a raw dispatch did to the directory that the runtime acts on: the servers the bot left. */
type Applied = { readonly removed: readonly string[] } | undefined;

export interface ServerFacts extends ServerDirectory {
  /** Applies one raw gateway dispatch (`{ t, d }`); returns `{ removed }` when the bot left servers. */
  apply(packet: unknown): Applied;
}

interface Held {
  name: string;
  locale: string;
  packed: BigUint64Array;
  /** The channels' names in the packed order, joined by NAME_SEPARATOR (one string, not one each). */
  names: string;
}

const snowflake = z.string().regex(/^\d{1,20}$/);
const bits = z.union([z.string().regex(/^\d{1,20}$/), z.number().int().nonnegative()]).transform(BigInt);
const rawOverwrite = z.object({ id: snowflake, type: z.number(), allow: bits, deny: bits });
const rawChannel = z.object({
  id: snowflake,
  type: z.number().int(),
  guild_id: snowflake.optional(),
  nsfw: z
    .unknown()
    .optional()
    .transform((nsfw) => nsfw === true),
  flags: z.number().int().catch(0).optional(),
  parent_id: snowflake.nullish().catch(null),
  name: z.string().catch('').optional(),
  // Each overwrite is read on its own; one that cannot be leaves the channel's permissions unknown (none),
  // never without its denies.
  overwrites: z.unknown().optional(),
  thread_metadata: z
    .object({ archived: z.boolean().catch(false) })
    .passthrough()
    .optional()
    .catch(undefined),
});
const rawRole = z.object({ id: snowflake, permissions: bits });

/** A raw channel's fields with its overwrites read one by one (`permission_overwrites`). */
function channelFields(
  data: unknown,
): (RawChannelFields & { readonly guild_id?: string | undefined; readonly archived: boolean }) | undefined {
  const parsed = rawChannel.safeParse(data);
  if (!parsed.success) return undefined;
  const items: unknown =
    typeof data === 'object' && data !== null && 'permission_overwrites' in data
      ? data.permission_overwrites
      : [];
  const list = Array.isArray(items) ? items.map((item) => rawOverwrite.safeParse(item)) : [];
  return {
    ...parsed.data,
    archived: parsed.data.thread_metadata?.archived === true,
    overwrites: {
      list: list.flatMap((o) => (o.success ? [o.data] : [])),
      unreadable: !Array.isArray(items) || list.some((o) => !o.success),
    },
  };
}

/** The READY fields that say which servers a shard holds: `shard: [id, count]` and `guilds`. */
const rawReady = z.object({
  user: z.object({ id: snowflake }).passthrough().optional().catch(undefined),
  shard: z.tuple([z.number().int().nonnegative(), z.number().int().positive()]).optional().catch(undefined),
  guilds: z
    .array(z.object({ id: snowflake }).passthrough())
    .optional()
    .catch(undefined),
});
const rawGuild = z.object({
  id: snowflake,
  unavailable: z.boolean().optional(),
  name: z.string().catch(''),
  preferred_locale: z.string().max(20).catch('en-US'),
  owner_id: snowflake.catch('0'),
  // Each item is read on its own: one odd channel or role drops that one, not the server's whole list.
  roles: z.array(z.unknown()).catch([]),
  channels: z.array(z.unknown()).catch([]),
  threads: z.array(z.unknown()).catch([]),
  members: z
    .array(
      z
        .object({ user: z.object({ id: z.string() }).passthrough(), roles: z.array(z.string()) })
        .passthrough(),
    )
    .catch([]),
});
const rawGuildUpdate = z.object({
  id: snowflake,
  name: z.string().optional().catch(undefined),
  preferred_locale: z.string().max(20).optional().catch(undefined),
  owner_id: snowflake.optional().catch(undefined),
  roles: z.array(rawRole).optional().catch(undefined),
});
const rawDispatch = z.object({ t: z.string(), d: z.unknown() });
/** The dispatches that change what the facts hold (`apply`'s cases). */
const KEPT: ReadonlySet<string> = new Set([
  'READY',
  'GUILD_CREATE',
  'GUILD_UPDATE',
  'GUILD_DELETE',
  'CHANNEL_CREATE',
  'CHANNEL_UPDATE',
  'CHANNEL_DELETE',
  'THREAD_CREATE',
  'THREAD_UPDATE',
  'THREAD_DELETE',
  'THREAD_LIST_SYNC',
  'GUILD_ROLE_CREATE',
  'GUILD_ROLE_UPDATE',
  'GUILD_ROLE_DELETE',
  'GUILD_MEMBER_UPDATE',
]);
const anyObject = z.record(z.string(), z.unknown()).catch({});

/** Locales are few: one string each, not one per server. */
const locales = new Map<string, string>();
function interned(locale: string): string {
  const kept = locales.get(locale);
  if (kept !== undefined) return kept;
  if (locales.size < 200) locales.set(locale, locale);
  return locale;
}

/** A snowflake as a bigint, or undefined for anything else. */
function idOf(value: unknown): bigint | undefined {
  return typeof value === 'string' && /^\d{1,20}$/.test(value) ? BigInt(value) : undefined;
}

export function createServerFacts(): ServerFacts {
  const held = new Map<string, Held>();
  let botId = 0n;

  function change(guildId: string, edit: (model: GuildModel) => void): void {
    const entry = held.get(guildId);
    if (entry === undefined) return;
    const model = unpack(entry.packed, entry.names);
    edit(model);
    entry.packed = pack(model);
    entry.names = namesOf(model);
  }

  function upsertChannel(data: unknown): void {
    const raw = channelFields(data);
    if (raw?.guild_id === undefined) return;
    change(raw.guild_id, (model) => {
      // An archived thread is not looked at again until a message unarchives it (THREAD_UPDATE).
      if (raw.archived) model.channels.delete(BigInt(raw.id));
      else model.channels.set(BigInt(raw.id), channelModel(raw));
    });
  }

  function guildCreate(data: unknown): void {
    const parsed = rawGuild.safeParse(data);
    if (!parsed.success || parsed.data.unavailable === true) return;
    const raw = parsed.data;
    const channels = new Map<bigint, ChannelModel>();
    for (const item of [...raw.channels, ...raw.threads]) {
      const channel = channelFields(item);
      if (channel === undefined || channel.archived) continue;
      channels.set(BigInt(channel.id), channelModel(channel));
    }
    const bot = raw.members.find((m) => m.user.id === String(botId));
    const model: GuildModel = {
      id: BigInt(raw.id),
      owner: BigInt(raw.owner_id),
      roles: new Map(
        raw.roles.flatMap((item) => {
          const role = rawRole.safeParse(item);
          return role.success ? [[BigInt(role.data.id), role.data.permissions] as const] : [];
        }),
      ),
      channels,
      botRoles: (bot?.roles ?? []).flatMap((id) => (idOf(id) === undefined ? [] : [BigInt(id)])),
    };
    held.set(raw.id, {
      name: raw.name,
      locale: interned(raw.preferred_locale),
      packed: pack(model),
      names: namesOf(model),
    });
  }

  function guildUpdate(data: unknown): void {
    const parsed = rawGuildUpdate.safeParse(data);
    if (!parsed.success) return;
    const raw = parsed.data;
    const entry = held.get(raw.id);
    if (entry === undefined) return;
    if (raw.name !== undefined) entry.name = raw.name;
    if (raw.preferred_locale !== undefined) entry.locale = interned(raw.preferred_locale);
    if (raw.roles !== undefined || raw.owner_id !== undefined) {
      change(raw.id, (model) => {
        if (raw.owner_id !== undefined) model.owner = BigInt(raw.owner_id);
        if (raw.roles === undefined) return;
        model.roles.clear();
        for (const role of raw.roles) model.roles.set(BigInt(role.id), role.permissions);
      });
    }
  }

  function server(guildId: string): KnownServer | undefined {
    const entry = held.get(guildId);
    if (entry === undefined) return undefined;
    return {
      id: guildId,
      name: entry.name,
      locale: entry.locale,
      channel(channelId) {
        const id = idOf(channelId);
        return id === undefined ? undefined : packedReader(entry.packed, entry.names, botId).channel(id);
      },
      channels: () => packedReader(entry.packed, entry.names, botId).channels(),
    };
  }

  /**
   * READY: the bot's id, and which servers the shard holds. On a fresh session (after INVALID_SESSION, or a
   * new process) a server of that shard that READY no longer lists was left while disconnected: forgotten
   * and said as removed. Without the shard (a READY that does not say it) nothing is forgotten.
   */
  function ready(d: unknown): Applied {
    const parsed = rawReady.safeParse(d);
    if (!parsed.success) return undefined;
    const { user, shard, guilds } = parsed.data;
    if (user !== undefined) botId = BigInt(user.id);
    if (shard === undefined || guilds === undefined) return undefined;
    const [shardId, count] = shard;
    const listed = new Set(guilds.map((g) => g.id));
    const removed: string[] = [];
    for (const id of held.keys()) {
      if (Number((BigInt(id) >> 22n) % BigInt(count)) === shardId && !listed.has(id)) removed.push(id);
    }
    for (const id of removed) held.delete(id);
    return removed.length === 0 ? undefined : { removed };
  }

  function apply(packet: unknown): Applied {
    // Every dispatch passes here, chat messages most of all: only the kinds kept are parsed.
    const kind = typeof packet === 'object' && packet !== null && 't' in packet ? packet.t : undefined;
    if (typeof kind !== 'string' || !KEPT.has(kind)) return undefined;
    const parsed = rawDispatch.safeParse(packet);
    if (!parsed.success) return undefined;
    const { t, d } = parsed.data;
    const data = anyObject.parse(d);
    const guildId = typeof data['guild_id'] === 'string' ? data['guild_id'] : undefined;
    switch (t) {
      case 'READY':
        return ready(d);
      case 'GUILD_CREATE':
        guildCreate(d);
        return undefined;
      case 'GUILD_UPDATE':
        guildUpdate(d);
        return undefined;
      case 'GUILD_DELETE': {
        const id = typeof data['id'] === 'string' ? data['id'] : undefined;
        // `unavailable`: an outage; the server comes back with a GUILD_CREATE. Else the bot was removed,
        // whether or not the server was available since (one unavailable since READY was never held).
        if (id === undefined || data['unavailable'] === true) return undefined;
        held.delete(id);
        return { removed: [id] };
      }
      case 'CHANNEL_CREATE':
      case 'CHANNEL_UPDATE':
      case 'THREAD_CREATE':
      case 'THREAD_UPDATE':
        upsertChannel(d);
        return undefined;
      case 'CHANNEL_DELETE':
      case 'THREAD_DELETE': {
        const id = idOf(data['id']);
        if (guildId === undefined || id === undefined) return undefined;
        change(guildId, (model) => {
          model.channels.delete(id);
          // A channel's threads go with it (Discord sends no THREAD_DELETE for them).
          for (const [threadId, channel] of model.channels) {
            if (THREAD_TYPES.has(channel.type) && channel.parent === id) model.channels.delete(threadId);
          }
        });
        return undefined;
      }
      case 'THREAD_LIST_SYNC': {
        if (guildId === undefined) return undefined;
        const parents = Array.isArray(data['channel_ids'])
          ? new Set(data['channel_ids'].flatMap((id) => (idOf(id) === undefined ? [] : [idOf(id) ?? 0n])))
          : undefined;
        const threads = Array.isArray(data['threads']) ? data['threads'] : [];
        change(guildId, (model) => {
          // The sync replaces every active thread of the channels it names (all of them when it names none).
          for (const [id, channel] of model.channels) {
            if (THREAD_TYPES.has(channel.type) && (parents === undefined || parents.has(channel.parent))) {
              model.channels.delete(id);
            }
          }
          for (const thread of threads) {
            const raw = channelFields(thread);
            if (raw !== undefined && !raw.archived) {
              model.channels.set(BigInt(raw.id), channelModel(raw));
            }
          }
        });
        return undefined;
      }
      case 'GUILD_ROLE_CREATE':
      case 'GUILD_ROLE_UPDATE': {
        const role = rawRole.safeParse(data['role']);
        if (guildId !== undefined && role.success) {
          change(guildId, (model) => model.roles.set(BigInt(role.data.id), role.data.permissions));
        }
        return undefined;
      }
      case 'GUILD_ROLE_DELETE': {
        const id = idOf(data['role_id']);
        if (guildId !== undefined && id !== undefined) change(guildId, (model) => model.roles.delete(id));
        return undefined;
      }
      case 'GUILD_MEMBER_UPDATE': {
        const user = data['user'];
        const id = typeof user === 'object' && user !== null && 'id' in user ? idOf(user.id) : undefined;
        const roles = data['roles'];
        if (guildId === undefined || id !== botId || !Array.isArray(roles)) return undefined;
        change(guildId, (model) => {
          model.botRoles = roles.flatMap((role) => {
            const roleId = idOf(role);
            return roleId === undefined ? [] : [roleId];
          });
        });
        return undefined;
      }
      default:
        return undefined;
    }
  }

  return {
    apply,
    holds: (guildId) => held.has(guildId),
    server,
    get size() {
      return held.size;
    },
  };
}
