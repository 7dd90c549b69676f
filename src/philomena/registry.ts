/**
 * One client per site, made on first use. The clients share the response cache (its keys carry the site
 * id) and one keep-alive connection pool, but each has its own budget and breaker: Furbooru failing must
 * not slow Derpibooru down. The API key belongs to the default site's account, so it is handed to that
 * site's client only and can never travel to another host.
 */
import { Agent, Pool, type Dispatcher } from 'undici';
import type Keyv from 'keyv';
import type { Logger } from 'pino';
import type { BreakerOptions } from './breaker.js';
import type { BudgetOptions } from './budget/index.js';
import { createResponseCache, type ResponseCache } from './cache.js';
import {
  createPhilomenaClient,
  type ManagedPhilomenaClient,
  type PhilomenaClientOptions,
  type TransportTuning,
} from './client/index.js';
import type { PhilomenaClient, PhilomenaObserver } from './client/types.js';
import type { SharedFlights, SharedSiteState } from './shared-state.js';
import type { Site } from './sites.js';

export interface ClientRegistry {
  /** The client of `site`, created lazily, one per site id. */
  client(site: Site): PhilomenaClient;
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
  /** Told of every client's board calls, cache layers and budget waits (events carry the site id). */
  readonly observer?: PhilomenaObserver;
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
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
  const dispatcher: Dispatcher | undefined = options.dispatcher ?? own?.agent;
  if (dispatcher === undefined) throw new Error('unreachable: no dispatcher');
  const cache: ResponseCache = createResponseCache({
    store: options.cache,
    logger: options.logger,
    ...(options.memoryEntries === undefined ? {} : { memoryEntries: options.memoryEntries }),
    ...(options.flights === undefined ? {} : { flights: options.flights }),
  });
  const clients = new Map<string, ManagedPhilomenaClient>();
  // undici refuses close() after destroy(): remember what was started, so closing twice is harmless.
  let destroyed: Promise<void> | undefined;
  let closed: Promise<void> | undefined;

  return {
    defaultSite: options.defaultSite,
    client(site) {
      const existing = clients.get(site.id);
      if (existing) return existing;
      const isDefault = site.id === options.defaultSite.id;
      const client = createPhilomenaClient({
        site,
        cache,
        dispatcher,
        logger: options.logger.child({ site: site.id }),
        ...(isDefault && options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
        ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
        ...(options.transport === undefined ? {} : { transport: options.transport }),
        ...(options.budget === undefined ? {} : { budget: options.budget }),
        ...(options.breaker === undefined ? {} : { breaker: options.breaker }),
        ...(options.shared === undefined ? {} : { shared: options.shared }),
        ...(options.lifetimes === undefined ? {} : { lifetimes: options.lifetimes }),
        ...(options.seedImagesFromSearches === undefined
          ? {}
          : { seedImagesFromSearches: options.seedImagesFromSearches }),
        ...(options.observer === undefined ? {} : { observer: options.observer }),
        ...(options.random === undefined ? {} : { random: options.random }),
        ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
        ...(options.now === undefined ? {} : { now: options.now }),
      });
      clients.set(site.id, client);
      return client;
    },
    clients() {
      return [...clients.values()];
    },
    async close(closeOptions = {}) {
      clients.clear();
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
