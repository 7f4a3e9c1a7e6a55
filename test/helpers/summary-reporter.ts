/**
 * Prints the slowest test files (the suite must stay under 30 minutes: this says where its time goes), then
 * the plain closing line `N passed, N failed, N skipped` that CI reads, after vitest's own.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed') failed++;
        else skipped++;
      }
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++;
    }
    const slowest = modules
      .map((m) => {
        const d = m.diagnostic();
        return { file: m.relativeModuleId, seconds: (d.collectDuration + d.setupDuration + d.duration) / 1000 };
      })
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, 15);
    process.stdout.write(
      '\nSlowest test files:\n' +
        slowest.map((s) => `${s.seconds.toFixed(1).padStart(7)} s  ${s.file}`).join('\n') +
        '\n',
    );
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
