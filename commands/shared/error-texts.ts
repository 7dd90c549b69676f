/**
 * The one place that turns a feature's failure into what a member reads: short, ephemeral, nothing
 * internal. Board text (a query error) is escaped so it can neither format nor ping. Unexpected errors get
 * a generic line and are logged by the runtime with context.
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
import { GENERIC_FAILURE_TEXT, runtimeErrorText, type UserErrorText } from '../../src/discord/failures.js';

const SERVER_MESSAGE_MAX = 300;

function waitText(ms: number | undefined): string {
  const seconds = Math.max(1, Math.ceil((ms ?? 30_000) / 1000));
  return seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} s`;
}

/**
 * What the member reads when the server's settings could not be used. Not "expected": a failing store is
 * the operator's to fix, so it is logged at error with its cause.
 */
const SETTINGS_UNAVAILABLE_TEXT: Readonly<Record<SettingsUnavailableError['operation'], string>> = {
  read: "Could not read this server's settings right now. Try again in a moment.",
  write: "Could not save this server's settings right now. Try again in a moment.",
  delete: "Could not reset this server's settings right now. Try again in a moment.",
};

export function userErrorText(error: unknown): UserErrorText {
  if (error instanceof SettingsUnavailableError)
    return { text: SETTINGS_UNAVAILABLE_TEXT[error.operation], expected: false };
  if (!isPhilomenaError(error)) return runtimeErrorText(error);
  if (error instanceof NotFoundError) return { text: 'Not found on the site.', expected: true };
  if (error instanceof BadQueryError) {
    const message = escapeMarkdown(error.serverMessage.slice(0, SERVER_MESSAGE_MAX));
    return { text: `The site did not understand that search: ${message}`, expected: true };
  }
  if (error instanceof SiteBlockedError) {
    // The board's anti-bot block (docs/board-behaviour.md): the bot sends it nothing for a quarter of an
    // hour. Say whose decision it is and how long, plainly; "busy, try again in 16 minutes" would not.
    const name = escapeMarkdown(error.siteName);
    return {
      text: `${name} has paused the bot's requests for a while (it took them for too many). Try again in ${waitText(error.retryAfterMs)}.`,
      expected: true,
    };
  }
  if (error instanceof RateLimitedError) {
    return { text: `The site is busy. Try again in ${waitText(error.retryAfterMs)}.`, expected: true };
  }
  if (error instanceof SiteUnavailableError) {
    // Our own queue is full: the site is fine, the bot is holding back.
    if (error.reason === 'budget-exhausted') {
      return { text: `The site is busy. Try again in ${waitText(error.retryAfterMs)}.`, expected: true };
    }
    // Failing (5xx, timeouts, resets) or the breaker holding calls back after such failures: say it is
    // down, with the wait when one is known (the breaker's cool-down, a 503's Retry-After).
    const when =
      error.retryAfterMs === undefined ? 'Try again later.' : `Try again in ${waitText(error.retryAfterMs)}.`;
    return { text: `The site is down or not answering right now. ${when}`, expected: true };
  }
  if (error instanceof ForbiddenError) {
    return { text: 'The site refused that request.', expected: true };
  }
  if (error instanceof InvalidResponseError) {
    return { text: 'The site sent an answer the bot could not read. Try again later.', expected: false };
  }
  return { text: GENERIC_FAILURE_TEXT, expected: false };
}
