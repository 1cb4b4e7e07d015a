/**
 * The terminal: checks grouped by severity (security, correctness, availability), --quiet
 * down to what a CI log needs, --verbose with every step, and progress that says which check
 * runs and how many are left.
 */
import { describe, expect, test } from 'vitest';
import { checkIdOf, createProgress } from '../../reporters/progress-reporter.js';
import { renderDiff } from '../../reporters/diff-terminal.js';
import { diffReports } from '../../reporters/report-diff.js';
import { renderQuiet, renderReport } from '../../reporters/terminal-reporter.js';
import { pgbouncerReport, troubledReport } from './samples.js';

describe('terminal report', () => {
  test('groups checks by severity, worst first, under one header', () => {
    const out = renderReport(troubledReport(), { color: false, width: 200 });
    const lines = out.split('\n');
    const security = lines.indexOf('security (1)');
    const correctness = lines.findIndex((l) => l.startsWith('correctness ('));
    expect(security).toBeGreaterThan(lines.findIndex((l) => l.startsWith('CHECK')));
    expect(correctness).toBeGreaterThan(security);
    expect(lines[security + 1]).toMatch(/^locks\/advisory-session\s+shared/);
    expect(out).toMatch(/session\/set-leak\s+leaked\s+session\s+FAIL/);
    expect(out).toContain('why:      steering failed');
  });

  test('--quiet prints the failed checks, a dirty sweep, the summary and the inconclusive warning, nothing else', () => {
    const troubled = troubledReport();
    const out = renderQuiet(troubled, { color: false });
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^FAIL session\/set-leak: observed leaked, expected session: /);
    expect(lines.slice(1).map((l) => l.split(':')[0])).toEqual([
      'Sweep',
      `Summary  ${troubled.checks.length} checks`,
      '  1 inconclusive check(s) proved nothing and do not change the exit code; --strict makes them fail the run',
    ]);
    expect(renderQuiet(pgbouncerReport(), { color: false }).trimEnd().split('\n')).toHaveLength(2);
  });

  test('an interrupted run (exit 130) said its inconclusive checks "do not change the exit code; --strict makes them fail": now it says they were cut short', () => {
    const troubled = troubledReport();
    const report = { ...troubled, summary: { ...troubled.summary, interrupted: true, exitCode: 130 } };
    const out = renderReport(report, { color: false, width: 200 });
    expect(out).toContain('  the run was interrupted: run it again for an outcome of the 1 inconclusive check(s)');
    expect(out).not.toContain('--strict makes them fail');
  });

  test('--verbose adds every recorded step with its backend', () => {
    const report = pgbouncerReport();
    const plain = renderReport(report, { color: false, width: 200 });
    const verbose = renderReport(report, { color: false, width: 200, verbose: true });
    const steps = report.checks.reduce((n, c) => n + c.steps.length, 0);
    expect(verbose.split('\n').length - plain.split('\n').length).toBeGreaterThanOrEqual(steps);
    // A's first step as recorded (its number and backend come from the report, not one run).
    const create = report.checks[0]!.steps.find((st) => st.tag === 'A.create' && st.pid !== null)!;
    expect(verbose).toMatch(new RegExp(` ${create.seq} A {3}pid +${create.pid} {2}A\\.create: `));
    // A step that ran on no backend shows a dash where the pid goes.
    expect(verbose).toMatch(/ \d+ run pid {6}- {2}run\.markers: /);
  });
});

describe('progress', () => {
  const results = pgbouncerReport().checks.slice(0, 3);

  test('in a log (no TTY): one line per finished check with the count and what is left', () => {
    let out = '';
    const p = createProgress({ total: 3, color: false, tty: false, write: (t) => (out += t) });
    for (const r of results) {
      p.onCheckStart(`/x/dist/suites/${r.id}.test.js`);
      p.onCheckResult(r);
    }
    const line = (i: number, left: string): string =>
      `  [${i + 1}/3] ${results[i]!.id}: ${results[i]!.outcome} ${results[i]!.verdict} (${results[i]!.durationMs} ms), ${left}`;
    expect(results.every((r) => r.outcome !== null && r.verdict === 'pass')).toBe(true);
    expect(out.split('\n').filter(Boolean)).toEqual([line(0, '2 left'), line(1, '1 left'), line(2, 'done')]);
  });

  test('on a terminal: the running check is shown, then overwritten by its result', () => {
    let out = '';
    const p = createProgress({ total: 3, color: false, tty: true, label: 'baseline', write: (t) => (out += t) });
    p.onCheckStart('/x/suites/session/set-leak.test.ts');
    expect(out).toBe('\r\x1b[2K  baseline [1/3] session/set-leak ...');
    p.onCheckResult(results[0]!);
    expect(out.endsWith(', 2 left\n')).toBe(true);
    expect(out).toContain('\r\x1b[2K  baseline [1/3] session/set-leak: leaked pass');
  });

  test('a suite file names its check', () => {
    expect(checkIdOf('/usr/lib/node_modules/pooltest/dist/suites/locks/advisory-xact.test.js')).toBe(
      'locks/advisory-xact',
    );
    expect(checkIdOf('C:\\p\\suites\\temp\\temp-table.test.ts')).toBe('temp/temp-table');
  });
});

describe('column widths', () => {
  /** Where each column starts on a line: after a run of two or more spaces. */
  const starts = (line: string): number[] => [
    0,
    ...[...line.matchAll(/ {2,}(?=\S)/g)].map((m) => m.index + m[0].length),
  ];

  test("the outcome and expected columns fit the widest label of the vocabulary (pgpool's one-per-client)", () => {
    const r = pgbouncerReport();
    const c = r.checks[0]!;
    Object.assign(c, { outcome: 'one-per-client', expected: 'one-per-client', verdict: 'pass' });
    const lines = renderReport(r, { color: false, width: 200 }).split('\n');
    const header = lines.find((l) => l.startsWith('CHECK'))!;
    const row = lines.find((l) => l.startsWith(`${c.id} `))!;
    expect(starts(row)).toEqual(starts(header));
  });

  test('the diff table stays aligned for it too', () => {
    const oldR = pgbouncerReport();
    const newR = pgbouncerReport();
    newR.runId = 'other';
    newR.checks[0]!.outcome = 'one-per-client';
    const lines = renderDiff(diffReports(oldR, newR), { color: false, width: 200 }).split('\n');
    const header = lines.find((l) => l.startsWith('CHECK'))!;
    const row = lines.find((l) => l.startsWith(`${newR.checks[0]!.id} `))!;
    expect(starts(row)).toEqual(starts(header));
  });
});
