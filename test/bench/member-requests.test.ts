/**
 * The member-requests bench (bench/member-requests.bench.ts) at a tiny size: its three scenarios run to
 * the end against the local board and it prints every row it promises. No timings are checked: the
 * figures are for the README, and this machine is noisy.
 */
import { describe, expect, it } from 'vitest';
import { FULL, runMemberRequests, type MemberRequestsSize } from '../../bench/member-requests.bench.js';
import { formatTable } from '../../bench/report.js';

const TINY: MemberRequestsSize = {
  ...FULL,
  durationMs: 800,
  servers: 2,
  members: 3,
  ordinaryPerSecond: 5,
  feeds: 1,
  feedIntervalMs: 400,
  unfurlsPerSecond: 3,
  flooders: 1,
  floodConcurrency: 2,
  budget: { overall: { limit: 4, windowMs: 200 }, search: { limit: 3, windowMs: 200 }, maxWaitMs: 500 },
  boardLatencyMs: 0,
};

const SCENARIOS = ['(a) baseline', '(b) + own-key flood (account)', '(c) + the flood as interactive'];

describe('the member-requests bench', () => {
  it('GIVEN a tiny size THEN the three scenarios complete and print their rows per class, shares, feeds and the budget', async () => {
    const rows = await runMemberRequests(TINY);
    const metrics = rows.map((r) => r.metric);
    for (const scenario of SCENARIOS) {
      const mine = metrics.filter((m) => m.startsWith(`${scenario}: `));
      expect(mine.some((m) => m.includes('ordinary members (interactive): time to answer'))).toBe(true);
      expect(mine.some((m) => m.includes('unfurls: time to answer'))).toBe(true);
      expect(mine.some((m) => m.includes('feed polls: time to answer'))).toBe(true);
      expect(mine.some((m) => m.includes('each ordinary member’s share'))).toBe(true);
      expect(mine.some((m) => m.includes('without an answered poll'))).toBe(true);
      expect(mine.some((m) => m.includes('most in any 200 ms'))).toBe(true);
      expect(mine.some((m) => m.includes('flooders: time to answer'))).toBe(scenario !== '(a) baseline');
      expect(mine.some((m) => m.includes('each flooder’s share'))).toBe(scenario !== '(a) baseline');
    }
    expect(metrics.filter((m) => m.includes('against (a)'))).toHaveLength(2);
    for (const row of rows) expect(row.value).not.toBe('');
    const table = formatTable(rows);
    for (const scenario of SCENARIOS) expect(table).toContain(scenario);
  }, 30_000);
});
