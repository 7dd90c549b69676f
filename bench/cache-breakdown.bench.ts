/**
 * `npm run bench cache-breakdown`: where a gateway client's memory goes at 10,000 servers of issue 23's
 * shape (bench/memory.bench.ts), to choose how to get under its goal. Each client runs alone in its own
 * process (bench/cache-breakdown-process.ts, --expose-gc): the bot's own client (discord.js caching
 * nothing, the servers' facts of src/discord/server-facts.ts beside it); discord.js with its defaults, each
 * cache emptied in turn to see what it held; @discordjs/ws keeping the raw GUILD_CREATE payloads (what the
 * data itself weighs as parsed JSON); and @discordjs/ws keeping only the servers' facts (the alternative
 * issue 23 weighed: no discord.js Client at all). Heap figures (heap used plus array buffers) after a
 * forced GC; RSS as well.
 *
 * Identifies are not what is measured here: the bench Discord allows 16 at once (`max_concurrency`).
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchDiscord } from './bot-discord.js';
import type { BreakdownInput, BreakdownReply, BreakdownStep } from './cache-breakdown-process.js';
import type { Bench, BenchRow } from './report.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SERVERS = 10_000;
const TIMEOUT_MS = 300_000;
const MODES: readonly BreakdownInput['mode'][] = ['bot', 'default', 'raw', 'facts'];
const NAMES: Record<BreakdownInput['mode'], string> = {
  bot: 'the bot: discord.js caching nothing, server facts',
  default: "discord.js, discord.js's defaults",
  raw: '@discordjs/ws, raw GUILD_CREATE payloads kept',
  facts: '@discordjs/ws alone, server facts',
};

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KiB`;

function runChild(input: BreakdownInput): Promise<readonly BreakdownStep[]> {
  const child = fork(path.join(here, 'cache-breakdown-process.ts'), [JSON.stringify(input)], {
    cwd: path.join(here, '..'),
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cache breakdown (${input.mode}) did not finish in ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    child.once('message', (reply: BreakdownReply) => {
      clearTimeout(timer);
      if (reply.type === 'done') resolve(reply.steps);
      else reject(new Error(`cache breakdown (${input.mode}): ${reply.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cache breakdown (${input.mode}) exited (code ${String(code)})`));
    });
  });
}

export async function runBreakdown(servers: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const discord = await startBenchDiscord(
    { guilds: servers, layout: 'issue-23', channels: 0, roles: 10, members: 50, presences: 0 },
    { sharded: true, maxConcurrency: 16 },
  );
  try {
    for (const mode of MODES) {
      const steps = await runChild({ mode, apiUrl: discord.apiUrl, token: discord.token, servers });
      const group = `cache breakdown, ${servers.toLocaleString('en-US')} servers: ${NAMES[mode]}`;
      const [idle, connected, ...emptied] = steps;
      if (idle === undefined || connected === undefined) throw new Error('cache breakdown: no figures');
      rows.push({
        group,
        metric: 'heap after every server over the idle client (RSS)',
        value: `${mib(connected.heapUsed - idle.heapUsed)}, ${kib((connected.heapUsed - idle.heapUsed) / servers)} a server (RSS ${mib(connected.rss)}, idle ${mib(idle.rss)})`,
      });
      let before = connected;
      for (const step of emptied) {
        const held = before.heapUsed - step.heapUsed;
        rows.push({
          group,
          metric: `heap held by ${step.label}`,
          value: `${mib(held)}, ${kib(held / servers)} a server`,
        });
        before = step;
      }
      rows.push({
        group,
        metric: 'heap left over the idle client once all is emptied',
        value: mib(before.heapUsed - idle.heapUsed),
      });
    }
  } finally {
    await discord.close();
  }
  return rows;
}

export default (async () => {
  // The network guard of the tests: a connection to anything but loopback fails at once.
  await import('../test/setup.js');
  return runBreakdown(SERVERS);
}) satisfies Bench;
