/**
 * When a check may skip dropping what it created: only when the server refused the CREATE
 * with a SQLSTATE. pooltest's own error codes (a reply that broke the protocol, a timeout) and
 * an error without a code say nothing about whether the statement committed.
 */
import { expect, test } from 'vitest';
import { refusedByServer } from '../../engine/steering/drop-own.js';
import type { StepRecord } from '../../engine/types.js';

function step(error: StepRecord['error']): StepRecord {
  return { error } as StepRecord;
}

test('a SQLSTATE is a refusal; no error, no code, or a pooltest code is not', () => {
  expect(refusedByServer(step({ code: '42501', message: 'permission denied for database' }))).toBe(true);
  expect(refusedByServer(step({ code: '08P01', message: 'server conn crashed?' }))).toBe(true);
  expect(refusedByServer(step(null))).toBe(false);
  expect(refusedByServer(step({ message: 'no answer within 10000 ms' }))).toBe(false);
  expect(refusedByServer(step({ code: 'PROTOCOL_VIOLATION', message: 'a DataRow without RowDescription' }))).toBe(
    false,
  );
  expect(refusedByServer(step({ code: 'STEP_TIMEOUT', message: 'no answer' }))).toBe(false);
});
