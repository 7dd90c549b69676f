import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layers } from './eslint/layers.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { ecmaVersion: 2023, sourceType: 'module' } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['scripts/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // Type-aware: a promise nobody awaits or catches, a promise where a callback's result is ignored, and
    // a switch that forgets a case of a union are errors.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
    },
  },
  {
    // No `as` that claims more than the compiler knows (outside data is parsed with zod, a union is narrowed
    // by a switch or a guard). The few justified ones carry an eslint-disable saying why.
    files: ['src/**/*.ts', 'commands/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-type-assertion': 'error' },
  },
  {
    // Product files stay small enough to read in one sitting: past about 400 lines of code a file has
    // usually grown a second job (issue 19). Comments and blank lines do not count.
    files: ['src/**/*.ts', 'commands/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }] },
  },
  {
    // The layers (eslint/layers.js): library, renderers, runtime, Redis adapters, operations, app, features,
    // scripts.
    files: ['src/**/*.ts', 'commands/**/*.ts', 'scripts/**/*.ts'],
    plugins: { layers },
    rules: { 'layers/boundaries': 'error' },
  },
);
