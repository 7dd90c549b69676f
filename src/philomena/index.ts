/**
 * The Philomena client library's public surface. The bot imports from here; so could any other program.
 */
export { BOARD_UPLOAD_MAX_BYTES, createPhilomenaClient } from './client/index.js';
export { isSortField, SORT_FIELDS } from './client/sort-fields.js';
export type {
  ClientStats,
  ManagedPhilomenaClient,
  PhilomenaClientOptions,
  TransportTuning,
} from './client/index.js';
export { createClientRegistry } from './registry.js';
export type {
  ClientRegistry,
  ClientRegistryOptions,
  MemberClientOptions,
  MemberKey,
  RegistryCloseOptions,
} from './registry.js';
export type { MemberCacheOptions } from './member-caches.js';
export type * from './client/types.js';
export { createResponseCache, LIFETIMES, NOT_FOUND_LIFETIME_MS } from './cache.js';
export type {
  CacheFetchOptions,
  CacheSeed,
  CacheSource,
  ResponseCache,
  ResponseCacheOptions,
} from './cache.js';
export {
  createRequestBudget,
  isSearchPath,
  DEFAULT_AUTOCOMPLETE_LIMIT,
  DEFAULT_AUTOCOMPLETE_SEARCH_LIMIT,
  DEFAULT_OVERALL,
  DEFAULT_SEARCH,
  QUEUED_PRIORITIES,
  SHARED_FALLBACK_SHARE,
} from './budget/index.js';
export type {
  AcquireOptions,
  BudgetOptions,
  BudgetSlot,
  BudgetStats,
  RequestBudget,
  WindowSpec,
} from './budget/index.js';
export { currentRequestContext, runWithRequestContext } from './request-context.js';
export type { RequestContext, RequestPriority } from './request-context.js';
export { BLOCK_MS, createCircuitBreaker } from './breaker.js';
export type { BreakerOptions, BreakerState, CircuitBreaker } from './breaker.js';
export type {
  SharedSiteState,
  SharedSlots,
  SharedTake,
  SharedWindow,
  SharedWindowName,
  SiteHold,
} from './shared-state.js';
export { createTransport, DEFAULT_USER_AGENT, multipartFileBody, parseRetryAfter } from './transport.js';
export type {
  MultipartFile,
  StreamedBody,
  Transport,
  TransportOptions,
  TransportRequest,
  TransportResponse,
} from './transport.js';
export * from './schemas.js';
export * from './sites.js';
export * from './tags.js';
export * from './urls.js';
export * from './errors.js';
export { createRedactor, REDACTED, redactUrl } from './redact.js';
export * from './links.js';
