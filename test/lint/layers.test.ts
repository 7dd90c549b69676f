/**
 * The layer rule (eslint/layers.js) that `npm test` runs over src/ and commands/: each crossing it must
 * refuse is refused, and each allowed direction passes, through ESLint itself.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { layers } from '../../eslint/layers.js';

const root = path.resolve(import.meta.dirname, '../..');
// The rule as eslint.config.js runs it, without the type-aware rules (they need files that exist).
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { layers },
      rules: { 'layers/boundaries': 'error' },
    },
  ],
});

/** The layer-rule messages for `code` as if it were the file at `file` (relative to the root). */
async function crossings(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'layers/boundaries').map((m) => m.message);
}

describe('layer boundaries', () => {
  it.each([
    [
      'src/philomena/x.ts',
      "import { loadConfig } from '../config.js';\nexport const y = loadConfig;\n",
      /library/,
    ],
    [
      'src/philomena/client/x.ts',
      "import { a } from '../../discord/router.js';\nexport const y = a;\n",
      /library/,
    ],
    ['src/render/x.ts', "import { a } from '../discord/acks.js';\nexport const y = a;\n", /renderers/],
    [
      'src/render/x.ts',
      "import { a } from '../../commands/shared/view.js';\nexport const y = a;\n",
      /renderers/,
    ],
    ['src/discord/x.ts', "import { a } from '../../commands/index.js';\nexport const y = a;\n", /runtime/],
    [
      'src/discord/x.ts',
      "import { a } from '../../commands/shared/view.js';\nexport const y = a;\n",
      /runtime/,
    ],
    ['commands/tag/x.ts', "import { a } from '../search/paging.js';\nexport const y = a;\n", /other feature/],
    [
      'commands/shared/x.ts',
      "import { a } from '../image/image.js';\nexport const y = a;\n",
      /shared imports no feature/,
    ],
    ['commands/tag/x.ts', "export { a } from '../search/paging.js';\n", /other feature/],
    [
      'src/discord/x.ts',
      "import { a } from '../redis/redis-identify-throttle.js';\nexport const y = a;\n",
      /runtime never imports a Redis adapter/,
    ],
    [
      'commands/feed/x.ts',
      "import { a } from '../../src/redis/redis-leases.js';\nexport const y = a;\n",
      /feature never imports a Redis adapter/,
    ],
    [
      'commands/shared/x.ts',
      "import { a } from '../../src/redis/redis-site-state.js';\nexport const y = a;\n",
      /feature never imports a Redis adapter/,
    ],
    [
      'commands/index.ts',
      "import { a } from '../src/redis/redis-leases.js';\nexport const y = a;\n",
      /feature never imports a Redis adapter/,
    ],
    [
      'src/redis/x.ts',
      "import { a } from '../../commands/feed/poller.js';\nexport const y = a;\n",
      /Redis adapter imports only the ports/,
    ],
    [
      'src/redis/x.ts',
      "import { a } from '../../commands/shared/view.js';\nexport const y = a;\n",
      /Redis adapter imports only the ports/,
    ],
  ])('GIVEN %s importing across a boundary THEN refused', async (file, code, why) => {
    const found = await crossings(file, code);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(why);
  });

  it.each([
    ['src/philomena/client/x.ts', "import { a } from '../errors.js';\nexport const y = a;\n"],
    ['src/render/x.ts', "import type { Image } from '../philomena/schemas.js';\nexport type Y = Image;\n"],
    ['src/discord/x.ts', "import { a } from '../philomena/request-context.js';\nexport const y = a;\n"],
    [
      'commands/tag/x.ts',
      "import { a } from '../shared/view.js';\nimport { b } from '../../src/discord/contract.js';\nexport const y = [a, b];\n",
    ],
    ['src/main.ts', "import { a } from '../commands/index.js';\nexport const y = a;\n"],
    ['src/main.ts', "import { a } from './redis/redis-leases.js';\nexport const y = a;\n"],
    [
      'src/redis/x.ts',
      "import { a, type B } from '../../commands/feed/leases.js';\nexport const y: B = a();\n",
    ],
    [
      'src/redis/x.ts',
      "import type { A } from '../philomena/shared-state.js';\nimport { b } from '../discord/identify.js';\nimport { c } from '../store/index.js';\nexport const y: [A, unknown, unknown] = [b, c, b];\n",
    ],
    ['commands/index.ts', "import { a } from './feed/leases.js';\nexport const y = a;\n"],
  ])('GIVEN %s importing in the allowed direction THEN passes', async (file, code) => {
    expect(await crossings(file, code)).toEqual([]);
  });
});
