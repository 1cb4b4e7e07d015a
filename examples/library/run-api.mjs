// Run pooltest from code: the same run as the CLI, returned as a report object.
// POOLTEST_TARGET is the pooler to test: host:port or postgres://user:password@host:port/db.
import { writeFile } from 'node:fs/promises';
import { renderJunit, renderMarkdown, run } from 'pooltest';

const report = await run({
  target: process.env.POOLTEST_TARGET,
  profile: 'pgbouncer-transaction', // assert PgBouncer's documented behaviour; omit to only observe
  only: ['session/set-leak', 'locks'], // check ids or areas; every check when omitted
  onCheckResult: (check) => console.log(`${check.id}: ${check.outcome} (${check.verdict})`),
});

await writeFile('pooltest.md', renderMarkdown(report));
await writeFile('pooltest.junit.xml', renderJunit(report));
// pass counts checks that matched an expectation; observed, those nothing was expected of.
console.log(`${report.summary.pass} of ${report.summary.total} checks as expected, ${report.summary.observed} observed; exit ${report.summary.exitCode}`);
process.exitCode = report.summary.exitCode;
