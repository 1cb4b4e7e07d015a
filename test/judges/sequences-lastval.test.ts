/**
 * sequences/lastval: the state-judge labels as this check reads them (the observer's lastval()
 * from a NOTICE, A's from its row or SQLSTATE 55000), the "someone else's value" fact, and the
 * readings it cannot use.
 */
import { describe, expect, test } from 'vitest';
import { lastval } from '../../suites/sequences/lastval.check.js';
import { mutate } from '../support/recorded.js';
import { judgesToRecordedOutcomes, stateDiscovery, stateSteps } from '../support/state-recorded.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'sequences/lastval';
const tx = stateDiscovery('pgbouncer-transaction');
const judge = (steps: StepRecord[], d = tx) => lastval.judge(steps, d);
const txSteps = () => stateSteps('pgbouncer-transaction', ID);
const made = () => String(txSteps().find((s) => s.tag === 'A.create')!.results[2]![0]!.made);
const observerSays = (steps: StepRecord[], what: string) =>
  mutate(
    steps,
    'observe.take',
    (s) => (s.notices = [{ severity: 'NOTICE', code: '00000', message: `pooltest lastval ${what}` }]),
  );
const aGets = (steps: StepRecord[], value: string) =>
  mutate(steps, 'A.readback', (s) => ((s.error = null), (s.results = [[{ pid: s.pid }], [{ mine: value }]])));

judgesToRecordedOutcomes(lastval);

describe(`${ID}: labels`, () => {
  test("leaked on PgBouncer transaction: the next client's lastval() was A's number; A got 55000", () => {
    const j = judge(txSteps());
    expect(j.outcome).toBe('leaked');
    expect(j.facts).toMatchObject({ otherSawState: true, aKeptState: false, aValue: made() });
  });
  test('lost with server_reset_query_always', () => {
    expect(
      judge(stateSteps('pgbouncer-transaction-reset-always', ID), stateDiscovery('pgbouncer-transaction-reset-always'))
        .outcome,
    ).toBe('lost');
  });
  test("lost, with someone else's number: A's lastval() on its new backend was another sequence's", () => {
    const j = judge(aGets(observerSays(txSteps(), 'undefined'), '17'));
    expect(j.outcome).toBe('lost');
    expect(j.facts.aGotOtherValue).toBe(true);
  });
  test('tracked: the old backend had none, A still had its number elsewhere', () => {
    expect(judge(aGets(observerSays(txSteps(), 'undefined'), made())).outcome).toBe('tracked');
  });
  test('session on pgpool-II', () => {
    expect(judge(stateSteps('pgpool', ID), stateDiscovery('pgpool')).outcome).toBe('session');
  });
});

describe(`${ID}: inconclusive`, () => {
  test("the observer's lastval() notice is missing (client_min_messages swallowed it)", () => {
    expect(judge(mutate(txSteps(), 'observe.take', (s) => (s.notices = []))).outcome).toBeNull();
  });
  test("A's lastval() failed otherwise, so A's side is unknown", () => {
    const steps = mutate(
      observerSays(txSteps(), 'undefined'),
      'A.readback',
      (s) => (s.error = { code: '57014', message: 'canceling statement' }),
    );
    expect(judge(steps).outcome).toBeNull();
  });
});
