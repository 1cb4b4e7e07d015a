/**
 * auth/stale-password's judge, from real event logs (test/recorded/stale-password.json,
 * `node dist/bench/record-check.js auth/stale-password ... --fixture`) and explicit edits of
 * them for the cases the fixtures do not show (a reload that refreshes, a lockout, no answer).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { judgeStalePassword } from '../../suites/auth/stale-password.check.js';
import type { StepRecord } from '../../engine/types.js';
import { REPO } from '../support/cli.js';

const RECORDED = JSON.parse(readFileSync(path.join(REPO, 'test/recorded/stale-password.json'), 'utf8')) as Record<
  string,
  { outcome: string | null; steps: StepRecord[] }
>;
const steps = (fixture: string): StepRecord[] => structuredClone(RECORDED[fixture]!.steps);

/** Makes the login step `tag` served (a pid) or refused (28P01). */
function set(all: StepRecord[], tag: string, served: boolean): StepRecord[] {
  const s = all.find((x) => x.tag === tag)!;
  s.pid = served ? 4242 : null;
  s.results = served ? [[{ pid: 4242 }]] : [];
  s.error = served ? null : { code: '28P01', message: 'AUTH_FAILED: password authentication failed' };
  return all;
}

describe('auth/stale-password judge', () => {
  test('PgBouncer with an auth_file keeps admitting the old password and refusing the new, RELOAD or not', () => {
    for (const fixture of ['pgbouncer-transaction', 'pgbouncer-session']) {
      const j = judgeStalePassword(steps(fixture));
      expect(j.outcome, fixture).toBe('old-accepted');
      expect(j.facts).toMatchObject({
        oldAcceptedBefore: true,
        newAcceptedBefore: false,
        reloaded: true,
        oldAcceptedAfterReload: true,
        newAcceptedAfterReload: false,
      });
    }
  });

  test('PostgreSQL itself follows the change at once; pgpool-II admits the old password on a child it already has', () => {
    const direct = judgeStalePassword(steps('direct'));
    expect(direct.outcome).toBe('refreshed');
    expect(direct.facts).toMatchObject({ oldAcceptedBefore: false, newAcceptedBefore: true, reloaded: false });
    expect(direct.facts.reloadError).toMatch(/pgbouncer/);
    const pgpool = judgeStalePassword(steps('pgpool'));
    expect(pgpool.outcome).toBe('old-accepted');
    expect(pgpool.facts.oldAcceptedBefore).toBe(true);
  });

  test('the four cases: a reload that refreshes, and a pooler that locks the login out', () => {
    // auth_query-like: old refused and new admitted only after the reload.
    const afterReload = set(
      set(set(set(steps('pgbouncer-transaction'), 'before.old', false), 'before.new', false), 'after.old', false),
      'after.new',
      true,
    );
    const j = judgeStalePassword(afterReload);
    expect(j.outcome).toBe('refreshed');
    expect(j.facts).toMatchObject({
      caseBefore: 'old password refused, new refused',
      caseAfterReload: 'old password refused, new admitted',
    });
    const locked = set(
      set(set(set(steps('pgbouncer-transaction'), 'before.old', false), 'before.new', false), 'after.old', false),
      'after.new',
      false,
    );
    expect(judgeStalePassword(locked).outcome).toBe('rejected');
    // The control: the old password admitted only after the reload still counts.
    expect(judgeStalePassword(set(set(steps('direct'), 'after.old', true), 'before.old', false)).outcome).toBe(
      'old-accepted',
    );
  });

  test('no answer, a password the login may not change, or no change at all are not outcomes', () => {
    const silent = steps('pgbouncer-transaction');
    const step = silent.find((s) => s.tag === 'before.new')!;
    step.error = null;
    step.timedOut = true;
    expect(judgeStalePassword(silent)).toMatchObject({
      outcome: null,
      reason: expect.stringMatching(/newAcceptedBefore/),
    });
    const refused = steps('direct');
    refused.find((s) => s.tag === 'D.alter')!.error = { code: '42501', message: 'permission denied' };
    expect(judgeStalePassword(refused)).toMatchObject({ outcome: null, skipped: true });
    expect(judgeStalePassword(steps('direct').filter((s) => s.tag !== 'D.alter')).outcome).toBeNull();
  });

  test('the record never holds a password, only the statement with the password left out', () => {
    const text = JSON.stringify(RECORDED);
    expect(text).not.toMatch(/PASSWORD '/);
    expect(text).toContain('ALTER ROLE CURRENT_USER PASSWORD <new password, not shown>');
  });
});
