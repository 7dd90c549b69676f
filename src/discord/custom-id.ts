/**
 * custom_ids carry button state so that a click needs nothing from memory: `<ns>:<action>:<arg>...`.
 * Discord caps them at 100 characters, so anything long (a search query) goes to the store under a short
 * token instead. Segments never contain `:`; site ids are turned into short codes that do not either.
 */
import type { Site } from '../philomena/sites.js';

export const CUSTOM_ID_MAX = 100;
const SEPARATOR = ':';
/** The code of the configured site when it is not a known one (its id, `custom:host`, holds colons). */
const CONFIGURED_SITE_CODE = '~';

export class CustomIdError extends Error {
  override get name(): string {
    return 'CustomIdError';
  }
}

export function encodeCustomId(
  namespace: string,
  action: string,
  args: readonly (string | number)[],
): string {
  const segments = [namespace, action, ...args.map(String)];
  for (const segment of segments) {
    if (segment.includes(SEPARATOR)) throw new CustomIdError(`custom_id segment holds "${SEPARATOR}"`);
  }
  const id = segments.join(SEPARATOR);
  if (id.length > CUSTOM_ID_MAX) throw new CustomIdError(`custom_id is ${id.length} characters`);
  return id;
}

export interface DecodedCustomId {
  /** `<ns>:<action>`, the key of the handler. */
  readonly key: string;
  readonly args: readonly string[];
}

/** Undefined for anything not shaped like our ids (old or foreign buttons). */
export function decodeCustomId(id: string): DecodedCustomId | undefined {
  if (id.length === 0 || id.length > CUSTOM_ID_MAX) return undefined;
  const [namespace, action, ...args] = id.split(SEPARATOR);
  if (!namespace || !action) return undefined;
  return { key: `${namespace}${SEPARATOR}${action}`, args };
}

export function siteCode(site: Site): string {
  return site.known ? site.id : CONFIGURED_SITE_CODE;
}

/** The site of a code, among the known sites and the configured one. */
export function siteOfCode(code: string, sites: readonly Site[], configured: Site): Site | undefined {
  if (code === CONFIGURED_SITE_CODE) return configured.known ? undefined : configured;
  return sites.find((site) => site.known && site.id === code);
}

/** Whole seconds in base 36: a compact creation time for expiring buttons. */
export function encodeTime(ms: number): string {
  return Math.floor(ms / 1000).toString(36);
}

export function decodeTime(text: string | undefined): number | undefined {
  if (text === undefined || !/^[0-9a-z]{1,10}$/.test(text)) return undefined;
  const seconds = Number.parseInt(text, 36);
  return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
}

/** A positive whole number segment (ids, pages), or undefined. */
/** An image id as written by `String(id)`: a digit run, 0 included (Derpibooru has an image 0). */
export function decodeImageId(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function decodeCount(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,12}$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}
