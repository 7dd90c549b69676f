/**
 * Where feeds live: one record per server (`feeds:guild:<id>`, every feed of that server with its cursor)
 * and one index of the servers that have feeds (`feeds:index`), both without a lifetime. Every change is
 * one atomic read-modify-write of its record (src/store.ts `recordStoreOf`: a compare-and-set in SQLite
 * and Redis), so an admin's change and a poller's cursor write, from any process, never undo each other.
 *
 * The cursor is the id of the last image the feed has dealt with (posted, or counted in a "more" line):
 * only images above it are ever posted, and it only grows.
 *
 * A server the bot was removed from leaves the index for its `dormant` list (with when), so no process
 * reads its feeds at every tick; `/feed resume` (once the bot is back) or `/feed add` puts it back, and a
 * server dormant for `FORGET_AFTER_MS` loses its feeds.
 */
import { randomBytes } from 'node:crypto';
import type Keyv from 'keyv';
import { z } from 'zod';
import { recordStoreOf } from '../../src/store/index.js';

/** Why a feed does not run. */
export type PauseReason = 'admin' | 'channel-missing' | 'forbidden' | 'query-rejected';

/**
 * What exactly stopped a feed the bot may no longer post in, said to the admin in their language by
 * `/feed list` (feed-text.ts): the bot cannot see the channel or its server, lacks a permission to post, or
 * was removed from the server.
 */
export type PauseCause = 'cannot-see' | 'cannot-post' | 'removed';

export interface FeedPause {
  readonly reason: PauseReason;
  /**
   * What to tell the admin: the board's own words for a refused query; empty (or, for feeds paused before
   * `cause` was kept, an English note) for the others.
   */
  readonly detail: string;
  readonly cause?: PauseCause | undefined;
  readonly at: number;
}

export interface Feed {
  readonly id: string;
  readonly guildId: string;
  readonly channelId: string;
  /** `Site.id`. */
  readonly siteId: string;
  /** As the admin typed it. */
  readonly query: string;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly cursor: number;
  readonly lastPostAt?: number | undefined;
  readonly paused?: FeedPause | undefined;
  /**
   * Whether the channel was age-restricted when last read: what a process that does not receive the
   * server's events groups the feed by (reading it from Discord at every tick would cost a request per
   * feed). Whoever posts reads the channel itself before every post. Unknown counts as not.
   */
  readonly ageRestricted?: boolean | undefined;
  /**
   * A thread's parent channel, whose own settings (filter, tags) the thread follows; absent for a channel
   * (and for feeds made before it was kept: whoever posts reads the channel and fills it in).
   */
  readonly parentId?: string | undefined;
}

const pauseSchema = z.object({
  reason: z.enum(['admin', 'channel-missing', 'forbidden', 'query-rejected']),
  detail: z.string(),
  cause: z.enum(['cannot-see', 'cannot-post', 'removed']).optional(),
  at: z.number(),
});

const feedSchema = z.object({
  id: z.string().regex(/^[a-z0-9]{1,16}$/),
  guildId: z.string(),
  channelId: z.string(),
  siteId: z.string(),
  query: z.string(),
  createdBy: z.string(),
  createdAt: z.number(),
  cursor: z.number().int().nonnegative(),
  lastPostAt: z.number().optional(),
  paused: pauseSchema.optional(),
  ageRestricted: z.boolean().optional(),
  parentId: z
    .string()
    .regex(/^\d{1,20}$/)
    .optional(),
});

const guildRecordSchema = z.object({ feeds: z.array(feedSchema).default([]) });
const indexSchema = z.object({
  guilds: z.array(z.string()).default([]),
  /** Servers the bot was removed from: id → when. */
  dormant: z.record(z.string(), z.number()).default({}),
});
type Index = z.infer<typeof indexSchema>;

const INDEX_KEY = 'feeds:index';
const guildKey = (guildId: string) => `feeds:guild:${guildId}`;

export class FeedLimitError extends Error {
  override get name(): string {
    return 'FeedLimitError';
  }
}

export interface FeedStore {
  /** The server's feeds, oldest first. */
  list(guildId: string): Promise<readonly Feed[]>;
  /** Every server with feeds (not the dormant ones). */
  guilds(): Promise<readonly string[]>;
  /** Servers the bot was removed from, with when: their feeds are not polled. */
  dormant(): Promise<Readonly<Record<string, number>>>;
  /** Takes the server out of the poll index, as dormant since `at` (the bot was removed from it). */
  retire(guildId: string, at: number): Promise<void>;
  /** Puts a server back in the poll index (a feed resumed or added). */
  reindex(guildId: string): Promise<void>;
  /** Deletes every feed of the server and every trace of it in the index. */
  forget(guildId: string): Promise<void>;
  /** Adds a feed; rejects with `FeedLimitError` when the server has `limit` already. */
  add(feed: Omit<Feed, 'id'>, limit: number): Promise<Feed>;
  /** Removes the feed; resolves with it, or undefined when there was none. */
  remove(guildId: string, feedId: string): Promise<Feed | undefined>;
  /**
   * Changes one feed (the change sees its stored state, never a stale copy); resolves with the stored
   * result, or undefined when the feed is gone (removed meanwhile: nothing is written).
   */
  update(guildId: string, feedId: string, change: (feed: Feed) => Feed): Promise<Feed | undefined>;
  /**
   * The feeds' part of a write over several records (a settings import: commands/settings/transfer.ts):
   * the keys it covers (the server's feeds, the index) and how their current values become the next ones,
   * for `RecordStore.updateMany` beside other records. The server's feeds become `wanted`: a feed already
   * there with the same channel, site and query keeps its id, cursor and history (and its pause, if still
   * wanted paused); any other gets a new id; the rest go. The index lists the server while it has feeds.
   */
  replacement(guildId: string, wanted: readonly Omit<Feed, 'id'>[]): FeedsReplacement;
}

/** See `FeedStore.replacement`: `change` only computes, and may run more than once. */
export interface FeedsReplacement {
  readonly keys: readonly string[];
  change(currents: readonly unknown[]): {
    readonly nexts: readonly unknown[];
    readonly feeds: readonly Feed[];
  };
}

/** What makes two feeds the same feed across an export and an import. */
const sameFeed = (a: Omit<Feed, 'id'>, b: Omit<Feed, 'id'>): boolean =>
  a.channelId === b.channelId && a.siteId === b.siteId && a.query === b.query;

/** Short, readable, unique enough within one server (checked against its feeds). */
function newId(taken: ReadonlySet<string>): string {
  for (;;) {
    const id = randomBytes(4).readUInt32BE().toString(36).padStart(6, '0').slice(0, 6);
    if (!taken.has(id)) return id;
  }
}

export function createFeedStore(store: Keyv): FeedStore {
  const records = recordStoreOf(store);

  function feedsOf(raw: unknown): Feed[] {
    if (raw === undefined) return [];
    const parsed = guildRecordSchema.safeParse(raw);
    return parsed.success ? parsed.data.feeds : [];
  }

  function indexOf(raw: unknown): Index {
    const parsed = indexSchema.safeParse(raw ?? {});
    return parsed.success ? parsed.data : { guilds: [], dormant: {} };
  }

  /** Where the server stands in the index: polled, dormant since a time, or absent. */
  async function indexGuild(guildId: string, state: 'polled' | 'absent' | { dormantSince: number }) {
    await records.update(INDEX_KEY, (raw) => {
      const index = indexOf(raw);
      const guilds = index.guilds.filter((id) => id !== guildId);
      const dormant = Object.fromEntries(Object.entries(index.dormant).filter(([id]) => id !== guildId));
      if (state === 'polled') return { guilds: [...guilds, guildId], dormant };
      if (state === 'absent') return { guilds, dormant };
      return { guilds, dormant: { ...dormant, [guildId]: state.dormantSince } };
    });
  }

  return {
    async list(guildId) {
      return feedsOf(await records.read(guildKey(guildId)));
    },
    async guilds() {
      return indexOf(await records.read(INDEX_KEY)).guilds;
    },
    async dormant() {
      return indexOf(await records.read(INDEX_KEY)).dormant;
    },
    async retire(guildId, at) {
      await indexGuild(guildId, { dormantSince: at });
    },
    async reindex(guildId) {
      if ((await this.list(guildId)).length > 0) await indexGuild(guildId, 'polled');
    },
    async forget(guildId) {
      await records.update(guildKey(guildId), () => ({ feeds: [] }));
      await indexGuild(guildId, 'absent');
    },
    async add(input, limit) {
      let added: Feed | undefined;
      await records.update(guildKey(input.guildId), (raw) => {
        const feeds = feedsOf(raw);
        if (feeds.length >= limit) throw new FeedLimitError(`this server has ${feeds.length} feeds already`);
        added = { ...input, id: newId(new Set(feeds.map((f) => f.id))) };
        return { feeds: [...feeds, added] };
      });
      if (added === undefined) throw new Error('unreachable: the feed was not added');
      // After the feed: a poller that reads the index and finds no feed yet only skips a server once.
      await indexGuild(input.guildId, 'polled');
      return added;
    },
    async remove(guildId, feedId) {
      let removed: Feed | undefined;
      let left = 0;
      await records.update(guildKey(guildId), (raw) => {
        const feeds = feedsOf(raw);
        removed = feeds.find((f) => f.id === feedId);
        const rest = feeds.filter((f) => f.id !== feedId);
        left = rest.length;
        return { feeds: rest };
      });
      if (left === 0) await indexGuild(guildId, 'absent');
      return removed;
    },
    replacement(guildId, wanted) {
      return {
        keys: [guildKey(guildId), INDEX_KEY],
        change([rawFeeds, rawIndex]) {
          const left = feedsOf(rawFeeds);
          const taken = new Set<string>();
          const feeds = wanted.map((draft): Feed => {
            const at = left.findIndex((feed) => sameFeed(feed, draft));
            const kept = at === -1 ? undefined : left.splice(at, 1)[0];
            if (kept === undefined) {
              const id = newId(new Set([...taken, ...left.map((f) => f.id)]));
              taken.add(id);
              return { ...draft, guildId, id };
            }
            taken.add(kept.id);
            const paused = draft.paused === undefined ? undefined : (kept.paused ?? draft.paused);
            const { paused: _was, ...rest } = kept;
            return paused === undefined ? rest : { ...rest, paused };
          });
          const index = indexOf(rawIndex);
          const guilds = index.guilds.filter((id) => id !== guildId);
          const dormant = Object.fromEntries(Object.entries(index.dormant).filter(([id]) => id !== guildId));
          const nextIndex = { guilds: feeds.length > 0 ? [...guilds, guildId] : guilds, dormant };
          return { nexts: [{ feeds }, nextIndex], feeds };
        },
      };
    },
    async update(guildId, feedId, change) {
      let result: Feed | undefined;
      await records.update(guildKey(guildId), (raw) => {
        const feeds = feedsOf(raw);
        result = undefined;
        return {
          feeds: feeds.map((feed) => {
            if (feed.id !== feedId) return feed;
            const next = change(feed);
            // The cursor only grows, whatever a late writer thinks it is.
            result = {
              ...next,
              id: feed.id,
              guildId: feed.guildId,
              cursor: Math.max(feed.cursor, next.cursor),
            };
            return result;
          }),
        };
      });
      return result;
    },
  };
}
