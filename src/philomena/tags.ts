/**
 * Pure tag rules of Philomena: ratings and credits read from tag names, the site's tag slugs, quoting a
 * tag for a search query, and splitting the comma-separated tag lists users type.
 *
 * Image JSON carries tag names only (no categories), so the rating and the credits are derived from the
 * names, as docs/board-behaviour.md ("Tags, credit and rating") describes.
 */

export const RATINGS = [
  'safe',
  'suggestive',
  'questionable',
  'explicit',
  'semi-grimdark',
  'grimdark',
  'grotesque',
] as const;
export type Rating = (typeof RATINGS)[number];

const RATING_SET: ReadonlySet<string> = new Set(RATINGS);

function isRating(tag: string): tag is Rating {
  return RATING_SET.has(tag);
}

/** The known rating tags among `tags`; an empty set when there is none (such an image is not safe). */
export function ratingOf(tags: readonly string[]): ReadonlySet<Rating> {
  const ratings = new Set<Rating>();
  for (const raw of tags) {
    const tag = raw.trim().toLowerCase();
    if (isRating(tag)) ratings.add(tag);
  }
  return ratings;
}

/** Safe means the rating set is exactly {safe}: `safe` plus any other rating (bad tagging) is not safe. */
export function isSafe(tags: readonly string[]): boolean {
  const ratings = ratingOf(tags);
  return ratings.size === 1 && ratings.has('safe');
}

export const CREDIT_NAMESPACES = [
  'artist',
  'colorist',
  'editor',
  'photographer',
  'prompter',
  'generator',
  'commissioner',
] as const;
export type CreditNamespace = (typeof CREDIT_NAMESPACES)[number];

export interface Credit {
  readonly namespace: CreditNamespace;
  /** The part after the colon, trimmed, e.g. `foo bar` of `artist:foo bar`. */
  readonly name: string;
  /** The whole tag as the image carries it (trimmed). */
  readonly tag: string;
}

const CREDIT_ORDER: ReadonlyMap<string, number> = new Map(CREDIT_NAMESPACES.map((ns, i) => [ns, i]));

function isCreditNamespace(namespace: string): namespace is CreditNamespace {
  return CREDIT_ORDER.has(namespace);
}

/** The credit tags among `tags`, in namespace order (artists first), then by name; duplicates dropped. */
export function creditsOf(tags: readonly string[]): Credit[] {
  const credits: Credit[] = [];
  const seen = new Set<string>();
  for (const raw of tags) {
    const tag = raw.trim();
    const colon = tag.indexOf(':');
    if (colon <= 0) continue;
    const namespace = tag.slice(0, colon).trim().toLowerCase();
    if (!isCreditNamespace(namespace)) continue;
    const name = tag.slice(colon + 1).trim();
    if (name === '' || seen.has(`${namespace}:${name}`)) continue;
    seen.add(`${namespace}:${name}`);
    credits.push({ namespace, name, tag });
  }
  return credits.sort(
    (a, b) =>
      (CREDIT_ORDER.get(a.namespace) ?? 0) - (CREDIT_ORDER.get(b.namespace) ?? 0) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

/**
 * The site's slug of a tag name. The order matters: `-` first, because every later escape introduces
 * dashes of its own; space last, because `+` has been escaped by then and so means only "space".
 */
export function tagSlug(name: string): string {
  return name
    .replaceAll('-', '-dash-')
    .replaceAll('/', '-fwslash-')
    .replaceAll('\\', '-bwslash-')
    .replaceAll(':', '-colon-')
    .replaceAll('.', '-dot-')
    .replaceAll('+', '-plus-')
    .replaceAll(' ', '+');
}

const SLUG_ESCAPE = /-(?:dash|fwslash|bwslash|colon|dot|plus)-/g;
const SLUG_UNESCAPE: Readonly<Record<string, string>> = {
  '-dash-': '-',
  '-fwslash-': '/',
  '-bwslash-': '\\',
  '-colon-': ':',
  '-dot-': '.',
  '-plus-': '+',
};

/**
 * The tag name of a slug (the inverse of {@link tagSlug}). One left-to-right pass, so the `-dash-` that
 * `tagSlug` wrote for a literal `-` can never be mistaken for part of another escape.
 */
export function tagNameOfSlug(slug: string): string {
  return slug.replaceAll('+', ' ').replace(SLUG_ESCAPE, (token) => SLUG_UNESCAPE[token] ?? token);
}

/**
 * Whether `text` can only be a slug, not a name: it has none of the characters a slug never holds, and
 * every `-` in it belongs to an escape. A name like `safe` is its own slug, so both readings agree.
 */
export function isTagSlug(text: string): boolean {
  if (/[ :./\\]/.test(text.replaceAll('+', ''))) return false;
  return !text.replace(SLUG_ESCAPE, '').includes('-');
}

/**
 * The slug as a URL path segment. The server percent-decodes the path and then compares with the stored
 * slug, in which `+` is the space marker: so percent-encode everything, and keep `+` readable (a literal
 * `+` and `%2B` decode alike; only `+` from spaces can be in a slug, since a real `+` became `-plus-`).
 */
export function tagPath(nameOrSlug: string): string {
  // encodeURIComponent throws URIError on a lone surrogate, which user input (a cut emoji) can carry.
  const text = nameOrSlug.toWellFormed();
  const slug = isTagSlug(text) ? text : tagSlug(text);
  // encodeURIComponent leaves !'()* alone; they are encoded too, as `(`/`)` would end a Markdown link.
  return encodeURIComponent(slug)
    .replaceAll('%2B', '+')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `text` with every lone surrogate replaced by U+FFFD (`String.prototype.toWellFormed`): what URL encoding
 * and JSON need, and what a server decoding UTF-8 would make of it anyway. Kept as a function for importers.
 */
export function wellFormed(text: string): string {
  return text.toWellFormed();
}

/** A tag name as one quoted term of a search query `q`: `"` and `\` escaped. */
export function quoteTag(name: string): string {
  return `"${name.trim().replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** The tags of a comma-separated list as users type it: trimmed, empties dropped. */
export function parseTagList(text: string): string[] {
  return text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/**
 * The term being typed (after the last comma) and everything before it, so an autocomplete choice `c`
 * becomes `prefix + c`. `prefix` keeps the user's text up to and including the comma and its spaces.
 */
export function lastTerm(text: string): { prefix: string; term: string } {
  const comma = text.lastIndexOf(',');
  const before = text.slice(0, comma + 1);
  const rest = text.slice(comma + 1);
  const lead = rest.length - rest.trimStart().length;
  return { prefix: before + rest.slice(0, lead), term: rest.trim() };
}
