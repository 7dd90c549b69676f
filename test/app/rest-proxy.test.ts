/**
 * The shared Discord REST proxy (`npm run rest-proxy`, src/rest-proxy/proxy.ts) in front of the local
 * Discord: requests reach Discord with the caller's own token, a 429 comes back to the caller (whose REST
 * client waits and retries) instead of being retried by the proxy, and the real bot process, pointed at
 * the proxy with DISCORD_API_URL, answers commands through it. It relays only for its own bots (so no
 * stranger spends their rate limits and the host's IP reputation): their tokens, and without
 * Authorization only their interaction routes; the rest is 401 from the proxy.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REST, Routes } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startRestProxy, type RestProxy, type RestProxyOptions } from '../../src/rest-proxy/proxy.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { IDS, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { watchChild } from '../support/child-output.js';
import { startBotProcess, type BotProcess } from '../lifecycle/bot-process.js';

let discord: FakeDiscord;
let proxy: RestProxy;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  discord = await startFakeDiscord();
  proxy = await startRestProxy({ tokens: [discord.token], upstream: discord.apiUrl, port: 0 });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await proxy.close();
  await discord.close();
});

function gatewayCalls(): number {
  return discord.requests.filter((r) => r.path.endsWith('/gateway/bot')).length;
}

/** A proxy of the test's own, closed after it. */
async function anotherProxy(options: Omit<RestProxyOptions, 'port'>): Promise<RestProxy> {
  const started = await startRestProxy({ ...options, port: 0 });
  cleanups.push(() => started.close());
  return started;
}

/** One raw request through `via` (default the test's proxy); `route` is after `/api/v10`. */
async function send(
  method: string,
  route: string,
  authorization?: string,
  via: RestProxy = proxy,
): Promise<{ status: number; body: string }> {
  const withBody = method === 'POST' || method === 'PATCH';
  const response = await fetch(`${via.url}/v10${route}`, {
    method,
    headers: {
      ...(authorization === undefined ? {} : { authorization }),
      ...(withBody ? { 'content-type': 'application/json' } : {}),
    },
    ...(withBody ? { body: JSON.stringify({ content: 'hello' }) } : {}),
  });
  return { status: response.status, body: await response.text() };
}

/** Whether the local Discord got a request on this path (after `/api/v10`; the fake records it decoded). */
function reached(route: string): boolean {
  return discord.requests.some((r) => r.path === decodeURIComponent(route));
}

const REFUSED = /^\{"message":"401: Unauthorized \(this REST proxy relays only for the bot tokens/;

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
    // The callback and the edit (no Authorization: the interaction routes) went through the proxy.
    const answered = discord.requests.slice(before);
    expect(answered.some((r) => r.path.startsWith('/interactions/') && !r.authorized)).toBe(true);
    expect(answered.some((r) => r.path.startsWith(`/webhooks/${discord.applicationId}/`))).toBe(true);
    expect(discord.violations).toEqual([]);
  }, 60_000);

  it('GIVEN Discord unreachable THEN the proxy answers 502 and keeps running', async () => {
    const errors: unknown[] = [];
    // A port nothing listens on, on this machine.
    const dead = await anotherProxy({
      tokens: [discord.token],
      upstream: 'http://127.0.0.1:9/api',
      onError: (e) => errors.push(e),
    });
    const first = await fetch(`${dead.url}/v10/gateway`, {
      headers: { authorization: `Bot ${discord.token}` },
    });
    expect(first.status).toBe(502);
    expect(errors).toHaveLength(1);
    const rest = new REST({ api: proxy.url }).setToken(discord.token);
    await rest.get(Routes.gatewayBot());
    expect(gatewayCalls()).toBe(1);
  });
});

describe('the proxy relays only for its own bots (review N9)', () => {
  it('GIVEN another bot’s token, or the right one in another form THEN 401 from the proxy, Discord never asked, and the body names no token', async () => {
    for (const authorization of [
      'Bot someone-elses.token.value',
      `Bearer ${discord.token}`,
      discord.token,
      `Bot ${discord.token}x`,
      `Bot  ${discord.token}`,
      'Bot ',
    ]) {
      const answer = await send('GET', '/gateway/bot', authorization);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatch(REFUSED);
      expect(answer.body).not.toContain('someone-elses');
      expect(answer.body).not.toContain(discord.token);
    }
    expect(gatewayCalls()).toBe(0);
    // The right token still goes through.
    expect((await send('GET', '/gateway/bot', `Bot ${discord.token}`)).status).toBe(200);
    expect(gatewayCalls()).toBe(1);
  });

  it('GIVEN no Authorization off the interaction routes THEN 401 and nothing reaches Discord', async () => {
    const channel = discord.guild.channels.plain;
    const attempts: [string, string][] = [
      ['GET', '/gateway/bot'],
      ['POST', `/channels/${channel}/messages`],
      ['GET', '/users/@me'],
      // A webhook of a channel (its own id, not the application's) and its other routes.
      ['POST', '/webhooks/123456789012345678/a-webhook-token'],
      ['POST', `/webhooks/${discord.applicationId}/a-token/slack`],
      ['POST', `/webhooks/${discord.applicationId}/a-token/github`],
      ['GET', `/webhooks/${discord.applicationId}/a-token`],
      ['PATCH', `/webhooks/${discord.applicationId}/a-token`],
      ['DELETE', `/webhooks/${discord.applicationId}/a-token`],
      ['POST', `/webhooks/${discord.applicationId}/a-token/messages/@original`],
      ['GET', '/interactions/123/a-token/callback'],
      // Dot segments are resolved (by the client, else by the proxy's URL parsing) before the check.
      ['POST', `/webhooks/${discord.applicationId}/a-token/../../channels/${channel}/messages`],
      ['POST', `/interactions/1/a%2Ftoken/callback`],
    ];
    for (const [method, route] of attempts) {
      const answer = await send(method, route);
      expect({ method, route, status: answer.status }).toEqual({ method, route, status: 401 });
    }
    // Nothing but the proxy's own look-up of its bot's application reached Discord.
    expect(discord.requests.map((r) => r.path).filter((p) => p !== '/applications/@me')).toEqual([]);
  });

  it('GIVEN no Authorization on the interaction routes of its bot THEN they reach Discord', async () => {
    const app = discord.applicationId;
    const allowed: [string, string][] = [
      ['POST', '/interactions/123456789012345678/aW50ZXJhY3Rpb24abc_-9/callback'],
      ['POST', `/webhooks/${app}/aW50ZXJhY3Rpb24abc`],
      ['GET', `/webhooks/${app}/aW50ZXJhY3Rpb24abc/messages/@original`],
      ['PATCH', `/webhooks/${app}/aW50ZXJhY3Rpb24abc/messages/@original`],
      // As discord.js sends it.
      ['PATCH', `/webhooks/${app}/aW50ZXJhY3Rpb24abc/messages/%40original`],
      ['DELETE', `/webhooks/${app}/aW50ZXJhY3Rpb24abc/messages/123456789012345678`],
    ];
    for (const [method, route] of allowed) {
      const answer = await send(method, route);
      // Discord's own answer (the fake knows no such interaction), not the proxy's 401.
      expect(answer.body).not.toMatch(REFUSED);
      expect(reached(route)).toBe(true);
    }
  });

  it('GIVEN several bots in DISCORD_TOKEN THEN each one’s token is relayed, and a token Discord refuses is reported by its place only', async () => {
    const refusedTokens: number[] = [];
    const shared = await anotherProxy({
      tokens: ['not-a-token-discord-knows', discord.token],
      upstream: discord.apiUrl,
      onTokenRefused: (position) => refusedTokens.push(position),
    });
    expect((await send('GET', '/gateway/bot', `Bot ${discord.token}`, shared)).status).toBe(200);
    // Relayed, and Discord (not the proxy) refuses it.
    const other = await send('GET', '/gateway/bot', 'Bot not-a-token-discord-knows', shared);
    expect(other.status).toBe(401);
    expect(other.body).not.toMatch(REFUSED);
    expect(gatewayCalls()).toBe(2);
    // The application of the token Discord knows was learnt: its interaction webhook is relayed.
    const route = `/webhooks/${discord.applicationId}/aW50ZXJhY3Rpb24abc`;
    expect((await send('POST', route, undefined, shared)).body).not.toMatch(REFUSED);
    await vi.waitFor(() => expect(refusedTokens).toEqual([1]));
  });

  it('GIVEN DISCORD_APPLICATION_ID configured THEN its webhooks are relayed without asking Discord for the application', async () => {
    const configured = await anotherProxy({
      tokens: [discord.token],
      applicationIds: [discord.applicationId],
      upstream: discord.apiUrl,
    });
    const lookUps = () => discord.requests.filter((r) => r.path === '/applications/@me').length;
    // The test's other proxy asks once, at its start.
    await vi.waitFor(() => expect(lookUps()).toBe(1));
    const route = `/webhooks/${discord.applicationId}/aW50ZXJhY3Rpb24abc`;
    expect((await send('POST', route, undefined, configured)).body).not.toMatch(REFUSED);
    expect(reached(route)).toBe(true);
    expect(lookUps()).toBe(1);
  });

  it('GIVEN no token THEN the proxy does not start', async () => {
    await expect(startRestProxy({ tokens: [' ', ''], upstream: discord.apiUrl, port: 0 })).rejects.toThrow(
      /needs the token of at least one bot/,
    );
  });
});

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPT = path.join(ROOT, 'scripts/rest-proxy.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const NETWORK_GUARD = pathToFileURL(path.join(ROOT, 'test/setup.ts')).href;

interface ScriptRun {
  stdout(): string;
  stderr(): string;
  /** Resolves once `check` holds for stdout and stderr; rejects if the script exits first or after 20 s. */
  until(check: (out: string, err: string) => boolean): Promise<void>;
  readonly exited: Promise<number | null>;
  stop(): void;
}

/** `npm run rest-proxy`'s script under tsx, in an empty directory (no developer's `.env`), with only `env`. */
async function runScript(env: Record<string, string>): Promise<ScriptRun> {
  const cwd = await mkdtemp(path.join(tmpdir(), 'philomena-bot-rest-proxy-'));
  const child = spawn(process.execPath, ['--import', TSX, '--import', NETWORK_GUARD, SCRIPT], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watched = watchChild(child);
  cleanups.push(async () => {
    if (!watched.done()) child.kill('SIGKILL');
    await watched.exited;
    await rm(cwd, { recursive: true, force: true });
  });
  return {
    stdout: watched.stdout,
    stderr: watched.stderr,
    exited: watched.exited.then((exit) => exit.code),
    stop: () => child.kill('SIGTERM'),
    async until(check) {
      await watched.until(
        () => (check(watched.stdout(), watched.stderr()) ? true : undefined),
        20_000,
        'the output',
      );
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('npm run rest-proxy', () => {
  it('GIVEN DISCORD_TOKEN blank THEN it refuses to start with one clear line', async () => {
    const run = await runScript({ DISCORD_TOKEN: ' , ', REST_PROXY_PORT: String(await freePort()) });
    expect(await run.exited).toBe(1);
    expect(run.stderr().trim().split('\n')).toEqual([
      'DISCORD_TOKEN: is required: the proxy relays only for the bots whose tokens it holds (comma-separated for several bots)',
    ]);
    expect(run.stdout()).toBe('');
  }, 30_000);

  it('GIVEN a refused request whose path holds a token THEN its log line names neither that token nor a bot’s', async () => {
    const port = await freePort();
    const run = await runScript({
      DISCORD_TOKEN: `other.bot-token-value,${discord.token}`,
      REST_PROXY_UPSTREAM: discord.apiUrl,
      REST_PROXY_PORT: String(port),
    });
    await run.until((out) => out.includes('Set DISCORD_API_URL='));
    const base = `http://127.0.0.1:${port}/api/v10`;
    const refused = await fetch(`${base}/channels/${discord.token}/webhooks/1/secret-webhook-token`, {
      headers: { authorization: 'Bot wrong' },
    });
    expect(refused.status).toBe(401);
    await run.until((_out, err) => err.includes('refused 1 request'));
    const logged = run.stdout() + run.stderr();
    expect(logged).toContain('GET /api/v10/channels/[REDACTED]/webhooks/1/[REDACTED]');
    expect(logged).not.toContain(discord.token);
    expect(logged).not.toContain('other.bot-token-value');
    expect(logged).not.toContain('secret-webhook-token');
    run.stop();
    expect(await run.exited).toBe(0);
  }, 30_000);
});
