/**
 * The store handle: the keyv `createStore` and `openStore` make, which also owns what belongs to that one
 * store and must be found again from it, so no module-level table keyed by store is needed:
 * - its record store (`records`): one per-record queue for every caller (server settings, feeds), so this
 *   process never races itself on a record;
 * - its running sweeper, which `close` stops before closing the connection.
 * It is a keyv, so the cache, paging state and every other caller go on taking it as one.
 */
import Keyv from 'keyv';
import { createRecordStore, type RecordStore } from './records.js';
import type { StoreSweeper } from './sweeper.js';

export class StoreHandle extends Keyv {
  #records: RecordStore | undefined;
  #sweeper: StoreSweeper | undefined;

  /** The atomic record operations of this store; the same object on every read. */
  get records(): RecordStore {
    this.#records ??= createRecordStore(this);
    return this.#records;
  }

  /** Makes `sweeper` this store's one sweeper; the one before is stopped (not waited for). */
  adoptSweeper(sweeper: StoreSweeper): void {
    const previous = this.#sweeper;
    this.#sweeper = sweeper;
    if (previous !== sweeper) void previous?.stop();
  }

  /** Stops the sweeper (waiting for a sweep in progress), then closes the connection (a no-op for memory). */
  async close(): Promise<void> {
    const sweeper = this.#sweeper;
    this.#sweeper = undefined;
    await sweeper?.stop();
    await this.disconnect();
  }
}

/**
 * The atomic record operations of `store` (see `RecordStore`): the handle's own for a store `createStore`
 * made, so every caller shares its per-record queue. A keyv made elsewhere gets a record store of its own
 * on each call (its SQLite, Redis or Map compare-and-set still keeps every update).
 */
export function recordStoreOf(store: Keyv): RecordStore {
  return store instanceof StoreHandle ? store.records : createRecordStore(store);
}

/** Stops the store's sweeper (waiting for a sweep in progress), then closes its connection (a no-op for memory). */
export async function closeStore(store: Keyv): Promise<void> {
  if (store instanceof StoreHandle) {
    await store.close();
    return;
  }
  await store.disconnect();
}
