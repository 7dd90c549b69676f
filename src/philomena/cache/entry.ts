/** What the response cache (../cache.ts) keeps under a key, in memory and in the store. */

/** A success or a remembered 404, with its own expiry (keyv's TTL only cleans up). */
export type Entry =
  | { readonly until: number; readonly value: unknown }
  | {
      readonly until: number;
      readonly notFound: { readonly site: string; readonly message: string; readonly path?: string };
    };

/** Whether a value read back from the store is an entry (anything else is treated as a miss). */
export function isEntry(raw: unknown): raw is Entry {
  return typeof raw === 'object' && raw !== null && typeof (raw as { until?: unknown }).until === 'number';
}
