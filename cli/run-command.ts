/**
 * The run command once its endpoints are known: run the catalogue (and, with `--compare`, run
 * it again against the baseline, one after the other, since both may share a database and the
 * checks steer small pools), write the outputs, print the report, and choose the exit code.
 */
import { Chalk } from 'chalk';
import { renderDiff } from '../reporters/diff-terminal.js';
import { createProgress } from '../reporters/progress-reporter.js';
import { renderDiscovery, renderQuiet, renderReport } from '../reporters/terminal-reporter.js';
import { CATALOGUE } from '../suites/catalogue.js';
import { diffReports } from '../reporters/report-diff.js';
import { run, selectChecks, type RunOptions } from '../runner/run.js';
import { resolveRelated, resolveTarget } from '../engine/target.js';
import type { Profile, Report } from '../engine/types.js';
import type { CliOptions } from './args.js';
import { writeOutputs, type Comparison } from './outputs.js';

/** Where the command writes, and how its terminal looks. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  color: boolean;
  /** Whether stderr is a terminal (progress rewrites its line there). */
  tty: boolean;
  width: number;
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM: the run stops, sweeps, and reports what it has (interrupt.ts). */
  signal?: AbortSignal;
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
  if (typeof ends.profile === 'object' && opts.expect) warnUnknownChecks(ends.profile, io);
  const common: RunOptions = {
    user: opts.user, password: opts.password, database: opts.database, only: opts.only, skip: opts.skip,
    timeoutMs: opts.timeoutMs, maxPool: opts.maxPool, env: io.env, ...(io.signal ? { signal: io.signal } : {}),
  };
  const label = opts.compare ? 'target' : undefined;
  const report = await run({ ...common, target: ends.target, direct: ends.direct, profile: ends.profile, fixture: ends.fixture === true, ...events(opts, io, total, label) });
  let comparison: Comparison | null = null;
  if (opts.compare && !io.signal?.aborted) {
    const main = resolveTarget({ target: ends.target, user: opts.user, password: opts.password, database: opts.database }, io.env);
    // What the baseline does not spell out (user, password, database) comes from the target.
    // No --direct and no profile for it: it is observed, and its sweep goes through itself.
    const baseline = await run({ ...common, target: resolveRelated(opts.compare, main), ...events(opts, io, total, 'baseline') });
    comparison = { baseline, diff: diffReports(baseline, report) };
  }
  const stored = writeOutputs(report, { json: opts.json, junit: opts.junit, markdown: opts.markdown, html: opts.html, store: opts.store }, comparison, (t) => io.stderr(`${t}\n`));
  printReport(report, comparison, opts, io);
  if (stored && !opts.quiet) io.stderr(`Stored in ${stored.dir} (.pooltest/latest points at it)\n`);
  return Math.max(report.summary.exitCode, comparison?.diff.summary.exitCode ?? 0);
}

/** Discovery and progress on stderr, unless --quiet. */
function events(opts: CliOptions, io: CliIo, total: number, label: string | undefined): Pick<RunOptions, 'onDiscovery' | 'onCheckStart' | 'onCheckResult'> {
  if (opts.quiet) return {};
  const c = new Chalk({ level: io.color ? 1 : 0 });
  const progress = createProgress({ total, color: io.color, tty: io.tty, label, write: io.stderr });
  return {
    onDiscovery: (d) => io.stderr(`${label ? `${c.bold(label)}: ` : ''}${renderDiscovery(d, c)}\n`),
    onCheckStart: progress.onCheckStart,
    onCheckResult: progress.onCheckResult,
  };
}

function printReport(report: Report, comparison: Comparison | null, opts: CliOptions, io: CliIo): void {
  const view = { color: io.color, verbose: opts.verbose, width: io.width };
  io.stdout(opts.quiet ? renderQuiet(report, view) : renderReport(report, view));
  if (comparison) io.stdout(`\n${renderDiff(comparison.diff, { color: io.color, width: io.width, quiet: opts.quiet })}`);
}

/** Expectations for checks this version does not run are legal (the file may be newer) but never asserted: say so. */
function warnUnknownChecks(profile: Profile, io: CliIo): void {
  const missing = Object.keys(profile.expect).filter((id) => !CATALOGUE.some((c) => c.id === id));
  if (missing.length > 0) io.stderr(`pooltest: note: this version has no check ${missing.join(', ')}; those expectations are not asserted\n`);
}
