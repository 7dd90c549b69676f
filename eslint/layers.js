/**
 * The layering of the project, kept by lint (`npm test` runs it). Relative imports are resolved to files
 * and checked against the layer of the importing file:
 *
 * - the Philomena library (src/philomena) imports nothing of the app;
 * - renderers (src/render) import only themselves and the library;
 * - the runtime (src/discord) never imports a feature (commands/);
 * - a feature (commands/<feature>) imports no other feature, only commands/shared; commands/shared imports
 *   no feature.
 *
 * Package imports (discord.js, zod, ...) are not the layers' business and are always allowed.
 */
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The layer of a file, by its path relative to the project root. */
function layerOf(file) {
  const rel = path.relative(ROOT, file).split(path.sep).join('/');
  if (rel.startsWith('src/philomena/')) return { name: 'library' };
  if (rel.startsWith('src/render/')) return { name: 'render' };
  if (rel.startsWith('src/discord/')) return { name: 'runtime' };
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
      return undefined;
    case 'feature':
      if (to.name === 'feature' && to.feature !== from.feature)
        return `a feature imports no other feature (only commands/shared)`;
      if (to.name === 'feature-list') return 'a feature does not import the feature list';
      return undefined;
    case 'shared':
      if (to.name === 'feature' || to.name === 'feature-list') return 'commands/shared imports no feature';
      return undefined;
    default:
      return undefined;
  }
}

const boundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps the layers: library, renderers, runtime, features (see eslint/layers.js)' },
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
