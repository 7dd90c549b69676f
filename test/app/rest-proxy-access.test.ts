/**
 * The REST proxy's rule of whom it relays for (src/rest-proxy/access.ts) and its environment
 * (src/rest-proxy/config.ts): the token check, the token-in-path routes a request without Authorization may
 * take, the bots' application ids, and the checks before it starts.
 */
import { describe, expect, it } from 'vitest';
import {
  createApplicationIds,
  createTokenCheck,
  tokenInPathRoute,
  type Lookup,
} from '../../src/rest-proxy/access.js';
import { loadRestProxyConfig } from '../../src/rest-proxy/config.js';

describe('the token check', () => {
  it('GIVEN the configured tokens THEN only `Bot <one of them>` passes, exactly', () => {
    const isBotToken = createTokenCheck(['first.token', 'second.token']);
    expect(isBotToken('Bot first.token')).toBe(true);
    expect(isBotToken('Bot second.token')).toBe(true);
    for (const other of [
      'first.token',
      'Bearer first.token',
      'bot first.token',
      'Bot first.token ',
      'Bot first.toke',
      'Bot first.tokenx',
      'Bot first.token,second.token',
      'Bot ',
      '',
    ]) {
      expect({ other, passes: isBotToken(other) }).toEqual({ other, passes: false });
    }
  });
});

describe('the routes without Authorization', () => {
  it('GIVEN an interaction callback or interaction webhook route THEN it is named, with the webhook’s application id', () => {
    expect(tokenInPathRoute('POST', '/interactions/123/aW50ZX_-.9/callback')).toEqual({ kind: 'callback' });
    for (const [method, route] of [
      ['POST', '/webhooks/42/aW50ZX'],
      ['GET', '/webhooks/42/aW50ZX/messages/@original'],
      ['PATCH', '/webhooks/42/aW50ZX/messages/%40original'],
      ['DELETE', '/webhooks/42/aW50ZX/messages/987'],
    ] as const) {
      expect(tokenInPathRoute(method, route)).toEqual({ kind: 'webhook', applicationId: '42' });
    }
  });

  it('GIVEN any other route or method THEN none', () => {
    for (const [method, route] of [
      ['GET', '/interactions/123/tok/callback'],
      ['POST', '/interactions/123/tok/callback/extra'],
      ['POST', '/interactions/abc/tok/callback'],
      ['GET', '/webhooks/42/tok'],
      ['PATCH', '/webhooks/42/tok'],
      ['DELETE', '/webhooks/42/tok'],
      ['PUT', '/webhooks/42/tok'],
      ['POST', '/webhooks/42/tok/slack'],
      ['POST', '/webhooks/42/tok/github'],
      ['POST', '/webhooks/42/tok/messages/@original'],
      ['PATCH', '/webhooks/42/tok/messages/other'],
      ['PATCH', '/webhooks/42/to%2Fk/messages/@original'],
      ['POST', '/webhooks/42'],
      ['POST', '//webhooks/42/tok'],
      ['POST', '/api/webhooks/42/tok'],
      ['POST', '/channels/1/messages'],
      ['GET', '/gateway/bot'],
    ] as const) {
      expect({ method, route, found: tokenInPathRoute(method, route) }).toEqual({
        method,
        route,
        found: undefined,
      });
    }
  });
});

describe('the bots’ application ids', () => {
  it('GIVEN several requests at once THEN each token is asked once, and a known id asks nothing', async () => {
    const asked: string[] = [];
    let answer: (lookup: Lookup) => void = () => undefined;
    const ids = createApplicationIds({
      tokens: ['t1'],
      known: ['7'],
      lookUp: (token) => {
        asked.push(token);
        return new Promise((resolve) => (answer = resolve));
      },
    });
    expect(await ids.has('7')).toBe(true);
    expect(asked).toEqual([]);
    const first = ids.has('8');
    const second = ids.has('8');
    answer({ ok: true, applicationId: '8' });
    expect([await first, await second]).toEqual([true, true]);
    expect(await ids.has('9')).toBe(false);
    // Learnt: never asked again.
    expect(asked).toEqual(['t1']);
  });

  it('GIVEN a look-up that fails THEN the token is asked again only after the retry time; one Discord refuses, never again', async () => {
    let now = 0;
    const asked: string[] = [];
    const refused: number[] = [];
    const answers: Record<string, Lookup> = {
      flaky: { ok: false, refused: false },
      bad: { ok: false, refused: true },
    };
    const ids = createApplicationIds({
      tokens: ['bad', 'flaky'],
      lookUp: (token) => {
        asked.push(token);
        return Promise.resolve(answers[token] ?? { ok: false, refused: false });
      },
      retryMs: 1_000,
      now: () => now,
      onRefused: (index) => refused.push(index),
    });
    await ids.learn();
    expect(asked).toEqual(['bad', 'flaky']);
    expect(refused).toEqual([0]);
    expect(await ids.has('5')).toBe(false);
    // Neither asked again: one refused for good, the other waits for its retry time.
    expect(asked).toEqual(['bad', 'flaky']);
    now = 1_000;
    answers['flaky'] = { ok: true, applicationId: '5' };
    expect(await ids.has('5')).toBe(true);
    expect(asked).toEqual(['bad', 'flaky', 'flaky']);
    expect(refused).toEqual([0]);
  });

  it('GIVEN a look-up that throws THEN it counts as a failure, not a crash', async () => {
    const ids = createApplicationIds({ tokens: ['t'], lookUp: () => Promise.reject(new Error('down')) });
    expect(await ids.has('1')).toBe(false);
  });
});

describe('the proxy’s environment', () => {
  it('GIVEN DISCORD_TOKEN missing or blank THEN one line, saying it is required', () => {
    for (const env of [{}, { DISCORD_TOKEN: '' }, { DISCORD_TOKEN: '  ' }, { DISCORD_TOKEN: ' , ,' }]) {
      expect(loadRestProxyConfig(env)).toEqual({
        ok: false,
        problems: [
          'DISCORD_TOKEN: is required: the proxy relays only for the bots whose tokens it holds (comma-separated for several bots)',
        ],
      });
    }
  });

  it('GIVEN tokens and application ids, comma-separated THEN each, trimmed (a token’s `Bot ` prefix too, as discord.js does), with the defaults', () => {
    expect(
      loadRestProxyConfig({
        DISCORD_TOKEN: ' a.b.c , d.e.f ',
        DISCORD_APPLICATION_ID: '1, 2',
        REST_PROXY_HOST: '',
      }),
    ).toEqual({
      ok: true,
      config: {
        tokens: ['a.b.c', 'd.e.f'],
        applicationIds: ['1', '2'],
        port: 8080,
        host: '127.0.0.1',
        upstream: 'https://discord.com/api',
      },
    });
  });

  it('GIVEN REST_PROXY_UPSTREAM in plain http to another machine THEN refused as DISCORD_API_URL is; local http and any https accepted', () => {
    const upstream = (value: string) =>
      loadRestProxyConfig({ DISCORD_TOKEN: 'secret.token', REST_PROXY_UPSTREAM: value });
    const refused = upstream('http://discord.example/api');
    expect(refused.ok).toBe(false);
    const problems = refused.ok ? [] : refused.problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^REST_PROXY_UPSTREAM: must be https: plain http would send the bot token/);
    expect(problems.join('\n')).not.toContain('secret.token');
    expect(upstream('ftp://127.0.0.1/api').ok).toBe(false);
    for (const accepted of [
      'http://127.0.0.1:9/api',
      'http://192.168.1.5:8080/api',
      'https://proxy.example/api/',
    ]) {
      const loaded = upstream(accepted);
      expect(loaded.ok && loaded.config.upstream).toBe(accepted.replace(/\/$/, ''));
    }
  });

  it('GIVEN an application id that is not digits THEN one line for it, never repeating a value', () => {
    const loaded = loadRestProxyConfig({
      DISCORD_TOKEN: 'secret.token',
      DISCORD_APPLICATION_ID: '1,abc,def',
    });
    expect(loaded).toEqual({
      ok: false,
      problems: ['DISCORD_APPLICATION_ID: must be application ids (digits), comma-separated, or blank'],
    });
  });
});
