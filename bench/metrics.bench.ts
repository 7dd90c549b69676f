/**
 * The cost of one Prometheus scrape of `/metrics` over loopback, with the series a busy bot has: every
 * command and button key with every outcome, three sites with every endpoint and a few statuses, every
 * cache layer and budget outcome, and the default process metrics. Figures only.
 */
import { createLogger } from '../src/logger.js';
import { createBotMetrics, startMetricsServer } from '../src/metrics/index.js';
import { percentile, type Bench, type BenchRow } from './report.js';

const GROUP = 'metrics';
const SCRAPES = 300;

const COMMANDS = ['image', 'search', 'tag', 'reverse', 'Find source', 'featured', 'settings'];
const BUTTONS = [
  'srch:next',
  'srch:prev',
  'srch:rand',
  'srch:pub',
  'rev:next',
  'rev:prev',
  'reveal:show',
  'unknown',
];
const OUTCOMES = ['ok', 'user_error', 'error', 'turned_away'] as const;
const SITES = ['derpibooru', 'furbooru', 'tantabus'];
const ENDPOINTS = ['image', 'featured', 'images', 'reverse', 'tag', 'tags', 'filter', 'filters', 'oembed'];
const STATUSES = ['200', '404', '429', '503', 'timeout', 'budget-exhausted'];
const LAYERS = ['memory', 'store', 'shared', 'miss'] as const;

export default (async () => {
  const metrics = createBotMetrics();
  const { runtime, philomena } = metrics;
  for (let round = 0; round < 20; round += 1) {
    for (const command of COMMANDS) {
      for (const outcome of OUTCOMES) {
        runtime.acknowledged?.({ kind: 'command', command, ms: 40 + round * 10 });
        runtime.answered?.({ kind: 'command', command, outcome, ms: 300 + round * 100 });
      }
    }
    for (const command of BUTTONS) {
      for (const outcome of OUTCOMES) runtime.answered?.({ kind: 'button', command, outcome, ms: 200 });
    }
    runtime.answered?.({ kind: 'autocomplete', command: 'tag', outcome: 'ok', ms: 150 });
    for (const site of SITES) {
      for (const endpoint of ENDPOINTS) {
        for (const status of STATUSES) philomena.boardCall?.({ site, endpoint, status, durationMs: 120 });
        for (const layer of LAYERS) philomena.cacheLookup?.({ site, endpoint, layer });
      }
      for (const priority of ['interactive', 'unfurl', 'autocomplete'] as const) {
        for (const outcome of ['granted', 'refused', 'aborted'] as const) {
          philomena.budgetWait?.({ site, priority, outcome, waitedMs: round * 50 });
        }
      }
    }
    for (const decision of ['shown', 'gated', 'spoilered', 'skipped'] as const)
      metrics.unfurlDecision(decision, 1);
    runtime.discordRateLimited?.({ scope: 'user', global: false });
  }
  metrics.collectFrom({ gatewayPings: () => [0, 1, 2, 3].map((shard) => ({ shard, ms: 42 })) });

  const server = await startMetricsServer({
    host: '127.0.0.1',
    port: 0,
    registry: metrics.registry,
    readiness: () => Promise.resolve({ ready: true, failed: [], shards: [{ shard: 0, ready: true }] }),
    logger: createLogger({ level: 'silent' }),
  });
  const url = `http://127.0.0.1:${server.port}/metrics`;
  try {
    let body = '';
    for (let i = 0; i < 20; i += 1) body = await (await fetch(url)).text(); // warm-up
    const times: number[] = [];
    for (let i = 0; i < SCRAPES; i += 1) {
      const started = performance.now();
      body = await (await fetch(url)).text();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const series = body.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
    const rows: BenchRow[] = [
      {
        group: GROUP,
        metric: `series per scrape (${(body.length / 1024).toFixed(0)} KiB)`,
        value: String(series),
      },
      {
        group: GROUP,
        metric: `one /metrics scrape over loopback p50 (${SCRAPES} scrapes)`,
        value: `${percentile(times, 50).toFixed(2)} ms`,
      },
      {
        group: GROUP,
        metric: `one /metrics scrape over loopback p99 (${SCRAPES} scrapes)`,
        value: `${percentile(times, 99).toFixed(2)} ms`,
      },
    ];
    return rows;
  } finally {
    await server.close();
  }
}) satisfies Bench;
