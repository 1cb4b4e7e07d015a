/**
 * What changes for the application between two runs, from two real reports: PostgreSQL direct
 * (OLD) and PgBouncer in transaction mode (NEW). The breaks table behind it covers every label
 * of the contract.
 */
import { describe, expect, test } from 'vitest';
import { CHECK_LABELS } from '../../suites/labels.js';
import { OUTCOME_BREAKS, outcomeBreaks } from '../../suites/outcome-breaks.js';
import { diffReports } from '../../reporters/report-diff.js';
import { renderDiffMarkdown } from '../../reporters/diff-markdown.js';
import { renderDiff } from '../../reporters/diff-terminal.js';
import { directReport, pgbouncerReport } from './samples.js';

describe('which outcomes break applications', () => {
  test('every label of every check is in the table, and nothing else is', () => {
    const labels = new Set(Object.values(CHECK_LABELS).flat());
    expect([...labels].filter((l) => !(l in OUTCOME_BREAKS))).toEqual([]);
    expect(Object.keys(OUTCOME_BREAKS).filter((l) => !labels.has(l))).toEqual([]);
  });

  test('state escaping or vanishing breaks; staying, following or being scoped does not', () => {
    expect(['leaked', 'lost', 'shared', 'misrouted', 'rejected'].map(outcomeBreaks)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['session', 'tracked', 'scoped', 'exclusive', 'delivered'].map(outcomeBreaks)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(outcomeBreaks(null)).toBe('unknown');
    expect(outcomeBreaks('toString')).toBe('unknown');
  });
});

describe('diffReports', () => {
  test('direct to PgBouncer transaction pooling: each leak is a break, with its advice', () => {
    const diff = diffReports(directReport(), pgbouncerReport());
    const change = Object.fromEntries(diff.entries.map((e) => [e.id, e.change]));
    expect(change).toMatchObject({
      'session/set-leak': 'breaks',
      'temp/temp-table': 'breaks',
      'locks/advisory-session': 'breaks',
      'notify/listen': 'breaks',
      'prepared/sql-prepare': 'breaks',
      'session/set-local': 'same',
      'session/tracked-parameter': 'changed',
      // only in OLD's run
      'session/custom-guc-leak': 'unknown',
    });
    const setLeak = diff.entries.find((e) => e.id === 'session/set-leak')!;
    expect(setLeak).toMatchObject({
      old: 'session',
      new: 'leaked',
      why: 'session becomes leaked, which breaks applications',
    });
    expect(setLeak.advice).toContain('SET LOCAL');
    expect(diff.summary).toEqual({ breaks: 5, fixed: 0, same: 1, changed: 1, unknown: 1, exitCode: 1 });
    expect(diff.new.pooler).toBe('PgBouncer 1.18.0');
  });

  test('the way back fixes what broke and gates nothing', () => {
    const diff = diffReports(pgbouncerReport(), directReport());
    expect(diff.entries.find((e) => e.id === 'session/set-leak')).toMatchObject({ change: 'fixed', advice: null });
    expect(diff.summary).toMatchObject({ breaks: 0, fixed: 5, exitCode: 0 });
  });

  test('a check without an outcome on either side is unknown, never same or fixed', () => {
    const after = pgbouncerReport();
    Object.assign(after.checks[0]!, { outcome: null, verdict: 'inconclusive', reason: 'steering failed' });
    const entry = diffReports(pgbouncerReport(), after).entries[0]!;
    expect(entry).toMatchObject({ change: 'unknown', why: 'NEW has no outcome (inconclusive): steering failed' });
  });

  test('one breaking behaviour replaced by another is still a break', () => {
    const after = pgbouncerReport();
    Object.assign(after.checks[0]!, { outcome: 'lost' });
    expect(diffReports(pgbouncerReport(), after).entries[0]).toMatchObject({
      change: 'breaks',
      why: 'a different breaking behaviour: leaked becomes lost',
    });
  });

  test('the terminal and Markdown views show both sides, each break and its advice', () => {
    const diff = diffReports(directReport(), pgbouncerReport());
    const text = renderDiff(diff, { color: false, width: 300 });
    expect(text).toMatch(/session\/set-leak\s+session\s+leaked\s+BREAKS/);
    expect(text).toContain('    advice: Use SET LOCAL');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'Changes  5 break(s), 0 fixed, 1 same, 1 changed, 1 unknown  exit 1',
    );
    const quiet = renderDiff(diff, { color: false, quiet: true }).trimEnd().split('\n');
    expect(quiet).toHaveLength(6);
    const md = renderDiffMarkdown(diff);
    expect(md).toContain(
      '| `session/set-leak` SET statement\\_timeout stays with the client that ran it | correctness | `session` | `leaked` | ❌ **breaks** |',
    );
    expect(md).toContain('#### Breaks');
    expect(md).toMatch(/- `notify\/listen`: `delivered` → `misrouted`\. LISTEN on a direct/);
  });
});
