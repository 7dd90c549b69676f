/**
 * The memory bench (bench/memory.bench.ts) at a tiny size: both bots start against the bench Discord's
 * servers of issue 23's shape, the timed size goes through its first answer, a resumed and a fresh
 * reconnect, and every row it promises is printed. No figure is checked: they are for the README, and
 * this machine is noisy. The same for the cache breakdown (bench/cache-breakdown.bench.ts).
 */
import { describe, expect, it } from 'vitest';
import { runBreakdown } from '../../bench/cache-breakdown.bench.js';
import { runMemory, type MemorySize } from '../../bench/memory.bench.js';
import { formatTable } from '../../bench/report.js';

const TINY: MemorySize = { servers: [2, 5], timedAt: 5, maxConcurrency: 1, readyTimeoutMs: 60_000 };

describe('the memory bench', () => {
  it('GIVEN a tiny size THEN both sizes, the increment and the timed start and reconnects print their rows', async () => {
    const rows = await runMemory(TINY);
    const table = formatTable(rows);
    const groups = new Set(rows.map((r) => r.group));
    expect([...groups]).toEqual([
      'memory, 2 servers (1 shard)',
      'memory, 5 servers (1 shard)',
      'start and reconnect, 5 servers',
      'memory, 2 to 5 servers',
    ]);
    for (const servers of [2, 5]) {
      const metrics = rows
        .filter((r) => r.group.startsWith(`memory, ${servers} servers`))
        .map((r) => r.metric);
      expect(metrics.filter((m) => m.startsWith('RSS after GC,'))).toHaveLength(2);
      expect(metrics.filter((m) => m.startsWith('per server over the idle bot,'))).toHaveLength(2);
      expect(metrics).toContain('RSS defaults / tuned (heap)');
    }
    const timing = rows.filter((r) => r.group === 'start and reconnect, 5 servers');
    expect(timing.map((r) => r.metric.split(',')[0])).toEqual([
      'time from start to ready (every shard',
      'time from start to the first answer (a link posted at ready)',
      'every shard resumed (closed 4000): time',
      'every shard a fresh session (INVALID_SESSION): time',
    ]);
    for (const row of timing) expect(row.value).toMatch(/^[\d,]+ ms.* \/ [\d,]+ ms/);
    expect(rows.some((r) => r.metric.includes('does not know'))).toBe(false);
    expect(table).toContain('RSS added by each further server, tuned');
  }, 180_000);

  it('GIVEN a tiny size THEN the cache breakdown measures every client and names what each cache held', async () => {
    const rows = await runBreakdown(3);
    const groups = [...new Set(rows.map((r) => r.group.replace(/^cache breakdown, 3 servers: /, '')))];
    expect(groups).toEqual([
      'the bot: discord.js caching nothing, server facts',
      "discord.js, discord.js's defaults",
      '@discordjs/ws, raw GUILD_CREATE payloads kept',
      '@discordjs/ws alone, server facts',
    ]);
    const held = (group: string): string[] =>
      rows
        .filter((r) => r.group.endsWith(group) && r.metric.startsWith('heap held by '))
        .map((r) => r.metric.slice(13));
    expect(held("discord.js's defaults")).toEqual([
      'threads',
      'permission overwrites',
      'members and users',
      'roles',
      'channels',
      'guilds',
    ]);
    expect(held('payloads kept')).toEqual(['payloads']);
    expect(held('server facts')).toEqual(['server facts', 'server facts']);
    for (const row of rows) expect(row.value).toMatch(/MiB/);
  }, 120_000);
});
