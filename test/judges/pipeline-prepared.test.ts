/**
 * pipeline/prepared: its judge on records of the shared state scenario written by hand (stateRecord), one
 * per label it can reach, and the paths on which it must not conclude. Written by
 * `npm run new-check`. Once `npm run record -- test/recorded pipeline/prepared` has recorded it on the
 * fixtures (which also states its outcome there, once, for their profiles and the catalogue
 * test): TODO judge those runs here against what each pooler documents, each with the line of
 * the record that decides it (as session-lock-timeout-leak.test.ts does).
 */
import { describe, expect, test } from 'vitest';
import { prepared } from '../../suites/pipeline/prepared.check.js';
import { recorded } from '../support/recorded.js';
import { stateRecord } from '../support/state-recorded.js';
import type { Discovery } from '../../engine/types.js';

const MARKER = 'pooltest-0123abcd-pipeline-prepared';
const direct = recorded('direct').discovery;
const transaction = recorded('pgbouncer-transaction').discovery;

/** A's backend is 101; one observer on `observer` reads `seen`; A's next transaction on `next` reads `mine`. */
function judge(o: { observer: number; seen: string; next: number; mine: string }, discovery: Discovery) {
  const steps = stateRecord({
    markers: { setting: MARKER },
    createPid: 101,
    observers: [{ pid: o.observer, row: { seen: o.seen } }],
    readback: { pid: o.next, row: { mine: o.mine } },
  });
  return prepared.judge(steps, discovery);
}

describe('pipeline/prepared: judge', () => {
  test('session: on a direct connection A keeps its value on its own backend, and the observer elsewhere sees none', () => {
    expect(judge({ observer: 102, seen: '', next: 101, mine: MARKER }, direct).outcome).toBe('session');
  });
  test("leaked: the observer on A's old backend reads A's value", () => {
    expect(judge({ observer: 101, seen: MARKER, next: 102, mine: '' }, transaction).outcome).toBe('leaked');
  });
  test('lost: the old backend is clean and A lost its value elsewhere', () => {
    expect(judge({ observer: 101, seen: '', next: 102, mine: '' }, transaction).outcome).toBe('lost');
  });
  test('tracked: the old backend is clean and A still has its value elsewhere', () => {
    expect(judge({ observer: 101, seen: '', next: 102, mine: MARKER }, transaction).outcome).toBe('tracked');
  });
  test('rejected: the statement failed with an SQLSTATE', () => {
    const steps = stateRecord({
      markers: { setting: MARKER },
      createPid: 101,
      createError: { code: '0A000', message: 'SET is not supported' },
      observers: [],
      readback: { pid: 102, row: { mine: '' } },
    });
    expect(prepared.judge(steps, transaction).outcome).toBe('rejected');
  });
  test('inconclusive: a record without its marker proves nothing', () => {
    const steps = stateRecord({
      createPid: 101,
      observers: [{ pid: 101, row: { seen: MARKER } }],
      readback: { pid: 102, row: { mine: '' } },
    });
    expect(prepared.judge(steps, transaction).outcome).toBeNull();
  });
  test('inconclusive: A moved and nobody looked at its old backend', () => {
    expect(judge({ observer: 103, seen: '', next: 102, mine: '' }, transaction).outcome).toBeNull();
  });
});
