/**
 * copy/in-out: its judge on hand-built records of the check's own scenario (A's COPY steps as
 * PostgreSQL answers them, then a landing on A's backend after the late CopyDone and after the
 * late messages that follow a COPY error), one per label, and where it must not conclude.
 */
import { describe, expect, test } from 'vitest';
import { COPY_TAGS, judgeCopy } from '../../suites/copy/in-out.check.js';
import { HandSteps } from '../support/hand-steps.js';
import { recorded } from '../support/recorded.js';
import type { StepRecord } from '../../engine/types.js';

const direct = recorded('direct').discovery;
const transaction = recorded('pgbouncer-transaction').discovery;
const session = recorded('pgbouncer-session').discovery;

const hand = new HandSteps();
const step = hand.step;

const err = (code: string, message: string) => ({ code, severity: 'ERROR', message });

/** A's steps as PostgreSQL answers them, on backend 101 (tx), 102 (late), 101 (error). */
function aSteps(): StepRecord[] {
  return [
    step('A', COPY_TAGS.txIn, 101, { pid: 101 }),
    step('A', COPY_TAGS.txDone, null, null, { txStatus: 'T' }),
    step('A', COPY_TAGS.txFailIn, null, null),
    step('A', COPY_TAGS.txFail, null, null, {
      txStatus: 'E',
      error: err('57014', 'COPY from stdin failed: pooltest: the client gave up'),
    }),
    step('A', COPY_TAGS.txOut, 101, { pid: 101, landed: '3' }, { txStatus: 'T' }),
    step('run', COPY_TAGS.txCopied, null, { copied: '1\n2\n3\n' }),
    step('A', COPY_TAGS.txCommit, 101, { pid: 101 }, { txStatus: 'I' }),
    step('A', COPY_TAGS.lateIn, 102, { pid: 102 }),
    step('A', COPY_TAGS.lateData, null, null),
    step('A', COPY_TAGS.lateDone, null, { landed: '2' }, { txStatus: 'I' }),
  ];
}

function errorSteps(): StepRecord[] {
  return [
    step('A', COPY_TAGS.errorIn, 101, { pid: 101 }),
    step('A', COPY_TAGS.errorRow, null, null, {
      txStatus: 'E',
      error: err('22P02', 'invalid input syntax for type integer: "not a number"'),
    }),
    step('A', COPY_TAGS.errorLate, null, null),
    step('A', COPY_TAGS.errorRollback, 101, { pid: 101 }, { txStatus: 'I' }),
  ];
}

/** The landing after `phase` on `b`: one candidate elsewhere, then one on `b` reading `look`. */
function landing(
  phase: string,
  b: number,
  other: number,
  look: Partial<StepRecord> & { row?: Record<string, unknown> } = {},
): StepRecord[] {
  const { row = { pid: b, xid: null, leftover: null }, ...more } = look;
  return [
    step(`O${phase}1`, `${phase}observe.take`, other, { pid: other }, { txStatus: 'T' }),
    step(`O${phase}2`, `${phase}observe.take`, b, row, { txStatus: 'T', ...more }),
  ];
}

function pooled(late: Parameters<typeof landing>[3] = {}): StepRecord[] {
  hand.restart();
  return [...aSteps(), ...landing('late:', 102, 101, late), ...errorSteps(), ...landing('error:', 101, 102)];
}

describe('copy/in-out: judge', () => {
  test("works: every COPY answered as on PostgreSQL, and another client got A's backend idle after each", () => {
    const j = judgeCopy(pooled(), transaction);
    expect(j.outcome).toBe('works');
    expect(j.facts).toMatchObject({ landedInTransaction: 3, landedLate: 2, copiedOut: '1\n2\n3\n' });
  });
  test("works on direct: A's backend was its own", () => {
    hand.restart();
    const steps = [...aSteps(), ...errorSteps()];
    steps.push(step('O1', 'late:observe.take', 201, { pid: 201 }), step('O2', 'error:observe.take', 202, { pid: 202 }));
    expect(judgeCopy(steps, direct).outcome).toBe('works');
  });
  test('stalled: the late CopyDone got no answer within the bound (a pooler that kept it from the server)', () => {
    const steps = pooled();
    const done = steps.find((s) => s.tag === COPY_TAGS.lateDone)!;
    Object.assign(done, {
      timedOut: true,
      results: [],
      txStatus: null,
      error: { message: 'no answer within 10000 ms' },
      durationMs: 10000,
    });
    const j = judgeCopy(steps, transaction);
    expect(j.outcome).toBe('stalled');
    expect(j.reason).toMatch(/late\.copy-done .*no answer within 10000 ms/);
  });
  test('dropped: the connection ended during the COPY', () => {
    const steps = pooled();
    Object.assign(
      steps.find((s) => s.tag === COPY_TAGS.txDone)!,
      { error: { message: 'connection closed' }, txStatus: null },
    );
    expect(judgeCopy(steps, transaction).outcome).toBe('dropped');
  });
  test('inconclusive on a reply that broke the protocol (the engine reports the violation itself)', () => {
    const steps = pooled();
    Object.assign(
      steps.find((s) => s.tag === COPY_TAGS.txOut)!,
      { error: { code: 'PROTOCOL_VIOLATION', message: 'bad CopyData' } },
    );
    const j = judgeCopy(steps, transaction);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/broke the protocol: bad CopyData/);
  });
  test('rejected: the COPY statement was refused', () => {
    const steps = pooled();
    Object.assign(steps[0]!, { error: err('0A000', 'COPY is not supported'), txStatus: 'E' });
    expect(judgeCopy(steps, transaction).outcome).toBe('rejected');
  });
  test("mismatched: the CopyFail's row landed", () => {
    const steps = pooled();
    steps.find((s) => s.tag === COPY_TAGS.txOut)!.results = [[{ pid: 101, landed: '4' }]];
    const j = judgeCopy(steps, transaction);
    expect(j.outcome).toBe('mismatched');
    expect(j.reason).toMatch(/landed = 4 where PostgreSQL gives 3/);
  });
  test('mismatched: COPY TO STDOUT sent other rows', () => {
    const steps = pooled();
    steps.find((s) => s.tag === COPY_TAGS.txCopied)!.results = [[{ copied: '1\n2\n' }]];
    expect(judgeCopy(steps, transaction).outcome).toBe('mismatched');
  });
  test("inherited: the next client on A's backend after the late CopyDone got an error", () => {
    const j = judgeCopy(
      pooled({ error: err('08P01', 'unexpected message type 0x51 during COPY from stdin'), row: { pid: 102 } }),
      transaction,
    );
    expect(j.outcome).toBe('inherited');
    expect(j.reason).toMatch(/08P01/);
  });
  test("inherited: a client competing during the late COPY was given A's backend in the middle of it", () => {
    const steps = pooled();
    const at = steps.findIndex((s) => s.tag === COPY_TAGS.lateData);
    steps.splice(
      at + 1,
      0,
      step('C1', COPY_TAGS.during, 102, null, {
        error: err('08P01', 'unexpected message type 0x51 during COPY from stdin'),
      }),
    );
    const j = judgeCopy(steps, transaction);
    expect(j.outcome).toBe('inherited');
    expect(j.facts.handedOutMidCopy).toBe(true);
    expect(j.reason).toMatch(/while A's COPY was open on backend 102, another client \(C1\) was given it: 08P01/);
  });
  test('works: the client competing during the late COPY got the other backend, the next one queued', () => {
    const steps = pooled();
    const at = steps.findIndex((s) => s.tag === COPY_TAGS.lateData);
    steps.splice(
      at + 1,
      0,
      step('C1', COPY_TAGS.during, 101, { pid: 101 }, { txStatus: 'T' }),
      step('C2', COPY_TAGS.during, null, null, { timedOut: true, error: { message: 'no backend within 250 ms' } }),
    );
    const j = judgeCopy(steps, transaction);
    expect(j.outcome).toBe('works');
    expect(j.facts.handedOutMidCopy).toBe(false);
  });
  test("inherited: the next client's BEGIN warned of a transaction in progress", () => {
    const j = judgeCopy(
      pooled({
        notices: [{ severity: 'WARNING', code: '25001', message: 'there is already a transaction in progress' }],
      }),
      transaction,
    );
    expect(j.outcome).toBe('inherited');
  });
  /** No candidate on A's backend after the error phase; the probe showed it idle. */
  function keptAfterError(): StepRecord[] {
    hand.restart();
    const steps = [...aSteps(), ...landing('late:', 102, 101), ...errorSteps()];
    steps.push(
      step('Oerror1', 'error:observe.take', 102, { pid: 102 }, { txStatus: 'T' }),
      step('Oerror2', 'error:observe.take', null, null, {
        timedOut: true,
        error: { message: 'no backend within 800 ms' },
      }),
      step('Oerror1', 'error:observe.probe', null, { target_pid: 101, present: 1, state: 'idle', quiet: true }),
    );
    return steps;
  }
  test("pinned: no candidate got A's idle backend after the COPY error, and the probe showed it idle", () => {
    const j = judgeCopy(keptAfterError(), transaction);
    expect(j.outcome).toBe('pinned');
    expect(j.facts.afterError).toBe('pinned');
  });
  test('works under session pooling: the backend kept while A stays connected is its own', () => {
    const j = judgeCopy(keptAfterError(), session);
    expect(j.outcome).toBe('works');
    expect(j.facts.afterError).toBe('works');
  });
  test("inconclusive: nobody landed on A's backend and nothing proves it was kept", () => {
    hand.restart();
    const steps = [...aSteps(), ...landing('late:', 102, 101), ...errorSteps()];
    steps.push(step('Oerror1', 'error:observe.take', 102, { pid: 102 }, { txStatus: 'T' }));
    expect(judgeCopy(steps, transaction).outcome).toBeNull();
  });
});
