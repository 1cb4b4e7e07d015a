/**
 * Recorded logs of the session-state catalogue (test/recorded/<fixture>-state.json, written by
 * bench/record-state-logs.ts against every fixture, the reset variants included), and the test
 * every judge of it starts with: each recorded log judges to the outcome it was recorded with.
 */
import { describe, expect, test } from 'vitest';
import type { CheckDefinition } from '../../engine/check.js';
import { judgeRecord } from '../../engine/judging/judge-record.js';
import { STACK_NAMES, type StackName } from '../../fixtures/stack.js';
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

/** One test per fixture: the judge, as the engine applies it, gives the recorded outcome. */
export function judgesToRecordedOutcomes(def: CheckDefinition): void {
  describe(`${def.id}: every recorded log judges to its recorded outcome`, () => {
    for (const fixture of STATE_FIXTURES) {
      const run = recorded(`${fixture}-state`);
      const check = run.checks[def.id];
      test(`${fixture} -> ${check?.outcome ?? 'missing'}`, () => {
        expect(check, `no recorded ${def.id} for ${fixture}`).toBeDefined();
        expect(judgeRecord(def, check!.steps, run.discovery).outcome).toBe(check!.outcome);
      });
    }
  });
}
