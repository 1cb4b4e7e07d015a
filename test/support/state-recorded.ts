/**
 * Recorded logs of the session-state catalogue (test/recorded/<fixture>-state.json, written by
 * bench/record-state-logs.ts against every fixture, the reset variants included), and the test
 * every judge of it starts with: each recorded log, judged as the engine judges it (with its
 * vetoes), gives the outcome written by hand for it in golden-expectations.ts.
 */
import { describe, expect, test } from 'vitest';
import type { CheckDefinition } from '../../engine/check.js';
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
