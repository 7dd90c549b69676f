/**
 * The workload pieces the whole-bot benches share (bot, scale, feeds): a Zipf spread over the local
 * Philomena's image ids (a few hot, a long tail, a few missing), and a seeded shuffle.
 */
import { IDS } from '../test/fakes/philomena/index.js';

/** Picks items with probability proportional to 1 / rank^s: a few hot ones, a long tail. */
export function zipf<T>(items: readonly T[], s: number, random: () => number): () => T {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= items.length; rank += 1) {
    total += 1 / rank ** s;
    cumulative.push(total);
  }
  return () => {
    const x = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] ?? 0) < x) lo = mid + 1;
      else hi = mid;
    }
    return items[lo] as T;
  };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Ids the local Philomena answers with 404 (two it never had, one awaiting approval). */
export const MISSING_IDS: ReadonlySet<number> = new Set([9_999_001, 9_999_002, IDS.unapproved]);

/** Every image id of the local Philomena worth asking for, plus a few it does not have. */
export function imagePool(): number[] {
  const ids: number[] = [];
  for (let id = IDS.safe; id <= IDS.unapproved; id += 1) ids.push(id);
  for (let id = IDS.fillerFirst; id <= IDS.fillerLast; id += 1) ids.push(id);
  ids.push(IDS.fixtureFirst, IDS.fixtureSecond, IDS.fixture2020, 9_999_001, 9_999_002);
  return ids;
}
