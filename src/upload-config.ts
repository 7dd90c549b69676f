/**
 * The upload variables of the environment (issue 22 §2; the feature is commands/upload/), kept beside
 * src/config.ts, which puts them in its schema: UPLOADS, UPLOADS_PER_MEMBER_HOUR, UPLOADS_PER_SITE_HOUR.
 * Each problem says how to fix it itself, so config.ts needs no more lines for them than the keys.
 */
import { z } from 'zod';
import { KNOWN_SITES, type Site } from './philomena/sites.js';

/** Blank (or only spaces) means unset, as everywhere in the config. */
function blankIsUnset(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** How to fix UPLOADS, said with its problem (the config's HOW_TO_FIX holds the other keys'). */
const UPLOADS_FIX =
  'set UPLOADS=off (the default), UPLOADS=on (every site), or site names such as UPLOADS=derpibooru,furbooru (default: BOORU_URL\'s site); ask the sites\' staff first (README, "Uploads")';

/** A whole number from `min` to `max` an hour, with its default; the problem says the default. */
function hourly(defaultValue: number, min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max} (uploads an hour; the default is ${defaultValue})`;
  return z.preprocess(
    blankIsUnset,
    z
      .string()
      .regex(/^\d{1,6}$/, message)
      .transform(Number)
      .refine((n) => n >= min && n <= max, message)
      .default(defaultValue),
  );
}

type UploadsSetting = 'off' | 'on' | readonly string[];

/**
 * UPLOADS: `off` (the default), `on` (every site), or site names as `/settings site` knows them,
 * comma-separated: known ids (`derpibooru, furbooru`), and `default` or BOORU_URL's own id for the
 * configured site. The names are checked against BOORU_URL in the config's own step (`uploadSitesOf`).
 */
const uploads = z
  .string()
  .default('off')
  .transform((value): UploadsSetting => {
    const lower = value.toLowerCase();
    return lower === 'off' || lower === 'on' ? lower : lower.split(',').map((name) => name.trim());
  });

/** The keys src/config.ts adds to its schema. */
export const uploadsEnv = {
  UPLOADS: z.preprocess(blankIsUnset, uploads),
  UPLOADS_PER_MEMBER_HOUR: hourly(3, 1, 100),
  UPLOADS_PER_SITE_HOUR: hourly(60, 1, 10_000),
};

/** Where uploads are on: every site, or these site ids (none: off). */
export type UploadSites = 'all' | readonly string[];

/** The site ids UPLOADS names (BOORU_URL's by `default` or its id), or the first name no site has. */
function uploadSitesOf(
  value: UploadsSetting,
  configured: Site,
): { readonly sites: UploadSites } | { readonly unknown: string } {
  if (value === 'on') return { sites: 'all' };
  if (value === 'off') return { sites: [] };
  const ids: string[] = [];
  for (const name of value) {
    const id =
      name === 'default' || name === configured.id.toLowerCase()
        ? configured.id
        : KNOWN_SITES.find((site) => site.id === name)?.id;
    // A name of the operator's own site list, never a secret, so it may be named back (cut short).
    if (id === undefined) return { unknown: name.slice(0, 60) };
    ids.push(id);
  }
  return { sites: [...new Set(ids)] };
}

/** The upload keys as the config's schema has parsed them. */
interface UploadsEnv {
  readonly BOORU_URL: Site;
  readonly UPLOADS: UploadsSetting;
  readonly UPLOADS_PER_MEMBER_HOUR: number;
  readonly UPLOADS_PER_SITE_HOUR: number;
}

/** The config's own step: a name in UPLOADS that no site has is one problem, naming it. */
export function checkUploadSites(env: UploadsEnv, ctx: z.RefinementCtx): void {
  const found = uploadSitesOf(env.UPLOADS, env.BOORU_URL);
  if ('unknown' in found) {
    ctx.addIssue({
      code: 'custom',
      path: ['UPLOADS'],
      message: `names "${found.unknown}", which is no site this bot knows: ${UPLOADS_FIX}`,
    });
  }
}

/** The uploads as the code reads them (`Config.uploads`): where they are on, and the caps. */
export function uploadsOf(env: UploadsEnv): {
  readonly sites: UploadSites;
  readonly perMemberHour: number;
  readonly perSiteHour: number;
} {
  const found = uploadSitesOf(env.UPLOADS, env.BOORU_URL);
  return {
    // The config's own step refused any unknown name before this runs.
    sites: 'sites' in found ? found.sites : [],
    perMemberHour: env.UPLOADS_PER_MEMBER_HOUR,
    perSiteHour: env.UPLOADS_PER_SITE_HOUR,
  };
}
