/**
 * The reference data the tests use, kept in the repository so a plain clone tests itself: the recorded
 * Philomena responses and Discord's OpenAPI description. They are verbatim copies of ../shared (where the
 * project received them); test/app/shared-copies.test.ts checks they still match it when it is there.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** ../shared beside the repository, where the copies come from. */
export const SHARED_DIR = path.resolve(REPO_ROOT, '../shared');

/** The recorded responses of the live boards (where each comes from: fixtures/SOURCES.txt). */
export const PHILOMENA_FIXTURES_DIR = path.join(REPO_ROOT, 'test/fakes/philomena/fixtures');

/** Discord's OpenAPI description (docs/discord-platform.md, its sources: "[spec]"). */
export const DISCORD_OPENAPI_FILE = path.join(REPO_ROOT, 'test/fakes/discord/openapi.json');

export function philomenaFixture(name: string): string {
  return path.join(PHILOMENA_FIXTURES_DIR, name);
}
