/**
 * prepared/close: its judge on hand-built records of the check's own scenario, one per label,
 * and the paths on which it must not conclude. A's four steps (first Parse, Close, re-Parse,
 * Describe) each read the backend they ran on; the landings hold the backend before each.
 */
import { describe, expect, test } from 'vitest';
import { CLOSE_TAGS, DESCRIBED, judgeClose } from '../../suites/prepared/close.check.js';
import { HandSteps } from '../support/hand-steps.js';
import { recorded } from '../support/recorded.js';
import type { ErrorRecord, StepRecord } from '../../engine/types.js';

const direct = recorded('direct').discovery;
const transaction = recorded('pgbouncer-transaction').discovery;

const hand = new HandSteps({ txStatus: 'I' });
const step = hand.step;

interface Plan {
  /** Backends of A's four steps. */
  pids?: [number, number, number, number];
  reparse?: { row?: Record<string, unknown>; error?: ErrorRecord; timedOut?: boolean };
  describe?: { described?: string; error?: ErrorRecord };
  /** Where each landing's observer sat (null: nobody landed). */
  observers?: [number | null, number | null, number | null];
}

/** A pooler moving A between 101 and 102 while observers hold the backend it left. */
function record(p: Plan = {}): StepRecord[] {
  hand.restart();
  const [b1, b2, b3, b4] = p.pids ?? [101, 102, 101, 102];
  const obs = p.observers ?? [b1, b2, b3];
  const take = (phase: string, pid: number | null): StepRecord[] =>
    pid === null ? [] : [step('O', `${phase}observe.take`, pid, { pid }, { txStatus: 'T' })];
  const r = p.reparse ?? {};
  const d = p.describe ?? {};
  return [
    step('A', CLOSE_TAGS.parse, b1, { pid: b1, first_text: 1 }),
    ...take('parse:', obs[0]),
    step('A', CLOSE_TAGS.close, b2, { pid: b2 }),
    ...take('close:', obs[1]),
    step('A', CLOSE_TAGS.reparse, r.error ? null : b3, r.error ? null : (r.row ?? { pid: b3, second_text: 2 }), {
      error: r.error ?? (r.timedOut ? { message: 'no answer within 2000 ms' } : null),
      timedOut: r.timedOut ?? false,
    }),
    ...take('reparse:', obs[2]),
    step('A', CLOSE_TAGS.describe, b4, { pid: b4 }, { error: d.error ?? null }),
    step('A', CLOSE_TAGS.described, null, { [DESCRIBED]: d.error ? 'pid' : (d.described ?? 'pid,second_text') }),
  ];
}

describe('prepared/close: judge', () => {
  test('honoured: A moved at every step while a holder sat on the backend it left, and the new text ran and was described', () => {
    const j = judgeClose(record(), transaction);
    expect(j.outcome).toBe('honoured');
    expect(j.facts.moved).toBe(3);
  });
  test('honoured on direct: A kept its own backend, which nobody else could get', () => {
    const j = judgeClose(record({ pids: [101, 101, 101, 101], observers: [201, 202, 203] }), direct);
    expect(j.outcome).toBe('honoured');
    expect(j.facts.moved).toBe(0);
  });
  test('refused: the re-Parse on the first backend collides with the statement the Close never reached (42P05)', () => {
    const j = judgeClose(
      record({ reparse: { error: { code: '42P05', message: 'prepared statement "p" already exists' } } }),
      transaction,
    );
    expect(j.outcome).toBe('refused');
    expect(j.reason).toMatch(/42P05/);
  });
  test('refused: the Describe finds no statement on the backend A landed on (26000)', () => {
    const j = judgeClose(
      record({ describe: { error: { code: '26000', message: 'prepared statement "p" does not exist' } } }),
      transaction,
    );
    expect(j.outcome).toBe('refused');
  });
  test('stale: the re-Parse ran the first text', () => {
    expect(judgeClose(record({ reparse: { row: { pid: 101, first_text: 1 } } }), transaction).outcome).toBe('stale');
  });
  test('stale: the Describe described the first text', () => {
    expect(judgeClose(record({ describe: { described: 'pid,first_text' } }), transaction).outcome).toBe('stale');
  });
  test('stalled: the re-Parse got no answer within its bound', () => {
    const j = judgeClose(record({ reparse: { timedOut: true } }), transaction);
    expect(j.outcome).toBe('stalled');
    expect(j.reason).toMatch(/no answer within/);
  });
  test('rejected: the first Parse is refused', () => {
    const steps = record();
    steps[0] = {
      ...steps[0]!,
      pid: null,
      results: [],
      error: { code: '0A000', message: 'named statements are not supported' },
    };
    expect(judgeClose(steps, transaction).outcome).toBe('rejected');
  });
  test('inconclusive: A moved, but nobody held the backend it left', () => {
    const j = judgeClose(record({ observers: [null, 102, 101] }), transaction);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/no other client held 101/);
  });
  test('inconclusive: A stayed on a pooled backend and nothing proves nobody else could have it', () => {
    const j = judgeClose(record({ pids: [101, 101, 101, 101], observers: [102, 102, 102] }), transaction);
    expect(j.outcome).toBeNull();
  });
});
