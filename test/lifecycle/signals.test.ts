/**
 * The real entry point under signals: SIGTERM while an interaction is in flight lets it finish and exits
 * 0 with a clean last line; `kill -9` right after a confirmed setting loses nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageFlags } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RESTARTING_TEXT } from '../../src/discord/router.js';
import { SHUTDOWN_COMPLETE } from '../../src/discord/process-guards.js';
import { KEY_NOT_USED } from '../../src/startup-checks.js';
import { closeStore, createStore } from '../../src/store/index.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import {
  FAKE_KEY,
  FILTER_IDS,
  IDS,
  startFakePhilomena,
  type FakePhilomena,
} from '../fakes/philomena/index.js';
import { startBotProcess, type BotProcess } from './bot-process.js';

const TIMEOUT = 60_000;
let discord: FakeDiscord;
let booru: FakePhilomena;
let dir: string;
let storeUrl: string;
const processes: BotProcess[] = [];

beforeEach(async () => {
  discord = await startFakeDiscord();
  booru = await startFakePhilomena();
  dir = await mkdtemp(path.join(tmpdir(), 'philomena-bot-signals-'));
  storeUrl = `sqlite://${path.join(dir, 'bot.sqlite')}`;
});
afterEach(async () => {
  for (const p of processes.splice(0)) await p.dispose();
  await discord.close();
  await booru.close();
  await rm(dir, { recursive: true, force: true });
});

async function startBot(): Promise<BotProcess> {
  const p = await startBotProcess({
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    BOORU_URL: booru.url,
    BOORU_API_KEY: FAKE_KEY,
    STORE_URL: storeUrl,
    LOG_LEVEL: 'info',
  });
  processes.push(p);
  await p.waitForLog((line) => line['msg'] === 'bot ready');
  return p;
}

const msgIs = (msg: string) => (line: Record<string, unknown>) => line['msg'] === msg;

describe('SIGTERM and SIGINT', () => {
  it(
    'GIVEN an interaction in flight THEN SIGTERM lets it finish, turns new ones away politely, and exits 0 with a clean last line',
    async () => {
      const bot = await startBot();
      // The board answers slowly, so the command is still running when the signal comes.
      booru.setLatency(4_000);
      const slow = discord.sendCommand({
        name: 'image',
        options: { id: String(IDS.safe) },
        channel: 'plain',
      });
      await slow.acknowledged;
      await discord.waitFor(
        () => (booru.requests.some((r) => r.path.startsWith('/api/')) ? true : undefined),
        10_000,
      );
      bot.kill('SIGTERM');
      await bot.waitForLog(msgIs('shutting down'));

      const late = discord.sendCommand({
        name: 'image',
        options: { id: String(IDS.safe) },
        channel: 'plain',
      });
      const turnedAway = await late.finalReply(10_000);
      expect(turnedAway.content).toBe(RESTARTING_TEXT);
      expect(turnedAway.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);

      const reply = await slow.finalReply(15_000);
      expect(JSON.stringify(reply.embeds)).toContain(`/images/${IDS.safe}`);
      const exit = await bot.exited;
      expect(exit).toEqual({ code: 0, signal: null });
      const lines = bot.logLines();
      expect(lines.at(-1)?.['msg']).toBe(SHUTDOWN_COMPLETE);
      expect(lines.some(msgIs('finishing work in flight'))).toBe(true);
      // The one warning expected: BOORU_API_KEY is set (to prove it stays out of the logs) but not used.
      expect(lines.filter((line) => Number(line['level']) >= 40).map((line) => line['msg'])).toEqual([
        KEY_NOT_USED,
      ]);
      expect(bot.stderr()).toBe('');
      expect(discord.violations).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'GIVEN an idle bot THEN SIGINT exits 0 at once with a clean last line',
    async () => {
      const bot = await startBot();
      const signalledAt = Date.now();
      bot.kill('SIGINT');
      expect(await bot.exited).toEqual({ code: 0, signal: null });
      // Nothing was in flight: no grace period is waited out.
      expect(Date.now() - signalledAt).toBeLessThan(8_000);
      expect(bot.logLines().at(-1)?.['msg']).toBe(SHUTDOWN_COMPLETE);
      expect(bot.stderr()).toBe('');
    },
    TIMEOUT,
  );
});

describe('kill -9', () => {
  it(
    'GIVEN a filter confirmed to the admin THEN SIGKILL right after loses nothing: the next process shows it, and the file holds it',
    async () => {
      const first = await startBot();
      const owner = discord.guild.ownerId;
      const confirmation = await discord
        .sendCommand({
          name: 'settings',
          subcommand: 'filter',
          options: { filter_id: FILTER_IDS.everything },
          channel: 'plain',
          userId: owner,
        })
        .finalReply(15_000);
      expect(confirmation.content).toContain('Everything');
      first.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

      const store = createStore(storeUrl);
      try {
        const stored = (await store.get(`settings:guild:${discord.guild.id}`)) as
          { filters?: Record<string, number> } | undefined;
        expect(Object.values(stored?.filters ?? {})).toEqual([FILTER_IDS.everything]);
      } finally {
        await closeStore(store);
      }

      await startBot();
      const show = await discord
        .sendCommand({ name: 'settings', subcommand: 'show', channel: 'plain', userId: owner })
        .finalReply(15_000);
      expect(show.content).toContain('Everything');
      expect(discord.violations).toEqual([]);
    },
    TIMEOUT,
  );
});
