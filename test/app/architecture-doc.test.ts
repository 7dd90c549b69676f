import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/shared.js';

// docs/ARCHITECTURE.md and the README's layout paragraph are how a newcomer finds a room: they must name
// every room and every product file, and name nothing that is gone (a renamed file left in the docs
// sends the reader to nothing).

const architecture = readFileSync(path.join(REPO_ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

/** Every `.ts` file under a product folder, relative to the repository. */
function productFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts')) found.push(rel);
    }
  };
  walk(folder);
  return found;
}

/** The folders under a product folder, relative to the repository. */
function productFolders(folder: string): string[] {
  return productFiles(folder)
    .map((file) => path.posix.dirname(file))
    .filter((dir, index, all) => all.indexOf(dir) === index && dir !== folder);
}

/** Repository paths a document names in code spans (`src/...`, `commands/...`, ...). */
function namedPaths(text: string): string[] {
  const spans = text.matchAll(/`((?:src|commands|test|docs|eslint|bench|scripts)\/[^`\s]*)`/g);
  return [...spans].map((match) => match[1]!).filter((named) => !/[*<>]/.test(named));
}

describe('docs/ARCHITECTURE.md against the tree', () => {
  it('GIVEN every product file THEN ARCHITECTURE names it (index.ts aside: a folder names its door)', () => {
    const unnamed = [...productFiles('src'), ...productFiles('commands')].filter((file) => {
      const base = path.posix.basename(file);
      return base !== 'index.ts' && !architecture.includes(base);
    });
    expect(unnamed, 'files ARCHITECTURE does not name: say what they are for').toEqual([]);
  });

  it('GIVEN every product folder THEN ARCHITECTURE names it', () => {
    const folders = [...productFolders('src'), ...productFolders('commands')];
    const unnamed = folders.filter((dir) => {
      const tail = dir.split('/').slice(-1)[0]!;
      return !architecture.includes(`${dir}/`) && !architecture.includes(`${tail}/`);
    });
    expect(unnamed).toEqual([]);
  });

  it('GIVEN a path ARCHITECTURE or the README names THEN it exists', () => {
    const missing = [...namedPaths(architecture), ...namedPaths(readme)].filter(
      (named) => !existsSync(path.join(REPO_ROOT, named.replace(/\/$/, ''))),
    );
    expect(missing, 'paths the docs name that are not in the tree').toEqual([]);
  });

  it('GIVEN the folders of src/ THEN the README layout paragraph names each one', () => {
    const layout = readme.slice(readme.indexOf('Layout:'));
    expect(layout.length).toBeGreaterThan(0);
    const top = readdirSync(path.join(REPO_ROOT, 'src')).filter((name) =>
      statSync(path.join(REPO_ROOT, 'src', name)).isDirectory(),
    );
    expect(top.filter((name) => !layout.includes(`src/${name}/`))).toEqual([]);
  });
});
