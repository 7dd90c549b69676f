/**
 * The shared Discord REST proxy (`npm run rest-proxy`, src/rest-proxy/proxy.ts) in front of the local
 * Discord: requests reach Discord with the caller's own token, a 429 comes back to the caller (whose REST
 * client waits and retries) instead of being retried by the proxy, and the real bot process, pointed at
 * the proxy with DISCORD_API_URL, answers commands through it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REST, Routes } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRestProxy, type RestProxy } from '../../src/rest-proxy/proxy.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { IDS, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { startBotProcess, type BotProcess } from '../lifecycle/bot-process.js';

let discord: FakeDiscord;
let proxy: RestProxy;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  discord = await startFakeDiscord();
  proxy = await startRestProxy({ upstream: discord.apiUrl, port: 0 });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await proxy.close();
  await discord.close();
});

function gatewayCalls(): number {
  return discord.requests.filter((r) => r.path.endsWith('/gateway/bot')).length;
}

describe('the Discord REST proxy', () => {
  it('GIVEN a REST call through the proxy THEN Discord gets it once, with the caller’s token, and the answer comes back', async () => {
    const rest = new REST({ api: proxy.url }).setToken(discord.token);
    const answer = (await rest.get(Routes.gatewayBot())) as { url?: unknown };
    expect(typeof answer.url).toBe('string');
    expect(gatewayCalls()).toBe(1);
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
  });

  it('GIVEN Discord answering 429 once THEN the proxy does not retry it: the caller’s client waits and asks again', async () => {
    discord.inject({ route: /gateway\/bot/, status: 429, retryAfter: 1, times: 1 });
    const rest = new REST({ api: proxy.url }).setToken(discord.token);
    await rest.get(Routes.gatewayBot());
    // One refused, one answered: two arrivals in all, so the proxy added none of its own.
    expect(gatewayCalls()).toBe(2);
  });

  it('GIVEN the bot process pointed at the proxy THEN it logs in and answers a command through it', async () => {
    const booru: FakePhilomena = await startFakePhilomena();
    const dir = await mkdtemp(path.join(tmpdir(), 'philomena-bot-proxy-'));
    cleanups.push(async () => {
      await booru.close();
      await rm(dir, { recursive: true, force: true });
    });
    const bot: BotProcess = await startBotProcess({
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: proxy.url,
      BOORU_URL: booru.url,
      STORE_URL: `sqlite://${path.join(dir, 'bot.sqlite')}`,
      LOG_LEVEL: 'info',
    });
    cleanups.push(() => bot.dispose());
    await bot.waitForLog((line) => line['msg'] === 'bot ready', 30_000);
    const before = discord.requests.length;
    const reply = await discord
      .sendCommand({ name: 'image', options: { id: String(IDS.safe) }, channel: 'plain' })
      .finalReply(15_000);
    expect(reply.embeds.length).toBeGreaterThan(0);
    // The callback and the edit went through the proxy to the local Discord.
    expect(discord.requests.length).toBeGreaterThan(before);
    expect(discord.violations).toEqual([]);
  }, 60_000);

  it('GIVEN Discord unreachable THEN the proxy answers 502 and keeps running', async () => {
    const errors: unknown[] = [];
    // A port nothing listens on, on this machine.
    const dead = await startRestProxy({
      upstream: 'http://127.0.0.1:9/api',
      port: 0,
      onError: (e) => errors.push(e),
    });
    cleanups.push(() => dead.close());
    const first = await fetch(`${dead.url}/v10/gateway`);
    expect(first.status).toBe(502);
    expect(errors).toHaveLength(1);
    const rest = new REST({ api: proxy.url }).setToken(discord.token);
    await rest.get(Routes.gatewayBot());
    expect(gatewayCalls()).toBe(1);
  });
});
