/**
 * pipeline/prepared: its judge on hand-built records, one per label, and the path on which it
 * must not conclude (every use on the backend that parsed it, under transaction pooling).
 */
import { describe, expect, test } from 'vitest';
import { judgePrepared } from '../../suites/pipeline/prepared.check.js';
import { recorded } from '../support/recorded.js';
import { PIPE_MARKER as M, RecordBuilder } from '../support/pipeline-recorded.js';

const direct = recorded('direct').discovery;
const transaction = recorded('pgbouncer-transaction').discovery;

const use = (b: RecordBuilder, seg: number, round: number, pid: number | null, echo?: string) =>
  b.add({
    session: 'A',
    tag: `A.pipe.${seg}`,
    pid,
    results: pid === null ? [] : [[{ pid: String(pid), echo: echo ?? `${M}-r${round}-s${seg}` }]],
    ...(pid === null ? { error: { code: '26000', message: 'prepared statement "x" does not exist' } } : {}),
  });

/** Round 1 on 101 (parsed there), round 2 on `pid2`. */
function twoRounds(pid2: number | null, echo?: string) {
  const b = new RecordBuilder();
  use(b, 1, 1, 101);
  use(b, 2, 1, 101);
  b.other('C2.1', 'C.hold', 101, {}, 'T');
  use(b, 1, 2, pid2, echo);
  use(b, 2, 2, pid2 ?? 102);
  return b.steps;
}

describe('pipeline/prepared: judge', () => {
  test('used without Parse on another backend, answered: works', () => {
    const j = judgePrepared(twoRounds(102), transaction);
    expect(j.outcome, j.reason).toBe('works');
    expect(j.facts.backendsUsed).toBe(2);
  });

  test('26000 on the other backend: failed, with the SQLSTATE', () => {
    const j = judgePrepared(twoRounds(null), transaction);
    expect(j.outcome).toBe('failed');
    expect(j.facts.sqlstate).toBe('26000');
  });

  test('a wrong value answered: failed', () => {
    expect(judgePrepared(twoRounds(102, 'someone else'), transaction).outcome).toBe('failed');
  });

  test('a use on the backend C held: leaked', () => {
    expect(judgePrepared(twoRounds(101), transaction).outcome).toBe('leaked');
  });

  test('control: every use on the parsing backend: inconclusive in transaction pooling, works on direct', () => {
    const b = new RecordBuilder();
    use(b, 1, 1, 101);
    use(b, 2, 1, 101);
    expect(judgePrepared(b.steps, transaction).outcome).toBeNull();
    expect(judgePrepared(b.steps, direct).outcome).toBe('works');
  });
});
