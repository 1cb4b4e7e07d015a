/**
 * Records real event logs for the judges' unit tests: runs the catalogue against every fixture
 * and stores, per fixture, what discovery found and each check's steps and outcome in
 * test/recorded/<fixture>.json. Run with `npm run record` after changing a scenario.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from '../runner/run.js';
import { startStack, type StackName } from '../fixtures/stack.js';

const STACKS: StackName[] = ['direct', 'pgbouncer-transaction', 'pgbouncer-session', 'pgbouncer-statement', 'pgpool'];

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? 'test/recorded');
  mkdirSync(out, { recursive: true });
  for (const name of STACKS) {
    const stack = await startStack(name);
    try {
      const report = await run({ target: stack.target.url(), direct: stack.postgres.url() });
      const { steps: _steps, ...discovery } = report.discovery;
      const checks = Object.fromEntries(report.checks.map((c) => [c.id, { outcome: c.outcome, steps: c.steps }]));
      writeFileSync(path.join(out, `${name}.json`), JSON.stringify({ fixture: name, discovery, checks }, null, 1) + '\n');
      process.stdout.write(`${name}: ${report.checks.map((c) => `${c.id}=${c.outcome}`).join(' ')}\n`);
    } finally {
      await stack.stop();
    }
  }
}

await main();
