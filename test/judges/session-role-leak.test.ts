/**
 * session/role-leak: labels from recorded logs, the role lookup (and the skip when there is no
 * role to assume, through the engine to a `skipped` verdict), and the inconclusive paths.
 */
import { describe, expect, test } from 'vitest';
import { executeCheck } from '../../engine/execute/execute.js';
import { runContext } from '../../engine/context/run-state.js';
import { judgeRoleLeak, roleLeak, roleLookupSql } from '../../suites/session/role-leak.check.js';
import { mutate, without } from '../support/recorded.js';
import { judgesToRecordedOutcomes, setColumn, stateDiscovery, stateSteps } from '../support/state-recorded.js';
import type { RunContext, Scenario } from '../../engine/steering/scenario.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'session/role-leak';
const tx = stateDiscovery('pgbouncer-transaction');
const txSteps = () => stateSteps('pgbouncer-transaction', ID);
/** The lookup found no role the login may assume, so the scenario stopped there. */
const noRole = () =>
  mutate(stateSteps('pgbouncer-transaction', ID).slice(0, 1), 'setup.role', (s) => (s.results = [[]]));

judgesToRecordedOutcomes(roleLeak);

describe(`${ID}: labels`, () => {
  test('leaked on PgBouncer transaction: the next client ran as pooltest_reader', () => {
    const j = judgeRoleLeak(txSteps(), tx);
    expect(j.outcome).toBe('leaked');
    expect(j.facts).toMatchObject({ role: 'pooltest_reader', otherSawState: true, aKeptState: false });
  });
  test('lost with server_reset_query_always', () => {
    expect(
      judgeRoleLeak(
        stateSteps('pgbouncer-transaction-reset-always', ID),
        stateDiscovery('pgbouncer-transaction-reset-always'),
      ).outcome,
    ).toBe('lost');
  });
  test('session on pgpool-II', () => {
    expect(judgeRoleLeak(stateSteps('pgpool', ID), stateDiscovery('pgpool')).outcome).toBe('session');
  });
  test('tracked: the old backend ran as the login, A still as the role elsewhere', () => {
    const steps = setColumn(
      setColumn(txSteps(), 'observe.take', 'seen_role', 'pooltest'),
      'A.readback',
      'mine_role',
      'pooltest_reader',
    );
    expect(judgeRoleLeak(steps, tx).outcome).toBe('tracked');
  });
  test('rejected: SET ROLE failed with an SQLSTATE', () => {
    const steps = mutate(
      txSteps(),
      'A.create',
      (s) => (s.error = { code: '42501', message: 'permission denied to set role "pooltest_reader"' }),
    );
    expect(judgeRoleLeak(steps, tx).outcome).toBe('rejected');
  });
});

describe(`${ID}: no role to assume`, () => {
  test('the judge asks for a skip, with the reason', () => {
    const j = judgeRoleLeak(noRole(), tx);
    expect(j).toMatchObject({ outcome: null, skipped: true, facts: { roleAvailable: false } });
    expect(j.reason).toMatch(/may not SET ROLE/);
  });
  test('the engine turns it into a skipped verdict, expectation or not', async () => {
    const recordedSteps = noRole();
    const def = {
      ...roleLeak,
      async scenario(scn: Scenario) {
        for (const s of recordedSteps) scn.recorder.add(s);
      },
    };
    const ctx = runContext({
      target: {} as RunContext['target'],
      direct: null,
      discovery: tx,
      runId: 'test',
      bounds: { connectMs: 100, stepMs: 100 },
    });
    const profile = {
      name: 'p',
      title: 'p',
      pooler: 'p',
      mode: 'transaction',
      versions: '',
      ref: '',
      expect: { [ID]: { outcome: 'leaked', ref: 'x' } },
    };
    const result = await executeCheck(def, ctx, profile);
    expect(result.verdict).toBe('skipped');
    expect(result.reason).toMatch(/may not SET ROLE/);
  });
  test('PostgreSQL 16 asks for the SET right, older servers for membership', () => {
    expect(roleLookupSql(160000)).toContain("'SET'");
    expect(roleLookupSql(150018)).toContain("'MEMBER'");
  });
});

describe(`${ID}: inconclusive`, () => {
  test.each<[string, () => StepRecord[]]>([
    ['the lookup is missing', () => without(txSteps(), 'setup.role')],
    [
      'the lookup failed',
      () =>
        mutate(
          txSteps(),
          'setup.role',
          (s) => (s.error = { code: '42501', message: 'permission denied for table pg_authid' }),
        ),
    ],
    [
      "A's backend already ran as the role before A's SET ROLE",
      () => setColumn(txSteps(), 'A.create', 'before_role', 'pooltest_reader'),
    ],
    ['the observer returned no role', () => setColumn(txSteps(), 'observe.take', 'seen_role', null)],
  ])('%s', (_name, steps) => {
    const j = judgeRoleLeak(steps(), tx);
    expect(j.outcome).toBeNull();
    expect(j.skipped).toBeFalsy();
  });
});
