import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISCORD_OPENAPI_FILE, PHILOMENA_FIXTURES_DIR, SHARED_DIR } from '../support/shared.js';

// In CI and on the developers' machines the project's ../shared is beside the clone.
const shared = existsSync(SHARED_DIR);

describe.skipIf(!shared)('the in-repository copies of ../shared', () => {
  it('GIVEN ../shared/fixtures/philomena THEN the repository holds the same files, byte for byte', () => {
    const source = path.join(SHARED_DIR, 'fixtures/philomena');
    const names = readdirSync(source).sort();
    expect(readdirSync(PHILOMENA_FIXTURES_DIR).sort()).toEqual(names);
    for (const name of names) {
      expect(
        readFileSync(path.join(PHILOMENA_FIXTURES_DIR, name)).equals(readFileSync(path.join(source, name))),
        name,
      ).toBe(true);
    }
  });

  it('GIVEN ../shared/discord/openapi.json THEN the repository holds the same file', () => {
    const source = readFileSync(path.join(SHARED_DIR, 'discord/openapi.json'));
    expect(readFileSync(DISCORD_OPENAPI_FILE).equals(source)).toBe(true);
  });
});
