import { describe, expect, it } from 'vitest';
import {
  BadQueryError,
  ConfigError,
  ForbiddenError,
  InvalidResponseError,
  isPhilomenaError,
  NotFoundError,
  PhilomenaError,
  RateLimitedError,
  SiteUnavailableError,
} from '../../src/errors.js';
import * as appErrors from '../../src/errors.js';
import * as libraryErrors from '../../src/philomena/errors.js';

const ctx = { site: 'derpibooru', path: '/api/v1/json/images/1?key=[REDACTED]', status: 418 };

describe('error hierarchy', () => {
  it.each([
    [new NotFoundError('image 1 not found', ctx), 'NotFoundError', 'PHILOMENA_NOT_FOUND'],
    [new BadQueryError('Imbalanced parentheses.', ctx), 'BadQueryError', 'PHILOMENA_BAD_QUERY'],
    [new ForbiddenError('refused', ctx), 'ForbiddenError', 'PHILOMENA_FORBIDDEN'],
    [new RateLimitedError('slow down', 5000, ctx), 'RateLimitedError', 'PHILOMENA_RATE_LIMITED'],
    [new SiteUnavailableError('down', 'timeout', ctx), 'SiteUnavailableError', 'PHILOMENA_UNAVAILABLE'],
    [new InvalidResponseError('bad', 'image.id', ctx), 'InvalidResponseError', 'PHILOMENA_INVALID_RESPONSE'],
  ] as const)('GIVEN %s THEN name %s, the stable code %s and the context', (error, name, code) => {
    expect(error).toBeInstanceOf(PhilomenaError);
    expect(error).toBeInstanceOf(Error);
    expect(isPhilomenaError(error)).toBe(true);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error).toMatchObject({ site: 'derpibooru', path: ctx.path, status: 418 });
    expect(String(error)).toContain(name);
  });

  it('GIVEN the specific errors THEN each carries its own data', () => {
    const bad = new BadQueryError('Imbalanced parentheses.', ctx);
    expect(bad.serverMessage).toBe('Imbalanced parentheses.');
    expect(bad.message).toContain('Imbalanced parentheses.');
    expect(new RateLimitedError('x', 7000, ctx).retryAfterMs).toBe(7000);
    expect(new SiteUnavailableError('x', 'circuit-open', { ...ctx, retryAfterMs: 9 })).toMatchObject({
      reason: 'circuit-open',
      retryAfterMs: 9,
    });
    expect(new InvalidResponseError('x', 'images[1].id', ctx).fieldPath).toBe('images[1].id');
  });

  it('GIVEN a cause THEN it is kept as the standard cause; without one there is none', () => {
    const cause = new Error('inner');
    expect(new NotFoundError('x', { site: 's', cause }).cause).toBe(cause);
    expect('cause' in new NotFoundError('x', { site: 's' })).toBe(false);
  });

  it('GIVEN other values THEN isPhilomenaError is false; ConfigError lists every problem', () => {
    expect(isPhilomenaError(new Error('x'))).toBe(false);
    expect(isPhilomenaError({ code: 'PHILOMENA_NOT_FOUND' })).toBe(false);
    const config = new ConfigError(['DISCORD_TOKEN is missing', 'STORE_URL is not a URL']);
    expect(config).toMatchObject({ name: 'ConfigError', code: 'CONFIG_INVALID' });
    expect(config.message).toContain('DISCORD_TOKEN is missing');
    expect(config.message).toContain('STORE_URL is not a URL');
  });

  it('GIVEN the application errors module THEN it re-exports every library error as the same class', () => {
    const names = Object.keys(libraryErrors);
    expect(names).toEqual(expect.arrayContaining(['PhilomenaError', 'NotFoundError', 'SiteUrlError']));
    for (const name of names) {
      expect(appErrors).toHaveProperty(name, libraryErrors[name as keyof typeof libraryErrors]);
    }
    expect(libraryErrors).not.toHaveProperty('ConfigError');
    expect(libraryErrors).not.toHaveProperty('StoreOpenError');
  });
});
