/**
 * The REST proxy and Discord's global limit (src/rest-proxy/proxy.ts): the bots' interaction routes go
 * through a queue of their own with no global cap, as Discord holds them to none, while everything else
 * stays within the bots' 50 requests a second (a caller past it gets the proxy's 429 and waits, and
 * Discord never has to refuse one). In front of the local Discord, which applies the global limit where
 * Discord does (test/fakes/discord/global-limit.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRestProxy, type RestProxy } from '../../src/rest-proxy/proxy.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';

let discord: FakeDiscord;
let proxy: RestProxy;

beforeEach(async () => {
  discord = await startFakeDiscord();
  proxy = await startRestProxy({
    tokens: [discord.token],
    applicationIds: [discord.applicationId],
    upstream: discord.apiUrl,
    port: 0,
  });
});
afterEach(async () => {
  await proxy.close();
  await discord.close();
});

/** One raw request through the proxy; `route` is after `/api/v10`. */
async function send(method: string, route: string, body: unknown, authorized: boolean): Promise<number> {
  const response = await fetch(`${proxy.url}/v10${route}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(authorized ? { authorization: `Bot ${discord.token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

const NO_PINGS = { parse: [] };
const globalRefusals = () => discord.violations.filter((v) => v.kind === 'global-limit');

describe('the REST proxy and the global limit', () => {
  it('GIVEN 120 interactions answered at once through the proxy (240 requests) THEN none is held to the global limit or refused', async () => {
    const handles = Array.from({ length: 120 }, () =>
      discord.sendCommand({ name: 'image', options: { id: 1 }, channel: 'plain' }),
    );
    const callbacks = await Promise.all(
      handles.map((h) => send('POST', `/interactions/${h.id}/${h.token}/callback`, { type: 5 }, false)),
    );
    const edits = await Promise.all(
      handles.map((h, i) =>
        send(
          'PATCH',
          `/webhooks/${discord.applicationId}/${h.token}/messages/@original`,
          { content: `answer ${i}`, allowed_mentions: NO_PINGS },
          // Whatever Authorization they carry.
          i % 2 === 0,
        ),
      ),
    );
    expect(callbacks).toEqual(Array(120).fill(204));
    expect(edits).toEqual(Array(120).fill(200));
    expect((await handles[119]?.finalReply())?.content).toBe('answer 119');
    expect(discord.violations).toEqual([]);
  });

  it('GIVEN 60 channel posts at once through the proxy THEN 50 reach Discord in that second, the rest get the proxy’s 429, and Discord refuses none', async () => {
    const { plain, ageRestricted, spoiler } = discord.guild.channels;
    const channels = [plain, ageRestricted, spoiler];
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        send(
          'POST',
          `/channels/${channels[i % 3] ?? plain}/messages`,
          { content: `post ${i}`, allowed_mentions: NO_PINGS },
          true,
        ),
      ),
    );
    // Whether the window turns within the burst depends on the machine: at least 50 pass, none reach
    // Discord past its limit.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(50);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(globalRefusals()).toEqual([]);
    expect(discord.requests.filter((r) => r.status === 429)).toEqual([]);
  });
});
