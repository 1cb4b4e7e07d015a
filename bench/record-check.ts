/**
 * Records real event logs of one check against fixtures, for its judge's tests: the output
 * file holds, per fixture, discovery, the outcome and the steps. It prints each outcome and
 * reason, so the figures behind a label can be compared by hand.
 *
 *   node dist/bench/record-check.js CHECK_ID OUT.json [--fixture] [--no-write] fixture...
 *
 *   node dist/bench/record-check.js capacity/connect-churn test/recorded/connect-churn.json direct pgbouncer-transaction pgbouncer-session pgpool
 *   node dist/bench/record-check.js auth/stale-password test/recorded/stale-password.json --fixture direct pgbouncer-transaction pgbouncer-session pgpool
 *
 * `--fixture` tells the run it may do what only a throwaway server allows (fixture-only checks).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from '../runner/run.js';
import { SOURCE_STACK_NAMES, STACK_NAMES, startStack, type StackName } from '../fixtures/stack.js';

async function main(): Promise<void> {
  const [id, out, ...rest] = process.argv.slice(2);
  if (!id || !out) throw new Error('usage: record-check.js CHECK_ID OUT.json [--fixture] [--no-write] fixture...');
  const fixture = rest.includes('--fixture');
  const write = !rest.includes('--no-write');
  const names = rest.filter((a) => !a.startsWith('--')) as StackName[];
  const known: StackName[] = [...STACK_NAMES, ...SOURCE_STACK_NAMES];
  for (const n of names) if (!known.includes(n)) throw new Error(`unknown fixture ${n}; fixtures: ${known.join(', ')}`);
  const record: Record<string, unknown> = {};
  for (const name of names) {
    const stack = await startStack(name);
    try {
      const report = await run({ target: stack.target.url(), direct: stack.postgres.url(), only: [id], fixture });
      const check = report.checks[0]!;
      const { steps: _steps, ...discovery } = report.discovery;
      process.stdout.write(`${name}: ${check.outcome ?? check.verdict} (${check.durationMs} ms): ${check.reason}\n`);
      record[name] = { discovery, outcome: check.outcome, steps: check.steps };
    } finally {
      await stack.stop();
    }
  }
  if (write) writeFileSync(path.resolve(out), `${JSON.stringify(record, null, 1)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
