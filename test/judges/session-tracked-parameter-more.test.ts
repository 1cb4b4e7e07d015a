/**
 * session/tracked-parameter's later parameters, judged one by one like TimeZone:
 * default_transaction_read_only (leaked on PgBouncer 1.18 and 1.25.2 in transaction mode,
 * tracked by Odyssey), session_authorization (superuser logins only) and scram_iterations
 * (PostgreSQL 16 and later). The recorded PgBouncer 1.18 run predates them, so each test adds
 * their readings to it as A's first step, the observers and A's readback would have them
 * (overwriting any a newer recording has): every case is a mutation of one real record.
 */
import { describe, expect, test } from 'vitest';
import { trackedParameter } from '../../suites/session/tracked-parameter.check.js';
import { mutate, recorded, stepsOf } from '../support/recorded.js';
import type { StepRecord } from '../../engine/types.js';

const tx = recorded('pgbouncer-transaction').discovery;
const PHASES = ['', 'nameless:'];

interface Readings {
  key: string;
  column: string;
  marker: string;
  /** What the observer on A's old backend reads, per phase ('' then 'nameless:'). */
  seen: [string, string];
  /** What A reads back on its other backend. */
  mine: string;
  /** A's readings before its SETs (`before_read_only`, `superuser`). */
  before?: Record<string, string>;
}

/** The recorded run with one more parameter's marker and readings. */
function withReadings(
  r: Readings,
  s: StepRecord[] = stepsOf('pgbouncer-transaction', 'session/tracked-parameter'),
): StepRecord[] {
  PHASES.forEach((phase, i) => {
    mutate(s, `${phase}run.markers`, (step) => void (step.results[0]![0]![r.key] = r.marker));
    if (r.before) mutate(s, `${phase}A.create`, (step) => step.results.push([{ ...r.before }]));
    mutate(s, `${phase}observe.take`, (step) => {
      for (const rows of step.results)
        for (const row of rows) if ('seen_app' in row) row[`seen_${r.column}`] = r.seen[i]!;
    });
    mutate(s, `${phase}A.readback`, (step) => {
      for (const rows of step.results) for (const row of rows) if ('mine_app' in row) row[`mine_${r.column}`] = r.mine;
    });
  });
  return s;
}

const readOnly = (seen: [string, string], mine: string, before = 'off'): Readings => ({
  key: 'default_transaction_read_only',
  column: 'read_only',
  marker: 'on',
  seen,
  mine,
  before: { before_read_only: before, superuser: 'off' },
});

const identity = (seen: [string, string], mine: string, superuser: string): Readings => ({
  key: 'session_authorization',
  column: 'session_auth',
  marker: 'pg_monitor',
  seen,
  mine,
  before: { before_read_only: 'off', superuser },
});

describe('session/tracked-parameter: default_transaction_read_only', () => {
  test("leaked: the next client on A's old backend reads on (PgBouncer 1.25.2 as measured), with the advice for it", () => {
    const j = trackedParameter.judge(withReadings(readOnly(['on', 'on'], 'off')), tx);
    expect(j.outcome).toBe('leaked');
    expect(j.facts).toMatchObject({
      'default_transaction_read_only.outcome': 'leaked',
      'default_transaction_read_only.named': 'leaked',
      'default_transaction_read_only.named.seen': 'on',
      'default_transaction_read_only.named.kept': false,
    });
    expect(String(j.facts['default_transaction_read_only.advice'])).toMatch(/25006.*SET LOCAL.*track_extra_parameters/);
    expect(j.reason).toMatch(/default_transaction_read_only: leaked/);
  });

  test('tracked: A keeps on elsewhere and nobody else reads it (Odyssey as measured)', () => {
    const j = trackedParameter.judge(withReadings(readOnly(['off', 'off'], 'on')), tx);
    expect(j.facts['default_transaction_read_only.outcome']).toBe('tracked');
    expect(j.facts['default_transaction_read_only.advice']).toBeUndefined();
  });

  test('control: the observer that sent no application_name alone reads on, and the parameter is leaked', () => {
    const j = trackedParameter.judge(withReadings(readOnly(['off', 'on'], 'on')), tx);
    expect(j.facts).toMatchObject({
      'default_transaction_read_only.outcome': 'leaked',
      'default_transaction_read_only.named': 'tracked',
      'default_transaction_read_only.nameless': 'leaked',
    });
  });

  test('not applicable where the login already defaults to on: no outcome, the reason, the rest judged as before', () => {
    const before = trackedParameter.judge(stepsOf('pgbouncer-transaction', 'session/tracked-parameter'), tx);
    const j = trackedParameter.judge(withReadings(readOnly(['on', 'on'], 'on', 'on')), tx);
    expect(j.facts['default_transaction_read_only.outcome']).toBeNull();
    expect(String(j.facts['default_transaction_read_only.notApplicable'])).toMatch(/already on/);
    expect(j.outcome).toBe(before.outcome);
    expect(j.reason).not.toMatch(/default_transaction_read_only/);
  });
});

describe('session/tracked-parameter: session_authorization', () => {
  test('not applicable to a login that is not a superuser (every fixture), whatever the readings', () => {
    const j = trackedParameter.judge(withReadings(identity(['pooltest', 'pooltest'], 'pooltest', 'off')), tx);
    expect(j.facts['session_authorization.outcome']).toBeNull();
    expect(String(j.facts['session_authorization.notApplicable'])).toMatch(/superuser.*superuser = off/);
  });

  test('leaked for a superuser login: the next client runs as pg_monitor', () => {
    const j = trackedParameter.judge(withReadings(identity(['pg_monitor', 'postgres'], 'postgres', 'on')), tx);
    expect(j.facts['session_authorization.outcome']).toBe('leaked');
    expect(String(j.facts['session_authorization.advice'])).toMatch(/runs as this role/);
  });

  test('tracked for a superuser login where A keeps it and the observers read their own', () => {
    const j = trackedParameter.judge(withReadings(identity(['postgres', 'postgres'], 'pg_monitor', 'on')), tx);
    expect(j.facts['session_authorization.outcome']).toBe('tracked');
  });
});

describe('session/tracked-parameter: records without the later parameters', () => {
  test('the recorded 1.18 run: not in this record, and scram_iterations not reported by PostgreSQL 15', () => {
    const j = trackedParameter.judge(stepsOf('pgbouncer-transaction', 'session/tracked-parameter'), tx);
    expect(j.facts['scram_iterations.outcome']).toBeNull();
    expect(String(j.facts['scram_iterations.notObserved'])).toMatch(/does not report scram_iterations/);
    if (j.facts['default_transaction_read_only.outcome'] === null)
      expect(j.facts['default_transaction_read_only.notObserved']).toBe('not in this record');
  });

  test('scram_iterations on PostgreSQL 16: judged like the others', () => {
    const pg16 = { ...tx, serverVersion: '16.4', serverVersionNum: 160004 };
    const s = withReadings({
      key: 'scram_iterations',
      column: 'scram',
      marker: '4097',
      seen: ['4097', '4096'],
      mine: '4096',
    });
    const j = trackedParameter.judge(s, pg16);
    expect(j.facts['scram_iterations.outcome']).toBe('leaked');
    expect(String(j.facts['scram_iterations.advice'])).toMatch(/SET LOCAL scram_iterations/);
  });
});
