/**
 * session/custom-guc-leak: two phases (SET and set_config) judged alone and combined into the
 * worse, from recorded logs and their mutations.
 */
import { describe, expect, test } from 'vitest';
import { customGucLeak } from '../../suites/session/custom-guc-leak.check.js';
import { mutate, without } from '../support/recorded.js';
import { judgesToRecordedOutcomes, setColumn, stateDiscovery, stateSteps } from '../support/state-recorded.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'session/custom-guc-leak';
const tx = stateDiscovery('pgbouncer-transaction');
const judge = (steps: StepRecord[], d = tx) => customGucLeak.judge(steps, d);
const txSteps = () => stateSteps('pgbouncer-transaction', ID);
/** The observer of one phase found the old backend clean. */
const clean = (steps: StepRecord[], phase: string) => setColumn(steps, `${phase}:observe.take`, 'seen', '');
/** A kept its value on its new backend in one phase. */
const kept = (steps: StepRecord[], phase: string) => {
  const value = /'(pooltest-[^']+)'/.exec(steps.find((s) => s.tag === `${phase}:A.create`)!.sql)![1]!;
  return setColumn(steps, `${phase}:A.readback`, 'mine', value);
};

judgesToRecordedOutcomes(customGucLeak);

describe(`${ID}: labels and the worse of two phases`, () => {
  test('leaked on PgBouncer transaction, in both forms, with facts per phase', () => {
    const j = judge(txSteps());
    expect(j.outcome).toBe('leaked');
    expect(j.facts).toMatchObject({
      'set.outcome': 'leaked',
      'set_config.outcome': 'leaked',
      'set.otherSawState': true,
      'set_config.otherSawState': true,
    });
  });
  test('leaked when only set_config leaks (a pooler that resets after the SET tag only)', () => {
    const j = judge(clean(txSteps(), 'set'));
    expect(j.facts).toMatchObject({ 'set.outcome': 'lost', 'set_config.outcome': 'leaked' });
    expect(j.outcome).toBe('leaked');
  });
  test('lost beats tracked', () => {
    const steps = kept(clean(clean(txSteps(), 'set'), 'set_config'), 'set_config');
    const j = judge(steps);
    expect(j.facts).toMatchObject({ 'set.outcome': 'lost', 'set_config.outcome': 'tracked' });
    expect(j.outcome).toBe('lost');
  });
  test('tracked when both forms are replayed', () => {
    expect(judge(kept(kept(clean(clean(txSteps(), 'set'), 'set_config'), 'set'), 'set_config')).outcome).toBe(
      'tracked',
    );
  });
  test('rejected beats session', () => {
    const d = stateDiscovery('direct');
    const steps = mutate(
      stateSteps('direct', ID),
      'set:A.create',
      (s) => (s.error = { code: '0A000', message: 'SET not supported' }),
    );
    expect(judge(steps, d).outcome).toBe('rejected');
  });
  test('session on direct Postgres', () => {
    expect(judge(stateSteps('direct', ID), stateDiscovery('direct')).outcome).toBe('session');
  });
});

describe(`${ID}: inconclusive`, () => {
  test('one phase inconclusive and the other merely lost: the missing phase could be worse', () => {
    const steps = without(clean(txSteps(), 'set_config'), 'set:A.readback');
    const j = judge(steps);
    expect(j.facts).toMatchObject({ 'set.outcome': null, 'set_config.outcome': 'lost' });
    expect(j.outcome).toBeNull();
  });
  test('but a leak in one phase is conclusive whatever the other did', () => {
    expect(judge(without(txSteps(), 'set:A.readback')).outcome).toBe('leaked');
  });
  test('no phase ran at all', () => {
    expect(judge([]).outcome).toBeNull();
  });
});
