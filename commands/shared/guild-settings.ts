/**
 * Per-server settings: the site and, per site, the filter. Kept in the store without a lifetime so they
 * survive restarts. A filter belongs to the site it was set for: switching sites keeps it for later.
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
import { recordStoreOf } from '../../src/store/index.js';

export interface GuildSettingsRecord {
  /** `Site.id` of the server's site; undefined means BOORU_URL's. */
  readonly siteId: string | undefined;
  /** Filter ids by `Site.id`. */
  readonly filters: Readonly<Record<string, number>>;
  /** `false` when the server turned off cards for `>>123` references in chat (on when absent). */
  readonly imageReferences?: false;
}

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
  /** Resolves once the record is gone; rejects with `SettingsUnavailableError` when the delete failed. */
  reset(guildId: string): Promise<void>;
}

const recordSchema = z.object({
  siteId: z.string().optional(),
  filters: z.record(z.string(), z.number().int().positive()).default({}),
  imageReferences: z.boolean().optional(),
});

/** The record as stored: no key for what is at its default (the default site, references on). */
function stored(record: GuildSettingsRecord): Record<string, unknown> {
  return {
    ...(record.siteId === undefined ? {} : { siteId: record.siteId }),
    filters: record.filters,
    ...(record.imageReferences === false ? { imageReferences: false } : {}),
  };
}

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
  const keyOf = (guildId: string) => `settings:guild:${guildId}`;
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
    const parsed = recordSchema.safeParse(raw);
    // A record we cannot read is treated as unset rather than failing every command of that server, but
    // said: the server's site and filter are gone until an admin sets them again.
    if (!parsed.success) {
      logger.warn(
        { guildId, issues: parsed.error.issues.map((issue) => issue.path.map(String).join('.')) },
        'stored server settings are unreadable; using the defaults',
      );
      return EMPTY;
    }
    return {
      siteId: parsed.data.siteId,
      filters: parsed.data.filters,
      ...(parsed.data.imageReferences === false ? { imageReferences: false as const } : {}),
    };
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
        return stored(next);
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
    reset: (guildId) =>
      guarded(guildId, async () => {
        await records.remove(keyOf(guildId));
        remember(guildId, EMPTY);
      }),
  };
}
