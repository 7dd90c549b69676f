/**
 * Per-server settings: the site and, per site, the filter. Kept in the store without a lifetime so they
 * survive restarts. A filter belongs to the site it was set for: switching sites keeps it for later.
 */
import type Keyv from 'keyv';
import { z } from 'zod';
import type { Logger } from '../logger.js';

export interface GuildSettingsRecord {
  /** `Site.id` of the server's site; undefined means BOORU_URL's. */
  readonly siteId: string | undefined;
  /** Filter ids by `Site.id`. */
  readonly filters: Readonly<Record<string, number>>;
}

export interface GuildSettings {
  get(guildId: string): Promise<GuildSettingsRecord>;
  /** Resolves once the write is stored; undefined goes back to BOORU_URL's site (filters are kept). */
  setSite(guildId: string, siteId: string | undefined): Promise<GuildSettingsRecord>;
  setFilter(guildId: string, siteId: string, filterId: number): Promise<GuildSettingsRecord>;
  reset(guildId: string): Promise<void>;
}

const recordSchema = z.object({
  siteId: z.string().optional(),
  filters: z.record(z.string(), z.number().int().positive()).default({}),
});

const EMPTY: GuildSettingsRecord = { siteId: undefined, filters: {} };

export interface GuildSettingsDeps {
  readonly store: Keyv;
  /** Told when a stored record cannot be read (the server silently loses its settings otherwise). */
  readonly logger: Logger;
}

export function createGuildSettings(deps: GuildSettingsDeps): GuildSettings {
  const { store, logger } = deps;
  const keyOf = (guildId: string) => `settings:guild:${guildId}`;

  async function get(guildId: string): Promise<GuildSettingsRecord> {
    const raw: unknown = await store.get(keyOf(guildId));
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
    return { siteId: parsed.data.siteId, filters: parsed.data.filters };
  }

  async function write(guildId: string, record: GuildSettingsRecord): Promise<GuildSettingsRecord> {
    const stored = record.siteId === undefined ? { filters: record.filters } : record;
    const ok: unknown = await store.set(keyOf(guildId), stored);
    if (ok === false) throw new Error('the settings store refused the write');
    return record;
  }

  return {
    get,
    async setSite(guildId, siteId) {
      const current = await get(guildId);
      return write(guildId, { ...current, siteId });
    },
    async setFilter(guildId, siteId, filterId) {
      const current = await get(guildId);
      return write(guildId, { ...current, filters: { ...current.filters, [siteId]: filterId } });
    },
    async reset(guildId) {
      await store.delete(keyOf(guildId));
    },
  };
}
