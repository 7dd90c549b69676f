/**
 * The one place that turns a failure into what a member reads: short, ephemeral, nothing internal. Board
 * text (a query error) is escaped so it can neither format nor ping. Unexpected errors get a generic line
 * and are logged by the caller with context.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';
import {
  BadQueryError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  RateLimitedError,
  SettingsUnavailableError,
  SiteUnavailableError,
  isPhilomenaError,
} from '../errors.js';
import { escapeMarkdown } from '../bot/render/index.js';

/** A failure whose message is meant for the member as written (bad input the command detected). */
export class UserFacingError extends Error {
  override get name(): string {
    return 'UserFacingError';
  }
}

export interface UserErrorText {
  readonly text: string;
  /** False when the error is a bug or an unknown fault: log it with its stack. */
  readonly expected: boolean;
}

const SERVER_MESSAGE_MAX = 300;

function waitText(ms: number | undefined): string {
  const seconds = Math.max(1, Math.ceil((ms ?? 30_000) / 1000));
  return seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} s`;
}

/**
 * Discord's answers that mean an interaction token can no longer be used: 10062 Unknown interaction (the
 * 3 s answer window passed, or the interaction is unknown), 10015 Unknown Webhook and 50027 Invalid Webhook
 * Token (the 15 min token lifetime passed), 40060 already acknowledged (someone else answered it). Any
 * further call with that token is refused the same way.
 */
export const DEAD_TOKEN_CODES: ReadonlySet<number> = new Set([10062, 10015, 50027, 40060]);

/** A REST call to Discord that failed, as the router logs it. */
export interface DiscordFailure {
  /** `token-dead`: the interaction cannot be answered any more; `delivery`: Discord did not take a call. */
  readonly kind: 'token-dead' | 'delivery';
  /** Discord's JSON error code, when it sent one. */
  readonly code: number | string | undefined;
  readonly status: number | undefined;
  readonly method: string | undefined;
}

/** What Discord's REST client threw, or undefined when `error` is not a Discord REST failure. */
export function discordFailureOf(error: unknown): DiscordFailure | undefined {
  if (error instanceof DiscordAPIError) {
    const dead = typeof error.code === 'number' && DEAD_TOKEN_CODES.has(error.code);
    return {
      kind: dead ? 'token-dead' : 'delivery',
      code: error.code,
      status: error.status,
      method: error.method,
    };
  }
  if (error instanceof HTTPError) {
    return { kind: 'delivery', code: undefined, status: error.status, method: error.method };
  }
  if (error instanceof RateLimitError) {
    return { kind: 'delivery', code: undefined, status: 429, method: error.method };
  }
  return undefined;
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
  if (error instanceof UserFacingError) return { text: error.message, expected: true };
  if (error instanceof SettingsUnavailableError)
    return { text: SETTINGS_UNAVAILABLE_TEXT[error.operation], expected: false };
  // Discord did not take a call: nothing the member did, and nothing to fix in the bot.
  if (discordFailureOf(error) !== undefined)
    return { text: 'Something went wrong. Please try again later.', expected: true };
  if (!isPhilomenaError(error))
    return { text: 'Something went wrong. Please try again later.', expected: false };
  if (error instanceof NotFoundError) return { text: 'Not found on the site.', expected: true };
  if (error instanceof BadQueryError) {
    const message = escapeMarkdown(error.serverMessage.slice(0, SERVER_MESSAGE_MAX));
    return { text: `The site did not understand that search: ${message}`, expected: true };
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
  return { text: 'Something went wrong. Please try again later.', expected: false };
}
