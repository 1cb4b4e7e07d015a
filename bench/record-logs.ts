/**
 * Records real event logs for the judges' unit tests: runs the catalogue against every fixture
 * and stores, per fixture, what discovery found and each check's steps and outcome in
 * test/recorded/<fixture>.json. Run with `npm run record` after changing a scenario; with
 * check ids (`npm run record -- test/recorded session/lock-timeout-leak`), only those are run and
 * merged into the existing files, the other checks' records left as they are (a new check).
 * Then profiles/fixture-outcomes.ts is rewritten from the recordings: the fixtures' observed
 * profiles and the catalogue test's expectations are derived from it.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { run } from '../runner/run.js';
import { startStack } from '../fixtures/stack.js';
import { afterRecording, RECORDED_FIXTURES } from './fixture-outcomes-file.js';
import { storeRecording } from './recording-file.js';

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? 'test/recorded');
  const only = process.argv[3]?.split(',') ?? [];
  mkdirSync(out, { recursive: true });
  for (const name of RECORDED_FIXTURES) {
    const stack = await startStack(name);
    try {
      const report = await run({ target: stack.target.url(), direct: stack.postgres.url(), only });
      const { steps: _steps, ...discovery } = report.discovery;
      const checks = Object.fromEntries(report.checks.map((c) => [c.id, { outcome: c.outcome, steps: c.steps }]));
      storeRecording(path.join(out, `${name}.json`), name, discovery, checks, only.length > 0);
      process.stdout.write(`${name}: ${report.checks.map((c) => `${c.id}=${c.outcome}`).join(' ')}\n`);
    } finally {
      await stack.stop();
    }
  }
  afterRecording(out);
}

await main();
