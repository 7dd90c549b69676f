/**
 * The upload variables (src/upload-config.ts, in src/config.ts's schema): UPLOADS off by default, `on`, or
 * site names as `/settings site` knows them (`default` and BOORU_URL's own id for the configured site);
 * anything else stops the start with one line naming it; the caps' defaults and bounds.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

const BASE = { DISCORD_TOKEN: 'token-for-the-upload-config-test' };

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig({ ...BASE, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('UPLOADS', () => {
  it('GIVEN nothing THEN uploads are off, 3 per member and 60 per site an hour', () => {
    expect(loadConfig(BASE).uploads).toEqual({ sites: [], perMemberHour: 3, perSiteHour: 60 });
    expect(loadConfig({ ...BASE, UPLOADS: '  ' }).uploads.sites).toEqual([]);
    expect(loadConfig({ ...BASE, UPLOADS: 'OFF' }).uploads.sites).toEqual([]);
  });

  it('GIVEN on THEN every site; GIVEN names THEN those sites, each once, `default` and its id naming BOORU_URL’s', () => {
    expect(loadConfig({ ...BASE, UPLOADS: 'On' }).uploads.sites).toBe('all');
    expect(loadConfig({ ...BASE, UPLOADS: 'derpibooru, Furbooru,derpibooru' }).uploads.sites).toEqual([
      'derpibooru',
      'furbooru',
    ]);
    const custom = { ...BASE, BOORU_URL: 'https://booru.example' };
    expect(loadConfig({ ...custom, UPLOADS: 'default' }).uploads.sites).toEqual(['custom:booru.example']);
    expect(loadConfig({ ...custom, UPLOADS: 'custom:booru.example,tantabus' }).uploads.sites).toEqual([
      'custom:booru.example',
      'tantabus',
    ]);
  });

  it('GIVEN a name no site has THEN one line naming it, and how to fix it', () => {
    const problems = problemsOf({ UPLOADS: 'derpibooru, derpibooru.org' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^UPLOADS names "derpibooru\.org", which is no site this bot knows: set UPLOADS=off/,
    );
    expect(problemsOf({ UPLOADS: 'yes' })[0]).toMatch(/^UPLOADS names "yes"/);
    expect(problemsOf({ UPLOADS: 'derpibooru,,furbooru' })[0]).toMatch(/^UPLOADS names ""/);
  });

  it('GIVEN the caps THEN whole numbers within their bounds, at least 1', () => {
    expect(
      loadConfig({ ...BASE, UPLOADS_PER_MEMBER_HOUR: '10', UPLOADS_PER_SITE_HOUR: '500' }).uploads,
    ).toMatchObject({
      perMemberHour: 10,
      perSiteHour: 500,
    });
    expect(problemsOf({ UPLOADS_PER_MEMBER_HOUR: '0' })[0]).toMatch(
      /^UPLOADS_PER_MEMBER_HOUR must be a whole number from 1 to 100/,
    );
    expect(problemsOf({ UPLOADS_PER_SITE_HOUR: '-5' })[0]).toMatch(
      /^UPLOADS_PER_SITE_HOUR must be a whole number/,
    );
  });
});
