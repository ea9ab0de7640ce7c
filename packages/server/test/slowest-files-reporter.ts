/**
 * After a run, the ten slowest test files (time in their tests and hooks, as the default reporter
 * shows it) and the sum over every file: where the run's time goes, and what to split next.
 */
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 10;

export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const files = modules.map((m) => ({ file: m.relativeModuleId, ms: m.diagnostic().duration }));
    if (files.length < 2) return;
    const total = files.reduce((sum, f) => sum + f.ms, 0);
    const slowest = [...files].sort((a, b) => b.ms - a.ms).slice(0, SHOWN);
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
    const lines = slowest.map((f) => `${seconds(f.ms)}  ${f.file}`);
    process.stdout.write(
      `\nSlowest ${slowest.length} of ${files.length} test files (sum over all files ${(total / 1000).toFixed(1)} s):\n${lines.join('\n')}\n`,
    );
  }
}
