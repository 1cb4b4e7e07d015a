/**
 * The skip that keeps a default run from wedging a pooler it identified: the pipeline checks
 * are not run against pgagroal's transaction pipeline unless `--run-wedging`, and run
 * everywhere else (its session pipeline, PgBouncer, an unidentified pooler).
 */
import { describe, expect, test } from 'vitest';
import { skipReason } from '../../engine/execute/execute.js';
import type { RunContext } from '../../engine/steering/scenario.js';
import { CATALOGUE } from '../../suites/catalogue.js';

const TARGET = { sslmode: 'disable' } as RunContext['target'];

function ctx(pooler: string | null, mode: RunContext['discovery']['mode'], runWedging = false): RunContext {
  const discovery = { mode, pooler: pooler === null ? null : { name: pooler, version: null, how: 'test' } };
  return { target: TARGET, discovery, runWedging, fixture: true } as RunContext;
}

const skippedOn = (c: RunContext): string[] => CATALOGUE.filter((d) => skipReason(d, c) !== null).map((d) => d.id);

describe('checks known to wedge a pooler', () => {
  test('pgagroal in transaction mode: the pipeline checks and transactions/abandoned are skipped, with why and the flag that runs them', () => {
    const c = ctx('pgagroal', 'transaction');
    const known = (id: string) => id.startsWith('pipeline/') || id === 'transactions/abandoned';
    const wedging = CATALOGUE.filter((d) => known(d.id));
    expect(wedging.length).toBe(5);
    for (const d of wedging)
      expect(skipReason(d, c)).toMatch(/known to wedge pgagroal in transaction mode \(.*spinning.*\); --run-wedging/);
    // Only those: copy/in-out and prepared/close leave it answering (whole runs in a row).
    expect(skippedOn(c).filter((id) => !known(id))).toEqual(
      skippedOn(ctx(null, 'transaction')).filter((id) => !known(id)),
    );
  });

  test('--run-wedging runs them; other poolers and modes never skip them', () => {
    for (const c of [
      ctx('pgagroal', 'transaction', true),
      ctx('pgagroal', 'session'),
      ctx('pgbouncer', 'transaction'),
      ctx(null, 'transaction'),
    ])
      expect(
        skippedOn(c).filter((id) => id.startsWith('pipeline/')),
        JSON.stringify(c.discovery),
      ).toEqual([]);
  });
});
