/**
 * Admission: whether a new interaction may run at all. While the bot shuts down, nothing new is taken;
 * otherwise each member has limits of their own (COMMAND_RATE_LIMIT), checked before any board call:
 * commands, and apart from them over the same window buttons at BUTTON_FACTOR times the command limit
 * (paging through results must not use up a member's commands) and autocomplete (one call per keystroke
 * pause) at AUTOCOMPLETE_FACTOR times.
 */
import type { Interaction } from 'discord.js';
import { createKeyedLimiter, type KeyedLimiter } from './keyed-limiter.js';
import type { RateLimit } from './options.js';

const BUTTON_FACTOR = 3;
const AUTOCOMPLETE_FACTOR = 10;
export const RESTARTING_TEXT = 'The bot is restarting. Try again in a moment.';

/** Discord's relative timestamp (`in 5 seconds`), rounded up so it never says "now" too early. */
export function tryAgainText(what: string, retryAfterMs: number, wallClockMs = Date.now()): string {
  const at = Math.ceil((wallClockMs + retryAfterMs) / 1000);
  return `You are ${what} too quickly. Try again <t:${at}:R>.`;
}

export type AdmissionKind = 'command' | 'button' | 'autocomplete';

/** What admission decided: run it, or answer with `text` instead (autocomplete: with no choices). */
export type Admission =
  { readonly ok: true } | { readonly ok: false; readonly text: string; readonly why: string };

export interface Admissions {
  admit(interaction: Pick<Interaction, 'user'>, kind: AdmissionKind): Admission;
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
      if (!accepting) return { ok: false, text: RESTARTING_TEXT, why: 'shutting down' };
      const taken = limiters[kind]?.take(interaction.user.id);
      if (taken === undefined || taken.ok) return { ok: true };
      const what = kind === 'button' ? 'clicking' : 'using commands';
      return { ok: false, text: tryAgainText(what, taken.retryAfterMs), why: `over the ${kind} limit` };
    },
  };
}
