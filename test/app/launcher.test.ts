/**
 * The shard launcher (src/launcher/launcher.ts) over real parts: real bot processes (src/main.ts through
 * tsx, network guard preloaded, as test/lifecycle/bot-process.ts runs them), the local Discord with four
 * shards, the local board and a real Redis, all on 127.0.0.1. It proves that with the shard count left to
 * Discord two processes get shards [0,1] and [2,3] and answer a command in a server of every shard with no
 * refusal from Discord; that a process killed with SIGKILL is started again with its shards and they answer
 * again; that a rolling restart replaces the processes one at a time (the next stops only once the previous
 * is back ready) while commands keep being answered; that two processes without Redis are refused in one
 * line before anything starts; and that stop() lets every process drain and exit, then resolves `done`.
 */
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LaunchRefusedError,
  planShards,
  startLauncher,
  type Launcher,
  type LauncherOptions,
} from '../../src/launcher/launcher.js';
import { createLogger } from '../../src/logger.js';
import { startFakeDiscord, type FakeDiscord, type FakeGuild } from '../fakes/discord/index.js';
import { IDS, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX_URL = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const NETWORK_GUARD_URL = pathToFileURL(path.join(ROOT, 'test/setup.ts')).href;
/** One bot process, as test/lifecycle/bot-process.ts starts it. */
const BOT_COMMAND = {
  execPath: process.execPath,
  args: ['--import', TSX_URL, '--import', NETWORK_GUARD_URL, path.join(ROOT, 'src/main.ts')],
};
const TIMEOUT = 60_000;
/** Short restart delays; the rest as in production. */
const TIMINGS = { restartBaseMs: 100, restartMaxMs: 1_000 };

type Line = Record<string, unknown>;

let discord: FakeDiscord;
let booru: FakePhilomena;
let redis: TestRedis;
let cwd: string;
const launchers: Launcher[] = [];

beforeEach(async () => {
  // One identify bucket per shard, so four shards connect without waiting 5 s each.
  discord = await startFakeDiscord({ shards: 4, maxConcurrency: 4 });
  booru = await startFakePhilomena();
  redis = await startRedis();
  cwd = await mkdtemp(path.join(tmpdir(), 'philomena-bot-launcher-'));
});
afterEach(async () => {
  for (const launcher of launchers.splice(0)) await launcher.stop();
  await discord.close();
  await booru.close();
  await redis.stop();
  await rm(cwd, { recursive: true, force: true });
});

/** The bot's environment: a minimal one (no developer's `.env`, no stray variables). */
function botEnv(overrides: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: cwd,
    TMPDIR: tmpdir(),
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    BOORU_URL: booru.url,
    STORE_URL: redis.url,
    LOG_LEVEL: 'info',
    ...overrides,
  };
}

interface Launched {
  readonly launcher: Launcher;
  /** The launcher's own log lines. */
  readonly events: Line[];
  /** The children's stdout lines as passed through (JSON log lines), and their stderr lines. */
  readonly out: string[];
  readonly err: string[];
}

async function launch(options: Partial<LauncherOptions> = {}): Promise<Launched> {
  const events: Line[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const launcher = await startLauncher({
    processes: 2,
    shardCount: 'auto',
    env: botEnv(),
    command: BOT_COMMAND,
    cwd,
    timings: TIMINGS,
    logger: createLogger({ destination: { write: (line: string) => events.push(JSON.parse(line) as Line) } }),
    output: {
      stdout: { write: (text: string) => out.push(...text.split('\n').filter(Boolean)) },
      stderr: { write: (text: string) => err.push(...text.split('\n').filter(Boolean)) },
    },
    ...options,
  });
  launchers.push(launcher);
  return { launcher, events, out, err };
}

/** The children's JSON log lines with this message. */
function childLines(out: readonly string[], msg: string): Line[] {
  return out.flatMap((text) => {
    try {
      const line = JSON.parse(text) as Line;
      return line['msg'] === msg ? [line] : [];
    } catch {
      return [];
    }
  });
}

function guildOnShard(shard: number): FakeGuild {
  const guild = discord.guilds.find((g) => g.shard === shard);
  if (guild === undefined) throw new Error(`no server on shard ${shard}`);
  return guild;
}

/** /image in a server of `shard`: resolves with the card's embeds once the bot answered. */
async function imageAnsweredOn(shard: number): Promise<string> {
  const guild = guildOnShard(shard);
  const reply = await discord
    .sendCommand({
      name: 'image',
      options: { id: String(IDS.safe) },
      channel: guild.channels.plain,
      userId: guild.memberId,
    })
    .finalReply(15_000);
  return JSON.stringify(reply.embeds);
}

async function expectEveryShardAnswers(): Promise<void> {
  const answers = await Promise.all([0, 1, 2, 3].map((shard) => imageAnsweredOn(shard)));
  for (const answer of answers) expect(answer).toContain(`/images/${IDS.safe}`);
}

/** Waits until `check` holds (polled on the local Discord's clock). */
function until(check: () => boolean, timeoutMs = 30_000): Promise<true> {
  return discord.waitFor(() => (check() ? true : undefined), timeoutMs);
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('planShards', () => {
  it('GIVEN shards and processes THEN the shards are split contiguously, the first processes taking one more', () => {
    expect(planShards(4, 2)).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(planShards(5, 2)).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
    expect(planShards(2, 4)).toEqual([[0], [1]]);
    expect(planShards(1, 1)).toEqual([[0]]);
  });
});

describe('the shard launcher', () => {
  it(
    'GIVEN 2 processes and the shard count left to Discord THEN they run shards [0,1] and [2,3], both get ready, and a server of every shard is answered',
    async () => {
      const { launcher, out, err } = await launch();
      await launcher.started;
      expect(launcher.shardCount).toBe(4);
      expect(launcher.children().map((c) => [c.shards, c.state])).toEqual([
        [[0, 1], 'ready'],
        [[2, 3], 'ready'],
      ]);
      // Each child logged its own "bot ready" with its shards of 4, passed through unchanged.
      const ready = childLines(out, 'bot ready');
      expect(ready.map((line) => [line['shards'], line['shardCount']])).toEqual([
        [[0, 1], 4],
        [[2, 3], 4],
      ]);
      await expectEveryShardAnswers();
      expect(discord.identifies.map((i) => i.shardId).sort()).toEqual([0, 1, 2, 3]);
      expect(discord.violations).toEqual([]);
      expect(discord.undelivered).toEqual([]);
      expect(err).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'GIVEN a process killed with SIGKILL THEN the launcher starts it again with the same shards and they are answered again',
    async () => {
      const { launcher, events } = await launch();
      await launcher.started;
      const [first, second] = launcher.children();
      if (first?.pid === undefined || second?.pid === undefined) throw new Error('no child pids');
      process.kill(first.pid, 'SIGKILL');

      await until(() => {
        const now = launcher.children()[0];
        return now !== undefined && now.pid !== first.pid && now.state === 'ready';
      });
      const [restarted, untouched] = launcher.children();
      expect(restarted).toMatchObject({ shards: [0, 1], restarts: 1, state: 'ready' });
      expect(untouched).toMatchObject({ pid: second.pid, restarts: 0, state: 'ready' });
      const crashes = events.filter((e) => e['msg'] === 'bot process exited unexpectedly: restarting it');
      expect(crashes).toMatchObject([{ shards: [0, 1], pid: first.pid, signal: 'SIGKILL', exitCode: null }]);

      expect(await imageAnsweredOn(0)).toContain(`/images/${IDS.safe}`);
      expect(await imageAnsweredOn(1)).toContain(`/images/${IDS.safe}`);
      expect(await imageAnsweredOn(2)).toContain(`/images/${IDS.safe}`);
      expect(discord.violations).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'GIVEN a rolling restart THEN each process is replaced one at a time, the other answering meanwhile, and every shard is answered after',
    async () => {
      const { launcher, events } = await launch();
      await launcher.started;
      const before = launcher.children().map((c) => c.pid);
      const rolling = launcher.rollingRestart();

      // While the first process is being replaced, the second (not yet touched) still answers.
      await until(() => launcher.children()[0]?.pid !== before[0]);
      expect(launcher.children()[1]).toMatchObject({ pid: before[1], state: 'ready' });
      expect(await imageAnsweredOn(2)).toContain(`/images/${IDS.safe}`);

      await rolling;
      const after = launcher.children();
      expect(after.map((c) => c.state)).toEqual(['ready', 'ready']);
      expect(after[0]?.pid).not.toBe(before[0]);
      expect(after[1]?.pid).not.toBe(before[1]);
      expect(after.map((c) => c.restarts)).toEqual([0, 0]);

      // One at a time: the second stops only once the first is back and ready.
      const steps = events
        .slice(events.findIndex((e) => e['msg'] === 'rolling restart'))
        .filter(
          (e) =>
            typeof e['msg'] === 'string' && /^bot process (stopping|stopped|starting|ready)$/.test(e['msg']),
        )
        .map((e) => `${String(e['msg']).replace('bot process ', '')} ${String(e['process'])}`);
      expect(steps).toEqual([
        'stopping 0',
        'stopped 0',
        'starting 0',
        'ready 0',
        'stopping 1',
        'stopped 1',
        'starting 1',
        'ready 1',
      ]);
      expect(events.filter((e) => e['msg'] === 'bot process stopped').map((e) => e['exitCode'])).toEqual([
        0, 0,
      ]);
      await expectEveryShardAnswers();
      expect(discord.violations).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'GIVEN 2 processes with a SQLite store THEN the launch is refused in one line that says to set STORE_URL=redis://, before anything starts',
    async () => {
      const refused = launch({ env: botEnv({ STORE_URL: `sqlite://${path.join(cwd, 'bot.sqlite')}` }) });
      await expect(refused).rejects.toBeInstanceOf(LaunchRefusedError);
      const error = (await refused.catch((e: unknown) => e)) as Error;
      expect(error.message).toContain('STORE_URL=redis://');
      expect(error.message).toContain('Running at scale');
      expect(error.message).not.toContain('\n');
      expect(discord.requests).toEqual([]);
      expect(discord.identifies).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'GIVEN running processes WHEN stop() THEN every one drains and exits 0, and done resolves with 0',
    async () => {
      const { launcher, out, events } = await launch();
      await launcher.started;
      const pids = launcher.children().map((c) => c.pid);
      await launcher.stop();
      expect(await launcher.done).toBe(0);
      expect(launcher.children().map((c) => c.state)).toEqual(['stopped', 'stopped']);
      for (const pid of pids) expect(isAlive(pid ?? -1)).toBe(false);
      expect(events.filter((e) => e['msg'] === 'bot process stopped').map((e) => e['exitCode'])).toEqual([
        0, 0,
      ]);
      expect(childLines(out, 'shutdown complete')).toHaveLength(2);
      expect(events.some((e) => e['msg'] === 'bot process exited unexpectedly: restarting it')).toBe(false);
    },
    TIMEOUT,
  );
});
