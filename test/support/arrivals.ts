/**
 * How a site's rate-limiting proxy counts: the most arrivals in any half-open span of `spanMs` (sliding),
 * for the tests and benches that check the board never sees more than its budget.
 */
export function mostInAnySpan(times: readonly number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last += 1) {
    while ((sorted[last] ?? 0) - (sorted[first] ?? 0) >= spanMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
