import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISCORD_OPENAPI_FILE, PHILOMENA_FIXTURES_DIR, SHARED_DIR } from '../support/shared.js';

// The repository holds its own copies of the reference data, so a clone on its own tests (a new user
// has no ../shared). Where the project's ../shared is beside the clone (CI and the developers' machines,
// always), the copies must match it; in CI its absence is itself a failure, never a skip.
const shared = existsSync(SHARED_DIR);

describe('../shared beside the clone', () => {
  it.runIf(process.env['CI'] === 'true')(
    'GIVEN CI THEN ../shared is there to check the copies against',
    () => {
      expect(shared, `${SHARED_DIR} is missing: CI runs with the project's shared/ beside the clone`).toBe(
        true,
      );
    },
  );
});

// Deliberate: without ../shared (a new user's clone) there is nothing to compare the copies with.
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
