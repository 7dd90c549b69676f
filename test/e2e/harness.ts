/** The e2e suites' harness is the shared one (test/support/harness.ts), kept at this path for its users. */
export {
  parseLogLines,
  ROOMY_BUDGET,
  startHarness,
  type Harness,
  type HarnessOptions,
  type MovableClock,
} from '../support/harness.js';
