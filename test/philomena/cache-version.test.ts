/**
 * Cached values outlive the process that wrote them (SQLite, up to 6 h) and are read back without a parse:
 * their shape is an endpoint's mapped value, which has no schema of its own, and the response schemas
 * transform (input and output differ), so they cannot re-check it. What keeps a new deploy from handing
 * its renderers an old shape is the version in every cache key (`CACHE_SCHEMA_VERSION`):
 *
 * - an entry written under another version is never served;
 * - the code that decides what a cached value looks like or how long it lives has a fingerprint recorded
 *   per version, so changing that code without bumping the version fails here.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Keyv from 'keyv';
import ts from 'typescript';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IDS, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { createResponseCache } from '../../src/philomena/cache.js';
import { createPhilomenaClient } from '../../src/philomena/client/index.js';
import { CACHE_SCHEMA_VERSION } from '../../src/philomena/client/cache-version.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The fingerprint of the code that shapes cached values, one line per CACHE_SCHEMA_VERSION. Never edit a
 * line: when the fingerprint test fails, bump CACHE_SCHEMA_VERSION (src/philomena/client/cache-version.ts)
 * and add a line for the new version with the fingerprint the failure prints.
 */
const FINGERPRINTS: Readonly<Record<number, string>> = {
  1: '5173d7b137a2949b',
  2: '444f8951f3614557',
  3: 'e2f861506777e617',
  4: 'e1485780fc27b374',
  5: 'a9c8c1a1bb8223f9',
  6: 'b536f76b1d15e587',
  7: '3bb5a6d556512c22',
};

/**
 * What decides a cached value's shape and lifetime: the schemas (parse and transforms), the URL transforms,
 * the endpoints' `map` and `ttlMs`, the engine that stores the mapped value, and the cache (lifetimes, and
 * in cache/ the entry format, the seeded entries and the entries read back from other processes).
 * Parameter checks, transport, budget and breaker do not touch a stored value.
 */
function shapeFiles(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(path.join(root, dir))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `${dir}/${name}`);
  return [
    'src/philomena/schemas.ts',
    'src/philomena/urls.ts',
    'src/philomena/cache.ts',
    ...under('src/philomena/cache'),
    'src/philomena/client/engine.ts',
    ...under('src/philomena/client/endpoints'),
  ].sort();
}

/**
 * The file's tokens, without comments (JSDoc included), whitespace and trailing commas: a comment, a
 * re-wrap or a reformat is no change; anything that changes the code is.
 */
function codeTokens(text: string): string[] {
  const source = ts.createSourceFile('shape.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(source);
    if (children.length === 0) {
      if (node.kind !== ts.SyntaxKind.EndOfFileToken) out.push(node.getText(source));
      return;
    }
    children.forEach((child, index) => {
      const trailingComma =
        child.kind === ts.SyntaxKind.CommaToken &&
        node.kind === ts.SyntaxKind.SyntaxList &&
        index === children.length - 1;
      if (!trailingComma) visit(child);
    });
  };
  visit(source);
  return out;
}

function shapeFingerprint(): string {
  const hash = createHash('sha256');
  for (const file of shapeFiles()) {
    hash.update(`${file}\0${codeTokens(readFileSync(path.join(root, file), 'utf8')).join('\0')}\0\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

describe('cache version: the guard', () => {
  it('GIVEN the code that shapes cached values THEN its fingerprint is the one recorded for CACHE_SCHEMA_VERSION', () => {
    const current = shapeFingerprint();
    expect(
      FINGERPRINTS[CACHE_SCHEMA_VERSION],
      `The code that shapes cached values changed (fingerprint ${current}). Bump CACHE_SCHEMA_VERSION to ` +
        `${CACHE_SCHEMA_VERSION + 1} and add "${CACHE_SCHEMA_VERSION + 1}: '${current}'" to FINGERPRINTS.`,
    ).toBe(current);
  });

  it('GIVEN the recorded fingerprints THEN they run 1..CACHE_SCHEMA_VERSION, each version a new fingerprint', () => {
    const versions = Object.keys(FINGERPRINTS).map(Number);
    expect(versions).toEqual(Array.from({ length: CACHE_SCHEMA_VERSION }, (_, i) => i + 1));
    expect(new Set(Object.values(FINGERPRINTS)).size).toBe(versions.length);
  });

  it('GIVEN a comment or a reformat THEN the fingerprint does not move; a code change does', () => {
    const code = 'export const LIFETIMES = { image: 10 * MINUTE, tag: `${HOUR}` };\n';
    const commented =
      '/** Lifetimes. */\n// the table\nexport const LIFETIMES = {\n  image: 10 * MINUTE, // ten\n' +
      '  /* an hour */ tag: `${HOUR}`,\n};\n';
    expect(codeTokens(commented)).toEqual(codeTokens(code));
    expect(codeTokens(code.replace('10', '5'))).not.toEqual(codeTokens(code));
    expect(codeTokens(code.replace('${HOUR}', '${HOUR}s'))).not.toEqual(codeTokens(code));
    expect(codeTokens('f(a, b);')).not.toEqual(codeTokens('f(ab);'));
  });
});

describe('cache version: entries of another version', () => {
  let booru: FakePhilomena;
  let site: Site;
  beforeAll(async () => {
    booru = await startFakePhilomena();
    site = resolveSite(booru.url);
  });
  afterAll(async () => {
    await booru.close();
  });
  beforeEach(() => {
    booru.reset();
  });

  const imagePath = `/api/v1/json/images/${IDS.safe}`;
  const upstream = (): number => booru.requests.filter((r) => r.path === imagePath).length;

  /** A client with a fresh in-memory layer over `store`, as after a restart. */
  function clientOver(store: Keyv) {
    return createPhilomenaClient({
      site,
      cache: createResponseCache({ store }),
      sleep: async () => undefined,
    });
  }

  /** The key the current version stores the image under. */
  async function currentKey(): Promise<string> {
    const map = new Map<string, unknown>();
    const c = clientOver(new Keyv({ store: map }));
    await c.image(IDS.safe);
    await c.close();
    const keys = [...map.keys()].filter((key) => key.includes(`:image:images/${IDS.safe}:`));
    expect(keys).toHaveLength(1);
    return (keys[0] ?? '').replace(/^keyv:/, '');
  }

  /** An entry as an older deploy may have left it: a value of another shape, hours from expiry. */
  const OLD_SHAPE = { id: IDS.safe, representations: 'https://old.test/only-a-string.png', tags: 'safe' };
  const plant = async (store: Keyv, key: string): Promise<void> => {
    await store.set(key, { until: Date.now() + 6 * 3_600_000, value: OLD_SHAPE });
  };

  it('GIVEN the key names the version THEN it reads philomena:<site>:v<CACHE_SCHEMA_VERSION>:', async () => {
    expect(await currentKey()).toMatch(new RegExp(`^philomena:${site.id}:v${CACHE_SCHEMA_VERSION}:image:`));
  });

  it('GIVEN an entry stored under the current version THEN it is served from the store (the planting works)', async () => {
    const key = await currentKey();
    const store = new Keyv({ store: new Map() });
    await plant(store, key);
    const before = upstream();
    const c = clientOver(store);
    await expect(c.image(IDS.safe)).resolves.toEqual(OLD_SHAPE);
    expect(upstream()).toBe(before);
    await c.close();
  });

  it.each([CACHE_SCHEMA_VERSION - 1, CACHE_SCHEMA_VERSION + 1])(
    'GIVEN an entry stored under version %s THEN it is not served: the board is asked and its answer parsed',
    async (other) => {
      const key = (await currentKey()).replace(`:v${CACHE_SCHEMA_VERSION}:`, `:v${other}:`);
      const store = new Keyv({ store: new Map() });
      await plant(store, key);
      const before = upstream();
      const c = clientOver(store);
      const image = await c.image(IDS.safe);
      expect(image).not.toEqual(OLD_SHAPE);
      expect(image).toMatchObject({ id: IDS.safe, kind: 'image' });
      expect(image).toHaveProperty('representations.full', expect.stringMatching(/^https?:\/\//));
      expect(upstream()).toBe(before + 1);
      await c.close();
    },
  );
});
