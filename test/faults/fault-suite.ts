/**
 * What every fault file shares: one harness for the whole file (the shared test/support harness, with a
 * fixed backoff jitter so waits are short and repeatable), closed at the end, and the file's stray
 * `unhandledRejection` / `uncaughtException` events recorded and required to be none.
 */
import { afterAll, beforeAll } from 'vitest';
import { recordStrayErrors } from '../support/checks.js';
import { startHarness, type Harness, type HarnessOptions } from '../support/harness.js';

/** Registers the file's hooks; `started` receives the harness before the first test. */
export function useFaultHarness(started: (h: Harness) => void, options: HarnessOptions = {}): void {
  const stray = recordStrayErrors();
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness({ ...options, registry: { random: () => 0.2, ...options.registry } });
    started(h);
  });
  afterAll(async () => {
    await h?.close();
    stray.stopAndExpectNone();
  });
}
