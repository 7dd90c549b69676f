/**
 * The REST proxy (src/rest-proxy/proxy.ts) relays only the methods Discord's REST API takes (those of
 * @discordjs/rest's RequestMethod): any other, from one of its own bots, is answered 405 by the proxy and
 * never reaches Discord; a stranger still gets 401 first.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRestProxy, type RestProxy } from '../../src/rest-proxy/proxy.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';

let discord: FakeDiscord;
let proxy: RestProxy;

beforeEach(async () => {
  discord = await startFakeDiscord();
  proxy = await startRestProxy({ tokens: [discord.token], upstream: discord.apiUrl, port: 0 });
});
afterEach(async () => {
  await proxy.close();
  await discord.close();
});

describe('the Discord REST proxy, by method', () => {
  it('GIVEN a method Discord does not take, from its own bot THEN 405 from the proxy, naming the ones it relays, and Discord never asked', async () => {
    const response = await fetch(`${proxy.url}/v10/gateway/bot`, {
      method: 'OPTIONS',
      headers: { authorization: `Bot ${discord.token}` },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('DELETE, GET, PATCH, POST, PUT');
    // The proxy asks Discord for its bots' applications by itself at start: only the relayed route counts.
    expect(discord.requests.filter((r) => r.path.endsWith('/gateway/bot'))).toEqual([]);
  });

  it('GIVEN such a method from a stranger THEN 401 as before', async () => {
    const response = await fetch(`${proxy.url}/v10/gateway/bot`, {
      method: 'OPTIONS',
      headers: { authorization: 'Bot not-a-token-discord-knows' },
    });
    expect(response.status).toBe(401);
  });

  it('GIVEN GET from its own bot THEN it is relayed', async () => {
    const response = await fetch(`${proxy.url}/v10/gateway/bot`, {
      headers: { authorization: `Bot ${discord.token}` },
    });
    expect(response.status).toBe(200);
  });
});
