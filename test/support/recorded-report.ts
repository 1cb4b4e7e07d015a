/**
 * A whole report built from recorded event logs (test/recorded/*.json), without a database:
 * every check of the catalogue judged from what it recorded against one fixture, compared with
 * that fixture's profile the way the engine compares it (engine/execute/execute.ts, judgeRun), and summed up the
 * way the runner sums a run. The renderer tests read one catalogue run's worth of real steps
 * from it: the state, traffic, stale-password and connect-churn recordings all come from the
 * same fixtures.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { adviceFor, type CheckDefinition } from '../../engine/execute/check.js';
import { resultBase } from '../../engine/execute/execute.js';
import { judgeRun } from '../../engine/judging/judge-record.js';
import {
  REPORT_SCHEMA_VERSION,
  type CheckResult,
  type Discovery,
  type Report,
  type StepRecord,
} from '../../engine/types.js';
import { runExitCode, verdictFor } from '../../engine/record/verdict.js';
import { findProfile } from '../../profiles/index.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { REPO } from './cli.js';

type Logs = Record<string, { outcome: string | null; steps: StepRecord[] }>;

function read(file: string): unknown {
  return JSON.parse(readFileSync(path.join(REPO, 'test/recorded', file), 'utf8'));
}

/** Every recorded check of `fixture`, by id, and the discovery of its main recording. */
function logsOf(fixture: string): { discovery: Discovery; checks: Logs } {
  const main = read(`${fixture}.json`) as { discovery: Discovery; checks: Logs };
  const checks: Logs = { ...main.checks };
  for (const part of ['state', 'traffic'])
    Object.assign(checks, (read(`${fixture}-${part}.json`) as { checks: Logs }).checks);
  // These two were recorded for several fixtures in one file each.
  for (const file of ['stale-password.json', 'connect-churn.json']) {
    const byFixture = read(file) as Record<string, { outcome: string | null; steps: StepRecord[] }>;
    const id = file === 'stale-password.json' ? 'auth/stale-password' : 'capacity/connect-churn';
    if (byFixture[fixture]) checks[id] = byFixture[fixture];
  }
  return { discovery: { ...main.discovery, steps: [] }, checks };
}

/**
 * The catalogue as a run against `fixture` with `profile` (null: observations only) would
 * report it. A check with no recording is `skipped`, as a check that cannot run here is.
 */
export function recordedReport(fixture = 'pgbouncer-transaction', profileName: string | null = fixture): Report {
  const { discovery, checks: logs } = logsOf(fixture);
  const profile = profileName ? findProfile(profileName) : null;
  const checks = CATALOGUE.map((def: CheckDefinition): CheckResult => {
    const base = resultBase(def, profile);
    const log = logs[def.id];
    if (!log) {
      const reason = 'not recorded for this fixture';
      return {
        ...base,
        outcome: null,
        verdict: 'skipped',
        reason,
        facts: {},
        evidence: reason,
        advice: null,
        steps: [],
        durationMs: 0,
        statements: 0,
        cleanup: { ok: true, detail: 'nothing to clean' },
      };
    }
    const steps = structuredClone(log.steps);
    const j = judgeRun(def, steps, discovery);
    return {
      ...base,
      outcome: j.outcome,
      verdict: j.skipped && j.outcome === null ? 'skipped' : verdictFor(j.outcome, base.expected),
      reason: j.reason,
      facts: j.facts,
      evidence: def.evidence?.(j, steps) ?? j.reason,
      advice: adviceFor(def, j.outcome),
      steps,
      durationMs: Math.round(steps.reduce((n, s) => Math.max(n, s.startMs + s.durationMs), 0)),
      statements: steps.length,
      cleanup: { ok: true, detail: 'recorded' },
    };
  });
  return summed({
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: { name: 'pooltest', version: '0.0.0-recorded' },
    runId: 'recorded',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: checks.reduce((n, c) => n + c.durationMs, 0),
    target: { host: '127.0.0.1', port: 6432, user: 'postgres', database: 'postgres', ssl: 'disable' },
    direct: { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres', ssl: 'disable' },
    discovery,
    profile: profile ? { name: profile.name, title: profile.title, ref: profile.ref } : null,
    checks,
    sweep: { clean: true, backendsVisited: [], leftovers: [], via: ['target', 'direct'] },
    summary: { total: 0, pass: 0, fail: 0, observed: 0, inconclusive: 0, skipped: 0, strict: false, exitCode: 0 },
  });
}

/** `report` with its summary counted again from its checks (after a test edited them). */
export function summed(report: Report): Report {
  const count = (v: string): number => report.checks.filter((c) => c.verdict === v).length;
  report.summary = {
    ...report.summary,
    total: report.checks.length,
    pass: count('pass'),
    fail: count('fail'),
    observed: count('observed'),
    inconclusive: count('inconclusive'),
    skipped: count('skipped'),
    exitCode: runExitCode(report.checks, report.sweep, report.summary.strict === true),
  };
  return report;
}
