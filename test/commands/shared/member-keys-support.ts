/** What the member-key tests share: the check that a text holds no run of 5 characters of a key. */
import { expect } from 'vitest';

/**
 * Fails when `text` holds any run of 5 or more characters of `key` (any longer run holds one of 5). Four
 * are allowed: `/me show` says the last four, and they are kept in the clear beside the sealed key.
 */
export function expectNoRunOf(key: string, text: string): void {
  for (let start = 0; start + 5 <= key.length; start += 1) {
    const run = key.slice(start, start + 5);
    expect(text.includes(run), `a run of 5 characters of the key (from ${start})`).toBe(false);
  }
}
