/**
 * Records real event logs of capacity/connect-churn against fixtures, for its judge's tests:
 * test/recorded/connect-churn.json holds, per fixture, discovery, the outcome and the steps.
 * It also prints each measurement, so the numbers behind the labels can be compared by hand.
 *
 *   node dist/bench/record-churn.js [--no-write] [fixture...]   (default: direct, pgbouncer-transaction, pgpool)
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from '../runner/run.js';
import { STACK_NAMES, startStack, type StackName } from '../fixtures/stack.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const write = !argv.includes('--no-write');
  const names = argv.filter((a) => a !== '--no-write') as StackName[];
  for (const n of names) if (!STACK_NAMES.includes(n)) throw new Error(`unknown fixture ${n}; fixtures: ${STACK_NAMES.join(', ')}`);
  const record: Record<string, unknown> = {};
  for (const name of names.length > 0 ? names : (['direct', 'pgbouncer-transaction', 'pgpool'] as StackName[])) {
    const stack = await startStack(name);
    try {
      const report = await run({ target: stack.target.url(), direct: stack.postgres.url(), only: ['capacity/connect-churn'] });
      const check = report.checks[0]!;
      const { steps: _steps, ...discovery } = report.discovery;
      process.stdout.write(`${name}: ${check.outcome ?? 'inconclusive'} (${check.durationMs} ms): ${check.reason}\n`);
      record[name] = { discovery, outcome: check.outcome, steps: check.steps };
    } finally {
      await stack.stop();
    }
  }
  if (write) writeFileSync(path.resolve('test/recorded/connect-churn.json'), `${JSON.stringify(record, null, 1)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
