/**
 * The checks most bot tests end with: nothing Discord would refuse was sent (the local Discord's
 * `violations`), nothing could ping anyone (`mentionRisks`), no secret reached the logs, and no stray
 * async failure escaped.
 */
import { expect } from 'vitest';
import type { FakeDiscord, Violation } from '../fakes/discord/index.js';
import { FAKE_KEY } from '../fakes/philomena/index.js';

/** A violation a scenario caused on purpose (and checks itself). */
export type ExpectedViolation = (violation: Violation) => boolean;

/** No violation (other than the expected ones) and no mention risk so far. */
export function expectNoDiscordProblems(
  discord: Pick<FakeDiscord, 'violations' | 'mentionRisks'>,
  expected: readonly ExpectedViolation[] = [],
): void {
  expect(discord.violations.filter((v) => !expected.some((isExpected) => isExpected(v)))).toEqual([]);
  expect(discord.mentionRisks).toEqual([]);
}

/** Neither the board key nor the Discord token is in the log text. */
function expectNoSecretsLogged(h: { readonly discord: Pick<FakeDiscord, 'token'>; logText(): string }): void {
  const logs = h.logText();
  expect(logs).not.toContain(FAKE_KEY);
  expect(logs).not.toContain(h.discord.token);
}

/** Both of the above: the run so far was clean. */
export function expectCleanRun(
  h: { readonly discord: FakeDiscord; logText(): string },
  expected: readonly ExpectedViolation[] = [],
): void {
  expectNoDiscordProblems(h.discord, expected);
  expectNoSecretsLogged(h);
}

/** Stray async failures anywhere in this test file's process, recorded from now on. */
export function recordStrayErrors(): {
  readonly errors: unknown[];
  stop(): void;
  /** Stops recording and asserts nothing was recorded. */
  stopAndExpectNone(): void;
} {
  const errors: unknown[] = [];
  const onRejection = (reason: unknown): void => void errors.push(reason);
  const onException = (error: unknown): void => void errors.push(error);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  const stop = (): void => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
  return {
    errors,
    stop,
    stopAndExpectNone() {
      stop();
      expect(errors).toEqual([]);
    },
  };
}
