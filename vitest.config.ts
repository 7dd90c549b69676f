import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. Most of these tests
    // wait on local servers, child processes and timers rather than compute, so two run side by side.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
