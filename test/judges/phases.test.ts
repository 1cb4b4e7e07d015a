/** Combining the phases of one check (engine/judging/phases.ts): the worst label, and when not to conclude. */
import { describe, expect, test } from 'vitest';
import { phaseSteps, worstOf } from '../../engine/judging/phases.js';
import type { Judgement, StepRecord } from '../../engine/types.js';

const ORDER = ['leaked', 'lost', 'session'];
// A labelled judgement, or (null) an inconclusive one, or a skipped one when `skipped` says so.
const j = (outcome: string | null, extra: { skipped?: true } = {}): Judgement => {
  const base = { facts: { seen: outcome !== null }, reason: `saw ${outcome}` };
  if (outcome !== null) return { ...base, outcome };
  return extra.skipped ? { ...base, outcome, skipped: true } : { ...base, outcome };
};

describe('worstOf', () => {
  test('the worst label wins, and every phase keeps its facts under its name', () => {
    const r = worstOf(
      [
        { phase: 'a', judgement: j('session') },
        { phase: 'b', judgement: j('lost') },
      ],
      ORDER,
    );
    expect(r.outcome).toBe('lost');
    expect(r.facts).toEqual({ 'a.outcome': 'session', 'a.seen': true, 'b.outcome': 'lost', 'b.seen': true });
    expect(r.reason).toBe('a: session (saw session); b: lost (saw lost)');
  });
  test('an inconclusive phase makes the whole inconclusive, unless the worst label is already seen', () => {
    expect(
      worstOf(
        [
          { phase: 'a', judgement: j(null) },
          { phase: 'b', judgement: j('lost') },
        ],
        ORDER,
      ).outcome,
    ).toBeNull();
    expect(
      worstOf(
        [
          { phase: 'a', judgement: j(null) },
          { phase: 'b', judgement: j('leaked') },
        ],
        ORDER,
      ).outcome,
    ).toBe('leaked');
  });
  test('a label outside the ranking ranks last', () => {
    expect(
      worstOf(
        [
          { phase: 'a', judgement: j('other') },
          { phase: 'b', judgement: j('session') },
        ],
        ORDER,
      ).outcome,
    ).toBe('session');
  });
  test('skipped only when every phase is', () => {
    const skipped = j(null, { skipped: true });
    expect(
      worstOf(
        [
          { phase: 'a', judgement: skipped },
          { phase: 'b', judgement: skipped },
        ],
        ORDER,
      ),
    ).toMatchObject({ outcome: null, skipped: true });
    expect(
      worstOf(
        [
          { phase: 'a', judgement: skipped },
          { phase: 'b', judgement: j('lost') },
        ],
        ORDER,
      ).skipped,
    ).toBeUndefined();
    expect(worstOf([], ORDER).outcome).toBeNull();
  });
});

describe('phaseSteps', () => {
  test("keeps one phase's steps, under their plain tags", () => {
    const step = (tag: string): StepRecord => ({
      seq: 1,
      session: 'A',
      tag,
      sql: '',
      pid: 1,
      results: [],
      error: null,
      notices: [],
      notifications: [],
      startMs: 0,
      durationMs: 0,
      timedOut: false,
      txStatus: 'I',
    });
    const steps = [step('set:A.create'), step('set_config:A.create'), step('set:observe.take.connect')];
    expect(phaseSteps(steps, 'set').map((s) => s.tag)).toEqual(['A.create', 'observe.take.connect']);
    expect(steps[0]!.tag).toBe('set:A.create');
  });
});
