/**
 * When a check may skip dropping what it created: only when the server refused the CREATE
 * with a SQLSTATE. pooltest's own error codes (a reply that broke the protocol, a timeout) and
 * an error without a code say nothing about whether the statement committed.
 */
import { expect, test } from 'vitest';
import { passingRefusal, refusedByServer } from '../../engine/steering/drop-own.js';
import type { StepRecord } from '../../engine/types.js';

function step(error: StepRecord['error']): StepRecord {
  return { error } as StepRecord;
}

test('a SQLSTATE is a refusal; no error, no code, a pooltest code or a connection exception (08) is not', () => {
  expect(refusedByServer(step({ code: '42501', message: 'permission denied for database' }))).toBe(true);
  // Class 08 is a pooler's answer for a server connection lost mid-query: the CREATE may have
  // committed (creators-with-another-run.test.ts).
  expect(refusedByServer(step({ code: '08P01', message: 'server conn crashed?' }))).toBe(false);
  expect(refusedByServer(step(null))).toBe(false);
  expect(refusedByServer(step({ message: 'no answer within 10000 ms' }))).toBe(false);
  expect(refusedByServer(step({ code: 'PROTOCOL_VIOLATION', message: 'a DataRow without RowDescription' }))).toBe(
    false,
  );
  expect(refusedByServer(step({ code: 'STEP_TIMEOUT', message: 'no answer' }))).toBe(false);
});

test('a drop refused for a passing reason is tried again; a lasting refusal is not', () => {
  for (const code of ['55P03', '57014', '40P01', '40001', '53300', '57P01'])
    expect(passingRefusal(step({ code, message: code })), code).toBe(true);
  for (const code of ['42501', '2BP01', '42P01'])
    expect(passingRefusal(step({ code, message: code })), code).toBe(false);
});
