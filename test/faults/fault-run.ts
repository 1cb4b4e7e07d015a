/**
 * Running the CLI and injecting a fault once it is mid-run (after a given number of checks
 * reported), then judging how it ended: by itself, within its bound, with every outcome either
 * the quiet baseline's or inconclusive, and later checks conclusive again.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import type { PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { withSuperuser } from '../safety/trace-inspection.js';
import { runCli, type CliRun } from '../support/cli.js';
import type { Report } from '../../engine/types.js';

export interface FaultRun extends CliRun {
  /** The fault was injected (the run got far enough). */
  injected: boolean;
  /** Check ids in report order that ended after the fault, conclusive. */
  conclusiveAfter: string[];
}

/**
 * Starts `pooltest args`, waits for `afterChecks` progress lines on stderr, runs `inject`, and
 * waits for the CLI to end (bounded by `timeoutMs`, after which it is killed: a hang). With
 * `freeze`, the CLI is stopped (SIGSTOP) while `inject` runs and continued after: the fault
 * then lands no later in the CLI's run than where this process read the line (under load the
 * CLI ran on by seconds before the line was read, issue 21), though it may still have run on
 * between writing the line and the freeze.
 */
export async function runWithFault(
  args: string[],
  afterChecks: number,
  inject: () => Promise<void>,
  timeoutMs = 150_000,
  freeze = false,
): Promise<FaultRun> {
  let injected = false;
  let injection: Promise<void> = Promise.resolve();
  const done: string[] = [];
  const run = await runCli(args, {
    json: true,
    timeoutMs,
    onSpawn(child) {
      let seen = 0;
      child.stderr?.on('data', (d: Buffer) => {
        // Progress lines: "  [ 3/23] session/set-leak: leaked pass (12 ms), 20 left".
        for (const m of d.toString().matchAll(/\[\s*\d+\/\d+\]\s+(\S+):/g)) {
          seen++;
          if (injected) done.push(m[1]!);
        }
        if (!injected && seen >= afterChecks) {
          injected = true;
          if (freeze) child.kill('SIGSTOP');
          injection = inject().finally(() => {
            if (freeze) child.kill('SIGCONT');
          });
        }
      });
    },
  });
  await injection;
  const after = new Set(done);
  const conclusiveAfter = (run.report?.checks ?? [])
    .filter((c) => after.has(c.id) && c.outcome !== null)
    .map((c) => c.id);
  return { ...run, injected, conclusiveAfter };
}

/**
 * Waits (bounded) until a pooltest session sits inside a transaction on some backend - a
 * holder or an observer, that is, a check in the middle of its steering, not the visits that
 * tidy up after each check (their query lists the run's LISTEN channels) - and returns that
 * backend's pid: the moment to inject a fault so that it lands inside a check.
 */
export async function checkInFlight(pgFixture: PostgresFixture, timeoutMs = 20_000): Promise<number | null> {
  return withSuperuser(pgFixture, async (c) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const r = await c.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE state = 'idle in transaction' AND application_name LIKE 'pooltest-%' AND query NOT LIKE '%AS listens%' LIMIT 1`,
      );
      if (r.rows[0]) return r.rows[0].pid;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return null;
  });
}

/** Outcomes that differ from the quiet baseline (inconclusive is allowed, with a reason). */
export function wrongAnswers(report: Report | null, baseline: Record<string, string | null>): string[] {
  if (!report) return ['no report'];
  const wrong: string[] = [];
  for (const c of report.checks) {
    if (c.outcome === null) {
      if (!c.reason) wrong.push(`${c.id}: inconclusive without a reason`);
    } else if (baseline[c.id] && c.outcome !== baseline[c.id]) {
      wrong.push(`${c.id}: "${c.outcome}" after the fault, "${baseline[c.id]}" without it (${c.reason})`);
    }
  }
  return wrong;
}

/** Ended by itself (no kill, no signal) with a report and a run-level exit code. */
export function expectEndedByItself(run: FaultRun, codes: number[] = [0, 1]): void {
  expect(run.signal, run.stderr).toBeNull();
  expect(codes, run.stderr).toContain(run.code);
}

/** Kills a pooler fixture's main process outright (no shutdown), as a crash or `kill -9` would. */
export function killPooler(p: PoolerFixture): void {
  const pid = Number.parseInt(
    readFileSync(join(dirname(p.logFile), p.kind === 'pgbouncer' ? 'pgbouncer.pid' : 'pgpool.pid'), 'utf8'),
    10,
  );
  process.kill(pid, 'SIGKILL');
}
