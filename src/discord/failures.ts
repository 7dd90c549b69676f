/**
 * Failures as the runtime sees them: a `UserFacingError` is shown as written; a failed Discord REST call is
 * classified (a dead token is never used again); anything else gets a generic line. What the features'
 * own failures (the board's, the settings store's) read like is theirs to say: the runtime takes a
 * `describeError` from the composition root (commands/shared/error-texts.ts).
 */
import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';

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

export const GENERIC_FAILURE_TEXT = 'Something went wrong. Please try again later.';

/** Turns a failure into what the member reads; the runtime's own part of it. */
export type DescribeError = (error: unknown) => UserErrorText;

/** The runtime's reading of a failure: shown as written, Discord's refusal, or unknown (a bug). */
export function runtimeErrorText(error: unknown): UserErrorText {
  if (error instanceof UserFacingError) return { text: error.message, expected: true };
  // Discord did not take a call: nothing the member did, and nothing to fix in the bot.
  if (discordFailureOf(error) !== undefined) return { text: GENERIC_FAILURE_TEXT, expected: true };
  return { text: GENERIC_FAILURE_TEXT, expected: false };
}
