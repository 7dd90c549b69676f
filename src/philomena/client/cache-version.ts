/**
 * The version of the shapes the client caches, part of every cache key (`philomena:<site>:v<n>:...`).
 *
 * Entries live in the store up to 6 h and outlive the process that wrote them, and they are read back
 * without a parse (their shape is the endpoint's mapped value, which has no schema of its own). So when a
 * deploy changes what a cached value looks like or means (a schema in schemas.ts, a transform in urls.ts,
 * an endpoint's `map` or lifetime, the cache's entry format), bump this number: the new code then reads
 * only entries the new code wrote, and the old ones expire unread (the store sweeper deletes them).
 *
 * test/philomena/cache-version.test.ts fails when those files change without a bump.
 */
// 6: no shape changed; the client's types moved to client/types.ts, and the engine's and endpoints' import
// lines (which the fingerprint counts) name the new file.
// 7: no cached shape changed; an upload's answer (never cached) names the duplicate it found, and uploads
// have their own timeout.
export const CACHE_SCHEMA_VERSION = 7;
