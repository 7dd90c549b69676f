/**
 * The Philomena client against the local Philomena (loopback, no added latency): how well coalescing
 * shields the site, and what a cache hit and a miss cost on top of the HTTP round trip. The budget is
 * raised for the run, since it measures the client, not the politeness delays a real site would get.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Keyv from 'keyv';
import { IDS, startFakePhilomena } from '../test/fakes/philomena/index.js';
import { createResponseCache } from '../src/philomena/cache.js';
import { createPhilomenaClient, type ManagedPhilomenaClient } from '../src/philomena/client/index.js';
import { resolveSite, type Site } from '../src/philomena/sites.js';
import { closeStore, createStore } from '../src/store/index.js';
import { percentile, type Bench, type BenchRow } from './report.js';

const GROUP = 'client';
const HITS = 2000;
const UNBOUNDED_BUDGET = {
  overall: { limit: 1_000_000, windowMs: 1000 },
  search: { limit: 1_000_000, windowMs: 1000 },
};

function ms(value: number): string {
  return value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(2)} ms`;
}

async function timeEach(count: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await call(i);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

function latencyRows(what: string, sorted: number[]): BenchRow[] {
  return [
    { group: GROUP, metric: `${what} p50`, value: ms(percentile(sorted, 50)) },
    { group: GROUP, metric: `${what} p99`, value: ms(percentile(sorted, 99)) },
  ];
}

function makeClient(site: Site, store: Keyv, memoryEntries?: number): ManagedPhilomenaClient {
  const cache = createResponseCache({ store, ...(memoryEntries === undefined ? {} : { memoryEntries }) });
  return createPhilomenaClient({ site, cache, budget: UNBOUNDED_BUDGET });
}

export default (async () => {
  const booru = await startFakePhilomena();
  const site = resolveSite(booru.url);
  const dir = mkdtempSync(path.join(tmpdir(), 'philomena-bench-'));
  const rows: BenchRow[] = [];
  try {
    // 1. coalescing
    const shared = makeClient(site, new Keyv());
    booru.reset();
    await Promise.all(Array.from({ length: 100 }, () => shared.image(IDS.safe)));
    const upstream = booru.requests.filter((r) => r.path.startsWith('/api/v1/json/images/')).length;
    rows.push({
      group: GROUP,
      metric: 'upstream calls for 100 concurrent identical image requests',
      value: String(upstream),
      goal: '1',
      ok: upstream === 1,
    });

    // 2. hits: the in-memory LRU, and the SQLite store behind it (LRU off)
    rows.push(
      ...latencyRows(`cache hit, memory (${HITS} calls)`, await timeEach(HITS, () => shared.image(IDS.safe))),
    );
    const sqlite = createStore(`sqlite://${path.join(dir, 'cache.sqlite')}`);
    const stored = makeClient(site, sqlite, 0);
    await stored.image(IDS.safe);
    rows.push(
      ...latencyRows(`cache hit, SQLite (${HITS} calls)`, await timeEach(HITS, () => stored.image(IDS.safe))),
    );

    // 3. misses: 200 distinct ids, each a full request + parse + cache write (SQLite)
    const count = IDS.fillerLast - IDS.fillerFirst + 1;
    const misses = await timeEach(count, (i) => stored.image(IDS.fillerFirst + i));
    rows.push(...latencyRows(`cache miss, local server + SQLite write (${count} ids)`, misses));
    await Promise.all([shared.close(), stored.close()]);
    await closeStore(sqlite);
  } finally {
    await booru.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}) satisfies Bench;
