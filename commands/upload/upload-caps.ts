/**
 * The upload caps (issue 22 §2), held in the shared store so that every process of the bot sees the same
 * ones: one upload at a time per member, at most `perMemberHour` uploads per member and `perSiteHour` per
 * site in any hour (a sliding window).
 *
 * - Records hold timestamps only: `upload-caps:member:<user id>` (the member's sends, and the start of the
 *   one under way) and `upload-caps:site:<site id>` (every member's sends to the site, no user ids). A record
 *   left with nothing in the window is deleted, so a member who stopped uploading leaves nothing after their
 *   next check, and `forget` deletes theirs at once.
 * - `reserve` takes a place in both windows and marks the member busy in ONE atomic step of the record store
 *   (src/store/records.ts `updateMany`: a compare-and-set in SQLite, Redis or memory), so two processes never
 *   both slip under a cap. `finish` clears the mark, and takes the place back when the request was never
 *   sent: only a request actually sent counts.
 * - A mark older than `ACTIVE_MAX_MS` (a process that died mid-upload) no longer blocks.
 */
import type Keyv from 'keyv';
import { z } from 'zod';
import { StoreAccessError } from '../../src/errors.js';
import { recordStoreOf } from '../../src/store/index.js';

const HOUR_MS = 3_600_000;
/** Far longer than an upload's own deadline: a mark this old belongs to a process that stopped. */
const ACTIVE_MAX_MS = 10 * 60_000;

export interface UploadCapsOptions {
  readonly store: Keyv;
  readonly perMemberHour: number;
  readonly perSiteHour: number;
  readonly now: () => number;
}

/** Why an upload may not start now; `waitMs` until a place frees up in the window. */
export type CapRefusal =
  | { readonly reason: 'busy' }
  | { readonly reason: 'member'; readonly waitMs: number }
  | { readonly reason: 'site'; readonly waitMs: number };

/** A place taken by `reserve`, handed back to `finish`. */
export interface UploadTicket {
  readonly userId: string;
  readonly siteId: string;
  readonly at: number;
}

export interface UploadCaps {
  /** Why the member could not upload to the site now, without taking a place (a form's early check). */
  check(userId: string, siteId: string): Promise<CapRefusal | undefined>;
  /** Takes a place for one upload and marks the member busy, or says why not. */
  reserve(
    userId: string,
    siteId: string,
  ): Promise<
    | { readonly ok: true; readonly ticket: UploadTicket }
    | { readonly ok: false; readonly refusal: CapRefusal }
  >;
  /** The upload is over: the mark goes; its place stays counted only when the request was `sent`. */
  finish(ticket: UploadTicket, sent: boolean): Promise<void>;
  /** Deletes the member's record (part of `/me forget`); the sites' records name nobody. */
  forget(userId: string): Promise<void>;
}

const memberSchema = z.object({
  sent: z.array(z.number()).max(1_000).default([]),
  active: z.number().optional(),
});
const siteSchema = z.object({ sent: z.array(z.number()).max(100_000).default([]) });
type MemberRecord = z.output<typeof memberSchema>;
type SiteRecord = z.output<typeof siteSchema>;

const memberKey = (userId: string) => `upload-caps:member:${userId}`;
const siteKey = (siteId: string) => `upload-caps:site:${siteId}`;

/** Thrown inside an update to leave the records as they were. */
class Refused extends Error {
  constructor(readonly refusal: CapRefusal) {
    super(refusal.reason);
  }
}

export function createUploadCaps(options: UploadCapsOptions): UploadCaps {
  const records = recordStoreOf(options.store);
  const { perMemberHour, perSiteHour, now } = options;

  /** A stored record read leniently: one that does not parse counts as empty (it held only timestamps). */
  const memberOf = (raw: unknown, at: number): MemberRecord => {
    const parsed = memberSchema.safeParse(raw ?? {});
    const record = parsed.success ? parsed.data : { sent: [] };
    return {
      sent: record.sent.filter((t) => t > at - HOUR_MS && t <= at + HOUR_MS),
      ...(record.active !== undefined && record.active > at - ACTIVE_MAX_MS ? { active: record.active } : {}),
    };
  };
  const siteOf = (raw: unknown, at: number): SiteRecord => {
    const parsed = siteSchema.safeParse(raw ?? {});
    return {
      sent: (parsed.success ? parsed.data.sent : []).filter((t) => t > at - HOUR_MS && t <= at + HOUR_MS),
    };
  };
  /** An empty record is deleted (`updateMany` deletes where the next value is undefined). */
  const keptMember = (r: MemberRecord) => (r.sent.length === 0 && r.active === undefined ? undefined : r);
  const keptSite = (r: SiteRecord) => (r.sent.length === 0 ? undefined : r);

  /** Until the oldest of the window's sends leaves it. */
  const waitOf = (sent: readonly number[], at: number) => Math.max(1_000, Math.min(...sent) + HOUR_MS - at);

  function refusalOf(member: MemberRecord, site: SiteRecord, at: number): CapRefusal | undefined {
    if (member.active !== undefined) return { reason: 'busy' };
    if (member.sent.length >= perMemberHour) return { reason: 'member', waitMs: waitOf(member.sent, at) };
    if (site.sent.length >= perSiteHour) return { reason: 'site', waitMs: waitOf(site.sent, at) };
    return undefined;
  }

  /** A store failure as the member reads it: nothing was sent. */
  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof StoreAccessError) throw new UploadStoreError(error);
      throw error;
    }
  }

  return {
    check: (userId, siteId) =>
      guarded(async () => {
        const at = now();
        const [member, site] = await Promise.all([
          records.read(memberKey(userId)),
          records.read(siteKey(siteId)),
        ]);
        return refusalOf(memberOf(member, at), siteOf(site, at), at);
      }),

    reserve: (userId, siteId) =>
      guarded(async () => {
        const at = now();
        try {
          await records.updateMany([memberKey(userId), siteKey(siteId)], ([rawMember, rawSite]) => {
            const member = memberOf(rawMember, at);
            const site = siteOf(rawSite, at);
            const refusal = refusalOf(member, site, at);
            if (refusal !== undefined) throw new Refused(refusal);
            return [{ sent: [...member.sent, at], active: at }, { sent: [...site.sent, at] }];
          });
        } catch (error) {
          if (error instanceof Refused) return { ok: false as const, refusal: error.refusal };
          throw error;
        }
        return { ok: true as const, ticket: { userId, siteId, at } };
      }),

    finish: (ticket, sent) =>
      guarded(async () => {
        const at = now();
        const without = (times: readonly number[]) => {
          const index = times.indexOf(ticket.at);
          return sent || index < 0 ? [...times] : [...times.slice(0, index), ...times.slice(index + 1)];
        };
        await records.updateMany(
          [memberKey(ticket.userId), siteKey(ticket.siteId)],
          ([rawMember, rawSite]) => {
            const member = memberOf(rawMember, at);
            const site = siteOf(rawSite, at);
            // Another upload's mark (this one's went stale and a new one began) is not this one's to clear.
            const active = member.active === ticket.at ? undefined : member.active;
            return [
              keptMember({ sent: without(member.sent), ...(active === undefined ? {} : { active }) }),
              keptSite({ sent: without(site.sent) }),
            ];
          },
        );
      }),

    forget: (userId) => guarded(() => records.remove(memberKey(userId))),
  };
}

/** The store failed around an upload; commands/upload/upload-send.ts says so (nothing was sent). */
export class UploadStoreError extends Error {
  constructor(cause: unknown) {
    super('the upload caps could not be read or written', { cause });
  }
}
