/**
 * The persistent key-value store behind the response cache, server settings, feeds and paging state: its
 * public surface. `url.ts` reads a STORE_URL, `open.ts` makes and probes the store, `handle.ts` is what it
 * makes (a keyv that owns its records and sweeper), `records.ts` the updates that must not be lost,
 * `sweeper.ts` the deletion of expired entries.
 */
export { closeStore, recordStoreOf } from './handle.js';
export { createStore, logStoreErrors, openStore, REDIS_NAMESPACE, REDIS_SOCKET_TIMEOUT_MS } from './open.js';
export type { RecordStore } from './records.js';
export {
  DEFAULT_SWEEP_INTERVAL_MS,
  startStoreSweeper,
  type StoreSweeper,
  type StoreSweeperOptions,
} from './sweeper.js';
export { storeSecretsOf, storeUrlProblem } from './url.js';
// Kept importable from here, where it is thrown; it lives in the one error hierarchy (errors.ts).
export { StoreOpenError } from '../errors.js';
