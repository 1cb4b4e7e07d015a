/**
 * Records the stored sample reports: real runs of a few checks against the fixtures, with the
 * fixture's profile, written as `--json` writes them. Both the re-judging test
 * (test/judges/rejudge.test.ts holds every stored report to its record) and the reporter tests
 * (test/reporters/samples.ts) read them, so a re-recording reaches every reader; the reporter
 * tests read their expectations from the files, not from one recording. PostgreSQL direct has
 * no --direct (it is the server); PgBouncer 1.18 in transaction pooling has one, so its sweep
 * also looks directly. The checks are those of the first (schema-1) samples.
 *
 *   node dist/bench/record-sample-reports.js [OUT_DIR]   (default test/judges/reports)
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from '../runner/run.js';
import { startStack, type StackName } from '../fixtures/stack.js';
import { reportToJson } from '../reporters/json-reporter.js';

const CHECKS = [
  'session/set-leak',
  'session/custom-guc-leak',
  'session/tracked-parameter',
  'session/set-local',
  'temp/temp-table',
  'locks/advisory-session',
  'notify/listen',
  'prepared/sql-prepare',
];

const SAMPLES: Array<{ stack: StackName; withDirect: boolean; only: string[] }> = [
  { stack: 'direct', withDirect: false, only: CHECKS },
  // As recorded first: the custom-GUC check left out of PgBouncer's sample.
  { stack: 'pgbouncer-transaction', withDirect: true, only: CHECKS.filter((c) => c !== 'session/custom-guc-leak') },
];

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? 'test/judges/reports');
  for (const s of SAMPLES) {
    const stack = await startStack(s.stack);
    try {
      const report = await run({
        target: stack.target.url(),
        ...(s.withDirect ? { direct: stack.postgres.url() } : {}),
        profile: s.stack,
        only: s.only,
      });
      const file = path.join(out, `${s.stack}.report.json`);
      writeFileSync(file, reportToJson(report));
      process.stdout.write(
        `${file}: ${report.checks.map((c) => `${c.id} ${c.outcome ?? c.verdict}`).join(', ')}; exit ${report.summary.exitCode}\n`,
      );
    } finally {
      await stack.stop();
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
