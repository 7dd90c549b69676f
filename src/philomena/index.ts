/**
 * The Philomena client library's public surface. The bot imports from here; so could any other program.
 */
export { createPhilomenaClient } from './client.js';
export type {
  ClientStats,
  ManagedPhilomenaClient,
  PhilomenaClientOptions,
  TransportTuning,
} from './client.js';
export { createClientRegistry } from './registry.js';
export type { ClientRegistry, ClientRegistryOptions, RegistryCloseOptions } from './registry.js';
export type * from './client-types.js';
export { createResponseCache, LIFETIMES, NOT_FOUND_LIFETIME_MS } from './cache.js';
export type { CacheSource, ResponseCache, ResponseCacheOptions } from './cache.js';
export { createRequestBudget, isSearchPath, DEFAULT_OVERALL, DEFAULT_SEARCH } from './budget.js';
export type { BudgetOptions, BudgetSlot, BudgetStats, RequestBudget, WindowSpec } from './budget.js';
export { createCircuitBreaker } from './breaker.js';
export type { BreakerOptions, BreakerState, CircuitBreaker } from './breaker.js';
export { createTransport, defaultUserAgent, parseRetryAfter } from './transport.js';
export type { Transport, TransportOptions, TransportRequest, TransportResponse } from './transport.js';
export * from './schemas.js';
export * from './sites.js';
export * from './tags.js';
export * from './urls.js';
export * from '../errors.js';
export * from './links.js';
