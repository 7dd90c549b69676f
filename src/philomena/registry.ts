/**
 * One client per site, made on first use. The clients share the response cache (its keys carry the site
 * id) and one keep-alive connection pool, but each has its own budget and breaker: Furbooru failing must
 * not slow Derpibooru down. The API key belongs to the default site's account, so it is handed to that
 * site's client only and can never travel to another host.
 */
import { Agent, type Dispatcher } from 'undici';
import type Keyv from 'keyv';
import type { Logger } from 'pino';
import type { BreakerOptions } from './breaker.js';
import type { BudgetOptions } from './budget.js';
import { createResponseCache, type ResponseCache } from './cache.js';
import {
  createPhilomenaClient,
  type ManagedPhilomenaClient,
  type PhilomenaClientOptions,
  type TransportTuning,
} from './client.js';
import type { PhilomenaClient } from './client-types.js';
import type { Site } from './sites.js';

export interface ClientRegistry {
  /** The client of `site`, created lazily, one per site id. */
  client(site: Site): PhilomenaClient;
  readonly defaultSite: Site;
  /** The clients made so far, for figures (budget queue, breaker state). */
  clients(): readonly ManagedPhilomenaClient[];
  close(): Promise<void>;
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
  readonly lifetimes?: PhilomenaClientOptions['lifetimes'];
  /** Entries of the shared in-memory LRU in front of keyv. Default 500. */
  readonly memoryEntries?: number;
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}

export function createClientRegistry(options: ClientRegistryOptions): ClientRegistry {
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ??
    new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 16 });
  const cache: ResponseCache = createResponseCache({
    store: options.cache,
    logger: options.logger,
    ...(options.memoryEntries === undefined ? {} : { memoryEntries: options.memoryEntries }),
  });
  const clients = new Map<string, ManagedPhilomenaClient>();

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
        ...(options.lifetimes === undefined ? {} : { lifetimes: options.lifetimes }),
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
    async close() {
      clients.clear();
      if (ownDispatcher) await dispatcher.close();
    },
  };
}
