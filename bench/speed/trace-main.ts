/**
 * One traced catalogue run at a distance, for finding its chains of round trips: starts the
 * fixture (PostgreSQL + PgBouncer, transaction mode), puts the delaying proxies in front, runs
 * a fresh `pooltest` process with POOLTEST_TRACE set (engine/record/trace.ts) and prints the wire's
 * count beside the trace's breakdown (trace-report.ts).
 *
 *   node dist/bench/speed/trace-main.js [--delay MS (default 40)] [--trace FILE (default
 *     .pooltest/bench/trace-MS.jsonl)] [--timeline] [--handshake (TCP handshakes take a round trip too)]
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startStack } from '../../fixtures/stack.js';
import { condition } from './conditions.js';
import { cliRun } from './measure.js';

const { values } = parseArgs({
  options: {
    delay: { type: 'string' },
    trace: { type: 'string' },
    timeline: { type: 'boolean' },
    handshake: { type: 'boolean' },
  },
});
const delayMs = Number(values.delay ?? 40);
const file = path.resolve(values.trace ?? path.join('.pooltest', 'bench', `trace-${delayMs}.jsonl`));
mkdirSync(path.dirname(file), { recursive: true });
rmSync(file, { force: true });

const wire: Array<{ kind: string; label: string; what: string; from: number; to: number }> = [];
const stack = await startStack('pgbouncer-transaction');
try {
  // The wire's chunks go into the trace too, so that the report can tell waits on the wire
  // from CPU time (a chunk is in flight from its arrival until the proxy lets it through).
  const c = await condition(
    stack,
    delayMs,
    (from, to) => void wire.push({ kind: 'wire', label: 'proxy', what: '', from, to }),
    values.handshake === true,
  );
  try {
    // The spawned pooltest (and its Vitest workers) inherit the variable.
    process.env.POOLTEST_TRACE = file;
    const run = await cliRun(c.target, c.direct, c);
    delete process.env.POOLTEST_TRACE;
    appendFileSync(file, wire.map((w) => `${JSON.stringify(w)}\n`).join(''));
    const outcomes = run.report.checks.map((k) => `${k.id}=${k.outcome ?? k.verdict}`).join(' ');
    process.stdout.write(
      `${c.name}: ${(run.ms / 1000).toFixed(2)} s, ${run.roundTrips.toFixed(0)} sequential round trips on the wire\n${outcomes}\n\n`,
    );
  } finally {
    await c.stop();
  }
} finally {
  await stack.stop();
}
const report = path.join(path.dirname(fileURLToPath(import.meta.url)), 'trace-report.js');
const args = [report, file, '--rtt', String(2 * delayMs), ...(values.timeline ? ['--timeline'] : [])];
spawnSync(process.execPath, args, { stdio: 'inherit' });
