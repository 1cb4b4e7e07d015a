/**
 * judgeRun returns a new judgement and leaves the judge's own untouched: the drivers' vetoes
 * hand it a judgement made earlier (a judge returning `() => judgement`), and a record with
 * run facts (the scenario's error, a target that did not answer again, the pool counted again)
 * used to amend that object in place, so the caller's copy read the run's facts too.
 */
import { describe, expect, test } from 'vitest';
import { judgeRun } from '../../engine/judging/judge-record.js';
import { factStep, RUN_FACT_TAGS } from '../../engine/record/run-facts.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';
import { recorded } from '../support/recorded.js';

const tx: Discovery = recorded('pgbouncer-transaction').discovery;

/** A judgement frozen all the way down: any write into it throws (ESM is strict). */
function frozen(j: Judgement): Judgement {
  Object.freeze(j.facts);
  return Object.freeze(j);
}

const inconclusive = (): Judgement => frozen({ outcome: null, facts: { landed: false }, reason: 'A never moved' });

function withFacts(...facts: StepRecord[]): StepRecord[] {
  return facts.map((f, i) => ({ ...f, seq: i + 1 }));
}

describe('judgeRun is pure', () => {
  test("the scenario's error and a target gone: a new judgement, the judge's unchanged", () => {
    const own = inconclusive();
    const steps = withFacts(
      factStep(RUN_FACT_TAGS.runError, '(the scenario failed)', { message: 'STEP_TIMEOUT: A.create' }, 1, 0),
      factStep(RUN_FACT_TAGS.targetGone, '(gone)', { waitedMs: 20 }, 2, 0),
    );
    const j = judgeRun({ judge: () => own }, steps, tx);
    expect(j).toEqual({
      outcome: null,
      facts: { landed: false, targetGone: true },
      reason: 'STEP_TIMEOUT: A.create; A never moved',
    });
    expect(own).toEqual({ outcome: null, facts: { landed: false }, reason: 'A never moved' });
  });

  test('a pool that shrank and a refusal at capacity: said in the new judgement only', () => {
    const own = inconclusive();
    const steps = withFacts(
      factStep(RUN_FACT_TAGS.runError, '(the scenario failed)', { message: 'no more connections allowed' }, 1, 0),
      factStep(RUN_FACT_TAGS.recount, '(counted again)', { before: 2, after: 1, blocking: true, check: 'x/y' }, 2, 0),
    );
    const j = judgeRun({ judge: () => own }, steps, tx);
    expect(j.facts).toMatchObject({ landed: false, poolShrank: true, poolBefore: 2, poolAfter: 1 });
    expect(j.reason).toMatch(/^not steerable here: .*; availability finding: .*too few to steer/);
    expect(own).toEqual({ outcome: null, facts: { landed: false }, reason: 'A never moved' });
  });

  test('a recount that failed: a fact of the new judgement', () => {
    const own = frozen({ outcome: 'leaked', facts: {}, reason: 'O1 saw it' });
    const steps = withFacts(factStep(RUN_FACT_TAGS.recount, '(not counted)', { failed: 'timed out' }, 1, 0));
    // The judge's label meets the vetoes on an empty record of its own: what stands is theirs.
    const j = judgeRun({ judge: () => own }, steps, tx);
    expect(j.facts.poolRecount).toBe('failed: timed out');
    expect(own.facts).toEqual({});
  });

  test('control: with no run facts the judgement reads as the judge said it', () => {
    const own = inconclusive();
    expect(judgeRun({ judge: () => own }, [], tx)).toEqual(own);
  });
});
