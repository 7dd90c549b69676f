/**
 * The local Philomena (a Philomena-compatible HTTP server on 127.0.0.1) for tests and `npm run fake-booru`.
 *
 * ```ts
 * const booru = await startFakePhilomena();            // port 0, Derpibooru 1.2 error style
 * const site = resolveSite(booru.url);                  // http://127.0.0.1:PORT, also serves /img/...
 * booru.inject({ fault: { kind: 'rate-limit', retryAfterSeconds: 2 }, path: '/api/v1/json/search', times: 1 });
 * ...
 * await booru.close();
 * ```
 *
 * Behaviour (docs/board-behaviour.md, which it follows: "Errors, situation by situation", "Lists and paging",
 * "What a search shows, and what a single image shows", "Image files"):
 * - All 23 API endpoints plus `GET /search/filters` and `GET /search` (alias of `/search/images`).
 * - Errors: Derpibooru style (default) answers unknown things with an empty 404; `upstream` with
 *   `{"error":"Not found"}`. Non-numeric ids: 400 `{"error":"Bad Request"}`. Bad query: 400 with the
 *   parser's message (`Imbalanced parentheses.`). Unknown key: anonymous. POST /images without a key:
 *   401 empty (403 banned); /filters/user without one: 403 empty; a comment on a deleted image: 403
 *   empty. oEmbed of an unknown URL: 404 `{"error":"Couldn't find an image"}` (upstream: `Not found`). Topic posts of an
 *   unknown topic or past the last page: 500 `{"error":"Internal Error"}` (upstream: 404).
 *   Galleries carry `user`/`user_id` in Derpibooru style and `creator`/`creator_id` upstream.
 * - Accounts (accounts.ts): FAKE_KEY opens the operator's (BotOwner); `booru.addAccount({ name, filters,
 *   currentFilterId, faves, upvotes, downvotes, hidden, uploads, watchedTags, banned })` adds one and
 *   returns `{ id, key, filterIds }` (keys are 20 characters of [A-Za-z0-9_-]); `updateAccount(key, ...)`,
 *   `revokeKey(key)` (the key then counts as a wrong one) and `rotateKey(key)` change them; `reset()`
 *   drops added accounts. A key brings its account's current filter, its `/filters/user`, its `my:`
 *   lists (faves, upvotes, downvotes, hidden, uploads, watched; another value is 400 "Unknown `my'
 *   value.") and its uploads. Every recorded request carries the `key` the board read (query or body).
 * - Filters: anonymous callers get Default (100073: hides explicit + grotesque, spoilers questionable);
 *   the key owner (BotOwner) gets FILTER_IDS.ownedPrivate. `filter_id` of a filter the caller may not use
 *   is ignored. Search leaves hidden images out and flags spoilered ones; /images/:id, /images/featured
 *   and reverse search are unfiltered and set `spoilered: true` when the filter hides or spoilers.
 * - Paging: `per_page` 1..50 (junk → default); default 15 for anonymous image search, BotOwner's own
 *   setting (25) with the key, 25 for every other list.
 * - IDS.unapproved awaits approval: 404 at its id and in oEmbed, never in search.
 * - Image files: representation URLs point at the fake itself (`{url}/img/Y/M/D/ID/size.ext`,
 *   `{url}/img/view/Y/M/D/ID.ext`); the files are tiny deterministic PNG/GIF/JPEG/SVG/WebM bytes and
 *   `orig_sha512_hash` is the sha512 of the original file. IDS.legacyUrls uses `//host/img/...` and
 *   `/img/...` URLs instead.
 * - Extra files: `{url}/samples/NAME.{png,gif,jpg,svg,webm}` serves new deterministic bytes (a URL to
 *   POST /images that is not a duplicate), `{url}/samples/NAME.txt` is not an image.
 * - Uploads (POST /images; routes/images.ts, upload-rules.ts): 401 empty without a working key, 403 empty
 *   for a banned account; the picture is a multipart `image[image]` or `url` (body or query), fetched
 *   from the fake's own files or a loopback server only. Refusals follow images/tag_validator.ex and
 *   image.ex (`minimumTags`, `maxBytes` via `booru.setUploadRules` or the `uploads` option);
 *   `wording: 'described'` (default, the API page's: a duplicate is `image_orig_sha512_hash: has already
 *   been taken`) or `'source'` (Philomena's code since 1.1: `image: has already been uploaded: it's image
 *   N`, and every analysed field blank when there is no readable picture). A body that is not JSON, a
 *   form or multipart is not read. An accepted upload is the account's (`my:uploads`, also anonymous).
 * - Reverse search downloads only the fake's own URLs and matches by sha512 of the bytes (or of a
 *   multipart `image[image]` upload); anything else gives an empty list.
 * - Runtime images (for feeds): `booru.addImage({ tags: ['safe', 'pony'], description })` adds an approved
 *   image with the next id above every image (ids only grow), `created_at`/`first_seen_at` now (or `at`),
 *   thumbnails generated unless `thumbnailsGenerated: false`; tags need a rating tag, aliases resolve and
 *   implied tags are added (as for POST /images, which stores uploads the same way). It is searchable
 *   (`id.gt:N`, `sf=id&sd=asc`, filters) and its files are served once thumbnails exist.
 *   `booru.updateImage(id, { thumbnailsGenerated, tags, description, sourceUrls })` changes one and bumps
 *   `updated_at`; `booru.reset()` drops every runtime image and upload again.
 * - Faults (`inject`) apply before routing; a string `path` matches as a prefix of the request path
 *   (without the query string), a RegExp is tested against that path. `latency` delays then answers
 *   normally; `hang` never answers until `close()`.
 * - The anti-bot layer (`booru.antiBot`, anti-bot.ts; docs/board-behaviour.md): after an `anti-bot` fault's
 *   501 page, any request within 5 s starts a 15-minute block in which every request (the API and pages;
 *   not the files, which stand for the CDN) is answered with an empty 500 and restarts the 15 minutes.
 *   `booru.antiBot.configure({ graceMs, blockMs })` scales the timings, `advance(ms)` moves its clock,
 *   `blockedMs()` says what is left; `reset()` clears it.
 * - Shapes follow Philomena's openapi.yaml where the recordings are silent: a topic's `author` is always a
 *   name (anonymous ones "Background Pony #…"), DNP entries carry `id` and `created_at`, an upload answers
 *   `{ image, interactions: [] }`, filter search is sorted by name.
 */
export { startFakePhilomena } from './server.js';
export type { FakePhilomena, FakePhilomenaOptions, RecordedRequest } from './server.js';
export type { Fault, FaultRule } from './faults.js';
export type { AntiBotLayer, AntiBotTimings } from './anti-bot.js';
export { REAL_ANTI_BOT_TIMINGS } from './anti-bot.js';
export type { ImagePatch, NewImage } from './runtime-images.js';
export type { NewComment, NewPost } from './runtime-words.js';
export type { AccountState, CreatedAccount, NewAccount, NewFilter } from './accounts.js';
export type { UploadRules } from './upload-rules.js';
export {
  FAKE_KEY,
  OWNER,
  IDS,
  FILTER_IDS,
  TAG_SLUGS,
  COMMENT_IDS,
  POST_IDS,
  FORUM,
  GALLERY_IDS,
  PROFILE_IDS,
  tagSlugOf,
} from './data.js';
export { sha512 } from './files.js';
export { parseQuery, QueryError } from './query.js';
