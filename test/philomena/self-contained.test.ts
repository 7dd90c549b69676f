/**
 * `src/philomena/` is a library: it imports nothing of the application around it (errors, redaction,
 * logger, store, bot), so it can be lifted out as it is. Third-party packages and `node:` modules are fine;
 * not even the project's package.json is read (the bot passes its User-Agent in).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as library from '../../src/philomena/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const libraryDir = path.join(root, 'src/philomena');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every module specifier of a file: static imports and re-exports, `import type`, dynamic `import()`. */
function specifiers(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((imported) => imported.fileName);
}

describe('the Philomena library stands on its own', () => {
  it('GIVEN every module under src/philomena THEN no relative import leaves the folder', () => {
    const files = sourceFiles(libraryDir);
    expect(files.length).toBeGreaterThan(10);
    const outside: string[] = [];
    for (const file of files) {
      for (const specifier of specifiers(file)) {
        if (!specifier.startsWith('.')) continue; // a package or a node: module
        const target = path.resolve(path.dirname(file), specifier);
        if (!target.startsWith(libraryDir + path.sep)) {
          outside.push(`${path.relative(root, file)} imports ${specifier}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });

  it('GIVEN the public surface THEN it holds the library errors and none of the application', () => {
    for (const name of ['NotFoundError', 'SiteUnavailableError', 'SiteUrlError', 'isPhilomenaError']) {
      expect(library).toHaveProperty(name);
    }
    for (const name of ['ConfigError', 'StoreOpenError', 'StoreAccessError', 'SettingsUnavailableError']) {
      expect(library).not.toHaveProperty(name);
    }
  });
});
