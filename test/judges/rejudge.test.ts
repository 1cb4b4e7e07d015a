/**
 * The record is the whole truth: every stored run of a check in the repository, judged again
 * from its record alone (its steps and the discovery it ran with) by judgeRun, reads exactly
 * what was stored. For the recorded logs (test/recorded) that is the outcome; for stored reports
 * (any report JSON under test/ or docs/ whose checks carry steps) the outcome, the reason and
 * the facts, through rejudgeReport. A result decided outside the record (a run error, a pool
 * recount, a target gone) would fail here. The controls make sure the comparison can fail.
 *
 * Reports of this schema are stored in test/judges/reports (bench/record-sample-reports.ts),
 * and the reporter tests read the same files. No run is excepted. The one report of schema 1,
 * test/judges/reports/old/schema-1.report.json, is kept on purpose as the control for the
 * compatibility readers: it is refused with REPORT_TOO_OLD, as rejudgeReport refuses every one
 * (its engine wrote no `run.markers` step), and a control below shows what judging it anyway
 * would say.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { isPooltestError } from '../../engine/record/errors.js';
import { judgeRun } from '../../engine/judging/judge-record.js';
import { FIRST_REJUDGEABLE_SCHEMA, rejudgeReport } from '../../engine/judging/rejudge-report.js';
import { readReport } from '../../cli/diff-command.js';
import { RUN_FACT_TAGS, factStep } from '../../engine/record/run-facts.js';
import type { Discovery, Report, StepRecord } from '../../engine/types.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { REPO } from '../support/cli.js';

interface Stored {
  id: string;
  discovery: Discovery;
  steps: StepRecord[];
  outcome: string | null;
  reason?: string;
  facts?: Record<string, unknown>;
}

const read = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));
// A report's discovery may come without its steps (Report['discovery']); a judge needs the field.
const withoutSteps = (d: Omit<Discovery, 'steps'>): Discovery => ({ ...d, steps: [] });

/** Every recorded check run in test/recorded, whatever the file's layout. */
function recordedRuns(): Array<[string, Stored]> {
  const dir = path.join(REPO, 'test/recorded');
  const runs: Array<[string, Stored]> = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const data = read(path.join(dir, file)) as Record<string, unknown>;
    if ('checks' in data) {
      const run = data as {
        discovery: Discovery;
        burstDiscovery?: Discovery;
        checks: Record<string, { outcome: string | null; steps: StepRecord[] }>;
      };
      for (const [id, c] of Object.entries(run.checks)) {
        const discovery = id === 'capacity/burst' && run.burstDiscovery ? run.burstDiscovery : run.discovery;
        runs.push([`${file} ${id}`, { id, discovery: withoutSteps(discovery), steps: c.steps, outcome: c.outcome }]);
      }
    } else if (file === 'stale-password.json' || file === 'connect-churn.json') {
      // One check recorded against several fixtures, keyed by fixture.
      const id = file === 'stale-password.json' ? 'auth/stale-password' : 'capacity/connect-churn';
      for (const [fixture, c] of Object.entries(
        data as Record<string, { discovery: Discovery; outcome: string | null; steps: StepRecord[] }>,
      ))
        runs.push([
          `${file} ${fixture}`,
          { id, discovery: withoutSteps(c.discovery), steps: c.steps, outcome: c.outcome },
        ]);
    }
    // drivers-*.json record real drivers' sessions (drivers/), not checks: nothing to judge.
  }
  return runs;
}

/** Every report JSON under test/ and docs/ whose checks carry their steps, by file. */
function storedReports(): Array<[string, Report]> {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.json')) found.push(full);
    }
  };
  walk(path.join(REPO, 'test'));
  walk(path.join(REPO, 'docs'));
  return found.flatMap((file): Array<[string, Report]> => {
    const data = read(file) as Partial<Report>;
    if (typeof data.schemaVersion !== 'number' || !Array.isArray(data.checks) || !data.discovery) return [];
    if (!data.checks.some((c) => Array.isArray(c.steps))) return [];
    return [[path.relative(REPO, file), data as Report]];
  });
}

function rejudge(s: Stored): ReturnType<typeof judgeRun> {
  const def = CATALOGUE.find((c) => c.id === s.id);
  if (!def) throw new Error(`unknown check ${s.id}`);
  return judgeRun(def, structuredClone(s.steps), s.discovery);
}

const recorded = recordedRuns();
const reports = storedReports();
const current = reports.filter(([, r]) => r.schemaVersion >= FIRST_REJUDGEABLE_SCHEMA);
const schemaOne = reports.filter(([, r]) => r.schemaVersion < FIRST_REJUDGEABLE_SCHEMA);
/** Each check of each current report, with what the report says of it. */
const reportChecks = current.flatMap(([file, r]) =>
  r.checks.filter((c) => Array.isArray(c.steps)).map((c): [string, Report, string] => [`${file} ${c.id}`, r, c.id]),
);

/** The only stored report exempt from re-judging, named as the old-schema control it is. */
const SCHEMA_ONE_CONTROL = 'test/judges/reports/old/schema-1.report.json';

test('there is something to re-judge, and every stored report but the named old control is current', () => {
  expect(recorded.length).toBeGreaterThan(100);
  expect(current.length).toBeGreaterThanOrEqual(2);
  expect(schemaOne.map(([file]) => file.split(path.sep).join('/'))).toEqual([SCHEMA_ONE_CONTROL]);
  expect(current.length + schemaOne.length).toBe(reports.length);
});

describe('recorded logs: the same outcome from the record alone', () => {
  test.each(recorded)('%s', (_, s) => {
    expect(rejudge(s).outcome).toBe(s.outcome);
  });
});

describe('stored reports: the same outcome, reason and facts from the record alone', () => {
  test.each(reportChecks)('%s', (_, report, id) => {
    const j = rejudgeReport(report, CATALOGUE).find((x) => x.id === id)!.judgement;
    const stored = report.checks.find((c) => c.id === id)!;
    expect({ outcome: j.outcome, reason: j.reason, facts: j.facts }).toEqual({
      outcome: stored.outcome,
      reason: stored.reason,
      facts: stored.facts,
    });
  });
});

test('control: a stored report whose record was changed after judging no longer re-judges to what it says', () => {
  const [, report, id] = reportChecks.find(([, r, i]) => r.checks.find((c) => c.id === i)!.outcome !== null)!;
  const edited = structuredClone(report);
  const check = edited.checks.find((c) => c.id === id)!;
  // Every step's result rows emptied: what the judge read is gone, the stored outcome is not.
  check.steps = check.steps.map((st) => ({ ...st, results: st.results.map(() => []) }));
  const j = rejudgeReport(edited, CATALOGUE).find((x) => x.id === id)!.judgement;
  expect({ outcome: j.outcome, reason: j.reason }).not.toEqual({ outcome: check.outcome, reason: check.reason });
});

describe('stored reports of schema 1: read and compared, never judged again', () => {
  test.each(schemaOne)('%s is refused with REPORT_TOO_OLD, and read as schema 2 for pooltest diff', (file, report) => {
    let code: unknown = null;
    try {
      rejudgeReport(report, CATALOGUE);
    } catch (e) {
      code = isPooltestError(e) ? e.code : e;
    }
    expect(code).toBe('REPORT_TOO_OLD');
    expect(readReport(path.join(REPO, file)).schemaVersion).toBe(2);
  });

  test('control: judged anyway, a schema-1 record reads otherwise than its report (hence the refusal)', () => {
    const differ = schemaOne.flatMap(([, r]) =>
      r.checks.filter(
        (c) =>
          rejudge({ id: c.id, discovery: withoutSteps(r.discovery), steps: c.steps, outcome: null }).outcome !==
          c.outcome,
      ),
    );
    expect(differ.length).toBeGreaterThan(0);
  });

  test('a report of this schema is not refused', () => {
    expect(() => rejudgeReport(current[0]![1], CATALOGUE)).not.toThrow();
  });
});

describe('controls: the engine facts of the record decide, and the comparison can fail', () => {
  const [, conclusive] = recorded.find(([, s]) => s.id === 'session/set-leak' && s.outcome === 'leaked')!;
  const last = (s: Stored): { seq: number; at: number } => ({
    seq: s.steps.length + 1,
    at: s.steps.reduce((n, x) => Math.max(n, x.startMs), 0),
  });

  test('a recorded run error with an inconclusive judgement is in the reason', () => {
    const { seq, at } = last(conclusive);
    const interrupted = [
      ...conclusive.steps,
      factStep(RUN_FACT_TAGS.interrupted, '(cancelled)', {}, seq, at),
      factStep(RUN_FACT_TAGS.runError, '(failed)', { message: 'STEP_TIMEOUT: boom' }, seq + 1, at),
    ];
    const j = rejudge({ ...conclusive, steps: interrupted });
    expect(j.outcome).toBeNull();
    expect(j.facts.interrupted).toBe(true);
    expect(j.reason).toMatch(/^STEP_TIMEOUT: boom; interrupted:/);
  });

  test('a recorded recount that found a smaller pool is an availability finding in reason and facts', () => {
    const { seq, at } = last(conclusive);
    const recount = factStep(
      RUN_FACT_TAGS.recount,
      '(counted again)',
      { check: conclusive.id, before: 2, after: 1, blocking: true },
      seq,
      at,
    );
    const j = rejudge({ ...conclusive, steps: [...conclusive.steps, recount] });
    expect(j.outcome).toBe(conclusive.outcome);
    expect(j.facts).toMatchObject({ poolShrank: true, poolBefore: 2, poolAfter: 1 });
    expect(j.reason).toMatch(/availability finding: the pool was smaller after .*, too few to steer/);
    expect(j.reason).not.toBe(conclusive.reason);
  });

  test('a record that says the check did not run re-judges to that, skipped or inconclusive', () => {
    const skipped = factStep(
      RUN_FACT_TAGS.notRun,
      '(not run)',
      { verdict: 'skipped', reason: 'fixtures only', facts: {} },
      1,
      0,
    );
    expect(rejudge({ ...conclusive, steps: [skipped] })).toEqual({
      outcome: null,
      reason: 'fixtures only',
      facts: {},
      skipped: true,
    });
  });
});
