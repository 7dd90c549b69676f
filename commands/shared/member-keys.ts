/**
 * Members' own board keys (issue 22 §1), sealed at rest (./key-sealing.ts), one record per Discord user
 * holding one sealed key per site (`Site.id`), over the record store like commands/me/member-settings.ts:
 * every change is one atomic read-modify-write of the member's record, and a store that fails throws
 * `SettingsUnavailableError` (never "no key": `memberFacing` in commands/me/member-settings.ts turns it into
 * the member's own "could not read your settings").
 *
 * - Without MEMBER_KEY_SECRET linking is off: `link` answers `{ ok: false, reason: 'linking-off' }` and
 *   `keyFor` finds no key; `sites`, `unlink` and `forget` still work, so a member can always see what is
 *   kept and delete it.
 * - Beside each sealed key its last four characters are kept in the clear, so `/me show` can list linked
 *   sites without opening anything; four characters are what the member is shown anyway, and far too few to
 *   guess the rest (the board's keys are 20 characters of 64 kinds).
 * - A key sealed under MEMBER_KEY_SECRET_PREVIOUS is sealed again under the current secret when it is read,
 *   so a rotation completes as members use the bot; the operator drops the previous secret once the keys
 *   that matter have moved (a key still under it then reads as not linked, and its member links again).
 * - A key that no secret opens (a wrong secret, a record moved to another member or site) reads as not
 *   linked and is kept (fixing the secret brings it back); it is logged once per member and site, by ids.
 *
 * Plain keys exist only as `MemberKey` (its text and JSON say "[member key]") and in local variables; no
 * result, error or log line here holds one.
 */
import type Keyv from 'keyv';
import { z } from 'zod';
import { memberStoreStep } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { recordStoreOf } from '../../src/store/index.js';
import { createKeySealer, MemberKey, sealedKeySchema, type SealingSecrets } from './key-sealing.js';

/**
 * The keys accepted: the board's are 20 characters of A-Z, a-z, 0-9, `_` and `-` (docs/board-behaviour.md,
 * "The API key"); other Philomena installs may differ in length, so 16 to 64 of the same characters pass.
 * Nothing else does (no spaces, no control characters), so a key is always safe in a query string.
 */
const KEY_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
/** Sites one member may link; the known sites and BOORU_URL's are far fewer. Bounds the record. */
export const LINKED_SITES_MAX = 20;
/** Longer than any `Site.id` (a known name or a custom host); only a bound on what a record may hold. */
const SITE_ID_MAX = 200;
/** Member-and-site pairs whose unopenable key was already logged (bounded: forgotten when full). */
const REPORTED_MAX = 1_000;

/** One linked site as `/me show` may list it: the site and the key's last four characters, no more. */
export interface LinkedSite {
  readonly siteId: string;
  readonly hint: string;
}

/** Why a key was not linked: linking is off (no MEMBER_KEY_SECRET), the text is not a key, or too many sites. */
export type LinkRefusal = 'linking-off' | 'not-a-key' | 'too-many-sites';

export type LinkResult =
  { readonly ok: true; readonly site: LinkedSite } | { readonly ok: false; readonly reason: LinkRefusal };

export interface MemberKeys {
  /** Whether keys can be linked (MEMBER_KEY_SECRET is set). */
  readonly linking: boolean;
  /**
   * Seals `key` (the text the member pasted; surrounding whitespace is dropped) for `userId` on `siteId`,
   * replacing the one linked there before. Checking the key with the board comes first (the caller's).
   */
  link(userId: string, siteId: string, key: string): Promise<LinkResult>;
  /** The member's key for the site; undefined when none is linked, linking is off, or it cannot be opened. */
  keyFor(userId: string, siteId: string): Promise<MemberKey | undefined>;
  /** The sites the member linked, by site id, each with its key's last four characters. */
  sites(userId: string): Promise<readonly LinkedSite[]>;
  /** Deletes the member's key for the site at once; true when there was one. */
  unlink(userId: string, siteId: string): Promise<boolean>;
  /** Deletes every key of the member at once; fine when there is none. */
  forget(userId: string): Promise<void>;
}

/** `text` as a key, or undefined when it is not one (the modal's check, and `link`'s). */
export function memberKeyOf(text: string): MemberKey | undefined {
  const trimmed = text.trim();
  return KEY_PATTERN.test(trimmed) ? new MemberKey(trimmed) : undefined;
}

const entrySchema = sealedKeySchema.extend({
  hint: z.string().max(4),
});
type Entry = z.output<typeof entrySchema>;

const recordSchema = z.object({
  sites: z.record(z.string().min(1).max(SITE_ID_MAX), z.unknown()).default({}),
});

/** The member's record as stored: site id → sealed key. An entry that cannot be read is dropped on read. */
type Sites = Readonly<Record<string, Entry>>;

/** Thrown inside an update to leave the record as it was; caught by `link`. */
class Refused extends Error {
  constructor(readonly reason: LinkRefusal) {
    super(reason);
  }
}

export function createMemberKeys(deps: {
  readonly store: Keyv;
  /** Told when a stored key cannot be read or opened (by member and site id; never the key). */
  readonly logger: Logger;
  /** The operator's secrets; undefined: linking is off. */
  readonly secrets: SealingSecrets | undefined;
}): MemberKeys {
  const { logger } = deps;
  const records = recordStoreOf(deps.store);
  const sealer = deps.secrets === undefined ? undefined : createKeySealer(deps.secrets);
  const keyOf = (userId: string) => `member-keys:${userId}`;
  const reported = new Set<string>();

  const guarded = memberStoreStep;

  function parse(userId: string, raw: unknown): Sites {
    if (raw === undefined) return {};
    const parsed = recordSchema.safeParse(raw);
    if (!parsed.success) {
      logger.warn({ userId }, "a member's stored board keys are unreadable; reading them as none");
      return {};
    }
    const sites: Record<string, Entry> = {};
    for (const [siteId, value] of Object.entries(parsed.data.sites)) {
      const entry = entrySchema.safeParse(value);
      if (entry.success) sites[siteId] = entry.data;
      else logger.warn({ userId, siteId }, "a member's stored board key is unreadable; reading it as none");
    }
    return sites;
  }

  /**
   * Replaces the member's sites with `change(current)` in one atomic step; no site left deletes the record
   * (`updateMany` deletes where `update` would keep an empty row), so a member with no key keeps nothing.
   */
  async function rewrite(userId: string, change: (sites: Sites) => Sites): Promise<void> {
    await records.updateMany([keyOf(userId)], ([raw]) => {
      const sites = change(parse(userId, raw));
      return [Object.keys(sites).length === 0 ? undefined : { sites }];
    });
  }

  /** The entry of `siteId`: own entries only, so a site id such as `constructor` finds nothing inherited. */
  const entryAt = (sites: Sites, siteId: string): Entry | undefined =>
    Object.hasOwn(sites, siteId) ? sites[siteId] : undefined;

  const pairOf = (userId: string, siteId: string) => JSON.stringify([userId, siteId]);

  function reportUnopenable(userId: string, siteId: string): void {
    const pair = pairOf(userId, siteId);
    if (reported.has(pair)) return;
    if (reported.size >= REPORTED_MAX) reported.clear();
    reported.add(pair);
    logger.warn(
      { userId, siteId },
      "a member's board key opens with neither MEMBER_KEY_SECRET nor MEMBER_KEY_SECRET_PREVIOUS; reading it as not linked",
    );
  }

  /** Seals the key again under the current secret, unless the entry changed meanwhile (re-linked, unlinked). */
  async function reseal(userId: string, siteId: string, opened: Entry, key: MemberKey): Promise<void> {
    if (sealer === undefined) return;
    const next: Entry = { ...sealer.seal(userId, siteId, key), hint: key.hint };
    try {
      await rewrite(userId, (sites) =>
        entryAt(sites, siteId)?.nonce === opened.nonce ? { ...sites, [siteId]: next } : sites,
      );
    } catch (error) {
      // The key was read; moving it to the new secret waits for the next read.
      logger.warn(
        { userId, siteId, err: error },
        "a member's board key could not be sealed again under MEMBER_KEY_SECRET",
      );
    }
  }

  return {
    linking: sealer !== undefined,

    link: (userId, siteId, text) =>
      guarded(userId, async (): Promise<LinkResult> => {
        if (sealer === undefined) return { ok: false, reason: 'linking-off' };
        // Site ids are the bot's own (`Site.id`), never a member's text: a wrong one is a bug, said as such.
        // `__proto__` is refused because a stored record could not keep it (JSON and zod drop it).
        if (siteId === '' || siteId.length > SITE_ID_MAX || siteId === '__proto__') {
          throw new TypeError('link: not a site id');
        }
        const key = memberKeyOf(text);
        if (key === undefined) return { ok: false, reason: 'not-a-key' };
        const entry: Entry = { ...sealer.seal(userId, siteId, key), hint: key.hint };
        try {
          await rewrite(userId, (sites) => {
            if (entryAt(sites, siteId) === undefined && Object.keys(sites).length >= LINKED_SITES_MAX) {
              throw new Refused('too-many-sites');
            }
            return { ...sites, [siteId]: entry };
          });
        } catch (error) {
          if (error instanceof Refused) return { ok: false, reason: error.reason };
          throw error;
        }
        reported.delete(pairOf(userId, siteId)); // a new key that fails to open later is worth a new line
        return { ok: true, site: { siteId, hint: key.hint } };
      }),

    keyFor: (userId, siteId) =>
      guarded(userId, async () => {
        if (sealer === undefined) return undefined;
        const entry = entryAt(parse(userId, await records.read(keyOf(userId))), siteId);
        if (entry === undefined) return undefined;
        const opened = sealer.open(userId, siteId, entry);
        if (opened === undefined) {
          reportUnopenable(userId, siteId);
          return undefined;
        }
        if (opened.openedWith === 'previous') await reseal(userId, siteId, entry, opened.key);
        return opened.key;
      }),

    sites: (userId) =>
      guarded(userId, async () =>
        Object.entries(parse(userId, await records.read(keyOf(userId))))
          .map(([siteId, entry]) => ({ siteId, hint: entry.hint }))
          .sort((a, b) => a.siteId.localeCompare(b.siteId)),
      ),

    unlink: (userId, siteId) =>
      guarded(userId, async () => {
        let had = false;
        await rewrite(userId, (sites) => {
          had = entryAt(sites, siteId) !== undefined;
          return Object.fromEntries(Object.entries(sites).filter(([id]) => id !== siteId));
        });
        return had;
      }),

    forget: (userId) => guarded(userId, () => records.remove(keyOf(userId))),
  };
}
