import type { ESLint } from 'eslint';

/** The local plugin of eslint/layers.js: `layers/boundaries`. */
export declare const layers: ESLint.Plugin;
