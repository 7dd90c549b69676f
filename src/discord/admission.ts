/**
 * Admission: whether a new interaction may run at all. While the bot shuts down, nothing new is taken;
 * otherwise each member has limits of their own (COMMAND_RATE_LIMIT), checked before any board call:
 * commands, and apart from them over the same window buttons at BUTTON_FACTOR times the command limit
 * (paging through results must not use up a member's commands) and autocomplete (one call per keystroke
 * pause) at AUTOCOMPLETE_FACTOR times. A member turned away reads why in their own language (the catalogue
 * keys `error.<id>` of ADMISSION_IDS).
 */
import type { Interaction } from 'discord.js';
import { inLocale } from './failures.js';
import { createKeyedLimiter, type KeyedLimiter } from './keyed-limiter.js';
import type { RateLimit } from './options.js';

const BUTTON_FACTOR = 3;
const AUTOCOMPLETE_FACTOR = 10;
export const RESTARTING_TEXT = 'The bot is restarting. Try again in a moment.';

/** What admission says, by identifier: the catalogue keys are `error.<id>`. */
export const ADMISSION_IDS = {
  restarting: 'admission.restarting',
  command: 'admission.commands-too-fast',
  button: 'admission.buttons-too-fast',
} as const;

/** Discord's relative timestamp markup (`<t:…:R>`), rounded up so it never says "now" too early. */
function relativeTimestamp(retryAfterMs: number, wallClockMs: number): string {
  return `<t:${Math.ceil((wallClockMs + retryAfterMs) / 1000)}:R>`;
}

/**
 * The English text of a member over a limit. The wait is Discord's relative timestamp: each member's
 * client shows it in their own language ("in 5 seconds", "in 5 Sekunden"), so it goes into the
 * translations as a placeholder (`when`), not as a number.
 */
export function tryAgainText(what: string, retryAfterMs: number, wallClockMs = Date.now()): string {
  return overLimitEnglish(what, relativeTimestamp(retryAfterMs, wallClockMs));
}

function overLimitEnglish(what: string, when: string): string {
  return `You are ${what} too quickly. Try again ${when}.`;
}

/** The text of a member over a limit, in `locale`'s language. */
function overLimitText(
  kind: 'command' | 'button',
  retryAfterMs: number,
  locale: string | null | undefined,
): string {
  const what = kind === 'button' ? 'clicking' : 'using commands';
  const when = relativeTimestamp(retryAfterMs, Date.now());
  const english = overLimitEnglish(what, when);
  return inLocale({ id: ADMISSION_IDS[kind], params: { when }, text: english, expected: true }, locale).text;
}

/** What admission reads of an interaction: whose it is, and their language. */
type Admittable = { readonly user: Pick<Interaction['user'], 'id'>; readonly locale?: string | null };

export type AdmissionKind = 'command' | 'button' | 'autocomplete';

/** What admission decided: run it, or answer with `text` instead (autocomplete: with no choices). */
export type Admission =
  { readonly ok: true } | { readonly ok: false; readonly text: string; readonly why: string };

export interface Admissions {
  /** `interaction.locale` is the language a refusal is written in (English without one). */
  admit(interaction: Admittable, kind: AdmissionKind): Admission;
  /** When false, every new interaction is turned away with RESTARTING_TEXT; work already started runs on. */
  setAccepting(accepting: boolean): void;
}

export function createAdmissions(options: {
  /** Commands per member; undefined means no limit (buttons and autocomplete then have none either). */
  readonly commandRateLimit: RateLimit | undefined;
  readonly now: () => number;
}): Admissions {
  const rate = options.commandRateLimit;
  const make = (factor: number): KeyedLimiter | undefined =>
    rate === undefined
      ? undefined
      : createKeyedLimiter({ limit: rate.limit * factor, windowMs: rate.windowMs, now: options.now });
  const limiters: Readonly<Record<AdmissionKind, KeyedLimiter | undefined>> = {
    command: make(1),
    button: make(BUTTON_FACTOR),
    autocomplete: make(AUTOCOMPLETE_FACTOR),
  };
  let accepting = true;
  return {
    setAccepting(value) {
      accepting = value;
    },
    admit(interaction, kind) {
      if (!accepting) {
        const restarting = { id: ADMISSION_IDS.restarting, text: RESTARTING_TEXT, expected: true };
        return { ok: false, text: inLocale(restarting, interaction.locale).text, why: 'shutting down' };
      }
      const taken = limiters[kind]?.take(interaction.user.id);
      if (taken === undefined || taken.ok) return { ok: true };
      // Autocomplete is turned away with no choices: its text is never shown.
      const text = overLimitText(
        kind === 'button' ? 'button' : 'command',
        taken.retryAfterMs,
        interaction.locale,
      );
      return { ok: false, text, why: `over the ${kind} limit` };
    },
  };
}
