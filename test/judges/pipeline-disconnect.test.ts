/**
 * pipeline/disconnect: its judge on hand-built records, one per label, and the paths on which
 * it must not conclude (nobody on A's backend and the backend still there; no later client).
 */
import { describe, expect, test } from 'vitest';
import { judgeDisconnect } from '../../suites/pipeline/disconnect.check.js';
import { PIPE_MARKER as M, RecordBuilder } from '../support/pipeline-recorded.js';

interface Round {
  next?: (b: RecordBuilder) => void;
  later?: (b: RecordBuilder) => void;
}

/** One round: A1 on 101 inside BEGIN leaves mid-pipeline; N lands on 101; L is served. */
function round(o: Round = {}) {
  const b = new RecordBuilder();
  b.add({
    session: 'A1',
    tag: 'A.pipe.1',
    pid: 101,
    txStatus: 'T',
    results: [[], [{ pid: '101', mark: `${M}-r1-s1` }]],
  });
  b.add({ session: 'A1', tag: 'A.inflight', txStatus: null });
  b.add({ session: 'A1', tag: 'A.left', txStatus: null });
  b.other('D', 'D.compete', 102, { seen: '' });
  (o.next ?? ((x) => x.other('N1.1', 'N.take', 101, { seen: '', leftover: 0 }, 'T')))(b);
  (
    o.later ??
    ((x) => {
      x.other('L1', 'L.pipe.1', 101, { pid: '101', echo: `${M}-r1-s1` });
      x.other('L1', 'L.pipe.2', 101, { pid: '101', echo: `${M}-r1-s2` });
    })
  )(b);
  return b.steps;
}

describe('pipeline/disconnect: judge', () => {
  test('the next client on the backend found nothing, the later client was served: clean', () => {
    const j = judgeDisconnect(round());
    expect(j.outcome, j.reason).toBe('clean');
  });

  test('nobody on the backend, and it ended: clean', () => {
    const j = judgeDisconnect(round({ next: (x) => x.other('P1', 'P.gone', 103, { alive: 0 }) }));
    expect(j.outcome, j.reason).toBe('clean');
  });

  test("a transaction in progress at the next client's BEGIN (25001): inherited", () => {
    const j = judgeDisconnect(
      round({
        next: (x) =>
          x.add({
            session: 'N1.1',
            tag: 'N.take',
            pid: 101,
            txStatus: 'T',
            results: [[], [{ pid: 101 }], [{ seen: '', leftover: 0 }]],
            notices: [{ severity: 'WARNING', code: '25001', message: 'there is already a transaction in progress' }],
          }),
      }),
    );
    expect(j.outcome).toBe('inherited');
  });

  test("the departed client's prepared statement on the backend: inherited; its value seen: inherited", () => {
    expect(
      judgeDisconnect(round({ next: (x) => x.other('N1.1', 'N.take', 101, { seen: '', leftover: 1 }, 'T') })).outcome,
    ).toBe('inherited');
    expect(
      judgeDisconnect(round({ next: (x) => x.other('N1.1', 'N.take', 101, { seen: `${M}-r1-s1`, leftover: 0 }, 'T') }))
        .outcome,
    ).toBe('inherited');
  });

  test("a later client's Parse collides (42P05): broken; its pipeline unanswered: stalled", () => {
    const collide = round({
      later: (x) => {
        x.add({
          session: 'L1',
          tag: 'L.pipe.1',
          error: { code: '42P05', message: 'prepared statement already exists' },
        });
        x.add({ session: 'L1', tag: 'L.pipe.2', error: { message: 'not answered' } });
      },
    });
    const j = judgeDisconnect(collide);
    expect(j.outcome).toBe('broken');
    expect(j.facts.sqlstate).toBe('42P05');
    const stall = round({
      later: (x) => {
        x.other('L1', 'L.pipe.1', 101, { pid: '101', echo: `${M}-r1-s1` });
        x.add({ session: 'L1', tag: 'L.pipe.2', timedOut: true, durationMs: 10_049, txStatus: null });
      },
    });
    expect(judgeDisconnect(stall).outcome).toBe('stalled');
  });

  test('control: nobody on the backend and it is still there: inconclusive', () => {
    const j = judgeDisconnect(round({ next: (x) => x.other('P1', 'P.gone', 103, { alive: 1 }) }));
    expect(j.outcome).toBeNull();
  });

  test('control: the later client could not log in: inconclusive, not broken', () => {
    expect(judgeDisconnect(round({ later: () => undefined })).outcome).toBeNull();
  });
});
