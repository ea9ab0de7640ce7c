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
    // Each worker loads the server's modules once, not once per file: per-file isolation spent
    // about a third of the suite's CPU importing the same modules again (import 124 s of 346 s
    // wall, against 12 s of 281 s without). Safe because every test file opens its own servers and
    // databases and none mocks modules or fakes timers; a file that sets process.env restores it.
    isolate: false,
    // Migrated template databases, built once per run and copied per test server (db-templates.ts).
    globalSetup: ['packages/server/test/global-setup.ts'],
    reporters: ['default', './packages/server/test/slowest-files-reporter.ts'],
  },
});
