/**
 * A drivers run: discovery as for the checks, then every selected driver in every
 * configuration (driver-scenario.ts), judged (judge.ts). Drivers run one after another: two
 * drivers steering the same small pool at once would spoil each other's landings.
 */
import { discover } from '../engine/discovery.js';
import { newRunId } from '../engine/markers.js';
import { Scenario, type RunContext } from '../engine/steering/scenario.js';
import { publicTarget, type Target } from '../engine/target.js';
import type { Discovery, PublicTarget, StepRecord, Verdict } from '../engine/types.js';
import { DRIVERS, type DriverSpec } from './catalogue.js';
import { runDriverScenario } from './driver-scenario.js';
import { judgeDriverRun, type DriverScenarioId } from './judge.js';
import { adviceFor } from './advice.js';
import { resultId } from './ids.js';

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
  /** Index into {@link DriversReport.records}: the phases of one configuration share a record. */
  record: number;
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
  onResult?: (r: DriverResult) => void;
}

export { resultId };

export async function runDrivers(target: Target, opts: DriversRunOptions = {}): Promise<DriversReport> {
  const t0 = performance.now();
  const startedAt = new Date();
  const stepMs = opts.stepMs ?? 10_000;
  const bounds = { connectMs: stepMs, stepMs };
  const runId = newRunId();
  const { steps: _steps, ...discovery } = await discover(target, { bounds, poolBound: 8, runId });
  const ctx: RunContext = { target, direct: null, discovery: { ...discovery, steps: [] }, runId, bounds };
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
  for (const driver of opts.drivers ?? DRIVERS) {
    await driver.prepare?.();
    for (const config of driver.configs) {
      const scn = new Scenario(ctx);
      const c0 = performance.now();
      let ran;
      try {
        ran = await runDriverScenario(scn, driver, config, { stepMs, startMs: Math.max(stepMs, 15_000) });
      } finally {
        await scn.closeAll();
      }
      if ('skipped' in ran) {
        report.skipped.push({ driver: driver.id, reason: ran.skipped });
        break; // the same agent would fail the same way for every configuration
      }
      const record =
        report.records.push({
          driver: driver.id,
          config: config.name,
          durationMs: Math.round(performance.now() - c0),
          steps: scn.steps,
        }) - 1;
      const judged = judgeDriverRun(scn.steps, ctx.discovery, driver.cursor !== null);
      for (const [scenario, j] of Object.entries(judged) as Array<
        [DriverScenarioId, NonNullable<(typeof judged)['moved']>]
      >) {
        const id = resultId(driver.id, scenario, config.name);
        const expected = opts.expect?.[id] ?? null;
        const verdict: Verdict =
          j.outcome === null
            ? 'inconclusive'
            : expected === null
              ? 'observed'
              : expected === j.outcome
                ? 'pass'
                : 'fail';
        const result: DriverResult = {
          id,
          driver: driver.id,
          driverVersion: ran.version,
          config: config.name,
          advised: config.advised,
          transaction: config.transaction === true,
          scenario,
          outcome: j.outcome,
          expected,
          verdict,
          reason: j.reason,
          facts: j.facts,
          advice: adviceFor(driver, config, scenario, j.outcome),
          record,
        };
        report.results.push(result);
        opts.onResult?.(result);
      }
    }
  }
  report.durationMs = Math.round(performance.now() - t0);
  return report;
}
