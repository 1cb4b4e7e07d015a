/**
 * session/reset-on-disconnect: `leaked` and both ways to `reset` (a clean next client, or a
 * backend that ended with its client) from recorded logs, and the inconclusive paths.
 */
import { describe, expect, test } from 'vitest';
import { judgeResetOnDisconnect, resetOnDisconnect } from '../../suites/session/reset-on-disconnect.check.js';
import { mutate, without } from '../support/recorded.js';
import { judgesToRecordedOutcomes, setColumn, stateSteps } from '../support/state-recorded.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'session/reset-on-disconnect';
const txSteps = () => stateSteps('pgbouncer-transaction', ID);
const directSteps = () => stateSteps('direct', ID);
const KINDS = ['timeout_marker', 'guc_marker', 'temp_tables', 'locks', 'listens', 'prepared', 'cursors'];

judgesToRecordedOutcomes(resetOnDisconnect);

describe(`${ID}: labels`, () => {
  test('leaked on PgBouncer transaction: every kind of state reached the next client', () => {
    const j = judgeResetOnDisconnect(txSteps());
    expect(j.outcome).toBe('leaked');
    expect(j.facts.leftBehind).toBe(
      'statement_timeout, app.tenant_id, temp table, advisory lock, LISTEN, prepared statement, WITH HOLD cursor',
    );
  });
  test('leaked on session pooling without a reset query', () => {
    expect(judgeResetOnDisconnect(stateSteps('pgbouncer-session-no-reset', ID)).outcome).toBe('leaked');
  });
  test('leaked when a single kind survives (the advisory lock)', () => {
    const steps = txSteps();
    for (const k of KINDS) if (k !== 'locks') setColumn(steps, 'observe.take', k, 0);
    const j = judgeResetOnDisconnect(steps);
    expect(j.outcome).toBe('leaked');
    expect(j.facts).toMatchObject({ leftBehind: 'advisory lock', locks: true, prepared: false });
  });
  test('reset on PgBouncer session pooling: the next client on the backend found nothing', () => {
    const j = judgeResetOnDisconnect(stateSteps('pgbouncer-session', ID));
    expect(j.outcome).toBe('reset');
    expect(j.facts).toMatchObject({ otherOnOldBackend: true, leftBehind: null });
  });
  test('reset on direct Postgres: the backend ended with its client', () => {
    const j = judgeResetOnDisconnect(directSteps());
    expect(j.outcome).toBe('reset');
    expect(j.facts).toMatchObject({ otherOnOldBackend: false, backendEnded: true });
  });
});

describe(`${ID}: inconclusive`, () => {
  test.each<[string, () => StepRecord[]]>([
    [
      'A could not create its state',
      () => mutate(txSteps(), 'A.create', (s) => (s.error = { code: '0A000', message: 'LISTEN is not supported' })),
    ],
    ["A's create has no pid", () => mutate(txSteps(), 'A.create', (s) => (s.pid = null))],
    ["A's disconnect is not in the record", () => without(txSteps(), 'A.disconnect')],
    ['the next client could not read one kind', () => setColumn(txSteps(), 'observe.take', 'cursors', null)],
    ['the client on the backend arrived before A left', () => mutate(txSteps(), 'A.disconnect', (s) => (s.seq = 99))],
    [
      'direct: the backend was still listed when the wait ran out',
      () => setColumn(directSteps(), 'observe.gone', 'alive', 1),
    ],
    ['direct: nobody asked whether the backend still exists', () => without(directSteps(), 'observe.gone')],
  ])('%s', (_name, steps) => {
    expect(judgeResetOnDisconnect(steps()).outcome).toBeNull();
  });
});
