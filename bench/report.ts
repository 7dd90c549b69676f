/** Shared shape of benchmark results; bench/run.ts prints them as one table. */
export interface BenchRow {
  /** Which benchmark, e.g. "client". */
  readonly group: string;
  /** What was measured, e.g. "upstream calls for 100 concurrent identical image requests". */
  readonly metric: string;
  /** The figure, already formatted with its unit, e.g. "1", "0.12 ms", "1,234,567 msg/s". */
  readonly value: string;
  /** The goal, if any, e.g. "1" or "> 200,000 msg/s". */
  readonly goal?: string;
  /** Whether the goal was met (undefined when there is no goal). */
  readonly ok?: boolean;
}

export type Bench = () => Promise<readonly BenchRow[]>;

export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['group', 'metric', 'value', 'goal', 'met'];
  const body = rows.map((r) => [
    r.group,
    r.metric,
    r.value,
    r.goal ?? '',
    r.ok === undefined ? '' : r.ok ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}
