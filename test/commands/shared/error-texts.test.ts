import { describe, expect, it } from 'vitest';
import { DiscordAPIError, HTTPError } from 'discord.js';
import { userErrorText } from '../../../commands/shared/error-texts.js';
import { tokenUsable, type Ack } from '../../../src/discord/acks.js';
import { fitChoices } from '../../../src/discord/autocomplete.js';
import { discordFailureOf, UserFacingError, type DiscordFailure } from '../../../src/discord/failures.js';
import {
  BadQueryError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  RateLimitedError,
  SettingsUnavailableError,
  SiteUnavailableError,
} from '../../../src/errors.js';

const ctx = { site: 'derpibooru', path: '/api/v1/json/images/1?key=[REDACTED]' };

describe('userErrorText', () => {
  it.each<[string, unknown, RegExp, boolean]>([
    ['not found', new NotFoundError('gone', ctx), /^Not found/, true],
    [
      'a bad query',
      new BadQueryError('Imbalanced parentheses.', ctx),
      /did not understand.*Imbalanced parentheses\./,
      true,
    ],
    ['rate limited', new RateLimitedError('429', 12_300, ctx), /busy\. Try again in 13 s/, true],
    [
      'a full budget',
      new SiteUnavailableError('queue', 'budget-exhausted', { ...ctx, retryAfterMs: 4000 }),
      /busy\. Try again in 4 s/,
      true,
    ],
    [
      'an open breaker with a wait',
      new SiteUnavailableError('open', 'circuit-open', { ...ctx, retryAfterMs: 180_000 }),
      /^The site is down or not answering right now\. Try again in 3 minutes\.$/,
      true,
    ],
    ['a timeout', new SiteUnavailableError('timeout', 'timeout', ctx), /down or not answering/, true],
    [
      'a 503 naming its wait',
      new SiteUnavailableError('503', 'server-error', { ...ctx, status: 503, retryAfterMs: 45_000 }),
      /^The site is down or not answering right now\. Try again in 45 s\.$/,
      true,
    ],
    ['forbidden', new ForbiddenError('403', ctx), /refused/, true],
    ['an unreadable answer', new InvalidResponseError('bad', 'images[0].id', ctx), /could not read/, false],
    ['a bug', new TypeError('x is undefined'), /^Something went wrong/, false],
    ['a thrown string', 'boom', /^Something went wrong/, false],
    ['a user-facing error', new UserFacingError('Give an id.'), /^Give an id\.$/, true],
    [
      'settings that could not be read',
      new SettingsUnavailableError('read', '1', { cause: new Error('SQLITE_IOERR at /var/lib/bot.sqlite') }),
      /^Could not read this server's settings right now\. Try again in a moment\.$/,
      false,
    ],
    [
      'settings that could not be saved',
      new SettingsUnavailableError('write', '1'),
      /^Could not save this server's settings right now\. Try again in a moment\.$/,
      false,
    ],
    [
      'settings that could not be reset',
      new SettingsUnavailableError('delete', '1'),
      /^Could not reset this server's settings right now\. Try again in a moment\.$/,
      false,
    ],
  ])('GIVEN %s THEN the member reads a short text', (_name, error, text, expected) => {
    const result = userErrorText(error);
    expect(result.text).toMatch(text);
    expect(result.expected).toBe(expected);
    expect(result.text).not.toContain('REDACTED');
    expect(result.text).not.toContain('/api/');
  });

  it('GIVEN a board query error with Markdown and a mention THEN it is escaped and cannot ping', () => {
    const { text } = userErrorText(new BadQueryError('**bold** @everyone <@123>', ctx));
    expect(text).not.toContain('**bold**');
    expect(text).not.toMatch(/(?<!\\)@everyone/);
  });
});

describe('fitChoices', () => {
  it('GIVEN too many, too long, empty and duplicate choices THEN only valid ones up to 25 remain', () => {
    const choices = [
      { name: '', value: 'empty name' },
      { name: 'long value', value: 'v'.repeat(101) },
      { name: 'n'.repeat(150), value: 'ok' },
      { name: 'dup', value: 'ok' },
      ...Array.from({ length: 40 }, (_, i) => ({ name: `t${i}`, value: `t${i}` })),
    ];
    const fitted = fitChoices(choices);
    expect(fitted).toHaveLength(25);
    expect(fitted[0]).toEqual({ name: `${'n'.repeat(99)}…`, value: 'ok' });
    for (const choice of fitted) {
      expect(choice.name.length).toBeGreaterThan(0);
      expect(choice.name.length).toBeLessThanOrEqual(100);
      expect(String(choice.value).length).toBeLessThanOrEqual(100);
    }
    expect(new Set(fitted.map((c) => c.value)).size).toBe(25);
  });
});

describe('discordFailureOf', () => {
  const apiError = (code: number, status: number) =>
    new DiscordAPIError({ code, message: 'refused' }, code, status, 'PATCH', 'https://discord.test/x', {});

  it.each<[string, unknown, DiscordFailure['kind'] | undefined, number | undefined]>([
    ['10062 Unknown interaction', apiError(10062, 404), 'token-dead', 404],
    ['50027 Invalid Webhook Token', apiError(50027, 401), 'token-dead', 401],
    ['40060 already acknowledged', apiError(40060, 400), 'token-dead', 400],
    ['10015 Unknown Webhook', apiError(10015, 404), 'token-dead', 404],
    ['50013 Missing Permissions', apiError(50013, 403), 'delivery', 403],
    [
      'a 502 after the retries',
      new HTTPError(502, 'Bad Gateway', 'POST', 'https://discord.test/x', {}),
      'delivery',
      502,
    ],
    ['a board failure', new NotFoundError('gone', ctx), undefined, undefined],
    ['a bug', new TypeError('x is undefined'), undefined, undefined],
  ])('GIVEN %s THEN it is classified as %s', (_name, error, kind, status) => {
    const failure = discordFailureOf(error);
    expect(failure?.kind).toBe(kind);
    expect(failure?.status).toBe(status);
  });

  it('GIVEN a Discord delivery failure THEN the member reads the generic line and it is not logged as a bug', () => {
    expect(userErrorText(apiError(50013, 403))).toEqual({
      text: 'Something went wrong. Please try again later.',
      expected: true,
    });
  });
});

describe('tokenUsable', () => {
  const created = 1_700_000_000_000;
  it.each<[Ack, number, boolean]>([
    ['none', 2_000, true],
    ['none', 3_000, false],
    ['reply-public', 10 * 60_000, true],
    ['reply-ephemeral', 14 * 60_000 + 29_000, true],
    ['update', 14 * 60_000 + 31_000, false],
    ['reply-public', 16 * 60_000, false],
  ])('GIVEN ack %s and an interaction %d ms old THEN usable is %s', (ack, age, usable) => {
    expect(tokenUsable({ createdTimestamp: created }, ack, created + age)).toBe(usable);
  });
});
