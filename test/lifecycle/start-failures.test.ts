/**
 * The real entry point failing to log in (issue 18): its last line says the real cause and what to fix. A
 * token Discord refuses is a wrong token; a Discord that cannot be reached is not (the old line asked "is
 * DISCORD_TOKEN right?" for both). Each run is a real bot process against the local Discord and board.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { startBotProcess, type BotProcess } from './bot-process.js';

let bot: BotProcess | undefined;
let discord: FakeDiscord | undefined;
let booru: FakePhilomena | undefined;
afterEach(async () => {
  await bot?.dispose();
  await discord?.close();
  await booru?.close();
  bot = undefined;
  discord = undefined;
  booru = undefined;
});

/** A loopback port nothing listens on (bound, then closed again). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  await new Promise((resolve) => server.close(resolve));
  return address.port;
}

/** Runs the bot to its exit; its one fatal line, and every line it wrote. */
async function failedStart(
  env: Record<string, string>,
): Promise<{ fatal: Record<string, unknown>; all: string }> {
  booru = await startFakePhilomena();
  bot = await startBotProcess({ BOORU_URL: booru.url, STORE_URL: 'memory://', UNFURL: 'off', ...env });
  const exit = await bot.exited;
  expect(exit.code, bot.stderr()).toBe(1);
  const fatal = bot.logLines().filter((line) => line['level'] === 60);
  expect(fatal, bot.stdout()).toHaveLength(1);
  return { fatal: fatal[0] ?? {}, all: `${bot.stdout()}${bot.stderr()}` };
}

describe('a bot that cannot log in to Discord', () => {
  it('GIVEN a token Discord refuses THEN it stops, exit 1, saying the token is wrong and where to get it', async () => {
    discord = await startFakeDiscord();
    const wrong = 'MTA5.start-failures.not-the-token';
    const { fatal, all } = await failedStart({ DISCORD_TOKEN: wrong, DISCORD_API_URL: discord.apiUrl });
    expect(fatal['failure']).toBe('token');
    expect(fatal['msg']).toMatch(/^Discord refused the bot token: set DISCORD_TOKEN .*Reset Token/);
    expect(all).not.toContain(wrong);
  });

  it('GIVEN nothing listening at DISCORD_API_URL THEN it stops, exit 1, saying Discord could not be reached there (not that the token is wrong)', async () => {
    const port = await closedPort();
    const token = 'MTA5.start-failures.token-never-checked';
    const { fatal, all } = await failedStart({
      DISCORD_TOKEN: token,
      DISCORD_API_URL: `http://127.0.0.1:${port}/api`,
    });
    expect(fatal['failure']).toBe('unreachable');
    expect(fatal['msg']).toBe(
      `could not reach Discord at 127.0.0.1:${port} (connection refused, ECONNREFUSED): check DISCORD_API_URL (blank means Discord itself), that the REST proxy there is running, and this machine's network. The token was not checked.`,
    );
    expect(all).not.toContain(token);
  });
});
