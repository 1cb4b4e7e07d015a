/**
 * A drivers run: discovery as for the checks, then every selected driver in every
 * configuration (driver-scenario.ts), judged (judge.ts). Drivers run one after another: two
 * drivers steering the same small pool at once would spoil each other's landings.
 */
import { discover } from '../engine/discovery/discovery.js';
import { newRunId } from '../engine/record/markers.js';
import { RUN_FACT_TAGS } from '../engine/record/run-facts.js';
import { runContext, RunState } from '../engine/context/run-state.js';
import { closeKeptSessions } from '../engine/steering/kept-session.js';
import { Scenario } from '../engine/steering/scenario.js';
import { publicTarget, type Target } from '../engine/target/target.js';
import type { Discovery, Judgement, PublicTarget, StepRecord, Verdict } from '../engine/types.js';
import { DRIVERS, phasesOf, type DriverSpec } from './catalogue.js';
import { runDriverScenario } from './driver-scenario.js';
import { judgeDriverRun, type DriverScenarioId } from './judge.js';
import { adviceFor } from './advice.js';
import { resultId } from './ids.js';
import { attachServerErrors, ServerLogReader } from './server-log.js';
import {
  announce,
  foundUnavailable,
  goneBefore,
  noteOtherRuns,
  notRunJudgement,
  OtherRunsQuestion,
  untilBack,
  vetoed,
} from './vetoes.js';

/** One scenario of one driver configuration: the unit of a drivers report. */
export interface DriverResult {
  /** `driver/scenario@config`, the key of --expect files. */
  id: string;
  driver: string;
  driverVersion: string | null;
  config: string;
  advised: boolean;
  transaction: boolean;
  scenario: DriverScenarioId;
  outcome: string | null;
  expected: string | null;
  verdict: Verdict;
  reason: string;
  facts: Record<string, boolean | number | string | null>;
  advice: string | null;
  /**
   * Index into {@link DriversReport.records}: the phases of one configuration share a record.
   * Null when the configuration was not run (the target had stopped answering).
   */
  record: number | null;
}

export interface DriverSkip {
  driver: string;
  reason: string;
}

/** What `pooltest drivers --json` writes (the `drivers` section of report.schema.json). */
export interface DriversReport {
  runId: string;
  startedAt: string;
  durationMs: number;
  target: PublicTarget;
  discovery: Omit<Discovery, 'steps'>;
  results: DriverResult[];
  skipped: DriverSkip[];
  records: Array<{ driver: string; config: string; durationMs: number; steps: StepRecord[] }>;
}

export interface DriversRunOptions {
  drivers?: readonly DriverSpec[];
  /** Expected outcome per result id (`asyncpg/moved@default`). */
  expect?: Record<string, string>;
  stepMs?: number;
  startMs?: number;
  /** The PostgreSQL behind the target: the engine's questions (other runs) go there. */
  direct?: Target | null;
  /**
   * The server log of the PostgreSQL behind the target (the fixture's with --stack, or
   * --server-log): errors a driver hid from the application show there (server-log.ts).
   */
  serverLog?: string;
  onResult?: (r: DriverResult) => void;
  /** Run only these phases (every phase a configuration has, when absent). */
  scenarios?: readonly DriverScenarioId[];
}

export { resultId };

export async function runDrivers(target: Target, opts: DriversRunOptions = {}): Promise<DriversReport> {
  const t0 = performance.now();
  const startedAt = new Date();
  const stepMs = opts.stepMs ?? 10_000;
  const bounds = { connectMs: stepMs, stepMs };
  const runId = newRunId();
  // One live state for the whole drivers run: what discovery and each configuration learn.
  const state = new RunState();
  const { steps: _steps, ...discovery } = await discover(target, { bounds, poolBound: 8, runId, state });
  const ctx = runContext(
    { target, direct: opts.direct ?? null, discovery: { ...discovery, steps: [] }, runId, bounds },
    state,
  );
  const report: DriversReport = {
    runId,
    startedAt: startedAt.toISOString(),
    durationMs: 0,
    target: publicTarget(target),
    discovery,
    results: [],
    skipped: [],
    records: [],
  };
  const log = opts.serverLog !== undefined ? ServerLogReader.open(opts.serverLog) : null;
  const unseen =
    log === null
      ? "no server log was read (pooltest drivers --stack reads the fixture's, --server-log FILE another)"
      : 'unreadable' in log
        ? log.unreadable
        : null;
  const push = (
    driver: DriverSpec,
    config: DriverSpec['configs'][number],
    scenario: DriverScenarioId,
    driverVersion: string | null,
    j: Judgement,
    record: number | null,
  ): void => {
    const id = resultId(driver.id, scenario, config.name);
    const expected = opts.expect?.[id] ?? null;
    const verdict: Verdict =
      j.outcome === null ? 'inconclusive' : expected === null ? 'observed' : expected === j.outcome ? 'pass' : 'fail';
    const result: DriverResult = {
      id,
      driver: driver.id,
      driverVersion,
      config: config.name,
      advised: config.advised,
      transaction: config.transaction === true,
      scenario,
      outcome: j.outcome,
      expected,
      verdict,
      // Said wherever it matters: a `works` may hide a retry only the server saw.
      reason:
        j.outcome === 'works' && unseen
          ? `${j.reason}; a retry the driver keeps to itself would not show: ${unseen}`
          : j.reason,
      facts: { ...j.facts, serverLogRead: unseen === null },
      advice: adviceFor(driver, config, scenario, j.outcome, driverVersion),
      record,
    };
    report.results.push(result);
    opts.onResult?.(result);
  };
  // Announced for the whole run (over --direct, or on a target that pools nothing), so another
  // run's checks know this one is active, as this one's vetoes know of theirs.
  const withdraw = await announce(ctx);
  try {
    for (const driver of opts.drivers ?? DRIVERS) {
      await driver.prepare?.();
      for (const config of driver.configs) {
        const scenarios = phasesOf(driver, config).filter((s) => opts.scenarios?.includes(s) ?? true);
        if (scenarios.length === 0) continue;
        const version = (): string | null => report.results.find((r) => r.driver === driver.id)?.driverVersion ?? null;
        // A target that went silent earlier: nothing is run against it, every scenario says why.
        const gone = goneBefore(ctx);
        if (gone) {
          for (const scenario of scenarios)
            push(driver, config, scenario, version(), notRunJudgement(gone.reason), null);
          continue;
        }
        const scn = new Scenario(ctx);
        const c0 = performance.now();
        let ran;
        if (log && !('unreadable' in log)) log.readNew(); // what other clients logged before: not this configuration's
        const others = new OtherRunsQuestion(ctx, c0);
        // A step pooltest could not even begin (a login the pooler did not complete, at capacity
        // or gone) ends this configuration's run, never the whole command: what was recorded is
        // judged, and an inconclusive result says what failed.
        let runError: string | null = null;
        try {
          await others.ready();
          ran = await runDriverScenario(scn, driver, config, {
            stepMs,
            startMs: Math.max(stepMs, 15_000),
            phases: scenarios,
          });
        } catch (err) {
          runError = err instanceof Error ? err.message : String(err);
          scn.note('engine', RUN_FACT_TAGS.runError, '(the driver run failed)', { facts: { message: runError } });
          ran = { version: '?' };
        } finally {
          await scn.closeAll();
        }
        if ('skipped' in ran) {
          report.skipped.push({ driver: driver.id, reason: ran.skipped });
          break; // the same agent would fail the same way for every configuration
        }
        noteOtherRuns(scn, await others.answer(), 'the driver run');
        if (log && !('unreadable' in log))
          attachServerErrors(scn.steps, log.readNew(), performance.timeOrigin + scn.recorder.startedAt);
        const record =
          report.records.push({
            driver: driver.id,
            config: config.name,
            durationMs: Math.round(performance.now() - c0),
            steps: scn.steps,
          }) - 1;
        const judged = judgeDriverRun(scn.steps, ctx.discovery, scenarios);
        for (const scenario of scenarios) {
          const j = judged[scenario];
          if (!j) continue;
          const said = runError && j.outcome === null ? { ...j, reason: `${runError}; ${j.reason}` } : j;
          push(driver, config, scenario, ran.version, vetoed(said, scn.steps, ctx.discovery, scenario), record);
        }
        // After an outage the next configuration waits (bounded) for the target, as a check does.
        if (foundUnavailable(scn.steps)) await untilBack(ctx, `${driver.id} in configuration ${config.name}`);
      }
    }
  } finally {
    await withdraw();
    // The other-run probe's kept session: closed with the run, not left to its idle timer.
    await closeKeptSessions('all', state);
  }
  report.durationMs = Math.round(performance.now() - t0);
  return report;
}
