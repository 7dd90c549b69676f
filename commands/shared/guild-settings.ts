/**
 * Per-server settings: the site and, per site, the filter; whether `>>123` references get cards; the
 * server's own hidden and spoilered tags; the language of unfurls and feed posts; and settings of single
 * channels (site, filters, unfurl, references, tags, language), each unset meaning the server's. Kept in
 * the store without a lifetime so they survive restarts, in one record per server, so that a change, an
 * import or a reset is one atomic write. A filter belongs to the site it was set for: switching sites keeps
 * it for later.
 *
 * Every list is bounded and the bound is said when it is reached (TAG_LIST_MAX tags per list,
 * CHANNEL_SETTINGS_MAX channels with their own settings): a record read for every message must stay small.
 *
 * Two rules keep a server's filter from quietly going away:
 * - every change is one atomic read-modify-write of the server's record (`RecordStore.update`), so two
 *   admins changing different things at once both keep their change, even from two processes on one file;
 * - a read that fails throws `SettingsUnavailableError` instead of reading as "nothing set": the command
 *   fails with a short message rather than running with the defaults, and nothing is written over the
 *   record. (A record that was read but is damaged is another matter: it is logged and reads as unset.)
 *
 * One exception to the second rule: a server whose record this process read or wrote lately keeps that
 * last confirmed copy through a store outage (a Redis restart), so its members' commands go on with the
 * server's own filter; only changes fail until the store is back. A server never seen gets the short
 * message. The copies are bounded (`KNOWN_SERVERS`, least recently used out first).
 */
import type Keyv from 'keyv';
import { z } from 'zod';
import { SettingsUnavailableError, StoreAccessError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { recordStoreOf } from '../../src/store/index.js';
import { normaliseTagName } from '../../src/render/content-rules.js';
import { TAG_LIST_MAX } from './tag-lists.js';
import { shippedTranslator } from '../../src/i18n/index.js';

/** What one channel sets for itself; whatever is absent is the server's (threads follow their parent). */
export interface ChannelSettingsRecord {
  /** `Site.id` of the channel's site. */
  readonly siteId?: string;
  /** Filter ids by `Site.id`, for this channel only. */
  readonly filters?: Readonly<Record<string, number>>;
  /** Whether links posted here get cards (the server's: on). */
  readonly unfurl?: boolean;
  /** Whether `>>123` here gets a card. */
  readonly imageReferences?: boolean;
  /** Tags hidden here on top of the server's, as the board writes them. */
  readonly hiddenTags?: readonly string[];
  /** Tags put behind Discord's spoiler here on top of the server's. */
  readonly spoileredTags?: readonly string[];
  /** The language of unfurl replies and feed posts here (a shipped locale); the server's when absent. */
  readonly language?: string;
}

export interface GuildSettingsRecord {
  /** `Site.id` of the server's site; undefined means BOORU_URL's. */
  readonly siteId: string | undefined;
  /** Filter ids by `Site.id`. */
  readonly filters: Readonly<Record<string, number>>;
  /** `false` when the server turned off cards for `>>123` references in chat (on when absent). */
  readonly imageReferences?: false;
  /** The server's own hidden tags (no picture, tags or description), as the board writes them. */
  readonly hiddenTags?: readonly string[];
  /** The server's own spoilered tags (the picture behind Discord's spoiler). */
  readonly spoileredTags?: readonly string[];
  /** Channels with settings of their own, by channel id. */
  readonly channels?: Readonly<Record<string, ChannelSettingsRecord>>;
  /**
   * The language of unfurl replies and feed posts (a shipped locale, `/settings language`); absent means
   * Discord's preferred locale of the server, as it is when the text is made.
   */
  readonly language?: string;
}

/** The most tags one list holds (a server's, a channel's, a member's; hidden and spoilered each). */
export { TAG_LIST_MAX } from './tag-lists.js';
/** The most channels of one server with settings of their own. */
export const CHANNEL_SETTINGS_MAX = 100;
/** Longer than any tag name a board allows; only a bound on what a stored record may hold. */
const STORED_TAG_MAX = 200;

export interface GuildSettings {
  /** Rejects with `SettingsUnavailableError` when the store cannot be read. */
  get(guildId: string): Promise<GuildSettingsRecord>;
  /**
   * Resolves once the write is stored; undefined goes back to BOORU_URL's site (filters are kept).
   * Rejects with `SettingsUnavailableError` when the store fails; nothing is written then.
   */
  setSite(guildId: string, siteId: string | undefined): Promise<GuildSettingsRecord>;
  setFilter(guildId: string, siteId: string, filterId: number): Promise<GuildSettingsRecord>;
  /** Turns cards for `>>123` references in chat on or off. */
  setImageReferences(guildId: string, on: boolean): Promise<GuildSettingsRecord>;
  /**
   * Any change, as one atomic read-modify-write: `change` may run more than once and must only compute
   * (it may throw a UserFacingError, and then nothing is written). Refuses, writing nothing, a result with
   * more than CHANNEL_SETTINGS_MAX channels of their own (`settings.too-many-channels`).
   */
  update(
    guildId: string,
    change: (current: GuildSettingsRecord) => GuildSettingsRecord,
  ): Promise<GuildSettingsRecord>;
  /** Resolves once the record is gone; rejects with `SettingsUnavailableError` when the delete failed. */
  reset(guildId: string): Promise<void>;
}

const filtersSchema = z.record(z.string().max(100), z.number().int().positive().max(Number.MAX_SAFE_INTEGER));
/**
 * A list as cards compare it: names as the board writes them (lowercase, one space), each once. What the
 * commands store already is; an imported file written by hand may not be, and a name kept any other way
 * would look hidden in /settings show and hide nothing.
 */
const tagListSchema = z
  .array(z.string().min(1).max(STORED_TAG_MAX))
  .max(TAG_LIST_MAX)
  .transform((names) => [...new Set(names.map(normaliseTagName).filter((name) => name !== ''))]);

/**
 * A language the bot ships (`locales/<locale>.json`). One it no longer ships (or a file written by hand)
 * reads as unset rather than making the whole record unreadable: the server's other settings stay.
 */
const languageSchema = z
  .string()
  .max(20)
  .refine((locale) => shippedTranslator().locales.includes(locale))
  .optional()
  .catch(undefined);

const channelSchema = z.object({
  siteId: z.string().max(100).optional(),
  filters: filtersSchema.optional(),
  unfurl: z.boolean().optional(),
  imageReferences: z.boolean().optional(),
  hiddenTags: tagListSchema.optional(),
  spoileredTags: tagListSchema.optional(),
  language: languageSchema,
});

/** A server's record as stored (and as an import carries it: commands/settings/transfer.ts). */
export const guildRecordSchema = z.object({
  siteId: z.string().max(100).optional(),
  filters: filtersSchema.default({}),
  imageReferences: z.boolean().optional(),
  hiddenTags: tagListSchema.optional(),
  spoileredTags: tagListSchema.optional(),
  language: languageSchema,
  channels: z
    .record(z.string().regex(/^\d{1,20}$/), channelSchema)
    .refine((channels) => Object.keys(channels).length <= CHANNEL_SETTINGS_MAX, {
      message: `at most ${CHANNEL_SETTINGS_MAX} channels`,
    })
    .optional(),
});

/** A channel's settings without what is unset (or empty); undefined when nothing is left. */
export function compactChannel(channel: {
  readonly siteId?: string | undefined;
  readonly filters?: Readonly<Record<string, number>> | undefined;
  readonly unfurl?: boolean | undefined;
  readonly imageReferences?: boolean | undefined;
  readonly hiddenTags?: readonly string[] | undefined;
  readonly spoileredTags?: readonly string[] | undefined;
  readonly language?: string | undefined;
}): ChannelSettingsRecord | undefined {
  const { siteId, filters, unfurl, imageReferences, hiddenTags, spoileredTags, language } = channel;
  const kept: ChannelSettingsRecord = {
    ...(siteId === undefined ? {} : { siteId }),
    ...(filters === undefined || Object.keys(filters).length === 0 ? {} : { filters }),
    ...(unfurl === undefined ? {} : { unfurl }),
    ...(imageReferences === undefined ? {} : { imageReferences }),
    ...(hiddenTags === undefined || hiddenTags.length === 0 ? {} : { hiddenTags }),
    ...(spoileredTags === undefined || spoileredTags.length === 0 ? {} : { spoileredTags }),
    ...(language === undefined ? {} : { language }),
  };
  return Object.keys(kept).length === 0 ? undefined : kept;
}

/** Channels without the ones that set nothing. */
function compactChannels(
  channels: Readonly<Record<string, Parameters<typeof compactChannel>[0]>> | undefined,
): Record<string, ChannelSettingsRecord> {
  const out: Record<string, ChannelSettingsRecord> = {};
  for (const [id, channel] of Object.entries(channels ?? {})) {
    const kept = compactChannel(channel);
    if (kept !== undefined) out[id] = kept;
  }
  return out;
}

/**
 * The record in its one canonical form: no key for what is at its default (the default site, references
 * on, empty lists, channels with nothing set), so two records that mean the same compare equal.
 */
export function storedGuildRecord(record: GuildSettingsRecord): Record<string, unknown> {
  const channels = compactChannels(record.channels);
  return {
    ...(record.siteId === undefined ? {} : { siteId: record.siteId }),
    filters: record.filters,
    ...(record.imageReferences === false ? { imageReferences: false } : {}),
    ...((record.hiddenTags?.length ?? 0) > 0 ? { hiddenTags: record.hiddenTags } : {}),
    ...((record.spoileredTags?.length ?? 0) > 0 ? { spoileredTags: record.spoileredTags } : {}),
    ...(record.language === undefined ? {} : { language: record.language }),
    ...(Object.keys(channels).length > 0 ? { channels } : {}),
  };
}

/** A record as parsed by `guildRecordSchema`, in the shape the bot reads. */
export function guildRecordOf(data: z.infer<typeof guildRecordSchema>): GuildSettingsRecord {
  const channels = compactChannels(data.channels);
  return {
    siteId: data.siteId,
    filters: data.filters,
    ...(data.imageReferences === false ? { imageReferences: false as const } : {}),
    ...(data.hiddenTags === undefined || data.hiddenTags.length === 0 ? {} : { hiddenTags: data.hiddenTags }),
    ...(data.spoileredTags === undefined || data.spoileredTags.length === 0
      ? {}
      : { spoileredTags: data.spoileredTags }),
    ...(data.language === undefined ? {} : { language: data.language }),
    ...(Object.keys(channels).length === 0 ? {} : { channels }),
  };
}

/** The key of a server's record in the store. */
export const guildSettingsKey = (guildId: string): string => `settings:guild:${guildId}`;

const EMPTY: GuildSettingsRecord = { siteId: undefined, filters: {} };

/** Servers whose last confirmed record is kept for a store outage. */
const KNOWN_SERVERS = 10_000;

export interface GuildSettingsDeps {
  readonly store: Keyv;
  /** Told when a stored record cannot be read (the server silently loses its settings otherwise). */
  readonly logger: Logger;
}

export function createGuildSettings(deps: GuildSettingsDeps): GuildSettings {
  const { logger } = deps;
  const records = recordStoreOf(deps.store);
  const keyOf = guildSettingsKey;
  const known = new Map<string, GuildSettingsRecord>();

  function remember(guildId: string, record: GuildSettingsRecord): GuildSettingsRecord {
    known.delete(guildId);
    known.set(guildId, record);
    if (known.size > KNOWN_SERVERS) {
      const oldest = known.keys().next();
      if (!oldest.done) known.delete(oldest.value);
    }
    return record;
  }

  /** The store's failures as the one error commands know how to tell; anything else is a bug, left as it is. */
  async function guarded<T>(guildId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof StoreAccessError) {
        throw new SettingsUnavailableError(error.operation, guildId, { cause: error });
      }
      throw error;
    }
  }

  function parse(guildId: string, raw: unknown): GuildSettingsRecord {
    if (raw === undefined) return EMPTY;
    const parsed = guildRecordSchema.safeParse(raw);
    // A record we cannot read is treated as unset rather than failing every command of that server, but
    // said: the server's site and filter are gone until an admin sets them again.
    if (!parsed.success) {
      logger.warn(
        { guildId, issues: parsed.error.issues.map((issue) => issue.path.map(String).join('.')) },
        'stored server settings are unreadable; using the defaults',
      );
      return EMPTY;
    }
    return guildRecordOf(parsed.data);
  }

  function update(
    guildId: string,
    change: (current: GuildSettingsRecord) => GuildSettingsRecord,
  ): Promise<GuildSettingsRecord> {
    return guarded(guildId, async () => {
      let next: GuildSettingsRecord = EMPTY;
      // No key at all for what is at its default, as before: the record reads the same either way.
      await records.update(keyOf(guildId), (raw) => {
        next = change(parse(guildId, raw));
        // Counted as stored: a channel left with nothing set (an unhide, site back to the server's) is
        // not one of the channels with settings of their own.
        if (Object.keys(compactChannels(next.channels)).length > CHANNEL_SETTINGS_MAX) {
          throw new UserFacingError(
            'settings.too-many-channels',
            `At most ${CHANNEL_SETTINGS_MAX} channels can have settings of their own. Reset one first (/settings channel reset:True).`,
            { params: { max: CHANNEL_SETTINGS_MAX } },
          );
        }
        return storedGuildRecord(next);
      });
      return remember(guildId, next);
    });
  }

  async function get(guildId: string): Promise<GuildSettingsRecord> {
    try {
      return remember(guildId, parse(guildId, await records.read(keyOf(guildId))));
    } catch (error) {
      const last = known.get(guildId);
      if (error instanceof StoreAccessError && last !== undefined) {
        logger.debug({ guildId }, 'settings store unreachable; using the last confirmed settings');
        return last;
      }
      throw error;
    }
  }

  return {
    get: (guildId) => guarded(guildId, () => get(guildId)),
    setSite: (guildId, siteId) => update(guildId, (current) => ({ ...current, siteId })),
    setFilter: (guildId, siteId, filterId) =>
      update(guildId, (current) => ({ ...current, filters: { ...current.filters, [siteId]: filterId } })),
    setImageReferences: (guildId, on) =>
      update(guildId, (current) => {
        const { imageReferences: _previous, ...rest } = current;
        return on ? rest : { ...rest, imageReferences: false };
      }),
    update,
    reset: (guildId) =>
      guarded(guildId, async () => {
        await records.remove(keyOf(guildId));
        remember(guildId, EMPTY);
      }),
  };
}
