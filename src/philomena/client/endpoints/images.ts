/**
 * Images: by id, featured, search, reverse search (by URL, by file in memory, by streamed upload) and
 * submission. Reads go without the key, with the view's `filter_id`; an answer holding a new upload is
 * cached briefly (`Engine.ratingLifetime`), since its rating may still be corrected.
 *
 * A search seeds the cache of `image` with each image it returns (same filter, same key-less request), so
 * opening a result costs no board call. That is sound because Philomena answers both with the same
 * record and the same view: Api.Json.Search.ImageController and Api.Json.ImageController load the image
 * with the same preloads and render it with ImageView "image.json", whose `spoilered` is
 * `filter_or_spoiler_hits?(conn, image)` under the filter the same :api pipeline picked (FilterIdPlug
 * reads `filter_id` for both routes); philomena-dev/philomena and derpibooru/philomena alike (2026). The
 * search only leaves images out (hidden by the filter, deleted), it never changes one it lists. Reverse
 * search is left alone: it ignores the filter and may list deleted stubs.
 */
import type { z } from 'zod';
import type {
  FilterOption,
  Page,
  PhilomenaClient,
  ReverseSearchInput,
  ReverseSearchOptions,
} from '../types.js';
import {
  imageResponseSchema,
  imagesResponseSchema,
  submitImageResponseSchema,
  type Image,
  type VisibleImage,
} from '../../schemas.js';
import { multipartFileBody } from '../../transport.js';
import { absolutiseImage } from '../../urls.js';
import { API, page, seedOf, shortHash, type Endpoint, type Engine } from '../engine.js';
import {
  filterQuery,
  imageId,
  inRange,
  pageQuery,
  positiveInt,
  queryString,
  sortQuery,
  tagInputOf,
  text,
  type Query,
} from '../params.js';

/** Chunks the `{ file }` form is sent in: views of the caller's bytes, never copies. */
const FILE_CHUNK_BYTES = 64 * 1024;

async function* fileChunks(file: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < file.byteLength; at += FILE_CHUNK_BYTES) {
    yield file.subarray(at, at + FILE_CHUNK_BYTES);
  }
}

/**
 * Whether an upload's refusal says the picture is on the site already, in either wording the board uses
 * (docs/board-behaviour.md, "Uploads"): `image_orig_sha512_hash: ["has already been taken"]` before
 * Philomena 1.1, `image: ["has already been uploaded: it's image <id>"]` since; only the newer one names the
 * image, and its id is read only as whole digits (anything else leaves it unnamed, never guessed).
 */
function duplicateIn(errors: Readonly<Record<string, readonly string[]>>): {
  readonly duplicate: boolean;
  readonly id: number | undefined;
} {
  const older = (errors['image_orig_sha512_hash'] ?? []).some((m) => m.includes('has already been taken'));
  let id: number | undefined;
  let newer = false;
  for (const message of errors['image'] ?? []) {
    if (!message.startsWith('has already been uploaded')) continue;
    newer = true;
    const named = /^has already been uploaded: it's image (\d{1,15})\s*$/.exec(message);
    const value = named === null ? Number.NaN : Number(named[1]);
    if (Number.isSafeInteger(value) && value > 0) id = value;
  }
  return { duplicate: older || newer, id };
}

export interface ImageEndpointOptions {
  /** The one attempt of a reverse search by URL (and at least its deadline). */
  readonly reverseUrlTimeoutMs: number;
  /** The one attempt of a reverse search by file (and at least its deadline). */
  readonly reverseFileTimeoutMs: number;
  /** The one attempt of an upload (and at least its deadline): the board fetches the picture meanwhile. */
  readonly uploadTimeoutMs: number;
  /** Each image a search returns is cached as `image(id)` with the search's filter would cache it. */
  readonly seedImagesFromSearches: boolean;
}

export function imageEndpoints(
  engine: Engine,
  options: ImageEndpointOptions,
): Pick<PhilomenaClient, 'image' | 'featuredImage' | 'searchImages' | 'reverseSearch' | 'submitImage'> {
  const { site, lifetimes, call, ratingLifetime } = engine;
  const fixImage = <T extends Image>(image: T): T => absolutiseImage(image, site);
  /** GET images/:id: what `image` calls, and the key and lifetime a search seeds. */
  const imageEndpoint = (id: number, filter: FilterOption): Endpoint<typeof imageResponseSchema, Image> => ({
    resource: 'image',
    what: `image ${id}`,
    path: `${API}/images/${id}`,
    query: filterQuery(filter),
    auth: false,
    schema: imageResponseSchema,
    map: (body) => fixImage(body.image),
    ttlMs: (image) => ratingLifetime(lifetimes.image, [image]),
  });

  return {
    async image(id, callOptions = {}) {
      imageId(id);
      return call(imageEndpoint(id, callOptions), callOptions);
    },

    async featuredImage(callOptions = {}) {
      return call(
        {
          resource: 'featured',
          what: 'the featured image',
          path: `${API}/images/featured`,
          query: filterQuery(callOptions),
          auth: false,
          schema: imageResponseSchema,
          map: (body) => fixImage(body.image),
          ttlMs: (image) => ratingLifetime(lifetimes.featured, [image]),
        },
        callOptions,
      );
    },

    async searchImages(callOptions) {
      const q = text('q', callOptions.q);
      const sort = sortQuery(callOptions);
      return call(
        {
          resource: 'images',
          what: 'the image search',
          path: `${API}/search/images`,
          query: { q, ...pageQuery(callOptions), ...sort, ...filterQuery(callOptions) },
          auth: false,
          schema: imagesResponseSchema,
          // Search never lists deleted images; a stub that slips through has nothing to show.
          map: (body): Page<VisibleImage> =>
            page(
              body.images.filter((image): image is VisibleImage => image.kind === 'image').map(fixImage),
              body.total,
            ),
          ttlMs: (result) => ratingLifetime(lifetimes.imageSearch, result.items),
          ...(options.seedImagesFromSearches
            ? {
                seeds: (result: Page<VisibleImage>) =>
                  result.items.map((image) => seedOf(imageEndpoint(image.id, callOptions), image)),
              }
            : {}),
        },
        callOptions,
      );
    },

    async reverseSearch(input: ReverseSearchInput, callOptions: ReverseSearchOptions = {}) {
      const query: Query = {
        distance:
          callOptions.distance === undefined
            ? undefined
            : inRange('distance', callOptions.distance, 0, 1, false),
        limit: callOptions.limit === undefined ? undefined : inRange('limit', callOptions.limit, 1, 50, true),
      };
      const common = {
        resource: 'reverse',
        what: 'the reverse search',
        path: `${API}/search/reverse`,
        auth: false,
        method: 'POST' as const,
        schema: imagesResponseSchema,
        map: (body: z.output<typeof imagesResponseSchema>): Page<Image> =>
          page(body.images.map(fixImage), body.total),
        ttlMs: (result: Page<Image>) => ratingLifetime(lifetimes.reverseSearch, result.items),
      };
      // By file the board analyses the member's picture before it answers (the whole image decoded;
      // ffmpeg for GIF and WebM), so its time is the member's choice as much as a URL's: one
      // attempt (a retry would upload the file again), its own generous timeout, and only the board's
      // answers (5xx, 429, 501) counted against the site, never a timeout or a reset.
      const fileTransport = {
        retry: false,
        countTimeouts: false,
        timeoutMs: options.reverseFileTimeoutMs,
      } as const;
      if ('url' in input) {
        const url = text('url', input.url);
        if (!/^https?:\/\//i.test(url.trim())) throw new RangeError('the image URL must be http(s)');
        return call(
          {
            ...common,
            query: { url: url.trim(), ...query },
            // The board downloads the member's URL before it answers, and a member can make that as slow
            // as they like: one attempt, with its own timeout, and no timeout or network error of it
            // counted against the site (a 5xx still is). Otherwise two slow URLs open the breaker for
            // every server.
            transport: { retry: false, countTimeouts: false, timeoutMs: options.reverseUrlTimeoutMs },
          },
          callOptions,
        );
      }
      if ('upload' in input) {
        const { upload } = input;
        const key = text('upload.key', upload.key);
        if (key === '') throw new RangeError('upload.key must not be empty');
        const maxBytes = positiveInt('upload.maxBytes', upload.maxBytes);
        const size = upload.size === undefined ? undefined : positiveInt('upload.size', upload.size);
        if (size !== undefined && size > maxBytes) {
          throw new RangeError(`the file has ${size} bytes, over upload.maxBytes (${maxBytes})`);
        }
        if (typeof upload.open !== 'function') throw new TypeError('upload.open must be a function');
        return call(
          {
            ...common,
            query,
            bodyKey: `upload=${shortHash(key)}`,
            transport: fileTransport,
            body: multipartFileBody({
              field: 'image[image]',
              filename: text('upload.filename', upload.filename),
              contentType: upload.contentType ?? 'application/octet-stream',
              maxBytes,
              ...(size === undefined ? {} : { size }),
              open: (signal) => upload.open(signal),
            }),
          },
          callOptions,
        );
      }
      if (!(input.file instanceof Uint8Array) || input.file.byteLength === 0) {
        throw new RangeError('the image file must be a non-empty Uint8Array');
      }
      const { file } = input;
      return call(
        {
          ...common,
          query,
          bodyKey: `file=${shortHash(file)}`,
          transport: fileTransport,
          body: multipartFileBody({
            field: 'image[image]',
            filename: text('filename', input.filename),
            contentType: input.contentType ?? 'application/octet-stream',
            size: file.byteLength,
            // Views of the caller's bytes: nothing is copied, whatever the attempts.
            open: () => Promise.resolve(fileChunks(file)),
          }),
        },
        callOptions,
      );
    },

    async submitImage(input, callOptions = {}) {
      const key = engine.requireKey('submitting an image');
      const url = text('url', input.url).trim();
      if (!/^https?:\/\//i.test(url)) throw new RangeError('the image URL must be http(s)');
      // The board requires tag_input (docs/board-behaviour.md, "Parameters"): never send an upload without.
      const tagInput = tagInputOf(input.tagInput);
      const path = `${API}/images?${queryString({ key })}`;
      const body = JSON.stringify({
        url,
        image: {
          ...(input.description === undefined ? {} : { description: input.description }),
          tag_input: tagInput,
          ...(input.sourceUrl === undefined ? {} : { source_url: input.sourceUrl }),
        },
      });
      // Never retried: a second POST could upload twice. The board fetches the member's picture before it
      // answers, as for a reverse search by URL: its own generous timeout, and a slow host's time-out is not
      // counted against the site (a 5xx still is).
      const response = await engine.send(
        {
          method: 'POST',
          path,
          body,
          idempotent: false,
          countTimeouts: false,
          timeoutMs: options.uploadTimeoutMs,
        },
        callOptions,
      );
      const what = 'the image submission';
      const isJson = response.body.trim().startsWith('{');
      if (
        (response.status >= 200 && response.status < 300) ||
        (response.status === 400 && isJson && /"errors"/.test(response.body))
      ) {
        const parsed = engine.parseBody(submitImageResponseSchema, response, path, what);
        if ('image' in parsed) return { ok: true, image: fixImage(parsed.image) };
        const found = duplicateIn(parsed.errors);
        return { ok: false, errors: parsed.errors, duplicate: found.duplicate, duplicateOf: found.id };
      }
      throw engine.failure(response, path, what);
    },
  };
}
