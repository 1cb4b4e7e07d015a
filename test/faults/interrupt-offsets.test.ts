/**
 * Ctrl-C at any moment: SIGINT and SIGTERM (and, on the embedded default, SIGHUP and SIGQUIT)
 * sent at each moment of a short run - process start, fixture start-up, discovery, Vitest's
 * start, a check, between checks, the sweep, the report - each moment found from what the run
 * shows (its output, its processes, its session on the server) rather than from a grid of
 * offsets, so every phase is hit once however fast or slow the machine is today (a 100 ms grid
 * cost twenty runs and, under load, stepped over the checks; issue 21). Each run must end by
 * itself within a few seconds of the signal with exit 130 (129 after SIGHUP, 131 after
 * SIGQUIT), never die from the signal, and either write a report whose summary says
 * interrupted (exit 130, the sweep run and clean, no label the interruption produced) or,
 * before discovery finished, say INTERRUPTED. Nothing may be left: no process, no fixture
 * folder, no state on the pooler's backends.
 *
 * Regressions this holds down: a signal in the second after discovery was acknowledged and
 * then ignored (Vitest's start reset the cancellation: every check ran, the report said exit
 * 0); a signal while Vitest started killed the process through Vitest's own handler, with no
 * report and no cleanup.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stillRunning } from '../../fixtures/proc-table.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cleanBackend, freshSettings, superuserView, visitPool } from '../safety/trace-inspection.js';
import { outcomes, runCli, type CliRun } from '../support/cli.js';
import { wrongAnswers } from './fault-run.js';
import { signalAt, type Moment, type SignalledRun } from './signal-at.js';

/** How long after the signal a run may take to end: the check in flight stops, the sweep runs. */
const END_WITHIN_MS = 8_000;

/** The exit code each signal leaves after an orderly interrupt (the report's summary says 130). */
const EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 130, SIGHUP: 129, SIGQUIT: 131 };

/** Everything a signalled run must satisfy; returns what it got wrong, one line each. */
function problems(r: SignalledRun, baseline: Record<string, string | null>): string[] {
  const { run } = r;
  const at = `${r.sig} at ${r.moment} (${r.offsetMs} ms)`;
  if (!r.delivered)
    return run.code === 0 || run.code === 1 ? [] : [`${at}: ended before the signal with exit ${run.code}`];
  // Before Node runs any JavaScript no handler can exist: the signal's default action ends the
  // process. That is only acceptable while it had printed and started nothing.
  if (run.signal === r.sig && run.stdout === '' && run.stderr === '' && r.servers.length === 0) return [];
  const bad: string[] = [];
  const report = run.report;
  if (run.signal !== null && !(report && !report.summary.interrupted))
    bad.push(`${at}: died from ${run.signal} (no report, no cleanup)`);
  if (run.ms - r.offsetMs > END_WITHIN_MS) bad.push(`${at}: took ${run.ms - r.offsetMs} ms after the signal`);
  if (report && !report.summary.interrupted) {
    // The signal came after the report was complete: its own exit code stands, or 130. Once
    // Node tears the process down (its work done, the summary printed, the fixtures stopped)
    // no handler runs any more, and the signal's default action ends it: nothing is lost then.
    if (run.signal === r.sig && /Summary {2}\d+ checks?: /.test(run.stdout)) return [];
    if (run.code !== report.summary.exitCode && run.code !== EXIT[r.sig])
      bad.push(`${at}: report says exit ${report.summary.exitCode}, process ${run.code}`);
    return bad;
  }
  if (run.code !== EXIT[r.sig]) bad.push(`${at}: exit ${run.code}, not ${EXIT[r.sig]}: ${run.stderr.slice(-300)}`);
  if (!report) {
    if (!/INTERRUPTED|SIGINT|SIGTERM|SIGHUP|SIGQUIT/.test(run.stderr))
      bad.push(`${at}: no report and no word of the interruption: ${run.stderr.slice(-300)}`);
    return bad;
  }
  if (report.summary.exitCode !== EXIT[r.sig])
    bad.push(`${at}: summary exit ${report.summary.exitCode}, not ${EXIT[r.sig]}`);
  // The check in flight is stopped before its own cleanup: when even the tidy-up after it
  // misses (under load), the sweep is what finds and removes it, and says so (dirty). The
  // pool is looked at independently after every run: nothing may remain there.
  if (report.sweep?.state !== 'clean' && report.sweep?.state !== 'dirty')
    bad.push(`${at}: sweep ${report.sweep?.state ?? 'missing'}: ${report.sweep?.reason ?? ''}`);
  bad.push(...wrongAnswers(report, baseline).map((w) => `${at}: ${w}`));
  // A check that reached a label long after the signal ran when it should not have started.
  for (const c of report.checks) {
    const after = r.reported.get(c.id);
    if (c.outcome !== null && after !== undefined && after > 1_000)
      bad.push(`${at}: ${c.id} concluded "${c.outcome}" ${Math.round(after)} ms after the signal`);
  }
  return bad;
}

/** Which phase the signal reached, read from what the run printed before it. */
function phase(r: SignalledRun): string {
  if (!r.delivered) return 'after the end';
  if (!r.run.report) return 'before discovery ended';
  const before = [...r.reported.values()].filter((t) => t < 0).length;
  if (before === 0) return 'before the first check ended';
  return before < r.run.report.checks.length ? 'between checks' : 'sweep or report';
}

/** Whether some signal came after the first check ended (between checks, or in the sweep or report). */
function reachedLate(runs: SignalledRun[]): boolean {
  return runs.some((r) => phase(r) === 'between checks' || phase(r) === 'sweep or report');
}

function phases(runs: SignalledRun[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of runs) counts[phase(r)] = (counts[phase(r)] ?? 0) + 1;
  return counts;
}

/** What remains on the pool after a run, seen without pooltest's own code; empty when clean. */
async function leftOnPool(stack: Stack): Promise<string[]> {
  // A client that went away inside a transaction leaves its server connection to the pooler,
  // which closes it once it notices (a moment, longer under load): what stays is what counts.
  let view = await superuserView(stack.postgres);
  for (const until = Date.now() + 3_000; view.idleInTransaction !== 0 && Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 100));
    view = await superuserView(stack.postgres);
  }
  const left: string[] = [];
  if (view.advisoryLocks !== 0 || view.tempTables.length > 0 || view.idleInTransaction !== 0)
    left.push(`superuser view: ${JSON.stringify(view)}`);
  const views = await visitPool(stack.target.url(), stack.pooler!.poolSize, await freshSettings(stack.target.url()));
  for (const v of views)
    if (JSON.stringify(v) !== JSON.stringify(cleanBackend(v.pid))) left.push(`backend view: ${JSON.stringify(v)}`);
  return left;
}

/** A progress line for check `n` that has ended ("[1/8] session/set-leak: leaked pass"). */
const ended = (n: number): RegExp => new RegExp(`\\[\\s*${n}/\\d+\\]\\s+\\S+:`);
/** The last check's line ("..., done"): the sweep is under way. */
const SWEEP = /, done\n/;
/** The report on stdout: the run is writing its outputs. */
const REPORT = /\S/;

/** Runs each moment once, in order, calling `after` between runs. */
async function atEach(
  args: string[],
  moments: Moment[],
  after: (r: SignalledRun) => Promise<void> = async () => undefined,
): Promise<SignalledRun[]> {
  const runs: SignalledRun[] = [];
  for (const m of moments) {
    const r = await signalAt(args, m);
    runs.push(r);
    await after(r);
  }
  return runs;
}

describe('a signal at any moment of a run', () => {
  let stack: Stack;
  let args: string[];
  let baseline: CliRun;
  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
    args = [
      '--target',
      stack.target.url(),
      '--direct',
      stack.postgres.url(),
      // Eight quick checks: a stretch of checks long enough for a moment between them.
      '--only',
      'session/set-leak,session/search-path-leak,session/custom-guc-leak,temp/temp-table,locks/advisory-session,locks/advisory-xact,prepared/sql-prepare,sequences/lastval',
    ];
    baseline = await runCli(args, { json: true });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('against a PgBouncer fixture: at each moment of a run, SIGINT and SIGTERM in turn, each ends in time with exit 130 and an honest report', async () => {
    expect(baseline.code, baseline.stderr).toBe(0);
    const left: string[] = [];
    // Each signal meets a run with no report to write yet and runs with one (twice each).
    const moments: Moment[] = [
      { name: 'process start', sig: 'SIGINT', when: { ms: 0 } },
      { name: 'discovery', sig: 'SIGTERM', when: { sessionOn: stack.postgres } },
      { name: "Vitest's start", sig: 'SIGINT', when: { stderr: /Discovery/ } },
      { name: 'between checks', sig: 'SIGTERM', when: { stderr: ended(1) } },
      // Checks run back to back: right after the fourth one ends, the fifth is in flight.
      { name: 'a check', sig: 'SIGINT', when: { stderr: ended(4) } },
      { name: 'the sweep', sig: 'SIGTERM', when: { stderr: SWEEP } },
      { name: 'the report', sig: 'SIGINT', when: { stdout: REPORT } },
    ];
    const runs = await atEach(args, moments, async (r) => {
      left.push(...(await leftOnPool(stack)).map((l) => `${r.sig} at ${r.moment}: ${l}`));
    });
    const delivered = runs.filter((r) => r.delivered);
    console.log(
      `interrupt moments (external): ${runs.map((r) => `${r.moment} ${r.sig} ${r.delivered ? `${r.offsetMs} ms -> ${phase(r)}, exit ${r.run.code}` : 'not sent'}`).join('; ')}; slowest end after the signal ${Math.max(...delivered.map((r) => r.run.ms - r.offsetMs))} ms`,
    );
    expect(runs.flatMap((r) => problems(r, outcomes(baseline.report)))).toEqual([]);
    // Every moment up to the sweep came while the run went (the report's may come after the end).
    expect(runs.filter((r) => !r.delivered && r.moment !== 'the report').map((r) => r.moment)).toEqual([]);
    // Both signals reached a run that had a report to write, and one that had not got so far.
    for (const sig of ['SIGINT', 'SIGTERM'])
      expect(delivered.filter((r) => r.sig === sig && r.run.report?.summary.interrupted).length, sig).toBeGreaterThan(
        0,
      );
    expect(delivered.some((r) => r.run.report === null)).toBe(true);
    // Signals reached discovery, the start of the checks, and later (a check, the sweep, the report).
    const seen = phases(runs);
    expect(seen['before discovery ended'] ?? 0).toBeGreaterThan(0);
    expect(seen['before the first check ended'] ?? 0).toBeGreaterThan(0);
    expect(reachedLate(runs), JSON.stringify(seen)).toBe(true);
    expect(left).toEqual([]);
  });

  // SIGHUP (a dropped SSH session) and SIGQUIT in the turn too: kill -QUIT exited 131 at once
  // and orphaned PostgreSQL, PgBouncer and their folders.
  test('the embedded default: fixtures it started are stopped and their folders removed, whenever the signal comes (SIGINT, SIGTERM, SIGHUP, SIGQUIT)', async () => {
    const args = ['--only', 'session/set-leak'];
    // Control: the embedded run, without a signal, works (so the signalled runs test something).
    const quiet = await runCli(args);
    expect(quiet.code, quiet.stderr).toBe(0);
    const moments: Moment[] = [
      { name: 'process start', sig: 'SIGINT', when: { ms: 0 } },
      { name: 'fixture start-up', sig: 'SIGTERM', when: { stderr: /No --target: starting/ } },
      { name: 'a fixture server starting', sig: 'SIGHUP', when: { family: (s) => s.length > 0 } },
      {
        name: 'both fixtures up',
        sig: 'SIGQUIT',
        when: { family: (s) => s.some((p) => /pgbouncer/.test(p.cmd)) && s.some((p) => /postgres/.test(p.cmd)) },
      },
      { name: "Vitest's start", sig: 'SIGINT', when: { stderr: /Discovery/ } },
      { name: 'the sweep', sig: 'SIGHUP', when: { stderr: SWEEP } },
      { name: 'the report', sig: 'SIGQUIT', when: { stdout: REPORT } },
    ];
    const runs = await atEach(args, moments);
    console.log(
      `interrupt moments (embedded): ${runs.map((r) => `${r.moment} ${r.sig} ${r.delivered ? `${r.offsetMs} ms -> ${phase(r)}, ${r.servers.length} server process(es), exit ${r.run.code}` : 'not sent'}`).join('; ')}`,
    );
    expect(runs.flatMap((r) => problems(r, {}))).toEqual([]);
    expect(runs.filter((r) => !r.delivered && r.moment !== 'the report').map((r) => r.moment)).toEqual([]);
    for (const r of runs) {
      expect(r.servers.filter(stillRunning).map((p) => `${r.sig} at ${r.moment}: pid ${p.pid}`)).toEqual([]);
      expect(r.folders.filter((f) => existsSync(f)).map((f) => `${r.sig} at ${r.moment}: ${f}`)).toEqual([]);
    }
    // Some signals came while the fixtures ran (so the checks above looked at something).
    expect(runs.filter((r) => r.servers.length >= 2).length).toBeGreaterThanOrEqual(2);
  });
});
