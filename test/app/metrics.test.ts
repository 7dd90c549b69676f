/**
 * What an operator watches: the metrics port (src/metrics) over the real bot, the real board clients and
 * the local Discord and Philomena. Names and label sets are checked, never timings. The last part runs the
 * real entry point (src/main.ts) as a process: with METRICS_PORT it serves and turns unready on SIGTERM;
 * without it, it opens no listening port at all.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { IDS, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { startBotProcess, type BotProcess } from '../lifecycle/bot-process.js';
import { startHarness, ROOMY_BUDGET, type Harness } from '../support/harness.js';
import { customIds } from '../support/messages.js';
import { eventually, outcome, unfurlReply } from '../support/waiting.js';
import { USER_ERROR_IDS } from '../../commands/shared/error-texts.js';
import { createLogger } from '../../src/logger.js';
import {
  createBotMetrics,
  serveMetrics,
  type BotMetrics,
  type MetricsServer,
} from '../../src/metrics/index.js';
import { createPhilomenaClient } from '../../src/philomena/client/index.js';
import { resolveSite } from '../../src/philomena/sites.js';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (prom-client's escaping: \\, \" and \n only). */
function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ''] = (pair[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    out.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return out;
}

const named = (all: readonly Sample[], name: string) => all.filter((s) => s.name === name);
const labelKeys = (sample: Sample) => Object.keys(sample.labels).sort();

/** The one sample of `name` whose labels include `labels`, or undefined. */
function find(all: readonly Sample[], name: string, labels: Record<string, string>): Sample | undefined {
  return named(all, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

async function get(port: number, path: string): Promise<{ status: number; type: string; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    body: await response.text(),
  };
}

describe('the metrics port over the real bot', () => {
  let h: Harness;
  let metrics: BotMetrics;
  let server: MetricsServer;
  let stopping = false;

  beforeAll(async () => {
    metrics = createBotMetrics({ userErrorIds: USER_ERROR_IDS });
    h = await startHarness({
      start: false,
      discord: { heartbeatIntervalMs: 200 },
      registry: { budget: ROOMY_BUDGET, observer: metrics.philomena },
      observers: { runtime: metrics.runtime, onUnfurlDecision: metrics.unfurlDecision },
    });
    server = await serveMetrics(metrics, {
      host: '127.0.0.1',
      port: 0,
      logger: createLogger({ level: 'silent' }),
      store: h.store,
      registry: h.registry,
      bot: h.bot,
      shuttingDown: () => stopping,
    });
  });
  afterAll(async () => {
    await server.close();
    await h.close();
  });

  it('GIVEN the bot not connected yet THEN /healthz is 200 and /readyz is 503 naming the discord check', async () => {
    const health = await get(server.port, '/healthz');
    expect(health.status).toBe(200);
    const ready = await get(server.port, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.type).toMatch(/^application\/json/);
    expect(JSON.parse(ready.body)).toEqual({ ready: false, failed: ['discord'], shards: [] });
  });

  it('GIVEN the bot ready THEN /readyz is 200', async () => {
    await h.start();
    const ready = await get(server.port, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ ready: true, failed: [], shards: [{ shard: 0, ready: true }] });
  });

  it('GIVEN commands, a paging button, autocomplete and unfurls THEN /metrics has every family with its label set and no server, member or query in a label', async () => {
    // Commands: a card (twice: the second from the cache), a missing image (a user error, a 404 upstream).
    for (const id of [IDS.safe, IDS.safe, IDS.explicit]) {
      const handle = h.discord.sendCommand({ name: 'image', options: { id: String(id) }, channel: 'plain' });
      expect((await outcome(h.discord, handle)).kind).toBe('card');
    }
    const missing = h.discord.sendCommand({ name: 'image', options: { id: '999999' }, channel: 'plain' });
    expect((await outcome(h.discord, missing)).kind).toBe('error');
    // A paging button, filed under its `<namespace>:<action>` key, never its custom_id.
    const first = await h.discord
      .sendCommand({ name: 'search', options: { query: 'pegasus' }, channel: 'plain' })
      .finalReply();
    const next = customIds(first).find((c) => c.startsWith('srch:next:'));
    expect(next).toBeDefined();
    await h.discord.sendButton({ customId: next ?? '', message: first }).finalReply();
    await h.discord
      .sendAutocomplete({
        name: 'tag',
        options: { name: 'secret query text' },
        focused: 'name',
        channel: 'plain',
      })
      .autocompleteChoices();
    // Unfurls in a plain channel: a safe image (shown) and an explicit one (gated).
    await unfurlReply(
      h.discord,
      'plain',
      `${h.booru.url}/images/${IDS.safe} and ${h.booru.url}/images/${IDS.explicit}`,
    );
    await eventually(() => h.bot.gatewayPings().some((p) => p.ms >= 0), 10_000, 'a heartbeat round trip');

    const scrape = await get(server.port, '/metrics');
    expect(scrape.status).toBe(200);
    expect(scrape.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const all = samples(scrape.body);
    const site = h.config.site.id;

    const interactions = named(all, 'philomena_bot_interactions_total');
    expect(interactions.length).toBeGreaterThan(0);
    for (const s of interactions) expect(labelKeys(s)).toEqual(['command', 'kind', 'outcome']);
    expect(
      find(all, 'philomena_bot_interactions_total', { kind: 'command', command: 'image', outcome: 'ok' })
        ?.value,
    ).toBe(3);
    expect(
      find(all, 'philomena_bot_interactions_total', { command: 'image', outcome: 'user_error' })?.value,
    ).toBe(1);
    // The same failure by what the member read: the missing image.
    expect(find(all, 'philomena_bot_user_errors_total', { id: 'board.not-found' })?.value).toBe(1);
    for (const s of named(all, 'philomena_bot_user_errors_total')) expect(labelKeys(s)).toEqual(['id']);
    expect(
      find(all, 'philomena_bot_interactions_total', {
        kind: 'button',
        command: 'srch:next',
        outcome: 'ok',
      })?.value,
    ).toBe(1);
    expect(
      find(all, 'philomena_bot_interactions_total', { kind: 'autocomplete', command: 'tag' }),
    ).toBeDefined();

    for (const name of [
      'philomena_bot_interaction_ack_seconds',
      'philomena_bot_interaction_answer_seconds',
    ]) {
      const count = find(all, `${name}_count`, { kind: 'command', command: 'image' });
      expect(count?.value).toBe(4);
      for (const s of named(all, `${name}_bucket`)) expect(labelKeys(s)).toEqual(['command', 'kind', 'le']);
    }

    const calls = named(all, 'philomena_bot_board_calls_total');
    for (const s of calls) expect(labelKeys(s)).toEqual(['endpoint', 'site', 'status']);
    expect(
      find(all, 'philomena_bot_board_calls_total', { site, endpoint: 'image', status: '200' })?.value,
    ).toBeGreaterThanOrEqual(2);
    expect(
      find(all, 'philomena_bot_board_calls_total', { site, endpoint: 'image', status: '404' })?.value,
    ).toBe(1);
    expect(
      named(all, 'philomena_bot_board_call_seconds_count').every((s) => labelKeys(s).join() === 'site'),
    ).toBe(true);

    const lookups = named(all, 'philomena_bot_board_cache_lookups_total');
    for (const s of lookups) expect(labelKeys(s)).toEqual(['endpoint', 'layer', 'site']);
    expect(
      find(all, 'philomena_bot_board_cache_lookups_total', { site, endpoint: 'image', layer: 'miss' }),
    ).toBeDefined();
    // The second /image of the same id, and the unfurl of it, come from the in-memory layer.
    expect(
      find(all, 'philomena_bot_board_cache_lookups_total', { site, endpoint: 'image', layer: 'memory' })
        ?.value,
    ).toBeGreaterThanOrEqual(2);

    const waits = named(all, 'philomena_bot_board_budget_wait_seconds_count');
    for (const s of waits) expect(labelKeys(s)).toEqual(['outcome', 'priority', 'site']);
    expect(
      find(all, 'philomena_bot_board_budget_wait_seconds_count', {
        site,
        priority: 'interactive',
        outcome: 'granted',
      }),
    ).toBeDefined();
    expect(find(all, 'philomena_bot_board_budget_queued', { site })?.value).toBe(0);
    expect(
      named(all, 'philomena_bot_board_breaker_state')
        .map((s) => s.labels['state'])
        .sort(),
    ).toEqual(['closed', 'half-open', 'open']);
    expect(find(all, 'philomena_bot_board_breaker_state', { site, state: 'closed' })?.value).toBe(1);

    expect(find(all, 'philomena_bot_unfurl_decisions_total', { decision: 'shown' })?.value).toBe(1);
    expect(find(all, 'philomena_bot_unfurl_decisions_total', { decision: 'gated' })?.value).toBe(1);

    const pings = named(all, 'philomena_bot_gateway_ping_seconds');
    expect(pings.map((s) => s.labels)).toEqual([{ shard: '0' }]);
    expect(scrape.body).toContain('# TYPE philomena_bot_discord_rate_limited_total counter');

    // Node's default process metrics, from this registry.
    expect(named(all, 'process_cpu_user_seconds_total')).toHaveLength(1);
    expect(named(all, 'nodejs_eventloop_lag_seconds')).toHaveLength(1);

    // Low cardinality: nothing of a server, a member, a query or an id in any label.
    const values = all.flatMap((s) => Object.values(s.labels));
    for (const secret of [
      h.discord.guild.id,
      h.discord.guild.memberId,
      h.discord.guild.ownerId,
      'secret query text',
      String(IDS.explicit),
      '999999',
    ]) {
      expect(values).not.toContain(secret);
      expect(values.some((v) => v.includes(secret))).toBe(false);
    }
  });

  it('GIVEN Discord answering an edit with a 429 THEN the rate limit is counted', async () => {
    const before =
      find(samples((await get(server.port, '/metrics')).body), 'philomena_bot_discord_rate_limited_total', {})
        ?.value ?? 0;
    const handle = h.discord.sendCommand({
      name: 'image',
      options: { id: String(IDS.suggestive) },
      channel: 'plain',
    });
    h.discord.inject({
      route: /\/messages\/@original$/,
      method: 'PATCH',
      status: 429,
      retryAfter: 1,
      times: 1,
    });
    expect((await outcome(h.discord, handle)).kind).toBe('card');
    const all = samples((await get(server.port, '/metrics')).body);
    const limited = named(all, 'philomena_bot_discord_rate_limited_total');
    for (const s of limited) expect(labelKeys(s)).toEqual(['global', 'scope']);
    expect(limited.reduce((sum, s) => sum + s.value, 0)).toBeGreaterThan(before);
  });

  it('GIVEN a path it does not serve or a POST THEN 404 and 405, and nothing is echoed', async () => {
    const missing = await get(server.port, '/metrics/../<script>');
    expect(missing.status).toBe(404);
    expect(missing.body).not.toContain('<script>');
    const posted = await fetch(`http://127.0.0.1:${server.port}/metrics`, { method: 'POST', body: 'x' });
    expect(posted.status).toBe(405);
    await posted.text();
  });

  it('GIVEN the bot stopping THEN /readyz is 503 naming discord and shutdown while /healthz stays 200', async () => {
    stopping = true;
    const stopped = h.bot.stop({ graceMs: 0 });
    const ready = await get(server.port, '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ ready: false, failed: ['discord', 'shutdown'] });
    expect((await get(server.port, '/healthz')).status).toBe(200);
    await stopped;
  });
});

describe('board calls of a client outside the bot', () => {
  let booru: FakePhilomena;
  beforeAll(async () => {
    booru = await startFakePhilomena();
  });
  afterAll(async () => {
    await booru.close();
  });

  it('GIVEN identical concurrent reads and a search THEN one board call each, the others counted as shared, and the search under its resource name', async () => {
    const metrics = createBotMetrics();
    const client = createPhilomenaClient({ site: resolveSite(booru.url), observer: metrics.philomena });
    await Promise.all([
      client.image(IDS.multiCredit),
      client.image(IDS.multiCredit),
      client.image(IDS.multiCredit),
    ]);
    await client.searchImages({ q: 'safe' });
    const all = samples(await metrics.registry.metrics());
    const site = client.site.id;
    expect(
      find(all, 'philomena_bot_board_calls_total', { site, endpoint: 'image', status: '200' })?.value,
    ).toBe(1);
    expect(
      find(all, 'philomena_bot_board_cache_lookups_total', { site, endpoint: 'image', layer: 'shared' })
        ?.value,
    ).toBe(2);
    const search = named(all, 'philomena_bot_board_calls_total').filter(
      (s) => s.labels['endpoint'] !== 'image',
    );
    expect(search).toHaveLength(1);
    expect(search[0]?.labels['endpoint']).toMatch(/^[a-z_]+$/);
    await client.close();
  });
});

/** The TCP ports process `pid` listens on (Linux: its socket inodes matched against /proc/net/tcp*). */
async function listeningPorts(pid: number): Promise<number[]> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match?.[1]) inodes.add(match[1]);
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '');
    for (const row of text.split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; st 0A is LISTEN; the inode is the tenth column.
      if (cols[3] === '0A' && cols[9] !== undefined && inodes.has(cols[9])) {
        ports.push(Number.parseInt(cols[1]?.split(':').at(-1) ?? '', 16));
      }
    }
  }
  return ports;
}

describe('the entry point', () => {
  let discord: FakeDiscord;
  let booru: FakePhilomena;
  const processes: BotProcess[] = [];
  beforeAll(async () => {
    discord = await startFakeDiscord();
    booru = await startFakePhilomena();
  });
  afterEach(async () => {
    for (const p of processes.splice(0)) await p.dispose();
  });
  afterAll(async () => {
    await discord.close();
    await booru.close();
  });

  async function startBot(extra: Record<string, string>): Promise<BotProcess> {
    const p = await startBotProcess({
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      BOORU_URL: booru.url,
      STORE_URL: 'memory://',
      LOG_LEVEL: 'info',
      ...extra,
    });
    processes.push(p);
    await p.waitForLog((line) => line['msg'] === 'bot ready', 30_000);
    return p;
  }

  it('GIVEN no METRICS_PORT THEN the bot listens on no port at all', { timeout: 60_000 }, async () => {
    const bot = await startBot({});
    expect(bot.logLines().some((l) => String(l['msg']).startsWith('metrics:'))).toBe(false);
    expect(await listeningPorts(bot.pid)).toEqual([]);
  });

  it(
    'GIVEN METRICS_PORT THEN it serves on 127.0.0.1, is ready once connected, and is unready as soon as SIGTERM comes',
    { timeout: 60_000 },
    async () => {
      const bot = await startBot({ METRICS_PORT: String(await freePort()) });
      const line = bot.logLines().find((l) => l['msg'] === 'metrics: /healthz, /readyz and /metrics');
      expect(line?.['host']).toBe('127.0.0.1');
      const port = Number(line?.['port']);
      expect(await listeningPorts(bot.pid)).toEqual([port]);
      expect((await get(port, '/readyz')).status).toBe(200);
      const scrape = await get(port, '/metrics');
      expect(scrape.body).toContain('# TYPE philomena_bot_interactions_total counter');
      // A slow board keeps an interaction in flight, so the drain lasts while /readyz is asked.
      booru.setLatency(3_000);
      const slow = discord.sendCommand({
        name: 'image',
        options: { id: String(IDS.safe) },
        channel: 'plain',
      });
      await slow.acknowledged;
      bot.kill('SIGTERM');
      await bot.waitForLog((l) => l['msg'] === 'shutting down');
      const ready = await get(port, '/readyz');
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toMatchObject({ ready: false });
      expect(JSON.parse(ready.body).failed).toContain('shutdown');
      expect((await bot.exited).code).toBe(0);
      booru.setLatency(0);
    },
  );
});

/** A port free right now on 127.0.0.1 (the child binds it a moment later). */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
