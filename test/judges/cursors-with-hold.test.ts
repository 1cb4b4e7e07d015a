/**
 * cursors/with-hold: the state-judge labels as this check reads them (a cursor listed on A's
 * old backend; FETCH answering or 34000), and the readings it cannot use.
 */
import { describe, expect, test } from 'vitest';
import { withHold } from '../../suites/cursors/with-hold.check.js';
import { mutate } from '../support/recorded.js';
import { judgesToRecordedOutcomes, setColumn, stateDiscovery, stateSteps } from '../support/state-recorded.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'cursors/with-hold';
const tx = stateDiscovery('pgbouncer-transaction');
const judge = (steps: StepRecord[], d = tx) => withHold.judge(steps, d);
const txSteps = () => stateSteps('pgbouncer-transaction', ID);
/** A's FETCH on its new backend returned the cursor's first row. */
const fetched = (steps: StepRecord[]) =>
  mutate(steps, 'A.readback', (s) => ((s.error = null), (s.results = [[{ pid: s.pid }], [{ v: 1 }]])));

judgesToRecordedOutcomes(withHold);

describe(`${ID}: labels`, () => {
  test("leaked on PgBouncer transaction: the next client could list A's cursor; A's FETCH got 34000", () => {
    const j = judge(txSteps());
    expect(j.outcome).toBe('leaked');
    expect(j.facts).toMatchObject({ otherSawState: true, aKeptState: false });
  });
  test('lost with server_reset_query_always', () => {
    expect(
      judge(stateSteps('pgbouncer-transaction-reset-always', ID), stateDiscovery('pgbouncer-transaction-reset-always'))
        .outcome,
    ).toBe('lost');
  });
  test('session on direct Postgres: FETCH gave the first row', () => {
    expect(judge(stateSteps('direct', ID), stateDiscovery('direct')).outcome).toBe('session');
  });
  test('tracked: the old backend had no cursor and A could still FETCH elsewhere', () => {
    expect(judge(fetched(setColumn(txSteps(), 'observe.take', 'visible', 0))).outcome).toBe('tracked');
  });
});

describe(`${ID}: inconclusive`, () => {
  test('the observer could not list cursors', () => {
    expect(judge(setColumn(txSteps(), 'observe.take', 'visible', null)).outcome).toBeNull();
  });
  test("A's FETCH failed with something other than 34000, so A's side is unknown", () => {
    const steps = mutate(
      setColumn(txSteps(), 'observe.take', 'visible', 0),
      'A.readback',
      (s) => (s.error = { code: '57014', message: 'canceling statement' }),
    );
    expect(judge(steps).outcome).toBeNull();
  });
});
