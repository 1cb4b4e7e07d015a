/**
 * One pooltest run, start to finish: resolve the target, discover it, run the selected checks
 * through Vitest, sweep for leftovers, and assemble the report. The CLI is a thin shell around
 * this; library users call it directly.
 */
import path from 'node:path';
import { PooltestError } from '../engine/record/errors.js';
import { notRun, resultBase, skipReason } from '../engine/execute/execute.js';
import { exitCodeOfAbort } from '../engine/record/signals.js';
import { restoreNamesAfterDiscovery } from '../engine/sweep/names.js';
import { discover } from '../engine/discovery/discovery.js';
import { newRunId } from '../engine/record/markers.js';
import { runContext, runData, RunState } from '../engine/context/run-state.js';
import { closeSpares } from '../engine/steering/spare-session.js';
import { closeKeptSessions } from '../engine/steering/kept-session.js';
import { findProfile } from '../profiles/index.js';
import { prepareSweep, sweep, type PreparedSweep } from '../engine/sweep/sweep.js';
import { checkDirect } from '../engine/discovery/direct-check.js';
import { runExitCode } from '../engine/record/verdict.js';
import { announceRun } from '../engine/steering/other-runs.js';
import { publicTarget, resolveRelated, resolveTarget, type Target } from '../engine/target/target.js';
import { checkFileProblems } from './check-files.js';
import { toolVersion } from './version.js';
import { runOrder } from './check-order.js';
import { INTERRUPTED_NOT_RUN, suitesLocation } from './vitest-runner.js';
import { EarlyChecks } from './early-checks.js';
import { CATALOGUE } from '../suites/catalogue.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { REPORT_SCHEMA_VERSION, sweepState, type CheckResult, type Discovery, type Report } from '../engine/types.js';
import type { Profile } from '../engine/record/profile.js';
import type { RunContext } from '../engine/steering/scenario.js';
import { traceNow, traceSpan } from '../engine/record/trace.js';

export interface RunOptions {
  /**
   * `host:port` or a postgres:// URL; PG* variables fill the gaps as in psql. Or a target
   * already resolved (e.g. with `resolveRelated` for a second endpoint), used as it is.
   */
  target?: string | Target;
  user?: string;
  password?: string;
  database?: string;
  /** The Postgres behind the pooler, for the baseline and the sweep. */
  direct?: string;
  /** A built-in profile name, or a profile object. */
  profile?: string | Profile;
  /** Check ids or areas to run (`session/set-leak`, `locks`); all when empty. */
  only?: string[];
  skip?: string[];
  /** Bound for one step (query or connection), in ms. */
  timeoutMs?: number;
  /** Most backends discovery counts before calling the pool too large to steer. */
  maxPool?: number;
  runId?: string;
  /**
   * Inconclusive checks and a sweep that could not finish fail the run (exit 1), and the Vitest
   * test of an inconclusive check fails instead of skipping: for CI that must not go green when
   * nothing was proven.
   */
  strict?: boolean;
  /**
   * `--fail-on-breaks`: an outcome that breaks an application written for a direct connection
   * fails the run (exit 1), whether a profile expected it or nothing was asserted; JUnit then
   * shows each such check as a failure. For a team gating a move to a pooler on "nothing breaks".
   */
  failOnBreaks?: boolean;
  /** The target is a throwaway fixture: allows checks that would disturb a shared server (capacity/burst). */
  fixture?: boolean;
  /** `--run-wedging`: run the checks known to wedge the identified pooler too (engine/execute/known-wedge.ts). */
  runWedging?: boolean;
  env?: NodeJS.ProcessEnv;
  /**
   * Interrupts the run (SIGINT/SIGTERM in the CLI): the check in flight stops and ends
   * inconclusive, checks not started are reported as not run, and the sweep still runs. Aborted
   * during discovery, nothing has been created yet: `run` rejects with INTERRUPTED.
   */
  signal?: AbortSignal;
  /**
   * Quit without the sweep (the CLI's second signal: its fixtures are being stopped). Aborted
   * before the sweep starts, `run` rejects with this signal's reason (an INTERRUPTED error)
   * instead of sweeping a target that is going away.
   */
  quit?: AbortSignal;
  onDiscovery?(d: Discovery): void;
  onCheckStart?(file: string): void;
  onCheckResult?(r: CheckResult): void;
  /** A check waits for `what` (the target to answer again after an outage), for up to `boundMs`. */
  onWait?(what: string, boundMs: number): void;
  /** Wall time of each phase as it ends, in ms (the benchmark's breakdown). */
  onPhase?(phase: 'discovery' | 'checks' | 'sweep', ms: number): void;
  /**
   * Something the run ignored and the user should know (a password file others can read).
   * Without it, a Node process warning (`process.emitWarning`).
   */
  onWarning?(message: string): void;
}

// Where it always was for library users; it lives apart so that commands that run nothing load no engine.
export { toolVersion } from './version.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_POOL = 8;

export async function run(opts: RunOptions = {}): Promise<Report> {
  const runId = opts.runId ?? newRunId();
  // The run's live state in this process (engine/context/run-state.ts), for every phase here:
  // discovery, the announcement, the sweep. The check workers make their own.
  const state = new RunState();
  try {
    return await runWithId({ ...opts, runId }, state);
  } finally {
    // What this process learned of the run (its spares, kept sessions, TLS choices) goes with
    // it: a library user running many runs in one process keeps none of them open or in memory.
    await Promise.all([closeSpares(state), closeKeptSessions('all', state)]);
  }
}

async function runWithId(opts: RunOptions & { runId: string }, state: RunState): Promise<Report> {
  const startedAt = new Date();
  const t0 = performance.now();
  const env = opts.env ?? process.env;
  const target =
    typeof opts.target === 'object'
      ? opts.target
      : resolveTarget(
          { target: opts.target, user: opts.user, password: opts.password, database: opts.database },
          env,
          opts.onWarning,
        );
  const direct = opts.direct ? resolveRelated(opts.direct, target, env, opts.onWarning) : null;
  const profile = typeof opts.profile === 'string' ? findProfile(opts.profile) : (opts.profile ?? null);
  const selected = selectChecks(opts.only ?? [], opts.skip ?? []);
  assertCheckFiles(selected);
  const stepMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const bounds = { connectMs: stepMs, stepMs };
  const runId = opts.runId;
  // Once the last check has reported, the sweep's clients log in while Vitest closes.
  let prepared: PreparedSweep | null = null;
  let reported = 0;
  let ctx: RunContext | null = null;
  // Vitest starts once discovery's first query was answered, and its checks wait for the
  // context: its start-up overlaps the rest of discovery (early-checks.ts).
  const checks = new EarlyChecks(runId, opts.signal?.aborted ? [] : runOrder(selected).map(fileFilter), {
    ...opts,
    onCheckResult(r) {
      opts.onCheckResult?.(r);
      if (++reported === selected.length && ctx) prepared = prepareSweep(ctx);
    },
  });
  // A wrong --direct found now is a clear error; found by the sweep it would cost the whole run.
  // It is checked while discovery runs (another server, no pooled backend), and its failure
  // stops discovery at once and is the error the run ends with.
  const directFailed = new AbortController();
  const directChecked = direct
    ? checkDirect(direct, bounds, opts.signal).catch((err: unknown) => {
        directFailed.abort();
        throw err;
      })
    : Promise.resolve();
  // Over --direct, other runs see this one from before discovery (steering/other-runs.ts).
  const announced = direct ? announceRun({ target, direct, runId, bounds, state }) : null;
  let phaseStart = performance.now();
  let tracedFrom = traceNow();
  const phaseEnd = (phase: 'discovery' | 'checks' | 'sweep'): void => {
    const now = performance.now();
    opts.onPhase?.(phase, now - phaseStart);
    phaseStart = now;
    traceSpan('part', 'run', phase, tracedFrom);
    tracedFrom = traceNow();
  };
  const [checked, found] = await Promise.allSettled([
    directChecked,
    discoverUnlessInterrupted(target, {
      bounds,
      poolBound: opts.maxPool ?? DEFAULT_MAX_POOL,
      runId,
      state,
      signal: opts.signal ? AbortSignal.any([opts.signal, directFailed.signal]) : directFailed.signal,
      onReachable: () => checks.preload(),
      beforeTimed: () => checks.start(),
    }),
  ]);
  if (checked.status === 'rejected' || found.status === 'rejected') {
    await Promise.all([checks.abandon('discovery did not finish'), (async () => (await announced)?.())()]);
    throw checked.status === 'rejected' ? checked.reason : (found as PromiseRejectedResult).reason;
  }
  const discovery = found.value;
  phaseEnd('discovery');
  opts.onDiscovery?.(discovery);
  ctx = runContext(
    { target, direct, discovery, runId, bounds, fixture: opts.fixture === true, runWedging: opts.runWedging === true },
    state,
  );
  let results: CheckResult[];
  let sweepResult: Report['sweep'];
  // Other runs on this target see this one for as long as it lasts (steering/other-runs.ts).
  let withdraw: () => Promise<void>;
  try {
    withdraw = await (announced ?? announceRun(ctx));
  } catch (err) {
    await checks.abandon('the run could not announce itself to other runs');
    throw err;
  }
  try {
    if (opts.signal?.aborted) await checks.abandon('the run was interrupted before the checks');
    // The workers get the data; the live state stays in this process.
    results = opts.signal?.aborted
      ? []
      : await checks.run({ ctx: runData(ctx), profile, strict: opts.strict === true });
    phaseEnd('checks');
    if (opts.quit?.aborted) throw quitReason(opts.quit);
    // Never interrupted: whatever the checks left, the sweep is what removes it.
    sweepResult = await sweep(
      ctx,
      CATALOGUE.map((c) => c.id),
      touchedBackends(discovery, results),
      prepared,
    );
    phaseEnd('sweep');
  } finally {
    // The sweep closed them; a run that never got to it must not leave them connected.
    await (prepared as PreparedSweep | null)?.names.closeAll();
    await withdraw();
  }
  const notRun = opts.signal?.aborted
    ? INTERRUPTED_NOT_RUN
    : 'not run: Vitest reported no result for this check (its suite file failed to load or was not found)';
  const ordered = orderByCatalogue(withNotRun(results, selected, notRun, profile, ctx));
  return buildReport({
    startedAt,
    t0,
    target,
    direct,
    discovery,
    profile,
    checks: ordered,
    sweep: sweepResult,
    runId: ctx.runId,
    interruptedExit: opts.signal?.aborted === true ? exitCodeOfAbort(opts.signal) : null,
    strict: opts.strict === true,
    failOnBreaks: opts.failOnBreaks === true,
  });
}

/**
 * Resolves `--only`/`--skip` (`only`/`skip` in RunOptions: ids or areas) against the catalogue.
 * An unknown name is BAD_ARGUMENTS. A selection that leaves no check is NO_CHECKS_SELECTED:
 * it would otherwise run nothing and report "0 checks", exit 0, and a CI gate would pass on a
 * run that tested nothing (with or without strict). Refused here, where the selection is made,
 * so the CLI, `--list` and a library caller of run() are refused alike, before anything
 * connects. A profile or an expectations file never narrows the selection: these two are the
 * only way to an empty one.
 */
export function selectChecks(only: string[], skip: string[]): string[] {
  const ids = CATALOGUE.map((c) => c.id);
  const matches = (name: string, id: string): boolean => id === name || id.startsWith(`${name.replace(/\/$/, '')}/`);
  for (const name of [...only, ...skip]) {
    if (!ids.some((id) => matches(name, id))) {
      throw new PooltestError('BAD_ARGUMENTS', `"${name}" is neither a check id nor an area; see pooltest --list`);
    }
  }
  const chosen = ids.filter((id) => only.length === 0 || only.some((n) => matches(n, id)));
  const selected = chosen.filter((id) => !skip.some((n) => matches(n, id)));
  if (selected.length > 0) return selected;
  // Every `only` name matches some check (refused above otherwise), and the catalogue is not
  // empty: an empty selection always comes from `skip` taking what was left.
  const what =
    only.length > 0 ? `--only ${only.join(',')} selects ${chosen.length}` : `the catalogue holds ${chosen.length}`;
  throw new PooltestError(
    'NO_CHECKS_SELECTED',
    `no check left to run: ${what} and --skip ${skip.join(',')} leaves out every one (see pooltest --list)`,
    { only: only.join(','), skip: skip.join(',') },
  );
}

/** The runner finds a check's Vitest file by its id: a misplaced one is a broken build, said at once. */
function assertCheckFiles(ids: readonly string[]): void {
  const { root, pattern } = suitesLocation();
  const problems = checkFileProblems(
    path.join(root, 'suites'),
    ids.map((id) => ({ id })),
    pattern.endsWith('.js') ? '.js' : '.ts',
  );
  if (problems.length > 0) throw new PooltestError('INTERNAL', problems.join('; '));
}

async function discoverUnlessInterrupted(
  target: Target,
  opts: Parameters<typeof discover>[1] & { signal?: AbortSignal },
): Promise<Discovery> {
  if (opts.signal?.aborted) throw interruptedError('before discovery', 'nothing to clean up on the target');
  try {
    return await discover(target, opts);
  } catch (err) {
    // Discovery only holds backends inside transactions it rolls back, but its logins carry the
    // run's name, which a pooler can leave on its server connections: reset, as the sweep does.
    if (opts.signal?.aborted) {
      const names = await restoreNamesAfterDiscovery(target, {
        runId: opts.runId ?? 'discovery',
        bounds: opts.bounds,
        state: opts.state,
        poolBound: opts.poolBound,
      });
      throw interruptedError('during discovery, before any check created state', names);
    }
    // Refused after it logged in and steered (a pool larger than --max-pool, steering that
    // failed): the names are reset as well, and the error says so. The count held up to one
    // backend past the bound besides D's: as many are visited.
    if (err instanceof PooltestError && REFUSED_AFTER_LOGINS.has(err.code)) {
      const names = await restoreNamesAfterDiscovery(target, {
        runId: opts.runId ?? 'discovery',
        bounds: opts.bounds,
        state: opts.state,
        poolBound: opts.poolBound + 2,
      });
      throw new PooltestError(err.code, `${err.message} (${names})`, err.detail);
    }
    throw err;
  }
}

/** Discovery's refusals that come after its clients logged in with the run's name. */
const REFUSED_AFTER_LOGINS: ReadonlySet<string> = new Set(['POOL_TOO_LARGE', 'STEERING_FAILED']);

/** Why the run quit without its sweep: the quit signal's reason, or a plain INTERRUPTED. */
function quitReason(quit: AbortSignal): unknown {
  return quit.reason instanceof Error ? quit.reason : interruptedError('again', 'quit without the sweep');
}

function interruptedError(when: string, cleanup: string): PooltestError {
  return new PooltestError('INTERRUPTED', `interrupted ${when}; ${cleanup}`);
}

/** Every backend a step of the run reported: the sweep must visit each one still alive. */
function touchedBackends(discovery: Discovery, results: readonly CheckResult[]): number[] {
  const pids = new Set<number>();
  for (const step of [...discovery.steps, ...results.flatMap((r) => r.steps)])
    if (step.pid !== null) pids.add(step.pid);
  return [...pids];
}

/**
 * The selected checks that never reported, as inconclusive "not run" results: a check that
 * silently vanished from the report would read as "nothing to see".
 */
function withNotRun(
  results: readonly CheckResult[],
  selected: readonly string[],
  reason: string,
  profile: Profile | null,
  ctx: RunContext,
): CheckResult[] {
  // Vitest's stand-in for a check a cancelled run never started (vitest-runner.ts) knows only
  // the test's name: it is rebuilt from the catalogue like a check that never reported.
  const kept = results.filter((r) => !(r.reason === INTERRUPTED_NOT_RUN && r.steps.length === 0));
  const done = new Set(kept.map((r) => r.id));
  const missing = CATALOGUE.filter((c) => selected.includes(c.id) && !done.has(c.id)).map((c) => {
    // A check that could never run against this target (fixtures only, say) is skipped with
    // its reason, as in an uninterrupted run, not reported as a gap the interrupt made.
    const skip = skipReason(c, ctx);
    return skip
      ? notRun(resultBase(c, profile), 'skipped', skip)
      : notRun(resultBase(c, profile), 'inconclusive', reason);
  });
  return [...kept, ...missing];
}

function fileFilter(id: string): string {
  return `suites/${id}.test.`;
}

function orderByCatalogue(results: CheckResult[]): CheckResult[] {
  const order = new Map<string, number>(CATALOGUE.map((c, i) => [c.id, i]));
  return [...results].sort((a, b) => (order.get(a.id) ?? 999) - (order.get(b.id) ?? 999));
}

interface ReportParts {
  startedAt: Date;
  t0: number;
  target: Target;
  direct: Target | null;
  discovery: Discovery;
  profile: Profile | null;
  checks: CheckResult[];
  sweep: Report['sweep'];
  runId: string;
  /** The exit code of an interrupted run (129, 130, 131 by signal); null when it was not. */
  interruptedExit: number | null;
  strict: boolean;
  failOnBreaks: boolean;
}

/** 1 under `--fail-on-breaks` when some outcome breaks an application (suites/outcome-breaks.ts). */
function breaksExit(p: Pick<ReportParts, 'checks' | 'failOnBreaks'>): 0 | 1 {
  return p.failOnBreaks && p.checks.some((c) => outcomeBreaks(c.outcome) === true) ? 1 : 0;
}

function buildReport(p: ReportParts): Report {
  const count = (v: string): number => p.checks.filter((c) => c.verdict === v).length;
  const fail = count('fail');

  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: { name: 'pooltest', version: toolVersion() },
    runId: p.runId,
    startedAt: p.startedAt.toISOString(),
    durationMs: Math.round(performance.now() - p.t0),
    target: publicTarget(p.target),
    direct: p.direct ? publicTarget(p.direct) : null,
    discovery: p.discovery,
    profile: p.profile ? { name: p.profile.name, title: p.profile.title, ref: p.profile.ref } : null,
    checks: p.checks,
    sweep: p.sweep,
    summary: {
      total: p.checks.length,
      pass: count('pass'),
      fail,
      observed: count('observed'),
      inconclusive: count('inconclusive'),
      skipped: count('skipped'),
      strict: p.strict,
      // Interrupted: what ran is reported as it is, and the exit code says the run was cut short.
      // Under --strict, a run that proved nothing does not exit 0 (engine/record/verdict.ts).
      exitCode: p.interruptedExit ?? Math.max(runExitCode(p.checks, p.sweep, p.strict), breaksExit(p)),
      ...(p.failOnBreaks ? { failOnBreaks: true } : {}),
      ...(p.interruptedExit !== null ? { interrupted: true } : {}),
    },
  };
}
