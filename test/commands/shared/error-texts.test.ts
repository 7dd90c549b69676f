import { describe, expect, it } from 'vitest';
import { DiscordAPIError, HTTPError } from 'discord.js';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { USER_ERROR_IDS, userErrorText } from '../../../commands/shared/error-texts.js';
import { tokenUsable, type Ack } from '../../../src/discord/outbox.js';
import { fitChoices } from '../../../src/discord/autocomplete.js';
import {
  discordFailureOf,
  isLabelSafeId,
  RUNTIME_ERROR_IDS,
  UserFacingError,
  type DiscordFailure,
} from '../../../src/discord/failures.js';
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
    ['a user-facing error', new UserFacingError('image.bad-id', 'Give an id.'), /^Give an id\.$/, true],
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

describe('userErrorText identifiers', () => {
  it.each<[string, unknown, string, Record<string, string | number> | undefined]>([
    ['not found', new NotFoundError('gone', ctx), 'board.not-found', undefined],
    ['a bad query', new BadQueryError('Imbalanced.', ctx), 'board.bad-query', { message: 'Imbalanced.' }],
    ['rate limited', new RateLimitedError('429', 12_300, ctx), 'board.busy', { seconds: 13 }],
    [
      'a full budget',
      new SiteUnavailableError('queue', 'budget-exhausted', { ...ctx, retryAfterMs: 4000 }),
      'board.busy',
      { seconds: 4 },
    ],
    [
      'an open breaker with a wait',
      new SiteUnavailableError('open', 'circuit-open', { ...ctx, retryAfterMs: 180_000 }),
      'board.down',
      { seconds: 180 },
    ],
    ['a timeout', new SiteUnavailableError('timeout', 'timeout', ctx), 'board.down-later', undefined],
    ['forbidden', new ForbiddenError('403', ctx), 'board.refused', undefined],
    [
      'an unreadable answer',
      new InvalidResponseError('bad', 'images[0].id', ctx),
      'board.unreadable',
      undefined,
    ],
    ['a bug', new TypeError('x'), 'generic', undefined],
    [
      'settings unreadable',
      new SettingsUnavailableError('read', '1'),
      'settings.unavailable.read',
      undefined,
    ],
    ['settings unsaved', new SettingsUnavailableError('write', '1'), 'settings.unavailable.write', undefined],
    [
      'settings not reset',
      new SettingsUnavailableError('delete', '1'),
      'settings.unavailable.delete',
      undefined,
    ],
    [
      'a user-facing error with parameters',
      new UserFacingError('file.too-large', 'That file is too large (at most 8 MB).', {
        params: { megabytes: 8 },
      }),
      'file.too-large',
      { megabytes: 8 },
    ],
  ])('GIVEN %s THEN its identifier and parameters', (_name, error, id, params) => {
    const result = userErrorText(error);
    expect(result.id).toBe(id);
    expect(result.params).toEqual(params);
    expect(USER_ERROR_IDS).toContain(result.id);
  });
});

describe('USER_ERROR_IDS', () => {
  it('GIVEN the catalogue THEN every identifier is unique and label-safe', () => {
    expect(new Set(USER_ERROR_IDS).size).toBe(USER_ERROR_IDS.length);
    for (const id of USER_ERROR_IDS) expect(isLabelSafeId(id), id).toBe(true);
    expect(isLabelSafeId('Board.NotFound')).toBe(false);
    expect(isLabelSafeId('board not found')).toBe(false);
  });

  it("GIVEN the sources THEN every new UserFacingError('<id>', ...) uses a listed identifier, and every listed feature identifier is used", async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const files: string[] = [];
    for (const dir of ['src', 'commands']) {
      for (const entry of await readdir(path.join(root, dir), { recursive: true })) {
        if (entry.endsWith('.ts')) files.push(path.join(root, dir, entry));
      }
    }
    const used = new Set<string>();
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/new UserFacingError\(\s*'([^']*)'/g)) used.add(match[1] ?? '');
      // The refusals a command declares (`requires.refusals`) are errors the runtime throws for it.
      for (const match of text.matchAll(/\bid: '([a-z0-9-]+\.[a-z0-9.-]+)',/g)) used.add(match[1] ?? '');
    }
    const listed = new Set<string>(USER_ERROR_IDS);
    expect([...used].filter((id) => !listed.has(id))).toEqual([]);
    const runtime = new Set<string>(Object.values(RUNTIME_ERROR_IDS));
    expect(USER_ERROR_IDS.filter((id) => !runtime.has(id) && !used.has(id))).toEqual([]);
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
      id: 'discord.refused',
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
