/**
 * The description memo: rendered image descriptions kept for cards seen again (see DescriptionMemo).
 */
import { createHash } from 'node:crypto';
import type { VisibleImage } from '../philomena/schemas.js';
import type { Site } from '../philomena/sites.js';

/**
 * Rendered descriptions, so that a card seen again (the same link unfurled in several servers, paging
 * back and forth, Reveal) costs a lookup instead of a parse of uploader-written text, which a hostile
 * uploader can make as long and as awkward as the board allows. A rendering depends only on the
 * description, the site and the room it was cut to, so it is the same for every server and channel and a
 * shared one reveals nothing; the gates decide before it is asked whether a description shows at all.
 */
export interface DescriptionMemo {
  /** The description of `image` rendered for `site` within `room`: remembered, or `render()`ed now. */
  get(image: VisibleImage, site: Site, room: number, render: () => string): string;
  /** Renderings kept, never more than the capacity. */
  readonly size: number;
}

/** Enough for every image on a busy bot's screens at once; at most ~4 KB each, so ~8 MB in all. */
const DESCRIPTION_MEMO_MAX = 2_000;

/**
 * A least-recently-used memo of at most `capacity` renderings, keyed by site, image id, `updated_at` and
 * room. Each entry also holds a digest of the description it was made from and is used only when it
 * matches: a board that edits a description without touching `updated_at` (a fork, a fake) still gets
 * the new text, and only the digest is kept, never a copy of a description of any length.
 */
export function createDescriptionMemo(capacity = DESCRIPTION_MEMO_MAX): DescriptionMemo {
  const entries = new Map<string, { readonly digest: string; readonly text: string }>();
  return {
    get(image, site, room, render) {
      const key = [site.id, site.baseUrl, image.id, image.updated_at, room].join('\u0000');
      // UTF-16 in, so descriptions differing only in lone surrogates do not share a digest.
      const digest = createHash('sha256').update(image.description, 'utf16le').digest('base64url');
      const kept = entries.get(key);
      entries.delete(key);
      const entry = kept !== undefined && kept.digest === digest ? kept : { digest, text: render() };
      // Map order is insertion order: re-inserting makes this the most recently used.
      entries.set(key, entry);
      if (entries.size > capacity) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
      return entry.text;
    },
    get size() {
      return entries.size;
    },
  };
}

let sharedMemo: DescriptionMemo | undefined;

/**
 * The memo of cards whose context brings none of their own, made at its first use rather than at import.
 * Process-wide on purpose: cards are built by commands, unfurls, buttons and feeds alike, and every place
 * that builds a card context would otherwise have to be handed one from the composition root (a change of
 * the context every feature builds, left for when those contexts are reworked). It is bounded
 * (DESCRIPTION_MEMO_MAX); tests, benchmarks or a caller that wants its own pass one in
 * `CardContext.descriptions`.
 */
export function sharedDescriptionMemo(): DescriptionMemo {
  sharedMemo ??= createDescriptionMemo();
  return sharedMemo;
}
