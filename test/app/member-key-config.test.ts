/**
 * MEMBER_KEY_SECRET and MEMBER_KEY_SECRET_PREVIOUS in the config (issue 22 §1): unset leaves linking off;
 * anything but 32 bytes of base64 as `openssl rand -base64 32` prints them stops the start with one line
 * naming the variable and what is wrong, never the value.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

const base = { DISCORD_TOKEN: 'MTIzNDU2Nzg5.secret-token-value' };
const secretOf = (bytes: number) => randomBytes(bytes).toString('base64');

function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('MEMBER_KEY_SECRET', () => {
  it('GIVEN no secret (unset or blank) THEN the config has none: linking is off', () => {
    expect(loadConfig(base).memberKeySecret).toBeUndefined();
    const blank = loadConfig({ ...base, MEMBER_KEY_SECRET: '  ', MEMBER_KEY_SECRET_PREVIOUS: '' });
    expect(blank.memberKeySecret).toBeUndefined();
    expect(blank.memberKeySecretPrevious).toBeUndefined();
  });

  it('GIVEN 32 bytes in base64 as openssl prints them, with a trailing newline THEN both are kept as written', () => {
    const current = secretOf(32);
    const previous = secretOf(32);
    expect(current).toHaveLength(44);
    const config = loadConfig({
      ...base,
      MEMBER_KEY_SECRET: `${current}\n`,
      MEMBER_KEY_SECRET_PREVIOUS: previous,
    });
    expect(config.memberKeySecret).toBe(current);
    expect(config.memberKeySecretPrevious).toBe(previous);
  });

  it.each([
    ['31 bytes', 31],
    ['33 bytes', 33],
    ['16 bytes', 16],
    ['64 bytes', 64],
  ])(
    'GIVEN %s THEN one line names MEMBER_KEY_SECRET and the length, and how to make one, not the value',
    (_, bytes) => {
      const value = secretOf(bytes);
      const problems = problemsOf({ ...base, MEMBER_KEY_SECRET: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(
        new RegExp(`^MEMBER_KEY_SECRET must be 32 bytes in base64, but decodes to ${bytes}: `),
      );
      expect(problems[0]).toContain('openssl rand -base64 32');
      expect(problems[0]).not.toContain(value);
    },
  );

  it.each([
    [
      'base64url',
      `${randomBytes(32)
        .toString('base64url')
        .replace(/[A-Za-z0-9]/, '-')}=`,
    ],
    ['a space inside', `${secretOf(32).slice(0, 20)} ${secretOf(32).slice(21)}`],
    ['no padding', secretOf(32).replace(/=$/, '')],
    ['a password', 'change-me!'],
  ])('GIVEN %s THEN one line says MEMBER_KEY_SECRET is not base64, without the value', (_, value) => {
    const problems = problemsOf({ ...base, MEMBER_KEY_SECRET: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^MEMBER_KEY_SECRET is not base64/);
    expect(problems[0]).not.toContain(value);
  });

  it.each([
    ['a hex string of 32 bytes', randomBytes(32).toString('hex'), 48],
    ['a word that happens to be base64', 'changeme', 6],
  ])('GIVEN %s THEN it is refused by what it decodes to', (_, value, bytes) => {
    expect(problemsOf({ ...base, MEMBER_KEY_SECRET: value })).toEqual([
      expect.stringMatching(
        new RegExp(`^MEMBER_KEY_SECRET must be 32 bytes in base64, but decodes to ${bytes}:`),
      ),
    ]);
  });

  it('GIVEN 44 characters whose last one before = carries stray bits THEN it is refused as not what openssl prints', () => {
    const value = `${'A'.repeat(42)}B=`;
    expect(Buffer.from(value, 'base64')).toHaveLength(32);
    const problems = problemsOf({ ...base, MEMBER_KEY_SECRET: value });
    expect(problems).toEqual([
      expect.stringMatching(/^MEMBER_KEY_SECRET is not base64 as openssl prints it/),
    ]);
  });

  it('GIVEN a bad MEMBER_KEY_SECRET_PREVIOUS THEN the line names it (not MEMBER_KEY_SECRET)', () => {
    const value = secretOf(33);
    const problems = problemsOf({
      ...base,
      MEMBER_KEY_SECRET: secretOf(32),
      MEMBER_KEY_SECRET_PREVIOUS: value,
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^MEMBER_KEY_SECRET_PREVIOUS must be 32 bytes in base64, but decodes to 33/);
    expect(problems[0]).not.toContain(value);
  });

  it('GIVEN only MEMBER_KEY_SECRET_PREVIOUS THEN the start stops: a rotation needs the new secret beside it', () => {
    const value = secretOf(32);
    const problems = problemsOf({ ...base, MEMBER_KEY_SECRET_PREVIOUS: value });
    expect(problems).toEqual([expect.stringMatching(/^MEMBER_KEY_SECRET_PREVIOUS needs MEMBER_KEY_SECRET/)]);
    expect(problems[0]).not.toContain(value);
  });

  it('GIVEN a bad secret THEN the ConfigError message holds no part of it either', () => {
    const value = secretOf(31);
    try {
      loadConfig({ ...base, MEMBER_KEY_SECRET: value });
    } catch (error) {
      expect(String(error)).toContain('MEMBER_KEY_SECRET');
      expect(String(error)).not.toContain(value.slice(0, 8));
      return;
    }
    throw new Error('expected a ConfigError');
  });
});
