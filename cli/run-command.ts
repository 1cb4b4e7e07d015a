/**
 * The run command once its endpoints are known: run the catalogue (and, with `--compare`, run
 * it against the baseline too: at the same time when the two share neither a pool nor a
 * server, else one after the other; see compare-plan.ts), print the report, write the
 * outputs, and choose the exit code.
 */
import { Chalk } from 'chalk';
import { renderDiff } from '../reporters/diff-terminal.js';
import { createProgress } from '../reporters/progress-reporter.js';
import { renderDiscovery, renderQuiet, renderReport } from '../reporters/terminal-reporter.js';
import { diffReports } from '../reporters/report-diff.js';
import { DEFAULT_TIMEOUT_MS, run, selectChecks, type RunOptions } from '../runner/run.js';
import { planCompare } from './compare-plan.js';
import { resolveRelated, resolveTarget } from '../engine/target/target.js';
import type { Profile } from '../engine/record/profile.js';
import type { Report } from '../engine/types.js';
import type { CliOptions } from './args.js';
import { writeOutputs, type Comparison } from './outputs.js';
import type { StoredRun } from './run-store.js';
import { PooltestError } from '../engine/record/errors.js';
import { exitCodeOfAbort } from '../engine/record/signals.js';

/** Where the command writes, and how its terminal looks. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  color: boolean;
  /** Whether stderr is a terminal (progress rewrites its line there). */
  tty: boolean;
  width: number;
  env: NodeJS.ProcessEnv;
  /**
   * Whether stdout and stderr are one destination (a terminal, or `2>&1`): the report then
   * carries the discovery block, and progress does not print it a second time.
   */
  sameStream?: boolean;
  /** Aborted on SIGINT/SIGTERM: the run stops, sweeps, and reports what it has (interrupt.ts). */
  signal?: AbortSignal;
  /** Aborted when pooltest quits at once (a second signal): no sweep, no report (interrupt.ts). */
  quit?: AbortSignal;
}

/** What to test, after `--spawn` or the embedded default had their say. */
export interface Endpoints {
  target?: string;
  direct?: string;
  profile?: string | Profile;
  /** pooltest started the target itself (see RunOptions.fixture). */
  fixture?: boolean;
}

/** Runs, reports, and returns the exit code (0 or 1; errors are thrown). */
export async function runCommand(opts: CliOptions, ends: Endpoints, io: CliIo): Promise<number> {
  // The selection is known before the run: the progress display's total.
  const total = selectChecks(opts.only, opts.skip).length;
  const common: RunOptions = {
    user: opts.user,
    password: opts.password,
    database: opts.database,
    only: opts.only,
    skip: opts.skip,
    timeoutMs: opts.timeoutMs,
    maxPool: opts.maxPool,
    strict: opts.strict,
    failOnBreaks: opts.failOnBreaks,
    runWedging: opts.runWedging,
    env: io.env,
    ...(io.signal ? { signal: io.signal } : {}),
    ...(io.quit ? { quit: io.quit } : {}),
  };
  const label = opts.compare ? 'target' : undefined;
  // Resolved here, not in run(): psql's -h and -p have no place in the library's options.
  const main = resolveTarget(
    {
      target: ends.target,
      host: opts.host,
      port: opts.port,
      user: opts.user,
      password: opts.password,
      database: opts.database,
    },
    io.env,
    warnTo(io),
  );
  if (!opts.compare) {
    const report = await run({
      ...common,
      target: main,
      direct: ends.direct,
      profile: ends.profile,
      fixture: ends.fixture === true,
      ...events(opts, io, total, label),
    });
    if (opts.drivers && !io.signal?.aborted) await addDrivers(report, ends, opts, io);
    return finish(report, null, opts, io);
  }
  if (opts.drivers) throw new PooltestError('BAD_ARGUMENTS', '--drivers does not combine with --compare');
  // What the baseline does not spell out (user, password, database) comes from the target.
  // No --direct and no profile for it: it is observed, and its sweep goes through itself.
  const base = resolveRelated(opts.compare, main, io.env, warnTo(io), '--compare');
  const plan = await planCompare(main, base, Math.min(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, 5_000));
  if (!opts.quiet) io.stderr(`--compare: ${plan.reason}\n`);
  // Two runs at once print progress lines, never one line rewritten in place.
  const ioFor = plan.concurrent ? { ...io, tty: false } : io;
  const runTarget = (): Promise<Report> =>
    run({
      ...common,
      target: main,
      direct: ends.direct,
      profile: ends.profile,
      fixture: ends.fixture === true,
      ...events(opts, ioFor, total, label),
    });
  const runBaseline = (): Promise<Report> =>
    run({ ...common, target: base, ...events(opts, ioFor, total, 'baseline') });
  let report: Report;
  let baseline: Report | null;
  if (plan.concurrent) {
    // Both settle before anything is reported: neither run is left sweeping in the background.
    const [t, b] = await Promise.allSettled([runTarget(), runBaseline()]);
    if (t.status === 'rejected') throw t.reason;
    if (b.status === 'rejected' && !io.signal?.aborted) throw b.reason;
    report = t.value;
    baseline = b.status === 'fulfilled' ? b.value : null;
  } else {
    report = await runTarget();
    baseline = io.signal?.aborted ? null : await runBaseline();
  }
  return finish(report, baseline ? { baseline, diff: diffReports(baseline, report) } : null, opts, io);
}

/**
 * Writes the outputs, prints the report, and returns the exit code. The files are written
 * first so that the Summary line can carry the exit code the process really ends with: a file
 * that cannot be written after all (OUTPUT_FAILED, exit 2) must not sit under "exit 0". The
 * terminal still gets the run's results before that error is thrown.
 */
function finish(report: Report, comparison: Comparison | null, opts: CliOptions, io: CliIo): number {
  // Quitting at once: the user was told that no report is written, and none is (nor printed).
  if (io.quit?.aborted) throw io.quit.reason;
  let stored: StoredRun | null = null;
  let failure: unknown = null;
  try {
    stored = writeOutputs(
      report,
      { json: opts.json, junit: opts.junit, markdown: opts.markdown, html: opts.html, store: opts.store },
      comparison,
      (t) => io.stderr(`${t}\n`),
    );
  } catch (err) {
    failure = err;
  }
  const code = processExitCode(report, comparison, io.signal);
  // The Summary states the code the process ends with, not the report's own (the two differ
  // with --compare, whose changes may fail the run, and after a signal once the run was over).
  const shown: Report = {
    ...report,
    summary: { ...report.summary, exitCode: failure === null ? code : OUTPUT_FAILED_EXIT_CODE },
  };
  printReport(shown, comparison, opts, io);
  // After the checks' report, as they ran (--drivers).
  if (driversText) io.stdout(driversText);
  if (failure !== null) throw failure;
  if (stored && !opts.quiet) io.stderr(`Stored in ${stored.dir} (.pooltest/latest points at it)\n`);
  return code;
}

/**
 * The exit code the process ends with: the worse of the report's and the comparison's, or the
 * signal's once one came (command.ts applies the same rule through interrupt.exitCode).
 */
function processExitCode(report: Report, comparison: Comparison | null, signal: AbortSignal | undefined): number {
  if (signal?.aborted) return exitCodeOfAbort(signal);
  return Math.max(report.summary.exitCode, comparison?.diff.summary.exitCode ?? 0);
}

/** Any PooltestError ends the command with 2 (command.ts), OUTPUT_FAILED too. */
const OUTPUT_FAILED_EXIT_CODE = 2;

/**
 * `--drivers`: the drivers run after the checks (and their sweep), as `pooltest drivers` would,
 * its report added as the `drivers` section of the run's report (schema: $defs/driversReport).
 * A driver result that misses a --profile expectation of the drivers' own fails the run.
 */
let driversText: string | null = null;

async function addDrivers(report: Report, ends: Endpoints, opts: CliOptions, io: CliIo): Promise<void> {
  const { runDrivers } = await import('../drivers/run-drivers.js');
  const { DRIVER_PROFILES } = await import('../drivers/profiles.js');
  const { renderDriversTerminal } = await import('../reporters/drivers-text.js');
  // The run resolved the same target and said what it ignored already.
  const quiet = (): void => undefined;
  const target = resolveTarget(
    { target: ends.target, user: opts.user, password: opts.password, database: opts.database },
    io.env,
    quiet,
  );
  const profile = typeof ends.profile === 'string' ? DRIVER_PROFILES[ends.profile] : undefined;
  if (!opts.quiet) io.stderr('--drivers: running the installed drivers through the target...\n');
  // The run's --direct carries the drivers' own questions too (is another run active?).
  const direct = ends.direct !== undefined ? resolveRelated(ends.direct, target, io.env, quiet) : null;
  const drivers = await runDrivers(target, {
    direct,
    ...(opts.timeoutMs !== undefined ? { stepMs: opts.timeoutMs } : {}),
    ...(profile ? { expect: profile() } : {}),
  });
  Object.assign(report, { drivers });
  driversText = `\n${renderDriversTerminal(drivers)}`;
  if (drivers.results.some((r) => r.verdict === 'fail')) report.summary.exitCode = Math.max(report.summary.exitCode, 1);
}

/** The CLI's way of saying what it ignored (a password file others can read): one line on stderr. */
function warnTo(io: CliIo): (message: string) => void {
  return (message) => io.stderr(`pooltest: warning: ${message}\n`);
}

/** Discovery and progress on stderr, unless --quiet; warnings always. */
function events(
  opts: CliOptions,
  io: CliIo,
  total: number,
  label: string | undefined,
): Pick<RunOptions, 'onDiscovery' | 'onCheckStart' | 'onCheckResult' | 'onWait' | 'onWarning'> {
  // Said even with --quiet: it is why a login may fail.
  if (opts.quiet) return { onWarning: warnTo(io) };
  const c = new Chalk({ level: io.color ? 1 : 0 });
  const progress = createProgress({ total, color: io.color, tty: io.tty, label, write: io.stderr });
  return {
    // The report (stdout) shows the target's discovery; on the same screen, once is enough.
    ...(io.sameStream && label !== 'baseline'
      ? {}
      : { onDiscovery: (d) => io.stderr(`${label ? `${c.bold(label)}: ` : ''}${renderDiscovery(d, c, io.width)}\n`) }),
    onCheckStart: progress.onCheckStart,
    onCheckResult: progress.onCheckResult,
    onWait: progress.onWait,
    onWarning: warnTo(io),
  };
}

function printReport(report: Report, comparison: Comparison | null, opts: CliOptions, io: CliIo): void {
  const view = { color: io.color, verbose: opts.verbose, width: io.width };
  io.stdout(opts.quiet ? renderQuiet(report, view) : renderReport(report, view));
  if (comparison)
    io.stdout(`\n${renderDiff(comparison.diff, { color: io.color, width: io.width, quiet: opts.quiet })}`);
}
