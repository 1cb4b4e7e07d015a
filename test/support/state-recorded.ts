/**
 * Recorded logs of the session-state catalogue (test/recorded/<fixture>-state.json, written by
 * bench/record-state-logs.ts against every fixture, the reset variants included), and the test
 * every judge of it starts with: each recorded log, judged as the engine judges it (with its
 * vetoes), gives the outcome written by hand for it in golden-expectations.ts.
 */
import { describe, expect, test } from 'vitest';
import type { CheckDefinition } from '../../engine/execute/check.js';
import { judgeRecord } from '../../engine/judging/judge-record.js';
import { STACK_NAMES, type StackName } from '../../fixtures/stack.js';
import { GOLDEN } from '../judges/golden-expectations.js';
import { recorded, stepsOf } from './recorded.js';
import type { Discovery, StepRecord } from '../../engine/types.js';

/** The fixtures bench/record-state-logs.ts records: all but the small max_client_conn one. */
export const STATE_FIXTURES = STACK_NAMES.filter((n) => n !== 'pgbouncer-small-max-client');

export type StateFixture = StackName;

export function stateDiscovery(fixture: StateFixture): Discovery {
  return recorded(`${fixture}-state`).discovery;
}

/** A deep copy of one check's recorded steps, to mutate freely. */
export function stateSteps(fixture: StateFixture, id: string): StepRecord[] {
  return stepsOf(`${fixture}-state`, id);
}

/** Sets `column` to `value` in every row that has it, in every step tagged `tag`. */
export function setColumn(steps: StepRecord[], tag: string, column: string, value: unknown): StepRecord[] {
  for (const s of steps) {
    if (s.tag !== tag) continue;
    for (const rows of s.results) for (const row of rows) if (column in row) row[column] = value;
  }
  return steps;
}

/**
 * One test per fixture: the judge, as the engine applies it (judgeRecord: the vetoes over the
 * check's own judge), gives the outcome written by hand in golden-expectations.ts. It used to
 * compare with the outcome stored in the log, which the same judge had written when the log was
 * recorded, so it could not fail; golden.test.ts holds the bare judge to the same table, and this
 * adds that no veto of the engine refuses a real run that the table says concludes.
 */
export function judgesToRecordedOutcomes(def: CheckDefinition): void {
  describe(`${def.id}: every recorded log, through the engine's vetoes, judges to the hand-written outcome`, () => {
    for (const fixture of STATE_FIXTURES) {
      const run = recorded(`${fixture}-state`);
      const check = run.checks[def.id];
      const [outcome, why] = GOLDEN[`${fixture}-state`]?.[def.id] ?? [undefined, 'missing'];
      test(`${fixture} -> ${outcome ?? 'missing'} (${why})`, () => {
        expect(check, `no recorded ${def.id} for ${fixture}`).toBeDefined();
        expect(outcome, `no hand-written outcome for ${def.id} in ${fixture}-state`).not.toBeUndefined();
        expect(judgeRecord(def, check!.steps, run.discovery).outcome).toBe(outcome);
      });
    }
  });
}

/** What a hand-built record of the shared state scenario holds (see {@link stateRecord}). */
export interface StateRecordSpec {
  /** The markers the check recorded (`scn.recordMarkers`); none: the record carries no markers step. */
  markers?: Record<string, string>;
  /** A's backend at `A.create`, or the error it got instead. */
  createPid: number;
  createError?: { code: string; message: string };
  /** Each candidate's backend and the row its observation returned. */
  observers: { pid: number; row: Record<string, unknown> }[];
  /** A's next transaction: its backend and what it read. */
  readback: { pid: number; row: Record<string, unknown> };
}

/**
 * A record of the shared state scenario (engine/steering/state-scenario.ts: `run.markers`,
 * `A.create`, one `observe.take` per candidate, `A.readback`) written by hand, for the judge
 * test of a check that has no recorded runs yet (what `npm run new-check` generates). Once the
 * check is recorded, its judge test should read the real runs instead.
 */
export function stateRecord(spec: StateRecordSpec): StepRecord[] {
  const steps: StepRecord[] = [];
  const add = (session: string, tag: string, pid: number | null, results: StepRecord['results']): StepRecord => {
    const step: StepRecord = {
      seq: steps.length + 1,
      session,
      tag,
      sql: '(written by hand)',
      pid,
      results,
      error: null,
      notices: [],
      notifications: [],
      startMs: steps.length * 10,
      durationMs: 5,
      timedOut: false,
      txStatus: 'I',
    };
    steps.push(step);
    return step;
  };
  if (spec.markers) add('run', 'run.markers', null, [[spec.markers]]);
  const create = add('A', 'A.create', spec.createPid, [[{ pid: spec.createPid }], []]);
  if (spec.createError) {
    create.pid = null;
    create.results = [];
    create.error = spec.createError;
  }
  spec.observers.forEach((o, i) => add(`O${i + 1}`, 'observe.take', o.pid, [[{ pid: o.pid }], [o.row]]));
  add('A', 'A.readback', spec.readback.pid, [[{ pid: spec.readback.pid, ...spec.readback.row }]]);
  return steps;
}
