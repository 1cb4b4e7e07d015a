/**
 * Running the check suites through Vitest's Node API, from inside the CLI or the library.
 * Vitest is configured inline (never from the user's folder), writes its cache to the temp
 * folder (the package may be installed read-only), runs one file at a time (checks steer a
 * small shared pool and must not disturb each other), and reports only to our collector.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { PooltestProvided } from './vitest-check.js';
import type { CheckResult } from './types.js';

export interface SuiteRunEvents {
  onCheckStart?(file: string): void;
  onCheckResult?(result: CheckResult): void;
}

interface TestCaseLike {
  name: string;
  meta(): { pooltest?: CheckResult };
  result(): { state: string; errors?: ReadonlyArray<{ message?: string }> };
  module: { moduleId: string };
}

/** Where the suites live: `dist/suites` beside the compiled engine, or `suites` in a source checkout. */
export function suitesLocation(): { root: string; pattern: string } {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(here, '..');
  const compiled = here.split(path.sep).includes('dist');
  const pattern = compiled ? 'suites/**/*.test.js' : 'suites/**/*.test.ts';
  if (!existsSync(path.join(root, 'suites'))) throw new Error(`pooltest suites not found under ${root}`);
  return { root, pattern };
}

/** Runs the selected check files and returns one result per test, in completion order. */
export async function runSuites(provided: PooltestProvided, fileFilters: string[], events: SuiteRunEvents = {}): Promise<CheckResult[]> {
  const { startVitest } = await import('vitest/node');
  const { root, pattern } = suitesLocation();
  const results: CheckResult[] = [];
  const collector = {
    onTestModuleStart(mod: { moduleId: string }) {
      events.onCheckStart?.(mod.moduleId);
    },
    onTestCaseResult(testCase: TestCaseLike) {
      const meta = testCase.meta().pooltest;
      const result = meta ?? crashed(testCase);
      results.push(result);
      events.onCheckResult?.(result);
    },
  };
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const previousExitCode = process.exitCode;
  const vitest = await startVitest(
    'test',
    fileFilters,
    {
      root,
      config: false,
      watch: false,
      include: [pattern],
      reporters: [collector],
      provide: { pooltest: provided },
      fileParallelism: false,
      maxWorkers: 1,
      pool: 'threads',
      isolate: false,
      testTimeout: 120_000,
      hookTimeout: 30_000,
      passWithNoTests: true,
      silent: true,
    },
    { cacheDir: path.join(os.tmpdir(), 'pooltest-vite-cache') },
    { stdout: sink, stderr: sink },
  );
  await vitest?.close();
  // startVitest sets a failing exit code when a check fails its expectation; the CLI decides.
  process.exitCode = previousExitCode;
  return results;
}

/** A test that ended without a result (it threw before judging): report it, never drop it. */
function crashed(testCase: TestCaseLike): CheckResult {
  const errors = testCase.result().errors ?? [];
  const message = errors.map((e) => e.message ?? '').join('; ') || 'the check ended without a result';
  const id = testCase.name.split(':')[0] ?? testCase.name;
  return {
    id, title: testCase.name, severity: 'correctness', outcome: null, expected: null, expectedRef: null, verdict: 'inconclusive',
    reason: `pooltest error: ${message}`, facts: {}, evidence: message, advice: null, steps: [], durationMs: 0, statements: 0,
    cleanup: { ok: false, detail: 'unknown: the check crashed' },
  };
}
