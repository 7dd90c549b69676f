/**
 * The cache space of answers fetched with a member's own key (issue 22, "Caching and sharing"). Such an
 * answer depends on the account (its current filter, its `my:` lists, its private filters), so it is kept
 * for that member only:
 *
 * - one in-memory response cache per member (cache.ts without a store: never the shared keyv layer, so
 *   nothing of it reaches SQLite or Redis, and nothing of it outlives the process), with its own in-flight
 *   map, so a member's request is never coalesced with another member's or with the shared client's;
 * - bounded twice: a few entries per member, and the members least recently used are dropped first;
 * - `forget(member)` drops everything kept for a member at once (`/me forget`).
 *
 * A member client reaches its member's cache through `cacheOf`, looked up on every call, so a client made
 * before `forget` never writes into (or reads from) the dropped space again.
 */
import { createResponseCache, type ResponseCache } from './cache.js';

export interface MemberCacheOptions {
  /** Members whose answers are kept at once; the least recently used go first. Default 200. */
  readonly members?: number;
  /** Answers kept per member (in-memory LRU). Default 20. */
  readonly entriesPerMember?: number;
}

export interface MemberCaches {
  /** A cache that always reads and writes `member`'s current space. */
  cacheOf(member: string): ResponseCache;
  /** Drops every answer kept for `member`; its requests in flight finish into nothing. */
  forget(member: string): void;
  /** Members that have a space now (figures and tests). */
  size(): number;
}

export function createMemberCaches(options: MemberCacheOptions = {}): MemberCaches {
  const maxMembers = Math.max(1, options.members ?? 200);
  const entries = Math.max(1, options.entriesPerMember ?? 20);
  // Insertion order is use order: a member's space is moved to the end whenever it is used.
  const spaces = new Map<string, ResponseCache>();

  function spaceOf(member: string): ResponseCache {
    let space = spaces.get(member);
    if (space === undefined) {
      space = createResponseCache({ memoryEntries: entries });
    } else {
      spaces.delete(member);
    }
    spaces.set(member, space);
    while (spaces.size > maxMembers) {
      const oldest = spaces.keys().next();
      if (oldest.done) break;
      spaces.delete(oldest.value);
    }
    return space;
  }

  return {
    cacheOf(member) {
      return {
        fetch: (key, load, fetchOptions) => spaceOf(member).fetch(key, load, fetchOptions),
        stats: () => spaces.get(member)?.stats() ?? { inFlight: 0, memoryEntries: 0 },
        idle: async () => {
          await spaces.get(member)?.idle();
        },
      };
    },
    forget(member) {
      spaces.delete(member);
    },
    size: () => spaces.size,
  };
}
