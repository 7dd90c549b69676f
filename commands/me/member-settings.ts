/**
 * A member's own settings (`/me`), kept under their Discord user id alone: they follow the member into every
 * server, DM and group DM, and no server can read or change them. Kept without a lifetime, like a
 * server's settings, and under the same two rules (commands/shared/guild-settings.ts says why):
 * - every change is one atomic read-modify-write of the member's record (`RecordStore.update`);
 * - a store that fails throws `SettingsUnavailableError`, never "nothing set": a member who turned
 *   unfurling off must not see their links unfurled because Redis restarted. A record that was read but
 *   is damaged is logged and reads as unset (the member can set it again; nothing else can).
 *
 * What is kept, and nothing else: whether the member's own links unfurl, a board filter per site for the
 * places no server decides (with a linked account, possibly a private filter of their own), and the
 * member's hidden tags (bounded). `forget` deletes the record at once.
 */
import type Keyv from 'keyv';
import { z } from 'zod';
import { UserFacingError } from '../../src/discord/failures.js';
import { memberStoreStep, SettingsUnavailableError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { recordStoreOf } from '../../src/store/index.js';

/** Hidden tags a member may keep (issue 20: every list is bounded, and the bound is said). */
const HIDDEN_TAGS_MAX = 200;
/** Longer than any tag name a board allows; only a bound on what a record may hold. */
const TAG_NAME_MAX = 200;

export interface MemberSettingsRecord {
  /** False when the member turned unfurling of their own links off (on by default). */
  readonly unfurl: boolean;
  /**
   * A filter id by `Site.id`, for the places where neither the channel nor the server chose one
   * (commands/shared/view.ts): a public or system filter, or with a linked account one of the member's own
   * (private ones included: their key reads it, commands/me/me-filter.ts).
   */
  readonly filters: Readonly<Record<string, number>>;
  /** Tag names, as the board names them, hidden from what this member asks for; at most 200. */
  readonly hiddenTags: readonly string[];
}

export interface MemberSettings {
  /** Rejects with `SettingsUnavailableError` when the store cannot be read. */
  get(userId: string): Promise<MemberSettingsRecord>;
  /** Resolves with the stored record once written; rejects with `SettingsUnavailableError` (nothing written). */
  setUnfurl(userId: string, on: boolean): Promise<MemberSettingsRecord>;
  /** Sets the member's filter on a site, or clears it (undefined). */
  setFilter(userId: string, siteId: string, filterId: number | undefined): Promise<MemberSettingsRecord>;
  /**
   * Replaces the hidden tags with `change(current)` in one atomic step (for `/me hide` and `/me unhide`).
   * Rejects with the `me.hidden-tags-full` UserFacingError, writing nothing, when the result holds more
   * than 200 tags.
   */
  updateHiddenTags(
    userId: string,
    change: (current: readonly string[]) => readonly string[],
  ): Promise<MemberSettingsRecord>;
  /** Deletes everything kept about the member; fine when nothing is. Rejects with `SettingsUnavailableError`. */
  forget(userId: string): Promise<void>;
}

const recordSchema = z.object({
  unfurl: z.boolean().default(true),
  filters: z.record(z.string(), z.number().int().positive()).default({}),
  hiddenTags: z.array(z.string().min(1).max(TAG_NAME_MAX)).max(HIDDEN_TAGS_MAX).default([]),
});

const EMPTY: MemberSettingsRecord = { unfurl: true, filters: {}, hiddenTags: [] };

/** The record as stored: no key for what is at its default, so a member at the defaults keeps `{}`. */
function stored(record: MemberSettingsRecord): Record<string, unknown> {
  return {
    ...(record.unfurl ? {} : { unfurl: false }),
    ...(Object.keys(record.filters).length === 0 ? {} : { filters: record.filters }),
    ...(record.hiddenTags.length === 0 ? {} : { hiddenTags: record.hiddenTags }),
  };
}

/** What a member reads when the store fails them: their own settings, not a server's. */
const UNAVAILABLE: Readonly<
  Record<SettingsUnavailableError['operation'], { readonly id: string; readonly text: string }>
> = {
  read: {
    id: 'me.unavailable.read',
    text: 'Could not read your own settings (/me) right now. Try again in a moment.',
  },
  write: {
    id: 'me.unavailable.write',
    text: 'Could not save your own settings (/me) right now. Nothing was changed. Try again in a moment.',
  },
  delete: {
    id: 'me.unavailable.delete',
    text: 'Could not delete your settings right now. They are still kept; try /me forget again in a moment.',
  },
};

/**
 * `error` as the member reads it: a failing member store says "your settings" (the server's text would
 * be wrong in a DM); anything else is left as it is.
 */
export function memberFacing(error: unknown): unknown {
  if (!(error instanceof SettingsUnavailableError)) return error;
  const { id, text } = UNAVAILABLE[error.operation];
  return new UserFacingError(id, text, { cause: error });
}

export function createMemberSettings(deps: {
  readonly store: Keyv;
  /** Told when a stored record cannot be read (the member silently loses their settings otherwise). */
  readonly logger: Logger;
}): MemberSettings {
  const { logger } = deps;
  const records = recordStoreOf(deps.store);
  const keyOf = (userId: string) => `settings:member:${userId}`;

  const guarded = memberStoreStep;

  function parse(userId: string, raw: unknown): MemberSettingsRecord {
    if (raw === undefined) return EMPTY;
    const parsed = recordSchema.safeParse(raw);
    if (!parsed.success) {
      logger.warn(
        { userId, issues: parsed.error.issues.map((issue) => issue.path.map(String).join('.')) },
        "a member's stored settings are unreadable; using the defaults",
      );
      return EMPTY;
    }
    return parsed.data;
  }

  function update(
    userId: string,
    change: (current: MemberSettingsRecord) => MemberSettingsRecord,
  ): Promise<MemberSettingsRecord> {
    return guarded(userId, async () => {
      let next: MemberSettingsRecord = EMPTY;
      await records.update(keyOf(userId), (raw) => {
        next = change(parse(userId, raw));
        return stored(next);
      });
      return next;
    });
  }

  return {
    get: (userId) => guarded(userId, async () => parse(userId, await records.read(keyOf(userId)))),
    setUnfurl: (userId, on) => update(userId, (current) => ({ ...current, unfurl: on })),
    setFilter: (userId, siteId, filterId) =>
      update(userId, (current) => {
        const { [siteId]: _previous, ...others } = current.filters;
        return { ...current, filters: filterId === undefined ? others : { ...others, [siteId]: filterId } };
      }),
    updateHiddenTags: (userId, change) =>
      update(userId, (current) => {
        const hiddenTags = [...new Set(change(current.hiddenTags))];
        if (hiddenTags.length > HIDDEN_TAGS_MAX) {
          throw new UserFacingError(
            'me.hidden-tags-full',
            `You can hide at most ${HIDDEN_TAGS_MAX} tags. Unhide some with /me unhide first.`,
            { params: { max: HIDDEN_TAGS_MAX } },
          );
        }
        return { ...current, hiddenTags };
      }),
    forget: (userId) => guarded(userId, () => records.remove(keyOf(userId))),
  };
}
