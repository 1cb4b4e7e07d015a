/**
 * A Vitest reporter that writes each test file's time - collection, hooks and tests, which
 * Vitest's JSON report leaves out of a file's start and end (a fixture started in beforeAll is
 * most of a catalogue file) - to the JSON file named by POOLTEST_FILE_TIMES. Used by
 * scripts/load-test.ts to print the slowest files.
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

export interface FileTime {
  file: string;
  project: string;
  ms: number;
  failed: boolean;
}

export default class FileTimesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const out = process.env.POOLTEST_FILE_TIMES;
    if (!out) return;
    const times: FileTime[] = testModules.map((m) => {
      const d = m.diagnostic();
      return {
        file: m.relativeModuleId,
        project: m.project.name,
        ms: Math.round(d.collectDuration + d.setupDuration + d.prepareDuration + d.duration),
        failed: m.state() === 'failed',
      };
    });
    writeFileSync(
      out,
      JSON.stringify(
        times.sort((a, b) => b.ms - a.ms),
        null,
        1,
      ),
    );
  }
}
