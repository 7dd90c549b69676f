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
    ['src/render/x.ts', "import { a } from '../discord/outbox.js';\nexport const y = a;\n", /renderers/],
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
    [
      'src/philomena/x.ts',
      "import project from '../../package.json' with { type: 'json' };\nexport const y = project;\n",
      /library imports nothing outside src\/philomena/,
    ],
    ['src/philomena/x.ts', "import { a } from '../store/index.js';\nexport const y = a;\n", /library/],
    [
      'src/render/x.ts',
      "import type { Config } from '../config.js';\nexport type Y = Config;\n",
      /renderers/,
    ],
    ['src/render/x.ts', "import { a } from '../logger.js';\nexport const y = a;\n", /renderers/],
    [
      'src/discord/x.ts',
      "import type { RateLimit } from '../config.js';\nexport type Y = RateLimit;\n",
      /runtime never imports the app's config/,
    ],
    [
      'src/discord/x.ts',
      "import { a } from '../store/index.js';\nexport const y = a;\n",
      /runtime never imports the store/,
    ],
    [
      'src/redis/x.ts',
      "import { a } from '../philomena/cache.js';\nexport const y = a;\n",
      /Redis adapter imports only the ports/,
    ],
    [
      'src/redis/x.ts',
      "import { a } from '../discord/router.js';\nexport const y = a;\n",
      /Redis adapter imports only the ports/,
    ],
    [
      'src/redis/x.ts',
      "import { a } from '../config.js';\nexport const y = a;\n",
      /Redis adapter imports only the ports/,
    ],
    [
      'src/redis/x.ts',
      "import { a } from '../render/index.js';\nexport const y = a;\n",
      /Redis adapter imports only the ports/,
    ],
    [
      'src/metrics/x.ts',
      "import { a } from '../../commands/index.js';\nexport const y = a;\n",
      /operations .* import no feature/,
    ],
    [
      'src/launcher/x.ts',
      "import { a } from '../../commands/shared/view.js';\nexport const y = a;\n",
      /operations .* import no feature/,
    ],
    [
      'src/rest-proxy/x.ts',
      "import { a } from '../../commands/feed/poller.js';\nexport const y = a;\n",
      /operations .* import no feature/,
    ],
    [
      'src/discord/x.ts',
      "import { a } from '../../test/support/harness.js';\nexport const y = a;\n",
      /product imports no script, bench or test/,
    ],
    [
      'commands/tag/x.ts',
      "import { a } from '../../scripts/launch.js';\nexport const y = a;\n",
      /product imports no script, bench or test/,
    ],
    [
      'src/main.ts',
      "import { a } from '../bench/run.js';\nexport const y = a;\n",
      /product imports no script, bench or test/,
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
    [
      'src/redis/x.ts',
      "import { a } from './scripts.js';\nimport type { B } from '../store/index.js';\nexport const y: B = a;\n",
    ],
    ['src/discord/x.ts', "import type { Logger } from '../logger.js';\nexport type Y = Logger;\n"],
    [
      'src/metrics/x.ts',
      "import { a } from '../discord/bot.js';\nimport { b } from '../philomena/index.js';\nimport { c } from '../logger.js';\nexport const y = [a, b, c];\n",
    ],
    [
      'src/launcher/x.ts',
      "import type { Config } from '../config.js';\nimport { b } from '../store/index.js';\nexport const y: [Config, unknown] = [b(), b];\n",
    ],
    ['src/rest-proxy/x.ts', "import { a } from '../redact.js';\nexport const y = a;\n"],
    [
      'src/config.ts',
      "import project from '../package.json' with { type: 'json' };\nexport const y = project.version;\n",
    ],
    ['src/main.ts', "import { a } from './metrics/index.js';\nexport const y = a;\n"],
    [
      'src/store/x.ts',
      "import { a } from '../errors.js';\nimport { b } from '../logger.js';\nexport const y = [a, b];\n",
    ],
    [
      'scripts/x.ts',
      "import { a } from '../commands/index.js';\nimport { b } from '../test/fakes/philomena/index.js';\nimport { c } from '../src/rest-proxy/proxy.js';\nexport const y = [a, b, c];\n",
    ],
  ])('GIVEN %s importing in the allowed direction THEN passes', async (file, code) => {
    expect(await crossings(file, code)).toEqual([]);
  });
});
