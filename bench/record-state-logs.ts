/**
 * Records real event logs for the judges of the session-state catalogue (issue 3: search_path,
 * custom settings, roles, protocol-level prepared statements, cursors, sequences, transaction
 * advisory locks, ON COMMIT DROP, reset on disconnect, DISCARD ALL), against every fixture
 * including the reset variants, into test/recorded/<fixture>-state.json. The same shape as
 * `npm run record`, which this leaves alone. Run: `npm run build && node dist/bench/record-state-logs.js`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from '../runner/run.js';
import { CATALOGUE } from '../suites/catalogue.js';
import { TRAFFIC_AREAS } from './traffic-areas.js';
import { STACK_NAMES, startStack, type StackName } from '../fixtures/stack.js';
import { afterRecording } from './fixture-outcomes-file.js';

/** Every fixture but the one whose max_client_conn leaves no room for the candidates. */
const STATE_STACKS = STACK_NAMES.filter((n) => n !== 'pgbouncer-small-max-client');

/**
 * Every check whose judge replays state logs: all but the traffic areas, which
 * record-traffic.ts records (they need other stacks). Derived from the catalogue, so a new
 * state check is recorded without touching this file.
 */
const STATE_CHECKS = CATALOGUE.map((c) => c.id).filter(
  (id) => !TRAFFIC_AREAS.some((area) => id.startsWith(`${area}/`)),
);

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? 'test/recorded');
  const only = process.argv[3] ? (process.argv[3].split(',') as StackName[]) : STATE_STACKS;
  mkdirSync(out, { recursive: true });
  for (const name of only) {
    const stack = await startStack(name);
    try {
      const report = await run({ target: stack.target.url(), direct: stack.postgres.url(), only: STATE_CHECKS });
      const { steps: _steps, ...discovery } = report.discovery;
      const checks = Object.fromEntries(report.checks.map((c) => [c.id, { outcome: c.outcome, steps: c.steps }]));
      writeFileSync(
        path.join(out, `${name}-state.json`),
        JSON.stringify({ fixture: name, discovery, checks }, null, 1) + '\n',
      );
      process.stdout.write(`${name}: ${report.checks.map((c) => `${c.id}=${c.outcome}`).join(' ')}\n`);
    } finally {
      await stack.stop();
    }
  }
  afterRecording(out);
}

await main();
