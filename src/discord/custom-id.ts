/**
 * custom_ids carry button state so that a click needs nothing from memory: `<ns>:<action>:<arg>...`.
 * Discord caps them at 100 characters, so anything long (a search query) goes to the store under a short
 * token instead. Segments never contain `:`; site ids are turned into short codes that do not either.
 */
import { z } from 'zod';
import type { Site } from '../philomena/sites.js';
import { STATE_TOKEN } from './button-state.js';

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

/** An image id as written by `String(id)`: a digit run, 0 included (Derpibooru has an image 0). */
function decodeImageId(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

function decodeCount(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,12}$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}

/** The key a button's handler is registered under: `<namespace>:<action>`. */
function buttonKey(namespace: string, action: string): string {
  return `${namespace}${SEPARATOR}${action}`;
}

/**
 * Segment schemas for button codecs: each reads one custom_id segment (a string) into its value, and
 * refuses anything the encoder could not have written.
 */
export const segment = {
  /** A page or a total: a whole number from 1. */
  count: z
    .string()
    .transform((text, ctx) => decodeCount(text) ?? (ctx.addIssue({ code: 'custom' }), z.NEVER)),
  /** An image id: a whole number from 0. */
  imageId: z
    .string()
    .transform((text, ctx) => decodeImageId(text) ?? (ctx.addIssue({ code: 'custom' }), z.NEVER)),
  /** A creation time written by `encodeTime`, in ms. */
  time: z.string().transform((text, ctx) => decodeTime(text) ?? (ctx.addIssue({ code: 'custom' }), z.NEVER)),
  /** A whole number written in base 36 (a seed). */
  base36: z
    .string()
    .regex(/^[0-9a-z]{1,12}$/)
    .transform((text) => Number.parseInt(text, 36)),
  /** A Discord id (a member, the owner of the buttons). */
  snowflake: z.string().regex(/^\d{1,20}$/),
  /** A button-state token (button-state.ts). */
  token: z.string().regex(STATE_TOKEN),
  /** A site code written by `siteCode`; resolved with `siteOfCode` against the bot's sites. */
  siteCode: z.string().regex(/^[a-z0-9~-]{1,30}$/),
  /** A yes/no flag written as 1 or 0. */
  flag: z.enum(['0', '1']).transform((flag) => flag === '1'),
} as const;

/**
 * One kind of button: its namespace, the zod tuple that reads its segments into named fields, and the
 * writer that puts those fields back in the same order. Handlers read fields by name, never by position.
 */
export interface ButtonCodec<A extends string, T> {
  readonly namespace: string;
  /** The handler key of `action`. */
  key(action: A): string;
  encode(action: A, value: T): string;
  /** The fields of a click's segments; undefined for a damaged or foreign id. */
  decode(args: readonly string[]): T | undefined;
  /**
   * For a codec whose fields hold a site code (`siteCode`): the fields with the code resolved among the
   * bot's sites (`siteOfCode`); undefined for a damaged or foreign id, or a site the bot does not serve.
   */
  decodeWithSite(
    this: ButtonCodec<A, T & SiteCodeField>,
    args: readonly string[],
    sites: readonly Site[],
    configured: Site,
  ): WithSite<T> | undefined;
}

/** The custom_id field of a codec whose buttons name a site: its code, written by `siteCode`. */
interface SiteCodeField {
  readonly site: string;
}

/** A codec's fields with the site code read back into the site. */
export type WithSite<T> = Omit<T, 'site'> & { readonly site: Site };

export function buttonCodec<A extends string, T>(options: {
  readonly namespace: string;
  /** A `z.tuple([...segments]).transform(([...]) => ({ named fields }))`. */
  readonly schema: z.ZodType<T, readonly string[]>;
  readonly write: (value: T) => readonly (string | number)[];
}): ButtonCodec<A, T> {
  const { namespace, schema, write } = options;
  return {
    namespace,
    key: (action) => buttonKey(namespace, action),
    encode: (action, value) => encodeCustomId(namespace, action, write(value)),
    decode(args) {
      const parsed = schema.safeParse(args);
      return parsed.success ? parsed.data : undefined;
    },
    decodeWithSite(args, sites, configured) {
      const fields = this.decode(args);
      const site = fields === undefined ? undefined : siteOfCode(fields.site, sites, configured);
      return fields === undefined || site === undefined ? undefined : { ...fields, site };
    },
  };
}
