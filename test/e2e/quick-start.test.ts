/**
 * The README's quick start, as a new user runs it (issue 18): `cp .env.example .env`, fill in only what a
 * user fills in, `npm start`, and a command gets a card. Here "what a user fills in" is the token and the
 * addresses of the local Discord and the local board; every other key stays as `.env.example` has it
 * (blank: `SHARD_COUNT=` once stopped the bot, since discord.js read it as 0 shards). Every other test
 * starts the bot without a `.env`, which is why nothing caught that.
 *
 * It runs in a temporary copy of the project (as a clone is after `npm ci`: node_modules linked in), so the
 * repository gets no `.env`, `dist/` or `data/` from it. `npm start` itself builds with tsc and starts
 * `node dist/src/main.js` there, reading that `.env`; NODE_OPTIONS preloads the tests' network guard, so
 * nothing in that process tree reaches past loopback. The build takes most of the time.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { IDS, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { watchChild } from '../support/child-output.js';
import { cardUrl } from '../support/messages.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX_URL = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const NETWORK_GUARD_URL = pathToFileURL(path.join(ROOT, 'test/setup.ts')).href;
/** What a clone does not have, or the copy must not take from this working tree. */
const NOT_COPIED = new Set(['.git', 'node_modules', 'dist', 'data', 'coverage', '.env']);
/** tsc over the whole project on a small, busy machine, then the bot's start. */
const READY_TIMEOUT_MS = 240_000;

type Line = Record<string, unknown>;

let discord: FakeDiscord | undefined;
let booru: FakePhilomena | undefined;
let project: string | undefined;
let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
let exited: Promise<unknown> | undefined;

afterEach(async () => {
  // npm start is a process group (npm, sh, node): stop all of it, by its group id.
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    const group = -child.pid;
    const signal = (name: NodeJS.Signals): void => {
      try {
        process.kill(group, name);
      } catch {
        // The group is gone already.
      }
    };
    signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 15_000)))]);
    clearTimeout(timer);
    signal('SIGKILL');
  }
  child = undefined;
  await discord?.close();
  await booru?.close();
  if (project !== undefined) await rm(project, { recursive: true, force: true });
  discord = undefined;
  booru = undefined;
  project = undefined;
}, 30_000);

/** A copy of the project as a user's clone is after `npm ci`. */
async function cloneProject(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'philomena-bot-quick-start-'));
  await cp(ROOT, dir, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(ROOT, source);
      return !NOT_COPIED.has(relative.split(path.sep)[0] ?? '') && !relative.endsWith('.sqlite');
    },
  });
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** `KEY=` of the file, as `.env.example` leaves it blank, set to `value`; the key must be there once. */
function fillIn(text: string, key: string, value: string): string {
  const blank = new RegExp(`^${key}=$`, 'gm');
  expect(text.match(blank), `${key}= in .env.example`).toHaveLength(1);
  return text.replace(blank, `${key}=${value}`);
}

/** `npm start` in `cwd`; resolves once a log line `match` accepts (rejects if it exits first). */
function npmStart(cwd: string): {
  output: () => string;
  waitForLog: (match: (line: Line) => boolean, timeoutMs: number) => Promise<Line>;
} {
  const started = spawn('npm', ['start'], {
    cwd,
    // A user's shell, not this test's: no npm_* variables of the test run, nothing else of ours.
    env: {
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env['PATH'] ?? ''}`,
      HOME: cwd,
      TMPDIR: tmpdir(),
      NODE_OPTIONS: `--import=${TSX_URL} --import=${NETWORK_GUARD_URL}`,
      npm_config_update_notifier: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so the test can stop npm, the shell and the bot together.
    detached: true,
  });
  child = started;
  const watched = watchChild(started);
  exited = watched.exited.then((exit) => exit.code);
  return {
    output: () => `${watched.stdout()}${watched.stderr()}`,
    waitForLog: (match, timeoutMs) => watched.waitForLog(match, timeoutMs),
  };
}

describe("the README's quick start", () => {
  it(
    'GIVEN .env copied from .env.example with only the token and the addresses filled in THEN npm start brings the bot up and /image gets a card',
    async () => {
      const repoEnvBefore = existsSync(path.join(ROOT, '.env'));
      discord = await startFakeDiscord();
      booru = await startFakePhilomena();
      project = await cloneProject();

      // cp .env.example .env   # then put your token in DISCORD_TOKEN
      const envFile = path.join(project, '.env');
      await copyFile(path.join(project, '.env.example'), envFile);
      let env = await readFile(envFile, 'utf8');
      expect(env).toMatch(/^SHARD_COUNT=$/m);
      env = fillIn(env, 'DISCORD_TOKEN', discord.token);
      env = fillIn(env, 'DISCORD_API_URL', discord.apiUrl);
      env = fillIn(env, 'BOORU_URL', booru.url);
      await writeFile(envFile, env);

      const bot = npmStart(project);
      const ready = await bot.waitForLog((line) => line['msg'] === 'bot ready', READY_TIMEOUT_MS);
      expect(ready).toMatchObject({ shards: [0], shardCount: 1, unfurl: true });
      await discord.waitFor(
        () => (discord?.registeredCommands().some((c) => c.name === 'image') === true ? true : undefined),
        15_000,
      );

      const reply = await discord
        .sendCommand({ name: 'image', options: { id: String(IDS.safe) }, channel: 'plain' })
        .finalReply(15_000);
      expect(cardUrl(reply)).toContain(`/images/${IDS.safe}`);

      // STORE_URL blank: the default SQLite file, in the working directory.
      expect(existsSync(path.join(project, 'data', 'bot.sqlite'))).toBe(true);
      expect(bot.output()).not.toContain(discord.token);
      expectNoDiscordProblems(discord);
      expect(existsSync(path.join(ROOT, '.env'))).toBe(repoEnvBefore);
    },
    READY_TIMEOUT_MS + 60_000,
  );
});
