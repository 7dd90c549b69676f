/**
 * One client per site, made on first use. The clients share the response cache (its keys carry the site
 * id) and one keep-alive connection pool, but each has its own budget and breaker: Furbooru failing must
 * not slow Derpibooru down. The API key belongs to the default site's account, so it is handed to that
 * site's client only and can never travel to another host.
 *
 * A member's own key (issue 22) gets a member client (`memberClient`): bound to the one site the key is
 * for, drawing on that site's budget and breaker (the same objects as its shared client, so pauses,
 * openings and the board's block hold for it too), in the `account` class, and caching only in that
 * member's own space (member-caches.ts): never the shared cache or store, never coalesced with anyone
 * else's request, no seeds of the shared image cache, short lifetimes. The operator's key never goes with
 * a member client's request, and the member's never with anyone else's (client/member.ts).
 */
import { Agent, Pool, type Dispatcher } from 'undici';
import type Keyv from 'keyv';
import type { Logger } from 'pino';
import { createCircuitBreaker, type BreakerOptions, type CircuitBreaker } from './breaker.js';
import { createRequestBudget, type BudgetOptions, type RequestBudget } from './budget/index.js';
import { createResponseCache, LIFETIMES, type ResponseCache } from './cache.js';
import {
  createPhilomenaClient,
  type ManagedPhilomenaClient,
  type PhilomenaClientOptions,
  type TransportTuning,
} from './client/index.js';
import { composeMemberClient, MEMBER_LIFETIME_MS, memberLifetimes } from './client/member.js';
import type { PhilomenaClient, PhilomenaObserver } from './client/types.js';
import { createMemberCaches, type MemberCacheOptions } from './member-caches.js';
import type { SharedFlights, SharedSiteState } from './shared-state.js';
import type { Site } from './sites.js';

export interface ClientRegistry {
  /** The client of `site`, created lazily, one per site id. */
  client(site: Site): PhilomenaClient;
  /**
   * A client of `site` whose account-dependent reads and uploads carry `member.key` (client/member.ts
   * says which), for that member's requests only; the rest goes through `client(site)`. `site` must be the
   * site the key belongs to: the key goes nowhere else. Made per call (cheap); the member's cached answers
   * live in the registry until `forgetMember`, eviction or their short lifetime.
   */
  memberClient(site: Site, member: MemberKey): PhilomenaClient;
  /** Drops every answer cached for `memberId`, on every site, at once (`/me forget`, a key unlinked). */
  forgetMember(memberId: string): void;
  readonly defaultSite: Site;
  /** The clients made so far, for figures (budget queue, breaker state). */
  clients(): readonly ManagedPhilomenaClient[];
  /**
   * Closes the connection pool the registry made (a dispatcher passed in is the caller's to close).
   * Graceful by default: requests in flight finish first, which can take a whole request timeout.
   * `force` drops them at once (their callers get an error), for a shutdown whose grace is over.
   */
  close(options?: RegistryCloseOptions): Promise<void>;
}

export interface RegistryCloseOptions {
  readonly force?: boolean;
}

/** A member and their own key for one site. `id` is the application's (opaque, not secret). */
export interface MemberKey {
  readonly id: string;
  readonly key: string;
}

export interface MemberClientOptions extends MemberCacheOptions {
  /** Longest lifetime of an answer fetched with a member's key. Default 60 s (MEMBER_LIFETIME_MS). */
  readonly lifetimeMs?: number;
}

export interface ClientRegistryOptions {
  readonly defaultSite: Site;
  /** The key belongs to the default site only: it is never sent to another site. */
  readonly apiKey?: string;
  /** Shared; keys are namespaced by site id and filter. */
  readonly cache: Keyv;
  readonly logger: Logger;
  readonly userAgent?: string;
  /** Default: one keep-alive Agent shared by every client and closed by `close()`. */
  readonly dispatcher?: Dispatcher;
  readonly transport?: TransportTuning;
  readonly budget?: Omit<BudgetOptions, 'site'>;
  readonly breaker?: Omit<BreakerOptions, 'site'>;
  /**
   * Each site's pause and breaker openings shared with the program's other processes (shared-state.ts);
   * without it every process keeps its own.
   */
  readonly shared?: SharedSiteState;
  /** Identical requests of the program's other processes share one board call (cache.ts `flights`). */
  readonly flights?: SharedFlights;
  readonly lifetimes?: PhilomenaClientOptions['lifetimes'];
  /** Every client's `seedImagesFromSearches` (client/index.ts). Default true. */
  readonly seedImagesFromSearches?: boolean;
  /** Entries of the shared in-memory LRU in front of keyv. Default 500. */
  readonly memoryEntries?: number;
  /** The member clients' cache space and lifetimes. */
  readonly memberClients?: MemberClientOptions;
  /** Told of every client's board calls, cache layers and budget waits (events carry the site id). */
  readonly observer?: PhilomenaObserver;
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}

/** A site's shared client, and the budget and breaker its member clients draw on too. */
interface SiteParts {
  readonly client: ManagedPhilomenaClient;
  readonly budget: RequestBudget;
  readonly breaker: CircuitBreaker;
}

interface OwnPool {
  readonly agent: Agent;
  /** Drops every request in flight, even after a graceful close began. */
  destroy(): Promise<void>;
}

/**
 * The shared keep-alive pool. undici's Agent forgets its per-origin pools as soon as close() starts, so a
 * destroy() after a graceful close would reach none of them and the requests in flight would run on: the
 * pools are kept here too (closed ones dropped whenever a new one is made, so the set stays small).
 */
function createOwnPool(): OwnPool {
  const pools = new Set<Pool>();
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connections: 16,
    factory: (origin, poolOptions) => {
      for (const pool of pools) if (pool.closed || pool.destroyed) pools.delete(pool);
      const pool = new Pool(origin, poolOptions);
      pools.add(pool);
      return pool;
    },
  });
  return {
    agent,
    async destroy() {
      await Promise.all([...pools].map((pool) => pool.destroy()));
      pools.clear();
      await agent.destroy();
    },
  };
}

export function createClientRegistry(options: ClientRegistryOptions): ClientRegistry {
  const own = options.dispatcher === undefined ? createOwnPool() : undefined;
  const given: Dispatcher | undefined = options.dispatcher ?? own?.agent;
  if (given === undefined) throw new Error('unreachable: no dispatcher');
  const dispatcher: Dispatcher = given;
  const cache: ResponseCache = createResponseCache({
    store: options.cache,
    logger: options.logger,
    ...(options.memoryEntries === undefined ? {} : { memoryEntries: options.memoryEntries }),
    ...(options.flights === undefined ? {} : { flights: options.flights }),
  });
  const sites = new Map<string, SiteParts>();
  const memberCaches = createMemberCaches(options.memberClients);
  const memberLifetimeMs = options.memberClients?.lifetimeMs ?? MEMBER_LIFETIME_MS;
  // undici refuses close() after destroy(): remember what was started, so closing twice is harmless.
  let destroyed: Promise<void> | undefined;
  let closed: Promise<void> | undefined;

  /** What every client of `site` is made with, shared or a member's. */
  function common(site: Site, parts: Pick<SiteParts, 'budget' | 'breaker'>): PhilomenaClientOptions {
    return {
      site,
      dispatcher,
      budget: parts.budget,
      breaker: parts.breaker,
      logger: options.logger.child({ site: site.id }),
      ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
      ...(options.transport === undefined ? {} : { transport: options.transport }),
      ...(options.observer === undefined ? {} : { observer: options.observer }),
      ...(options.random === undefined ? {} : { random: options.random }),
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
      ...(options.now === undefined ? {} : { now: options.now }),
    };
  }

  function partsOf(site: Site): SiteParts {
    const existing = sites.get(site.id);
    if (existing) return existing;
    const clock = options.now === undefined ? {} : { now: options.now };
    // Made here rather than in the client, so a member client of the site can share them.
    const budget = createRequestBudget({
      ...options.budget,
      ...clock,
      site: site.id,
      ...(options.observer ? { observer: options.observer } : {}),
    });
    const breaker = createCircuitBreaker({
      ...options.breaker,
      ...clock,
      ...(options.shared === undefined ? {} : { shared: options.shared }),
      site: site.id,
      siteName: site.name,
    });
    const isDefault = site.id === options.defaultSite.id;
    const client = createPhilomenaClient({
      ...common(site, { budget, breaker }),
      cache,
      ...(isDefault && options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.lifetimes === undefined ? {} : { lifetimes: options.lifetimes }),
      ...(options.seedImagesFromSearches === undefined
        ? {}
        : { seedImagesFromSearches: options.seedImagesFromSearches }),
    });
    const parts: SiteParts = { client, budget, breaker };
    sites.set(site.id, parts);
    return parts;
  }

  return {
    defaultSite: options.defaultSite,
    client(site) {
      return partsOf(site).client;
    },
    memberClient(site, member) {
      // Neither message quotes what was given: a key in the wrong field must not reach a log.
      if (typeof member.id !== 'string' || member.id === '') throw new RangeError('the member id is empty');
      const key = typeof member.key === 'string' ? member.key.trim() : '';
      if (key === '') throw new RangeError("the member's key is empty");
      const parts = partsOf(site);
      const own = createPhilomenaClient({
        ...common(site, parts),
        apiKey: key,
        member: { id: member.id },
        cache: memberCaches.cacheOf(member.id),
        lifetimes: memberLifetimes({ ...LIFETIMES, ...options.lifetimes }, memberLifetimeMs),
        // A member's search answers with their filter and lists: its images must not become the image
        // answers of everyone else (nor fill the member's small space with 50 entries at once).
        seedImagesFromSearches: false,
      });
      return composeMemberClient(own, parts.client);
    },
    forgetMember(memberId) {
      memberCaches.forget(memberId);
    },
    clients() {
      return [...sites.values()].map((parts) => parts.client);
    },
    async close(closeOptions = {}) {
      sites.clear();
      if (own === undefined) return;
      if (closeOptions.force === true) {
        destroyed ??= own.destroy();
        await destroyed;
        return;
      }
      closed ??= destroyed ?? own.agent.close();
      await closed;
    },
  };
}
