import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core CI machine. The
    // test files spend much of their time waiting on databases and child processes, so two
    // files at a time pay even there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Migrated template databases, built once per run and copied per test server (db-templates.ts).
    globalSetup: ['packages/server/test/global-setup.ts'],
    reporters: ['default', './packages/server/test/slowest-files-reporter.ts'],
  },
});
