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
import type { Report } from '../../engine/types.js';
import { directReport, pgbouncerReport } from './samples.js';

describe('which outcomes break applications', () => {
  test('every label of every check is in the table, and nothing else is', () => {
    // Strings, not labels: the table's keys are checked against the set, and a key may be a
    // word no check reports.
    const labels = new Set<string>(Object.values(CHECK_LABELS).flat());
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

/**
 * The change the diff must report for one check, from the two stored outcomes and the breaks
 * table alone: the contract of ChangeKind, written out so the tests follow whatever the stored
 * runs recorded instead of one recording's literals.
 */
function expectedChange(o: string | null | undefined, n: string | null | undefined): string {
  if (o == null || n == null) return 'unknown';
  if (o === n) return 'same';
  if (outcomeBreaks(n) === true) return 'breaks';
  if (outcomeBreaks(n) === 'unknown') return 'unknown';
  return outcomeBreaks(o) === true ? 'fixed' : 'changed';
}

/** Each check id of either report with the change expected from OLD to NEW. */
function expectedChanges(oldR: Report, newR: Report): Record<string, string> {
  const outcome = (r: Report, id: string) => r.checks.find((c) => c.id === id)?.outcome;
  const ids = new Set([...oldR.checks, ...newR.checks].map((c) => c.id));
  return Object.fromEntries([...ids].map((id) => [id, expectedChange(outcome(oldR, id), outcome(newR, id))]));
}

const tally = (changes: Record<string, string>, kind: string): number =>
  Object.values(changes).filter((c) => c === kind).length;

describe('diffReports', () => {
  test('direct to PgBouncer transaction pooling: each leak is a break, with its advice', () => {
    const diff = diffReports(directReport(), pgbouncerReport());
    const change = Object.fromEntries(diff.entries.map((e) => [e.id, e.change]));
    const expected = expectedChanges(directReport(), pgbouncerReport());
    expect(change).toEqual(expected);
    // What transaction pooling does to these checks whatever the recording: a plain SET leaks,
    // SET LOCAL stays scoped, and the custom-GUC check is left out of PgBouncer's sample.
    expect(change).toMatchObject({
      'session/set-leak': 'breaks',
      'session/set-local': 'same',
      'session/custom-guc-leak': 'unknown',
    });
    const setLeak = diff.entries.find((e) => e.id === 'session/set-leak')!;
    expect(setLeak).toMatchObject({
      old: 'session',
      new: 'leaked',
      why: 'session becomes leaked, which breaks applications',
    });
    expect(setLeak.advice).toContain('SET LOCAL');
    const breaks = tally(expected, 'breaks');
    expect(breaks).toBeGreaterThan(1);
    expect(diff.summary).toEqual({
      breaks,
      fixed: tally(expected, 'fixed'),
      same: tally(expected, 'same'),
      changed: tally(expected, 'changed'),
      unknown: tally(expected, 'unknown'),
      exitCode: 1,
    });
    expect(diff.new.pooler).toBe(`PgBouncer ${pgbouncerReport().discovery.pooler!.version}`);
  });

  test('the way back fixes what broke and gates nothing', () => {
    const diff = diffReports(pgbouncerReport(), directReport());
    expect(diff.entries.find((e) => e.id === 'session/set-leak')).toMatchObject({ change: 'fixed', advice: null });
    // What broke on the way there is fixed on the way back, one for one.
    const there = tally(expectedChanges(directReport(), pgbouncerReport()), 'breaks');
    expect(diff.summary).toMatchObject({ breaks: 0, fixed: there, exitCode: 0 });
  });

  test('a check without an outcome on either side is unknown, never same or fixed', () => {
    const after = pgbouncerReport();
    Object.assign(after.checks[0]!, { outcome: null, verdict: 'inconclusive', reason: 'steering failed' });
    const entry = diffReports(pgbouncerReport(), after).entries[0]!;
    expect(entry).toMatchObject({ change: 'unknown', why: 'NEW has no outcome (inconclusive): steering failed' });
  });

  test('a check both runs skipped said "OLD has no outcome", as if NEW had one: now both skipped, and why', () => {
    const skip = (r: Report, reason: string): Report => {
      Object.assign(r.checks[0]!, { outcome: null, verdict: 'skipped', reason });
      return r;
    };
    const why = 'the login may not SET ROLE to any role';
    const same = diffReports(skip(pgbouncerReport(), why), skip(pgbouncerReport(), why)).entries[0]!;
    expect(same).toMatchObject({ change: 'unknown', why: `skipped in both runs: ${why}` });
    const apart = diffReports(skip(pgbouncerReport(), why), skip(pgbouncerReport(), 'needs --direct')).entries[0]!;
    expect(apart.why).toBe(`skipped in both runs: OLD: ${why}; NEW: needs --direct`);
    const before = pgbouncerReport();
    Object.assign(before.checks[0]!, { outcome: null, verdict: 'inconclusive', reason: 'steering failed' });
    expect(diffReports(before, skip(pgbouncerReport(), why)).entries[0]!.why).toBe(
      `no outcome in either run: OLD inconclusive (steering failed), NEW skipped (${why})`,
    );
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
    const { breaks, fixed, same, changed, unknown } = diff.summary;
    expect(breaks).toBeGreaterThan(0);
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      `Changes  ${breaks} break(s), ${fixed} fixed, ${same} same, ${changed} changed, ${unknown} unknown  exit 1`,
    );
    const quiet = renderDiff(diff, { color: false, quiet: true }).trimEnd().split('\n');
    // Quiet: one line per break, then the summary line.
    expect(quiet).toHaveLength(breaks + 1);
    expect(quiet.slice(0, -1).every((l) => l.startsWith('BREAKS '))).toBe(true);
    const md = renderDiffMarkdown(diff);
    expect(md).toContain(
      '| `session/set-leak` SET statement\\_timeout stays with the client that ran it | correctness | `session` | `leaked` | ❌ **breaks** |',
    );
    expect(md).toContain('#### Breaks');
    expect(md).toMatch(/- `notify\/listen`: `delivered` → `misrouted`\. LISTEN on a direct/);
  });
});
