/**
 * The README's client example must work as written: it is extracted and run against the local Philomena.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function readmeExample(): Promise<string> {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const marker = readme.indexOf('<!-- readme-example');
  expect(marker).toBeGreaterThan(-1);
  const match = /```ts\n([\s\S]*?)```/.exec(readme.slice(marker));
  if (!match?.[1]) throw new Error('no ts block after the readme-example marker');
  return match[1];
}

describe('README client example', () => {
  let booru: FakePhilomena;
  beforeAll(async () => {
    booru = await startFakePhilomena();
  });
  afterAll(async () => {
    await booru.close();
  });

  it('GIVEN the example as written THEN it runs against a Philomena site and prints what it says', async () => {
    const file = path.join(root, `.readme-example-${process.pid}.ts`);
    await writeFile(file, await readmeExample());
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    });
    vi.stubEnv('BOORU_URL', booru.url);
    vi.stubEnv('BOORU_API_KEY', '');
    try {
      await import(pathToFileURL(file).href);
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
      await rm(file, { force: true });
    }
    expect(lines[0]).toMatch(/^\d+ images; the best is #\d+$/);
    expect(lines[1]).toMatch(/^oc:littlepip \d+$/);
    expect(lines[2]).toBe('no such image');
    const paths = booru.requests.map((r) => r.path);
    expect(paths).toContain('/api/v1/json/search/images');
    expect(paths).toContain('/api/v1/json/tags/littlepip');
  });
});
