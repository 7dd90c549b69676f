/**
 * The gateway session's first login, against the local Discord: it connects whatever discord.js's own
 * environment keys hold (issue 18: a blank `SHARD_COUNT=` from `.env` stopped the bot), and when the login
 * fails, `loginFailure` names the real cause: a refused token is not a Discord out of reach, nor a refused
 * intent. The errors are the ones discord.js really gives (a real login), except DNS, which the tests'
 * network guard stops before any lookup.
 */
import net from 'node:net';
import { GatewayIntentBits } from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDiscordClient, discordClientOptions } from '../../src/discord/client-options.js';
import { createGatewaySession, loginFailure } from '../../src/discord/gateway-session.js';
import { createLogger } from '../../src/logger.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';

const logger = createLogger({ level: 'silent' });

let discord: FakeDiscord | undefined;
const servers: net.Server[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await discord?.close();
  discord = undefined;
  // A silent server's connections are ended here: close() waits for them.
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** The session's first login with this token and REST base; resolves with what it rejected with. */
async function loginError(token: string, apiUrl: string): Promise<unknown> {
  const session = createGatewaySession({
    token,
    apiUrl,
    readChat: false,
    logger,
    // No retries and a short request timeout, so each failure comes at once (the options replace the
    // session's whole `rest`, hence its base again).
    clientOptions: { rest: { api: apiUrl, retries: 0, timeout: 500 } },
    attach: () => undefined,
  });
  try {
    await session.connect();
  } catch (error) {
    return error;
  } finally {
    await session.close();
  }
  throw new Error('the login succeeded');
}

/** A loopback server: `silent` accepts and never answers; else it is closed again, so its port refuses. */
async function loopbackPort(kind: 'silent' | 'closed'): Promise<number> {
  const server = net.createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  if (kind === 'closed') await new Promise((resolve) => server.close(resolve));
  else servers.push(server);
  return address.port;
}

describe('the gateway session and the environment', () => {
  it.each(['', 'bogus', '3'])(
    'GIVEN SHARD_COUNT=%j, SHARDS and SHARDING_MANAGER in the environment THEN the session logs in and is ready with the shards it was given',
    async (value) => {
      discord = await startFakeDiscord();
      vi.stubEnv('SHARD_COUNT', value);
      vi.stubEnv('SHARDS', value);
      vi.stubEnv('SHARDING_MANAGER', 'true');
      const session = createGatewaySession({
        token: discord.token,
        apiUrl: discord.apiUrl,
        readChat: false,
        logger,
        attach: () => undefined,
      });
      try {
        const client = await session.connect();
        expect(client.options.shards).toEqual([0]);
        expect(client.options.shardCount).toBe(1);
        expect(client.shard).toBeNull();
      } finally {
        await session.close();
      }
      expectNoDiscordProblems(discord);
    },
  );
});

describe('loginFailure', () => {
  it('GIVEN a token the local Discord refuses (401) THEN the line says the token is wrong and how to get the right one', async () => {
    discord = await startFakeDiscord();
    const wrong = `${discord.token}x`;
    const failure = loginFailure(await loginError(wrong, discord.apiUrl), discord.apiUrl);
    expect(failure.kind).toBe('token');
    expect(failure.line).toMatch(/^Discord refused the bot token: set DISCORD_TOKEN/);
    expect(failure.line).not.toContain(wrong);
    expectNoDiscordProblems(discord, [(v) => v.kind === 'unauthorized']);
  });

  it('GIVEN the gateway closing with 4004 (authentication failed) THEN it is the token too', () => {
    // What @discordjs/ws rejects the login with on close 4004.
    expect(loginFailure(new Error('Authentication failed'), undefined).kind).toBe('token');
  });

  it('GIVEN nothing listening at DISCORD_API_URL THEN the line says Discord could not be reached there, not that the token is wrong', async () => {
    const port = await loopbackPort('closed');
    // A password in the URL stays out of the line: only the host is named.
    const apiUrl = `http://user:hunter2@127.0.0.1:${port}/api`;
    const failure = loginFailure(await loginError('any.token.here', apiUrl), apiUrl);
    expect(failure).toEqual({
      kind: 'unreachable',
      line: `could not reach Discord at 127.0.0.1:${port} (connection refused, ECONNREFUSED): check DISCORD_API_URL (blank means Discord itself), that the REST proxy there is running, and this machine's network. The token was not checked.`,
    });
  });

  it('GIVEN a Discord that accepts the connection and never answers THEN it could not be reached (no answer in time)', async () => {
    const port = await loopbackPort('silent');
    const apiUrl = `http://127.0.0.1:${port}/api`;
    const failure = loginFailure(await loginError('any.token.here', apiUrl), apiUrl);
    expect(failure.kind).toBe('unreachable');
    expect(failure.line).toContain(`at 127.0.0.1:${port} (no answer in time)`);
  });

  it('GIVEN Discord (or the REST proxy) answering 502 THEN it could not be reached, with the status', async () => {
    discord = await startFakeDiscord();
    discord.inject({ route: '/gateway/bot', status: 502, times: 5 });
    const failure = loginFailure(await loginError(discord.token, discord.apiUrl), discord.apiUrl);
    expect(failure.kind).toBe('unreachable');
    expect(failure.line).toContain('(it answered HTTP 502)');
  });

  it.each([
    ['ENOTFOUND', 'host name not found'],
    ['EAI_AGAIN', 'DNS lookup failed'],
  ])(
    'GIVEN a DNS failure (%s), as Node reports it, bare or as the cause of a failed fetch THEN Discord itself could not be reached',
    (code, reason) => {
      const dns = Object.assign(new Error(`getaddrinfo ${code} discord.com`), {
        code,
        syscall: 'getaddrinfo',
      });
      for (const error of [dns, new TypeError('fetch failed', { cause: dns })]) {
        expect(loginFailure(error, undefined)).toEqual({
          kind: 'unreachable',
          line: `could not reach Discord at discord.com (${reason}, ${code}): check this machine's network, DNS and firewall. The token was not checked.`,
        });
      }
    },
  );

  it('GIVEN every address of a host refusing (an AggregateError) THEN it could not be reached', () => {
    const refused = (address: string) =>
      Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    const error = new AggregateError([refused('::1:443'), refused('127.0.0.1:443')], 'connect failed');
    expect(loginFailure(error, 'https://proxy.internal/api').line).toMatch(
      /^could not reach Discord at proxy\.internal \(connection refused, ECONNREFUSED\)/,
    );
  });

  it('GIVEN Discord refusing an intent at login (gateway close 4014) THEN the line says which setting to change', async () => {
    discord = await startFakeDiscord({ allowMessageContentIntent: false });
    // A client asking for Message Content itself: the session would drop the intent and log in again.
    const client = createDiscordClient({
      ...discordClientOptions({ unfurl: false, apiUrl: discord.apiUrl }),
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.MessageContent],
    });
    const error = await client.login(discord.token).then(
      () => new Error('the login succeeded'),
      (rejected: unknown) => rejected,
    );
    await client.destroy();
    const failure = loginFailure(error, discord.apiUrl);
    expect(failure.kind).toBe('intents');
    expect(failure.line).toContain('Privileged Gateway Intents');
  });

  it('GIVEN anything else THEN one line that says connecting to Discord failed, and its first line only', () => {
    expect(loginFailure(new Error('something odd\n    at somewhere (file.js:1:1)'), undefined)).toEqual({
      kind: 'other',
      line: 'could not connect to Discord: something odd',
    });
    expect(loginFailure('a string', undefined).line).toBe('could not connect to Discord: a string');
  });
});
