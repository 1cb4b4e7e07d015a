/**
 * A recorded protocol violation never yields a conclusive label: the engine's judging
 * (judgeRecord) overrides whatever the check's judge makes of the record, and says which step,
 * which message and which bytes.
 */
import { describe, expect, test } from 'vitest';
import { judgeRecord } from '../../engine/judging/judge-record.js';
import { protocolViolationIn } from '../../engine/judging/protocol.js';
import { setLeak } from '../../suites/session/set-leak.check.js';
import { mutate, recorded, stepsOf } from '../support/recorded.js';

const tx = recorded('pgbouncer-transaction').discovery;
const VIOLATION =
  "protocol violation by the server: ErrorResponse ('E'), declared length 58, actual 59: the field list's final terminator (a 0 byte) lies outside the declared length; bytes at stream offset 600: 45 00 00 00 3a";

describe('a protocol violation in the record', () => {
  test('A.create failing with PROTOCOL_VIOLATION: the judge alone would read a label, the engine does not', () => {
    const steps = mutate(stepsOf('pgbouncer-transaction', 'session/set-leak'), 'A.create', (s) => {
      s.results = [];
      s.pid = null;
      s.error = { code: 'PROTOCOL_VIOLATION', message: VIOLATION };
    });
    // The hole: an error with a code on A's statement reads as the pooler refusing SET.
    expect(setLeak.judge(steps, tx).outcome).toBe('rejected');
    const j = judgeRecord(setLeak, steps, tx);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(
      /^not conclusive: the target broke the PostgreSQL wire protocol during the check, in step A A\.create: protocol violation by the server: ErrorResponse \('E'\), declared length 58, actual 59: .*45 00 00 00 3a \(without that the record would read "rejected"\)$/,
    );
    expect(j.facts).toMatchObject({ unprovenOutcome: 'rejected' });
  });

  test('control: the same record without the violation is judged as before', () => {
    const steps = stepsOf('pgbouncer-transaction', 'session/set-leak');
    expect(protocolViolationIn(steps)).toBeUndefined();
    expect(judgeRecord(setLeak, steps, tx).outcome).not.toBeNull();
  });
});
