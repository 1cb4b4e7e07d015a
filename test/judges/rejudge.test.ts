/**
 * The record is the whole truth: every stored run of a check in the repository, judged again
 * from its record alone (its steps and the discovery it ran with) by judgeRun, reads exactly
 * what was stored. For the recorded logs (test/recorded) that is the outcome; for stored reports
 * (any report JSON under test/ or docs/ whose checks carry steps) the outcome, the reason and
 * the facts. A result decided outside the record (a run error, a pool recount, a target gone)
 * would fail here. The controls make sure the comparison can fail.
 *
 * Two kinds of stored run read differently today, each named below with why, so the list
 * cannot grow unnoticed: a recording whose judge was changed on purpose afterwards (it must
 * then read what the new rule says), and the schema-1 reports kept for the compatibility tests
 * (test/reporters/fixtures), recorded by an early engine whose scenarios wrote no `run.markers`
 * step, which today's judges read their markers from.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { judgeRun } from '../../engine/judging/judge-record.js';
import { RUN_FACT_TAGS, factStep } from '../../engine/judging/run-facts.js';
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
const withoutSteps = (d: Discovery): Discovery => ({ ...d, steps: [] });

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

/** Every report JSON under test/ and docs/ whose checks carry their steps. */
function storedReports(): Array<[string, Stored]> {
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
  const runs: Array<[string, Stored]> = [];
  for (const file of found) {
    const data = read(file) as Partial<Report>;
    if (typeof data.schemaVersion !== 'number' || !Array.isArray(data.checks) || !data.discovery) continue;
    for (const c of data.checks) {
      if (!Array.isArray(c.steps)) continue;
      runs.push([
        `${path.relative(REPO, file)} ${c.id}`,
        {
          id: c.id,
          discovery: withoutSteps(data.discovery),
          steps: c.steps,
          outcome: c.outcome,
          reason: c.reason,
          facts: c.facts,
        },
      ]);
    }
  }
  return runs;
}

function rejudge(s: Stored): ReturnType<typeof judgeRun> {
  const def = CATALOGUE.find((c) => c.id === s.id);
  if (!def) throw new Error(`unknown check ${s.id}`);
  return judgeRun(def, structuredClone(s.steps), s.discovery);
}

/** Recordings whose judge changed on purpose after they were made: what the rule says now, and why. */
const JUDGE_CHANGED: Record<string, [outcome: string, why: string]> = {
  'connect-churn.json pgbouncer-transaction': [
    'same',
    'recorded as faster by the point-ratio rule; since bffeb26 a difference needs a 95% interval that excludes 1 (this one is 0.96-1.57)',
  ],
};

/** Stored reports written by schema 1's engine (no run.markers steps): kept for the compatibility tests. */
const SCHEMA_ONE_SAMPLES = [
  'test/reporters/fixtures/direct.report.json',
  'test/reporters/fixtures/pgbouncer-transaction.report.json',
];

const recorded = recordedRuns();
const allReports = storedReports();
const reports = allReports.filter(([name]) => !SCHEMA_ONE_SAMPLES.some((f) => name.startsWith(`${f} `)));

test('there is something to re-judge, and every exception is still there and still what it says', () => {
  expect(recorded.length).toBeGreaterThan(100);
  for (const name of Object.keys(JUDGE_CHANGED)) expect(recorded.map(([n]) => n)).toContain(name);
  for (const file of SCHEMA_ONE_SAMPLES) {
    expect(
      allReports.some(([n]) => n.startsWith(`${file} `)),
      file,
    ).toBe(true);
    expect((read(path.join(REPO, file)) as Report).schemaVersion, file).toBe(1);
  }
});

describe('recorded logs: the same outcome from the record alone', () => {
  test.each(recorded)('%s', (name, s) => {
    expect(rejudge(s).outcome).toBe(JUDGE_CHANGED[name]?.[0] ?? s.outcome);
  });
});

describe('stored reports: the same outcome, reason and facts from the record alone', () => {
  // Every report stored today is a schema-1 sample; a report stored from now on is held here.
  if (reports.length === 0) test('none at schema 2 yet', () => expect(reports).toEqual([]));
  else
    test.each(reports)('%s', (_, s) => {
      const j = rejudge(s);
      expect({ outcome: j.outcome, reason: j.reason, facts: j.facts }).toEqual({
        outcome: s.outcome,
        reason: s.reason,
        facts: s.facts,
      });
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
