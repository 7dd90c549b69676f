/**
 * The one place that turns a feature's failure into what a member reads: short, ephemeral, nothing
 * internal. Board text (a query error) is escaped so it can neither format nor ping. Unexpected errors get
 * a generic line and are logged by the runtime with context. Each text comes with its identifier (and the
 * values it is built from), listed in USER_ERROR_IDS, and is written in the member's language: the
 * catalogues (`locales/<locale>.json`) hold `error.<id>` for every identifier, with the params as
 * placeholders; the English text here is what English-speaking members read, byte for byte.
 */
import {
  BadQueryError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  RateLimitedError,
  SettingsUnavailableError,
  SiteBlockedError,
  SiteUnavailableError,
  isPhilomenaError,
} from '../../src/errors.js';
import { escapeMarkdown } from '../../src/render/index.js';
import {
  GENERIC_FAILURE_TEXT,
  inLocale,
  RUNTIME_ERROR_IDS,
  runtimeErrorText,
  type UserErrorText,
} from '../../src/discord/failures.js';

const SERVER_MESSAGE_MAX = 300;

/**
 * Every identifier a member's error text is filed under, one per distinct message (the runtime's own, the
 * library's failures as read here, and each feature's `UserFacingError`s). Metrics count by them only, and
 * the message catalogues are keyed on them (`error.<id>`); a test holds them unique and label-safe and
 * checks each identifier a `new UserFacingError` in the sources names is listed here, and another that
 * every shipped language has each one's key with the params as its placeholders.
 */
export const USER_ERROR_IDS = [
  ...Object.values(RUNTIME_ERROR_IDS),
  // The board's failures and the settings store's (read in userErrorText below).
  'board.not-found',
  'board.bad-query',
  'board.blocked',
  'board.busy',
  'board.down',
  'board.down-later',
  'board.refused',
  'board.unreadable',
  'settings.unavailable.read',
  'settings.unavailable.write',
  'settings.unavailable.delete',
  // The features' own (a stale button says the runtime's `button.gone`).
  'download.failed',
  'download.not-readable',
  'download.not-handed-over',
  'file.too-large',
  'feed.server-only',
  'feed.manage-server',
  'feed.unknown-site',
  'feed.no-such-feed',
  'feed.channel-type',
  'feed.member-cannot-post',
  'feed.bot-cannot-post',
  'feed.bad-query',
  'feed.my-term',
  'feed.query-needed',
  'feed.channel-unseen',
  'feed.limit-reached',
  'feed.unknown-subcommand',
  'image.bad-id',
  'gallery.bad-id',
  'forum.unknown',
  'gallery.no-input',
  'me.unavailable.read',
  'me.unavailable.write',
  'me.unavailable.delete',
  'me.unknown-subcommand',
  'me.unknown-site',
  'me.filter-and-reset',
  'me.hidden-tags-full',
  'me.link-off',
  'me.not-a-key',
  'me.too-many-sites',
  'me.key-refused',
  'paging.not-owner',
  'reverse.files-busy',
  'reverse.one-at-a-time',
  'reverse.url-or-file',
  'reverse.not-http',
  'reverse.no-picture',
  'reverse.result-gone',
  'reverse.upload-timed-out',
  'reverse.not-an-image',
  'search.choice-gone',
  'search.link-needed',
  'search.key-refused',
  'account.key-refused',
  'me.filter-not-usable',
  'tags.too-many',
  'tags.list-full',
  'settings.server-only',
  'settings.manage-server',
  'settings.unknown-site',
  'settings.unknown-setting',
  'settings.filter-not-public',
  'settings.filter-private',
  'settings.import.too-large',
  'settings.import.not-json',
  'settings.import.not-ours',
  'settings.import.newer',
  'settings.import.invalid',
  'settings.import.store-failed',
  'settings.import.not-yours',
  'settings.too-many-channels',
  'settings.channel-kind',
  'settings.channel-missing',
  'settings.unknown-preset',
  'settings.bad-filter-id',
  'tags.none-given',
  'tags.none-accepted',
  'show-card.no-links',
  'show-card.board-failed',
  'upload.off',
  'upload.link-off',
  'upload.link-needed',
  'upload.url-too-long',
  'upload.url-not-http',
  'upload.url-credentials',
  'upload.source-too-long',
  'upload.source-not-http',
  'upload.control-characters',
  'upload.tags-too-long',
  'upload.tags-rating',
  'upload.tags-few',
  'upload.tags-safe',
  'upload.tags-sexual',
  'upload.tags-grim',
  'upload.description-too-long',
  'upload.board-refused',
  'upload.busy',
  'upload.member-cap',
  'upload.site-cap',
  'upload.store-failed',
  'upload.key-refused',
  'upload.uncertain',
  'upload.no-image',
  'upload.form-late',
] as const;

type UserErrorId = (typeof USER_ERROR_IDS)[number];

/** The English wait: seconds, or whole minutes from two minutes on. */
function waitText(seconds: number): string {
  return seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} s`;
}

/** A wait in whole seconds (at least one; 30 s when the board named none). */
function waitSeconds(ms: number | undefined): number {
  return Math.max(1, Math.ceil((ms ?? 30_000) / 1000));
}

/**
 * What the member reads when the server's settings could not be used. Not "expected": a failing store is
 * the operator's to fix, so it is logged at error with its cause.
 */
const SETTINGS_UNAVAILABLE: Readonly<
  Record<SettingsUnavailableError['operation'], { readonly id: UserErrorId; readonly text: string }>
> = {
  read: {
    id: 'settings.unavailable.read',
    text: "Could not read this server's settings right now. Try again in a moment.",
  },
  write: {
    id: 'settings.unavailable.write',
    text: "Could not save this server's settings right now. Try again in a moment.",
  },
  delete: {
    id: 'settings.unavailable.delete',
    text: "Could not reset this server's settings right now. Try again in a moment.",
  },
};

function busy(retryAfterMs: number | undefined): UserErrorText {
  const seconds = waitSeconds(retryAfterMs);
  return {
    id: 'board.busy',
    params: { seconds },
    text: `The site is busy. Try again in ${waitText(seconds)}.`,
    expected: true,
  };
}

/** What the member reads of `error`, in the language of `locale` (their interaction's; English without). */
export function userErrorText(error: unknown, locale?: string | null): UserErrorText {
  return inLocale(englishErrorText(error), locale);
}

function englishErrorText(error: unknown): UserErrorText {
  if (error instanceof SettingsUnavailableError)
    return { ...SETTINGS_UNAVAILABLE[error.operation], expected: false };
  if (!isPhilomenaError(error)) return runtimeErrorText(error);
  if (error instanceof NotFoundError)
    return { id: 'board.not-found', text: 'Not found on the site.', expected: true };
  if (error instanceof BadQueryError) {
    const message = escapeMarkdown(error.serverMessage.slice(0, SERVER_MESSAGE_MAX));
    return {
      id: 'board.bad-query',
      params: { message },
      text: `The site did not understand that search: ${message}`,
      expected: true,
    };
  }
  if (error instanceof SiteBlockedError) {
    // The board's anti-bot block (docs/board-behaviour.md): the bot sends it nothing for a quarter of an
    // hour. Say whose decision it is and how long, plainly; "busy, try again in 16 minutes" would not.
    const site = escapeMarkdown(error.siteName);
    const seconds = waitSeconds(error.retryAfterMs);
    return {
      id: 'board.blocked',
      params: { site, seconds },
      text: `${site} has paused the bot's requests for a while (it took them for too many). Try again in ${waitText(seconds)}.`,
      expected: true,
    };
  }
  if (error instanceof RateLimitedError) return busy(error.retryAfterMs);
  if (error instanceof SiteUnavailableError) {
    // Our own queue is full: the site is fine, the bot is holding back.
    if (error.reason === 'budget-exhausted') return busy(error.retryAfterMs);
    // Failing (5xx, timeouts, resets) or the breaker holding calls back after such failures: say it is
    // down, with the wait when one is known (the breaker's cool-down, a 503's Retry-After).
    const down = 'The site is down or not answering right now.';
    if (error.retryAfterMs === undefined)
      return { id: 'board.down-later', text: `${down} Try again later.`, expected: true };
    const seconds = waitSeconds(error.retryAfterMs);
    return {
      id: 'board.down',
      params: { seconds },
      text: `${down} Try again in ${waitText(seconds)}.`,
      expected: true,
    };
  }
  if (error instanceof ForbiddenError) {
    return { id: 'board.refused', text: 'The site refused that request.', expected: true };
  }
  if (error instanceof InvalidResponseError) {
    return {
      id: 'board.unreadable',
      text: 'The site sent an answer the bot could not read. Try again later.',
      expected: false,
    };
  }
  return { id: RUNTIME_ERROR_IDS.generic, text: GENERIC_FAILURE_TEXT, expected: false };
}
