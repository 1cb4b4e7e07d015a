/**
 * Two runs on one pooler never collide: every name and value a check plants derives from the
 * run id, and numbers (lock keys, statement timeouts) are spread widely enough that one run's
 * sweep never recognises - and resets - another run's state in the middle of its check.
 */
import { describe, expect, test } from 'vitest';
import { markersFor, newRunId } from '../../engine/record/markers.js';
import { applicationNameFor } from '../../engine/session/session.js';
import { CATALOGUE } from '../../suites/catalogue.js';

const ids = CATALOGUE.map((c) => c.id);
const runs = Array.from({ length: 200 }, () => newRunId());

describe('markers', () => {
  test('within a run, every check has its own lock keys, timeout and names', () => {
    const all = ids.map((id) => markersFor('0123abcd', id));
    const keys = all.flatMap((m) => [m.lockKey, m.lockKey2]);
    expect(new Set(keys).size).toBe(keys.length);
    // Both timeout markers of every check, all distinct: session/lock-timeout-leak once set
    // lock_timeout to the statement_timeout marker: one value marked two settings.
    const timeouts = all.flatMap((m) => [m.statementTimeout, m.lockTimeout]);
    expect(new Set(timeouts).size).toBe(timeouts.length);
    expect(new Set(all.map((m) => m.channel)).size).toBe(all.length);
    expect(new Set(all.map((m) => m.tag)).size).toBe(all.length);
  });

  test('200 runs share no lock key, timeout, channel, table, statement or GUC value', () => {
    for (const id of ids) {
      const ms = runs.map((r) => markersFor(r, id));
      for (const field of [
        'lockKey',
        'lockKey2',
        'statementTimeout',
        'lockTimeout',
        'channel',
        'tempTable',
        'table',
        'preparedName',
        'cursorName',
        'schemaName',
        'tag',
      ] as const) {
        expect(new Set(ms.map((m) => m[field])).size, `${id} ${field}`).toBe(runs.length);
      }
    }
  });

  test('values stay harmless and exact: lock keys are int4, a timeout of at least an hour that SHOW prints back in ms', () => {
    for (const r of runs.slice(0, 20)) {
      for (const id of ids) {
        const m = markersFor(r, id);
        for (const k of [m.lockKey, m.lockKey2]) expect(k >= 0 && k <= 0x7fffffff).toBe(true);
        for (const t of [m.statementTimeout, m.lockTimeout]) {
          const ms = Number(t.replace(/ms$/, ''));
          expect(ms).toBeGreaterThanOrEqual(3_600_000);
          expect(ms).toBeLessThanOrEqual(2_147_483_647);
          expect(ms % 1000).not.toBe(0);
        }
      }
    }
  });

  test("a run's sessions are recognisable as its own, and never mistaken for a check's marker", () => {
    const app = applicationNameFor('0123abcd');
    expect(app).toBe('pooltest-0123abcd');
    // The sweep treats `pooltest-<run>-...` as a leftover; the run's own name must not match.
    for (const id of ids) expect(markersFor('0123abcd', id).tag.startsWith(`${app}-`)).toBe(true);
    expect(app.startsWith('pooltest-0123abcd-')).toBe(false);
  });
});
