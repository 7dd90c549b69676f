/**
 * Failures as the runtime sees them: a `UserFacingError` is shown as written (in English; in the member's
 * language through the catalogue key `error.<id>`), under its identifier (what metrics count by; the full list is commands/shared/error-texts.ts
 * `USER_ERROR_IDS`); a failed Discord REST call is classified (a dead token is never used again); anything
 * else gets a generic line. What the features' own failures (the board's, the settings store's) read like
 * is theirs to say: the runtime takes a `describeError` from the composition root.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';
import { shippedTranslator, SOURCE_LOCALE, type Translator } from '../i18n/index.js';

/**
 * Values a message is built from (a number of seconds, a site's name), kept apart from its English text so
 * a translation can put them where its language wants them.
 */
export type UserErrorParams = Readonly<Record<string, string | number>>;

/**
 * What a member reads, as data: a stable identifier (one per distinct message, lowercase words joined by
 * dots and dashes, safe as a metric label and as a key of a message catalogue), its parameters, and the
 * English text built from them.
 */
export interface UserErrorText {
  readonly id: string;
  readonly params?: UserErrorParams;
  readonly text: string;
  /** False when the error is a bug or an unknown fault: log it with its stack. */
  readonly expected: boolean;
}

/** Lowercase words of letters and digits, joined by `.` or `-`: e.g. `board.not-found`. */
const LABEL_SAFE_ID = /^[a-z0-9]+(?:[.-][a-z0-9]+)*$/;

export function isLabelSafeId(id: string): boolean {
  return LABEL_SAFE_ID.test(id) && id.length <= 64;
}

/**
 * A failure whose message is meant for the member as written (bad input the command detected), under a
 * stable identifier (`id`) that metrics count by and the catalogues key its translations on (`error.<id>`,
 * whose placeholders are the names in `params`).
 */
export class UserFacingError extends Error {
  readonly id: string;
  readonly params: UserErrorParams | undefined;

  constructor(id: string, text: string, options?: ErrorOptions & { readonly params?: UserErrorParams }) {
    super(text, options);
    this.id = id;
    this.params = options?.params;
  }

  override get name(): string {
    return 'UserFacingError';
  }
}

/** The runtime's own identifiers: what it says itself, whatever the features are. */
export const RUNTIME_ERROR_IDS = {
  generic: 'generic',
  /** A Discord REST call failed: nothing the member did. */
  discordRefused: 'discord.refused',
  buttonGone: 'button.gone',
  /** A modal submit nobody handles (the form's own words: "button" would be wrong). */
  formGone: 'form.gone',
  commandUnknown: 'command.unknown',
  guildOnly: 'precondition.guild-only',
  memberPermissions: 'precondition.member-permissions',
} as const;

/**
 * Discord's answers that mean an interaction token can no longer be used: 10062 Unknown interaction (the
 * 3 s answer window passed, or the interaction is unknown), 10015 Unknown Webhook and 50027 Invalid Webhook
 * Token (the 15 min token lifetime passed), 40060 already acknowledged (someone else answered it). Any
 * further call with that token is refused the same way.
 */
const DEAD_TOKEN_CODES: ReadonlySet<number> = new Set([10062, 10015, 50027, 40060]);

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

/**
 * Turns a failure into what the member reads, in the language of `locale` (the interaction's
 * `interaction.locale`: they asked, the words are theirs); English without one.
 */
export type DescribeError = (error: unknown, locale?: string | null) => UserErrorText;

/** The catalogue key of an error's text: `error.<id>` (locales/<locale>.json). */
export function errorKey(id: string): string {
  return `error.${id}`;
}

/**
 * What a message's placeholders get beyond the error's own params. A wait (`seconds`) reads as seconds up to
 * two minutes and as whole minutes from there on; a message cannot divide, so it gets `minutes` too (0 while
 * seconds are shown) and chooses with `{minutes, plural, =0 {...} one {...} other {...}}`.
 */
export function messageParams(params: UserErrorParams | undefined): UserErrorParams {
  const seconds = params?.['seconds'];
  if (typeof seconds !== 'number') return params ?? {};
  return { ...params, minutes: seconds >= 120 ? Math.ceil(seconds / 60) : 0 };
}

/**
 * `described` with its text in `locale`'s language (the catalogue's `error.<id>`, filled with its params).
 * English stays the error's own text, byte for byte; so does any language when the catalogue has no key
 * for the id (a new error someone has not put in the catalogue yet) or the translation cannot be filled
 * (a placeholder the error does not carry): an error must always reach the member.
 */
export function inLocale(
  described: UserErrorText,
  locale: string | null | undefined,
  translator?: Translator,
): UserErrorText {
  if (locale === undefined || locale === null) return described;
  translator ??= shippedTranslator();
  if (translator.resolve(locale) === SOURCE_LOCALE) return described;
  const key = errorKey(described.id);
  if (!translator.has(key)) return described;
  try {
    return { ...described, text: translator.t(locale, key, messageParams(described.params)) };
  } catch {
    return described;
  }
}

/** The runtime's reading of a failure: shown as written, Discord's refusal, or unknown (a bug). */
export function runtimeErrorText(error: unknown, locale?: string | null): UserErrorText {
  return inLocale(englishRuntimeErrorText(error), locale);
}

function englishRuntimeErrorText(error: unknown): UserErrorText {
  if (error instanceof UserFacingError) {
    const { id, params, message: text } = error;
    return params === undefined ? { id, text, expected: true } : { id, params, text, expected: true };
  }
  // Discord did not take a call: nothing the member did, and nothing to fix in the bot.
  if (discordFailureOf(error) !== undefined)
    return { id: RUNTIME_ERROR_IDS.discordRefused, text: GENERIC_FAILURE_TEXT, expected: true };
  return { id: RUNTIME_ERROR_IDS.generic, text: GENERIC_FAILURE_TEXT, expected: false };
}
