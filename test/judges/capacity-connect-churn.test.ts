/**
 * capacity/connect-churn's judge, from real event logs (test/recorded/connect-churn.json,
 * `node dist/bench/record-check.js capacity/connect-churn ...`) and explicit edits of their latencies for the outcomes a
 * given machine does not show.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { CHURN_THRESHOLD, judgeChurn, quantile } from '../../suites/capacity/connect-churn.check.js';
import type { StepRecord } from '../../engine/types.js';
import { REPO } from '../support/cli.js';

const RECORDED = JSON.parse(readFileSync(path.join(REPO, 'test/recorded/connect-churn.json'), 'utf8')) as Record<
  string,
  { outcome: string | null; steps: StepRecord[] }
>;

function steps(fixture = 'pgbouncer-transaction'): StepRecord[] {
  return structuredClone(RECORDED[fixture]!.steps);
}

/** Sets one side's recorded latencies (and failures). */
function setSide(all: StepRecord[], tag: string, latencies: number[], failures = 0): StepRecord[] {
  const row = all.find((s) => s.tag === tag)!.results[0]![0]!;
  row.latenciesMs = latencies.join(',');
  row.failures = failures;
  return all;
}

const many = (ms: number, n = 60): number[] => Array<number>(n).fill(ms);

describe('capacity/connect-churn judge', () => {
  test.each(Object.keys(RECORDED))(
    "the recorded run against %s judges as it did, with both sides' figures as facts",
    (fixture) => {
      const j = judgeChurn(steps(fixture));
      expect(j.outcome).toBe(RECORDED[fixture]!.outcome);
      expect(j.outcome).not.toBeNull();
      for (const key of [
        'targetPerSecond',
        'targetP50Ms',
        'targetP99Ms',
        'directPerSecond',
        'directP50Ms',
        'directP99Ms',
        'speedup',
      ])
        expect(j.facts[key], key).toEqual(expect.any(Number));
      expect(j.facts.targetConnections).toBe(60);
      // Direct: every connection is a new backend; through a pooler, a few serve them all.
      expect(j.facts.directBackends).toBe(60);
      if (fixture !== 'direct') expect(j.facts.targetBackends as number).toBeLessThanOrEqual(2);
    },
  );

  test('a shorter cycle through the target is faster, a longer one slower, a small difference the same', () => {
    expect(judgeChurn(setSide(setSide(steps(), 'churn.target', many(1)), 'churn.direct', many(19))).outcome).toBe(
      'faster',
    );
    expect(
      judgeChurn(setSide(setSide(steps(), 'churn.target', many(1)), 'churn.direct', many(19))).facts.speedup,
    ).toBeCloseTo(19, 0);
    expect(judgeChurn(setSide(setSide(steps(), 'churn.target', many(10)), 'churn.direct', many(5))).outcome).toBe(
      'slower',
    );
    expect(judgeChurn(setSide(setSide(steps(), 'churn.target', many(10)), 'churn.direct', many(11))).outcome).toBe(
      'same',
    );
    // Right at the threshold it counts as faster; just under, not.
    expect(
      judgeChurn(setSide(setSide(steps(), 'churn.target', many(4, 30)), 'churn.direct', many(4 * CHURN_THRESHOLD, 30)))
        .outcome,
    ).toBe('faster');
    expect(
      judgeChurn(setSide(setSide(steps(), 'churn.target', many(4, 30)), 'churn.direct', many(4.9, 30))).outcome,
    ).toBe('same');
  });

  test('too few cycles, a side that keeps failing, or a missing side prove nothing', () => {
    expect(judgeChurn(setSide(steps(), 'churn.target', many(1, 5))).reason).toMatch(
      /only 5 connect cycles completed through the target/,
    );
    const failing = judgeChurn(setSide(steps(), 'churn.direct', many(5, 40), 10));
    expect(failing.outcome).toBeNull();
    expect(failing.reason).toMatch(/10 of 50 connect cycles failed directly/);
    expect(judgeChurn(steps().filter((s) => s.tag !== 'churn.direct')).outcome).toBeNull();
    expect(judgeChurn([]).outcome).toBeNull();
  });

  test('quantiles are nearest-rank', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(xs, 0.5)).toBe(50);
    expect(quantile(xs, 0.99)).toBe(99);
    expect(quantile([3, 1, 2], 0.5)).toBe(2);
    expect(quantile([], 0.5)).toBe(0);
  });
});
