/**
 * What the runtime tells whoever watches it (the metrics), in one place, under the one rule every report
 * keeps: figures only, so an observer that throws changes nothing of what the runtime does.
 */
import { RESTEvents, type Client } from 'discord.js';
import type { InteractionKind, InteractionOutcome, RuntimeObserver } from './contract.js';
import { discordFailureOf, type DescribeError } from './failures.js';

/** Runs one report; what it throws is ignored (contract.ts `RuntimeObserver`: it must not throw). */
function tell(report: () => void): void {
  try {
    report();
  } catch {
    // Figures only.
  }
}

/** What the router reports of one interaction to the observer. */
export interface Watch {
  acknowledged(): void;
  answered(outcome: InteractionOutcome): void;
  /** Answered with `error` shown to the member: a user error, or an error. */
  failed(error: unknown): void;
}

/** For an interaction the observer files nowhere (a kind the bot does not handle). */
export const UNWATCHED: Watch = {
  acknowledged: () => undefined,
  answered: () => undefined,
  failed: () => undefined,
};

/** The observer's view of one interaction, timed from now (monotonic: the bot's clock may be moved). */
export function watchInteraction(
  observer: RuntimeObserver,
  describeError: DescribeError,
  kind: InteractionKind,
  command: string,
): Watch {
  const received = performance.now();
  const event = () => ({ kind, command, ms: performance.now() - received });
  return {
    acknowledged: () => tell(() => observer.acknowledged?.(event())),
    answered: (outcome) => tell(() => observer.answered?.({ ...event(), outcome })),
    failed(error) {
      const { id, expected } = describeError(error);
      const outcome = discordFailureOf(error) === undefined && expected ? 'user_error' : 'error';
      tell(() => observer.answered?.({ ...event(), outcome, errorId: id }));
    },
  };
}

/** Tells the observer each time discord.js's REST client waits for a Discord rate limit. */
export function observeRateLimits(client: Client, observer: RuntimeObserver | undefined): void {
  if (observer?.discordRateLimited === undefined) return;
  client.rest.on(RESTEvents.RateLimited, (info) => {
    tell(() => observer.discordRateLimited?.({ scope: info.scope, global: info.global }));
  });
}
