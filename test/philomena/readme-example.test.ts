/**
 * The README's "Using the Philomena client on its own" example, run as written against the local
 * Philomena: only its import paths are pointed at this checkout and `console.log` is captured.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_KEY, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MARKER = '<!-- readme-example: this block is run by test/philomena/readme-example.test.ts -->';

function exampleFromReadme(): string {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const start = readme.indexOf(MARKER);
  if (start < 0) throw new Error('the README has no readme-example marker');
  const match = /```ts\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!match?.[1]) throw new Error('no ts block after the readme-example marker');
  return match[1];
}

let booru: FakePhilomena;
let dir: string;
const saved = { url: process.env['BOORU_URL'], key: process.env['BOORU_API_KEY'] };

beforeAll(async () => {
  booru = await startFakePhilomena();
  dir = mkdtempSync(path.join(tmpdir(), 'readme-example-'));
});
afterAll(async () => {
  for (const [name, value] of [
    ['BOORU_URL', saved.url],
    ['BOORU_API_KEY', saved.key],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(dir, { recursive: true, force: true });
  await booru.close();
});

describe('the README example', () => {
  it('GIVEN the example as written THEN it runs against the local Philomena and prints what it says', async () => {
    const source = exampleFromReadme();
    expect(source).toContain("from './src/philomena/index.js'");
    const runnable = source
      .replace(/from '\.\/(src\/[^']+)\.js'/g, (_m, file: string) => {
        return `from '${pathToFileURL(path.join(root, `${file}.ts`)).href}'`;
      })
      .replaceAll('console.log(', 'globalThis.readmeLog(');
    const file = path.join(dir, 'example.ts');
    writeFileSync(file, runnable);

    const printed: string[] = [];
    (globalThis as { readmeLog?: (...args: unknown[]) => void }).readmeLog = (...args) => {
      printed.push(args.map(String).join(' '));
    };
    process.env['BOORU_URL'] = booru.url;
    process.env['BOORU_API_KEY'] = FAKE_KEY;
    await import(pathToFileURL(file).href);

    expect(printed).toHaveLength(3);
    expect(printed[0]).toMatch(/^\d+ images; the best is #\d+$/);
    expect(printed[1]).toMatch(/^oc:littlepip \d+$/);
    expect(printed[2]).toBe('no such image');
    // The example's calls were real requests, and none of these reads carried the key.
    expect(booru.requests.length).toBeGreaterThan(0);
    expect(booru.requests.filter((r) => r.query.has('key'))).toEqual([]);
  });
});
