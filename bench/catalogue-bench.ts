/**
 * `npm run bench`: how long pooltest takes, measured rather than asserted.
 *
 * 1. Fixture start: PostgreSQL + PgBouncer (transaction mode, pool of 2), cold (a fresh
 *    template cache, so initdb runs) and warm (template reused), median of several starts.
 * 2. The full catalogue against that fixture, 5 runs: median wall time of the whole run
 *    (discovery, Vitest, checks, sweep), of each check, and the statements each check sent.
 *
 * Targets on a 2-core machine: fixture start under 4 s, catalogue under 3 s (issue 2; issue 3
 * allows 5 s once the capacity checks are in).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from '../runner/run.js';
import { startStack } from '../fixtures/stack.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function timeStart(): Promise<number> {
  const t = performance.now();
  const stack = await startStack('pgbouncer-transaction');
  const ms = performance.now() - t;
  await stack.stop();
  return ms;
}

async function main(): Promise<void> {
  // A cold start: a temp folder of our own means no cached cluster template.
  const coldTmp = mkdtempSync(path.join(os.tmpdir(), 'pooltest-bench-'));
  chmodSync(coldTmp, 0o755); // the unprivileged server user must be able to enter it
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = coldTmp;
  const cold = await timeStart();
  process.env.TMPDIR = savedTmp;
  if (savedTmp === undefined) delete process.env.TMPDIR;
  rmSync(coldTmp, { recursive: true, force: true });
  await timeStart(); // make sure the regular template cache is warm
  const warm: number[] = [];
  for (let i = 0; i < 3; i++) warm.push(await timeStart());
  process.stdout.write(`fixture start (PostgreSQL + PgBouncer): cold ${(cold / 1000).toFixed(2)} s, warm median ${(median(warm) / 1000).toFixed(2)} s (target < 4 s)\n`);

  const stack = await startStack('pgbouncer-transaction');
  const totals: number[] = [];
  const perCheck = new Map<string, { ms: number[]; statements: number[]; outcome: Set<string> }>();
  try {
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const report = await run({ target: stack.target.url(), direct: stack.postgres.url() });
      totals.push(performance.now() - t);
      for (const c of report.checks) {
        const e = perCheck.get(c.id) ?? { ms: [], statements: [], outcome: new Set<string>() };
        e.ms.push(c.durationMs);
        e.statements.push(c.statements);
        e.outcome.add(c.outcome ?? c.verdict);
        perCheck.set(c.id, e);
      }
    }
  } finally {
    await stack.stop();
  }
  const w = Math.max(...[...perCheck.keys()].map((k) => k.length));
  process.stdout.write(`\n${'check'.padEnd(w)}  median ms  statements  outcomes\n`);
  let checkSum = 0;
  for (const [id, e] of perCheck) {
    checkSum += median(e.ms);
    process.stdout.write(`${id.padEnd(w)}  ${median(e.ms).toFixed(0).padStart(9)}  ${median(e.statements).toFixed(0).padStart(10)}  ${[...e.outcome].join(',')}\n`);
  }
  process.stdout.write(`${'sum of checks'.padEnd(w)}  ${checkSum.toFixed(0).padStart(9)}\n`);
  process.stdout.write(`\ncatalogue wall time (discovery + Vitest + checks + sweep), median of ${RUNS}: ${(median(totals) / 1000).toFixed(2)} s (runs: ${totals.map((t) => (t / 1000).toFixed(2)).join(', ')}; target < 3 s)\n`);
}

await main();
