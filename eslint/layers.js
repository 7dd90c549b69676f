/**
 * The layering of the project, kept by lint (`npm test` runs it). Relative imports are resolved to files
 * and checked against the layer of the importing file:
 *
 * - the Philomena library (src/philomena) imports nothing of the app;
 * - renderers (src/render) import only themselves and the library;
 * - the runtime (src/discord) never imports a feature (commands/);
 * - a feature (commands/<feature>) imports no other feature, only commands/shared; commands/shared imports
 *   no feature;
 * - the Redis adapters (src/redis) are handed in by the composition root (src/main.ts): neither the runtime
 *   nor a feature imports them, and they import only the ports they implement (the library's, the
 *   runtime's, a feature's port module in FEATURE_PORTS) and the store, never a feature's handlers.
 *
 * Package imports (discord.js, zod, ...) are not the layers' business and are always allowed.
 */
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * A feature's ports that a Redis adapter implements: the port sits with its feature, which owns its
 * meaning, and the adapter imports it from there (it may import nothing else of the feature).
 */
const FEATURE_PORTS = new Set(['commands/feed/leases.ts']);

/** A file's path relative to the project root, with `/` separators. */
function relativeOf(file) {
  return path.relative(ROOT, file).split(path.sep).join('/');
}

/** The layer of a file, by its path relative to the project root. */
function layerOf(file) {
  const rel = relativeOf(file);
  if (rel.startsWith('src/philomena/')) return { name: 'library' };
  if (rel.startsWith('src/render/')) return { name: 'render' };
  if (rel.startsWith('src/discord/')) return { name: 'runtime' };
  if (rel.startsWith('src/redis/')) return { name: 'redis' };
  const feature = /^commands\/([^/]+)\//.exec(rel);
  if (feature) return { name: feature[1] === 'shared' ? 'shared' : 'feature', feature: feature[1] };
  if (rel.startsWith('commands/')) return { name: 'feature-list' };
  if (rel.startsWith('src/')) return { name: 'app' };
  return { name: 'other' };
}

/** Why `from` may not import `to`, or undefined when it may. */
function refusal(from, to, target) {
  switch (from.name) {
    case 'library':
      if (to.name !== 'library' && !target.endsWith('.json'))
        return 'the Philomena library imports nothing of the app';
      return undefined;
    case 'render':
      if (to.name !== 'render' && to.name !== 'library')
        return 'renderers import only renderers and the library';
      return undefined;
    case 'runtime':
      if (['feature', 'shared', 'feature-list'].includes(to.name))
        return 'the runtime never imports a feature';
      if (to.name === 'redis') return 'the runtime never imports a Redis adapter (src/main.ts hands it in)';
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
      if (to.name === 'feature' && FEATURE_PORTS.has(relativeOf(target))) return undefined;
      if (['feature', 'shared', 'feature-list', 'render'].includes(to.name))
        return "a Redis adapter imports only the ports it implements and the store, not a feature's code";
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
        'Keeps the layers: library, renderers, runtime, Redis adapters, features (see eslint/layers.js)',
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
export { layerOf, refusal };
