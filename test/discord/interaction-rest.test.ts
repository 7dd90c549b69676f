/**
 * The bot's Discord REST (src/discord/interaction-rest.ts, src/discord/interaction-routes.ts): interaction
 * answers are not held to the global 50 requests a second, everything else still is, and every 429 Discord
 * sends is waited out, on interaction routes too. A real discord.js client made as the bot makes it
 * (createDiscordClient), answering with discord.js's own interaction methods, against the local Discord,
 * which applies the global limit where Discord does (test/fakes/discord/global-limit.ts).
 */
import { once } from 'node:events';
import { Events, RESTEvents, Routes, type Client, type RateLimitData, type REST } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordClient, discordClientOptions } from '../../src/discord/client-options.js';
import { createInteractionRest, type InteractionRoutesLimit } from '../../src/discord/interaction-rest.js';
import { interactionRoute, isUnboundRoute } from '../../src/discord/interaction-routes.js';
import { startFakeDiscord, type FakeDiscord, type InteractionHandle } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';

let discord: FakeDiscord | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.destroy();
  await discord?.close();
  client = undefined;
  discord = undefined;
});

interface Bot {
  readonly discord: FakeDiscord;
  readonly client: Client;
  /** Every wait discord.js's REST reported (RESTEvents.RateLimited), either queue. */
  readonly waits: RateLimitData[];
}

/** The local Discord and a logged-in client that defers every command and then edits its answer in. */
async function started(limit: InteractionRoutesLimit = 'exempt'): Promise<Bot> {
  discord = await startFakeDiscord();
  client = createDiscordClient(discordClientOptions({ unfurl: false, apiUrl: discord.apiUrl }), limit);
  const waits: RateLimitData[] = [];
  client.rest.on(RESTEvents.RateLimited, (info) => waits.push(info));
  client.on(Events.InteractionCreate, (interaction) => {
    if (!interaction.isChatInputCommand()) return;
    void (async () => {
      await interaction.deferReply();
      await interaction.editReply({ content: `answer ${interaction.id}` });
    })();
  });
  const ready = once(client, Events.ClientReady);
  await client.login(discord.token);
  await ready;
  return { discord, client, waits };
}

function command(f: FakeDiscord): InteractionHandle {
  return f.sendCommand({ name: 'image', options: { id: 1 }, channel: 'plain' });
}

async function answered(handles: readonly InteractionHandle[]): Promise<string[]> {
  const replies = await Promise.all(handles.map((h) => h.finalReply(20_000)));
  return replies.map((r) => r.content);
}

const expectedAnswers = (handles: readonly InteractionHandle[]) => handles.map((h) => `answer ${h.id}`);
const globalWaits = (waits: readonly RateLimitData[]) => waits.filter((w) => w.global);

/** Posts through the client's REST (a bound route), to the plain channel unless told. */
function post(bot: Bot, content: string, channel = bot.discord.guild.channels.plain): Promise<unknown> {
  return bot.client.rest.post(Routes.channelMessages(channel), {
    body: { content, allowed_mentions: { parse: [] } },
  });
}

describe('interaction routes', () => {
  it('GIVEN routes THEN the callback and the webhook of the bot’s own application are exempt, nothing else', () => {
    const app = '111111111111111111';
    expect(isUnboundRoute('POST', '/interactions/222222222222222222/aW50ZX_tok/callback', app)).toBe(true);
    for (const [method, route] of [
      ['POST', `/webhooks/${app}/aW50ZX_tok`],
      ['PATCH', `/webhooks/${app}/aW50ZX_tok/messages/@original`],
      ['GET', `/webhooks/${app}/aW50ZX_tok/messages/@original`],
      ['DELETE', `/webhooks/${app}/aW50ZX_tok/messages/333333333333333333`],
      ['PATCH', `/webhooks/${app}/aW50ZX_tok/messages/333333333333333333`],
    ] as const) {
      expect({ method, route, exempt: isUnboundRoute(method, route, app) }).toEqual({
        method,
        route,
        exempt: true,
      });
    }
    for (const [method, route, id] of [
      // A webhook made in a channel: its own id, not the application's.
      ['POST', '/webhooks/444444444444444444/channel-webhook-token', app],
      ['PATCH', '/webhooks/444444444444444444/channel-webhook-token/messages/@original', app],
      // The application not known yet: no webhook route is exempt.
      ['POST', `/webhooks/${app}/aW50ZX_tok`, undefined],
      ['POST', '/channels/555555555555555555/messages', app],
      ['PATCH', `/applications/${app}/commands`, app],
      ['PUT', `/webhooks/${app}/aW50ZX_tok`, app],
      ['GET', '/interactions/222222222222222222/tok/callback', app],
    ] as const) {
      expect({ method, route, exempt: isUnboundRoute(method, route, id) }).toEqual({
        method,
        route,
        exempt: false,
      });
    }
    expect(interactionRoute('PATCH', `/webhooks/${app}/t/messages/%40original`)).toEqual({
      kind: 'webhook',
      applicationId: app,
    });
  });
});

describe('the bot’s REST, on its own', () => {
  const APP = '111111111111111111';

  /** The REST with a `makeRequest` that answers 200 at once and records each request's method and path. */
  function recorded(): { rest: REST; sent: string[]; waits: RateLimitData[] } {
    const sent: string[] = [];
    const waits: RateLimitData[] = [];
    const rest = createInteractionRest(
      {
        api: 'http://127.0.0.1:9/api',
        makeRequest: (url, init) => {
          sent.push(`${init.method ?? 'GET'} ${new URL(url).pathname}`);
          return Promise.resolve(
            new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } }),
          );
        },
      },
      () => APP,
    ).setToken('token');
    rest.on(RESTEvents.RateLimited, (info) => waits.push(info));
    return { rest, sent, waits };
  }

  it('GIVEN 60 channel posts and 120 interaction answers at once THEN 50 posts and every answer go out, the other 10 posts wait for the next second', async () => {
    const { rest, sent, waits } = recorded();
    const channels = ['222222222222222221', '222222222222222222', '222222222222222223'];
    const posts = Array.from({ length: 60 }, (_, i) =>
      rest.post(Routes.channelMessages(channels[i % 3] ?? ''), { body: { content: `post ${i}` } }),
    );
    const answers = Array.from({ length: 120 }, (_, i) =>
      i % 2 === 0
        ? rest.post(Routes.interactionCallback(`33333333333333${1000 + i}`, `token${i}`), {
            body: { type: 5 },
            auth: false,
          })
        : rest.patch(Routes.webhookMessage(APP, `token${i}`, '@original'), {
            body: { content: 'x' },
            auth: false,
          }),
    );
    await Promise.all(answers);
    await Promise.all(posts);
    const isPost = (line: string) => line.includes('/channels/');
    const postIndexes = sent.flatMap((line, index) => (isPost(line) ? [index] : []));
    const lastAnswer = sent.findLastIndex((line) => !isPost(line));
    // The 51st post waited for the next second; every answer had gone out before it, none waited.
    expect(postIndexes).toHaveLength(60);
    expect(lastAnswer).toBeLessThan(postIndexes[50] ?? -1);
    expect(sent.filter((line) => !isPost(line))).toHaveLength(120);
    const globalWaits = waits.filter((w) => w.global);
    expect(globalWaits.length).toBeGreaterThan(0);
    expect(globalWaits.every((w) => w.limit === 50 && w.route === '/channels/:id/messages')).toBe(true);
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  });

  it('GIVEN a webhook that is not the application’s THEN its requests wait for the global limit like a channel post', async () => {
    const { rest, sent } = recorded();
    const other = '444444444444444444';
    const first = Array.from({ length: 50 }, (_, i) =>
      rest.post(Routes.channelMessages('222222222222222221'), { body: { content: `post ${i}` } }),
    );
    await Promise.all(first);
    const hooked = rest.post(Routes.webhook(other, 'channel-webhook-token'), {
      body: { content: 'x' },
      auth: false,
    });
    const answer = rest.patch(Routes.webhookMessage(APP, 'interaction-token', '@original'), {
      body: { content: 'x' },
      auth: false,
    });
    await answer;
    expect(sent.some((line) => line.includes(`/webhooks/${other}/`))).toBe(false);
    await hooked;
    expect(sent.some((line) => line.includes(`/webhooks/${other}/`))).toBe(true);
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  });
});

describe('the bot’s REST and Discord’s global limit', () => {
  it('GIVEN 80 interactions at once THEN every answer goes out without waiting for the global limit, and Discord refuses none', async () => {
    const bot = await started();
    const handles = Array.from({ length: 80 }, () => command(bot.discord));
    expect(await answered(handles)).toEqual(expectedAnswers(handles));
    expect(globalWaits(bot.waits)).toEqual([]);
    expectNoDiscordProblems(bot.discord);
  });

  it('GIVEN the switch to @discordjs/rest’s own behaviour THEN the same answers queue behind the global limit (for comparison)', async () => {
    const bot = await started('global');
    const handles = Array.from({ length: 80 }, () => command(bot.discord));
    expect(await answered(handles)).toEqual(expectedAnswers(handles));
    expect(globalWaits(bot.waits).length).toBeGreaterThan(0);
    expectNoDiscordProblems(bot.discord);
  });
});

describe('429s are waited out', () => {
  const EDIT = '/webhooks/:app/:token/messages/:message';
  const CALLBACK = '/interactions/:interaction/:token/callback';

  it.each([
    ['a global 429 on the edit that carries the answer', EDIT, 'PATCH', true],
    ['a per-route 429 on the edit that carries the answer', EDIT, 'PATCH', false],
    ['a global 429 on the interaction callback', CALLBACK, 'POST', true],
  ] as const)(
    'GIVEN %s THEN the client waits, sends it again, and the member gets the answer',
    async (_, route, method, global) => {
      const bot = await started();
      bot.discord.inject({ route, method, status: 429, retryAfter: 0.2, global });
      const handle = command(bot.discord);
      expect(await answered([handle])).toEqual(expectedAnswers([handle]));
      const tries = bot.discord.requests.filter((r) => r.method === method && r.route === route);
      expect(tries.map((r) => r.status)).toEqual([429, method === 'PATCH' ? 200 : 204]);
      // @discordjs/rest reports the wait of a webhook route's queue; the callback's (a BurstHandler) waits
      // without a report: the 429 and the second try above show it.
      if (route === EDIT) {
        expect(bot.waits.some((w) => w.global === global && w.retryAfter >= 200)).toBe(true);
      }
      expectNoDiscordProblems(bot.discord);
    },
  );

  it('GIVEN a global 429 on a channel post THEN the post waits it out and succeeds, while interaction answers go on meanwhile', async () => {
    const bot = await started();
    bot.discord.inject({
      route: '/channels/:channel/messages',
      method: 'POST',
      status: 429,
      retryAfter: 2,
      global: true,
    });
    const posted = post(bot, 'after the wait');
    await bot.discord.waitFor(
      () => (bot.discord.requests.some((r) => r.status === 429) ? true : undefined),
      5000,
    );
    const handles = Array.from({ length: 5 }, () => command(bot.discord));
    expect(await answered(handles)).toEqual(expectedAnswers(handles));
    // Answered while the bound routes were still waiting: the post is not made yet.
    const made = () =>
      bot.discord
        .channelMessages(bot.discord.guild.channels.plain)
        .filter((m) => m.content === 'after the wait');
    expect(made()).toEqual([]);
    await posted;
    const posts = bot.discord.requests.filter((r) => r.route === '/channels/:channel/messages');
    expect(posts.map((r) => r.status)).toEqual([429, 200]);
    expect(made()).toHaveLength(1);
    expect(bot.waits.some((w) => w.global && w.retryAfter >= 2000)).toBe(true);
    expectNoDiscordProblems(bot.discord);
  });
});
