import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startBotProcess, type BotProcess } from './bot-process.js';

const TOKEN = 'MTA5.lifecycle.store-failure-token';
let bot: BotProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  await bot?.dispose();
  bot = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function run(storeUrl: string): Promise<BotProcess> {
  // Discord is never reached: the store is opened (and found wanting) before the bot logs in.
  bot = await startBotProcess({
    DISCORD_TOKEN: TOKEN,
    DISCORD_API_URL: 'http://127.0.0.1:9/api',
    BOORU_URL: 'http://127.0.0.1:9',
    STORE_URL: storeUrl,
  });
  return bot;
}

/** Every line the process wrote, stdout and stderr. */
function allLines(p: BotProcess): string[] {
  return `${p.stdout()}${p.stderr()}`.split('\n').filter((line) => line.trim() !== '');
}

describe('a store that cannot be opened', () => {
  it('GIVEN STORE_URL under a regular file THEN the bot stops at start with one clear line, no stack trace, exit 1', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'philomena-bot-store-'));
    const file = path.join(dir, 'not-a-folder');
    await writeFile(file, 'x');
    const p = await run(`sqlite://${path.join(file, 'bot.sqlite')}`);
    const exit = await p.exited;
    expect(exit.code).toBe(1);
    const lines = allLines(p);
    expect(lines, lines.join('\n')).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line['level']).toBe(60);
    expect(String(line['msg'])).toMatch(
      /^could not open the store at STORE_URL \(.*not-a-folder.*\): use a path/,
    );
    expect(line['err']).toBeUndefined();
    expect(lines.join('\n')).not.toMatch(/\n\s+at /);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  it('GIVEN STORE_URL naming a directory THEN SQLite\u2019s lazy open is caught by the start probe: one line, exit 1', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'philomena-bot-store-'));
    const p = await run(`sqlite://${dir}`);
    const exit = await p.exited;
    expect(exit.code).toBe(1);
    const lines = allLines(p);
    expect(lines, lines.join('\n')).toHaveLength(1);
    expect(String((JSON.parse(lines[0] ?? '{}') as Record<string, unknown>)['msg'])).toMatch(
      /^could not open the store at STORE_URL \(SQLITE_CANTOPEN/,
    );
  });

  it('GIVEN a STORE_URL of an unknown scheme THEN the configuration check refuses it with how to fix it, exit 1', async () => {
    const p = await run('postgres://127.0.0.1:5432/bot');
    const exit = await p.exited;
    expect(exit.code).toBe(1);
    expect(p.stdout()).toBe('');
    const text = p.stderr();
    expect(text).toMatch(/STORE_URL must be sqlite:\/\/<path>, redis:\/\//);
    expect(text).not.toMatch(/\n\s+at /);
    expect(text).not.toContain(TOKEN);
  });
});
