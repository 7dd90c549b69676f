/**
 * The layering of the project, kept by lint (`npm test` runs it). Relative imports are resolved to files
 * and checked against the layer of the importing file:
 *
 * - the Philomena library (src/philomena) imports nothing outside its folder, not even package.json;
 * - renderers (src/render) import only themselves, the library and the catalogues (no app file: they
 *   stay pure);
 * - the catalogues (src/i18n: the bot's words in every language) import nothing of the bot;
 * - the runtime (src/discord) never imports a feature (commands/), a Redis adapter, the app's config
 *   (src/config.ts: it takes its own options) or the store (src/store: features reach it through ports);
 * - a feature (commands/<feature>) imports no other feature, only commands/shared; commands/shared imports
 *   no feature;
 * - the Redis adapters (src/redis) are handed in by the composition root (src/main.ts): neither the runtime
 *   nor a feature imports them, and they import only the ports they implement (PORTS: the library's, the
 *   runtime's, a feature's port module) and the store, never a feature's handlers;
 * - operations (src/metrics, src/launcher, src/rest-proxy) may import anything but a feature;
 * - the app (src/*.ts with src/main.ts, the composition root, and src/store) and the scripts (scripts/)
 *   put the rest together and may import anything; nothing of src/ or commands/ imports a script, a bench
 *   or a test.
 *
 * Package imports (discord.js, zod, ...) are not the layers' business and are always allowed.
 */
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * The ports that the Redis adapters implement, each beside the layer that owns its meaning (the library's
 * shared state, the runtime's identify throttle, a feature's poll leases): an adapter imports these and
 * nothing else of those layers.
 */
const PORTS = new Set([
  'src/philomena/shared-state.ts',
  'src/discord/identify.ts',
  'commands/feed/leases.ts',
]);

/** Operations around the bot: they may import anything but a feature. */
const OPS = ['src/metrics/', 'src/launcher/', 'src/rest-proxy/'];

/** What is not product (src/, commands/): the product never imports it (package.json it may, outside the library). */
const OUTSIDE_PRODUCT = new Set(['scripts', 'bench', 'test']);

/** The layers that hold a feature's code. */
const FEATURE_CODE = ['feature', 'shared', 'feature-list'];

/** A file's path relative to the project root, with `/` separators. */
function relativeOf(file) {
  return path.relative(ROOT, file).split(path.sep).join('/');
}

/** The layer of a file, by its path relative to the project root. */
function layerOf(file) {
  const rel = relativeOf(file);
  if (rel.startsWith('src/philomena/')) return { name: 'library' };
  if (rel.startsWith('src/render/')) return { name: 'render' };
  if (rel.startsWith('src/i18n/')) return { name: 'i18n' };
  if (rel.startsWith('src/discord/')) return { name: 'runtime' };
  if (rel.startsWith('src/redis/')) return { name: 'redis' };
  if (OPS.some((folder) => rel.startsWith(folder))) return { name: 'ops' };
  if (rel.startsWith('src/store/')) return { name: 'store' };
  const feature = /^commands\/([^/]+)\//.exec(rel);
  if (feature) return { name: feature[1] === 'shared' ? 'shared' : 'feature', feature: feature[1] };
  if (rel.startsWith('commands/')) return { name: 'feature-list' };
  if (rel.startsWith('src/')) return { name: 'app' };
  if (rel.startsWith('scripts/')) return { name: 'scripts' };
  if (rel.startsWith('bench/')) return { name: 'bench' };
  if (rel.startsWith('test/')) return { name: 'test' };
  return { name: 'other' };
}

/** Why `from` may not import `to`, or undefined when it may. */
function refusal(from, to, target) {
  // package.json included: the library takes what it needs of the app (its User-Agent) from its options.
  if (from.name === 'library' && to.name !== 'library')
    return 'the Philomena library imports nothing outside src/philomena';
  if (!OUTSIDE_PRODUCT.has(from.name) && OUTSIDE_PRODUCT.has(to.name))
    return 'the product imports no script, bench or test';
  switch (from.name) {
    case 'render':
      if (to.name !== 'render' && to.name !== 'library' && to.name !== 'i18n')
        return 'renderers import only renderers, the library and the catalogues (src/i18n)';
      return undefined;
    case 'i18n':
      if (to.name !== 'i18n') return 'the catalogues (src/i18n) import nothing of the bot';
      return undefined;
    case 'runtime':
      if (FEATURE_CODE.includes(to.name)) return 'the runtime never imports a feature';
      if (to.name === 'redis') return 'the runtime never imports a Redis adapter (src/main.ts hands it in)';
      if (to.name === 'store') return 'the runtime never imports the store (it is handed ports)';
      if (relativeOf(target) === 'src/config.ts')
        return "the runtime never imports the app's config (it takes its own options)";
      return undefined;
    case 'feature':
      if (to.name === 'feature' && to.feature !== from.feature)
        return `a feature imports no other feature (only commands/shared)`;
      if (to.name === 'feature-list') return 'a feature does not import the feature list';
      if (to.name === 'redis') return 'a feature never imports a Redis adapter (src/main.ts hands it in)';
      return undefined;
    case 'shared':
      if (to.name === 'feature' || to.name === 'feature-list') return 'commands/shared imports no feature';
      if (to.name === 'redis') return 'a feature never imports a Redis adapter (src/main.ts hands it in)';
      return undefined;
    case 'feature-list':
      if (to.name === 'redis') return 'a feature never imports a Redis adapter (src/main.ts hands it in)';
      return undefined;
    case 'redis':
      if (to.name === 'redis' || to.name === 'store' || PORTS.has(relativeOf(target))) return undefined;
      return 'a Redis adapter imports only the ports it implements and the store';
    case 'ops':
      if (FEATURE_CODE.includes(to.name))
        return 'operations (metrics, launcher, REST proxy) import no feature';
      return undefined;
    default:
      return undefined;
  }
}

const boundaries = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'Keeps the layers: library, renderers, runtime, Redis adapters, operations, app, features (see eslint/layers.js)',
    },
    schema: [],
    messages: { crossed: '{{why}}: {{source}}' },
  },
  create(context) {
    const file = context.filename;
    const from = layerOf(file);
    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), source.replace(/\.js$/, '.ts'));
      const why = refusal(from, layerOf(target), target);
      if (why) context.report({ node, messageId: 'crossed', data: { why, source } });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export const layers = { rules: { boundaries } };
