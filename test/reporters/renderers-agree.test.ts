/**
 * No renderer hides a break. One report, judged from recorded logs of a whole catalogue run
 * against PgBouncer 1.18 in transaction mode (its profile asserted, so `auth/stale-password`,
 * which no profile expects, is an observed security break), goes through every renderer: the
 * terminal, Markdown, HTML, JUnit, the matrix (terminal, Markdown, HTML) and the diff (terminal,
 * Markdown). Each output is parsed back, and each must say the same of every check: its
 * outcome, its verdict in the same words (`observed: BREAKS (security)`) and its severity; and
 * each counts every verdict, observations included. The sweep, in every one of them, is in
 * renderers-agree-sweep.test.ts.
 */
import { describe, expect, test } from 'vitest';
import type { Report, Severity } from '../../engine/types.js';
import { renderDiffMarkdown } from '../../reporters/diff-markdown.js';
import { renderDiff } from '../../reporters/diff-terminal.js';
import { renderHtml } from '../../reporters/html-reporter.js';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { renderMarkdown } from '../../reporters/markdown-reporter.js';
import { buildMatrix } from '../../reporters/matrix.js';
import { renderMatrixHtml } from '../../reporters/matrix-html.js';
import { renderMatrixMarkdown, renderMatrixTerminal } from '../../reporters/matrix-text.js';
import { diffReports } from '../../reporters/report-diff.js';
import { renderReport } from '../../reporters/terminal-reporter.js';
import { reportCounts, verdictPhrase } from '../../reporters/verdict-text.js';
import { recordedReport, summed } from '../support/recorded-report.js';
import {
  readDiffMarkdown,
  readDiffTerminal,
  readHtml,
  readJunit,
  readMarkdown,
  readMatrixHtml,
  readMatrixMarkdown,
  readMatrixTerminal,
  readTerminal,
  unescapeHtml,
  unfold,
  type Reading,
} from '../support/renderer-readings.js';

/** What the report itself says, in the words every renderer must use. */
function truth(r: Report): Reading {
  return Object.fromEntries(
    r.checks.map((c) => [c.id, { outcome: c.outcome, verdict: verdictPhrase(c), severity: c.severity as Severity }]),
  );
}

/** The recorded run with one check of each remaining verdict, so every verdict is present. */
function everyVerdict(): Report {
  const r = recordedReport();
  const edit = (id: string, verdict: 'inconclusive' | 'skipped'): void => {
    const c = r.checks.find((x) => x.id === id)!;
    Object.assign(c, { outcome: null, verdict, reason: `edited to ${verdict} for the test` });
  };
  edit('temp/temp-table', 'inconclusive');
  edit('cursors/with-hold', 'skipped');
  // A failed expectation, whatever the profile of the day says of the recorded runs: the
  // profile is edited to expect the label this check did not give.
  const failed = r.checks.find((x) => x.id === 'locks/advisory-xact')!;
  Object.assign(failed, { expected: failed.outcome === 'shared' ? 'exclusive' : 'shared', verdict: 'fail' });
  return summed(r);
}

/** The same run with nothing asserted: every outcome an observation, breaking or not. */
function nothingAsserted(): Report {
  return recordedReport('pgbouncer-transaction', null);
}

describe.each([
  ['a profile asserted, every verdict present', everyVerdict],
  ['nothing asserted', nothingAsserted],
])('every renderer says the same of every check (%s)', (_, make) => {
  const report = make();
  const want = truth(report);
  const counts = reportCounts(report);
  const matrix = buildMatrix([{ report, source: 'report.json' }]);
  const diff = diffReports(recordedReport('direct', 'direct'), report);

  test('the sample holds what the renderers must not hide', () => {
    const verdicts = new Set(Object.values(want).map((s) => s.verdict));
    expect(verdicts).toContain('observed: no break');
    // auth/stale-password: the old password still logs in, a security break nobody asserted.
    if (report.profile) {
      expect(want['auth/stale-password']).toEqual({
        outcome: 'old-accepted',
        verdict: 'observed: BREAKS (security)',
        severity: 'security',
      });
      for (const v of ['pass', 'FAIL', 'inconclusive', 'skipped']) expect(verdicts).toContain(v);
    } else {
      expect(report.checks.every((c) => c.verdict === 'observed')).toBe(true);
    }
    expect(counts).toMatch(/\d+ observed \([1-9]\d* breaking\)/);
  });

  test.each([
    ['terminal', () => readTerminal(renderReport(report, { color: false, width: 200 }))],
    ['Markdown', () => readMarkdown(renderMarkdown(report))],
    ['HTML overview', () => readHtml(renderHtml(report), 'tr')],
    ['HTML cards', () => readHtml(renderHtml(report), 'section')],
    ['JUnit', () => readJunit(renderJunit(report)).reading],
    ['matrix (terminal)', () => readMatrixTerminal(renderMatrixTerminal(matrix, { color: false }))],
    ['matrix (Markdown)', () => readMatrixMarkdown(renderMatrixMarkdown(matrix))],
    ['matrix (HTML)', () => readMatrixHtml(renderMatrixHtml(matrix))],
    ['diff (terminal)', () => readDiffTerminal(renderDiff(diff, { color: false, width: 200 }))],
    ['diff (Markdown)', () => readDiffMarkdown(renderDiffMarkdown(diff))],
  ] as const)('%s', (_, read) => {
    expect(read()).toEqual(want);
  });

  test('each counts every verdict, observations and how many of them break included', () => {
    expect(renderReport(report, { color: false })).toContain(counts);
    expect(renderMarkdown(report)).toContain(counts);
    expect(unescapeHtml(renderHtml(report).replace(/<[^>]+>/g, ''))).toContain(counts);
    expect(readJunit(renderJunit(report)).summary).toBe(counts);
    // The terminal matrix folds its lines at 120 columns: read as one line.
    expect(unfold(renderMatrixTerminal(matrix, { color: false }))).toContain(counts);
    expect(renderMatrixMarkdown(matrix)).toContain(counts);
    expect(unfold(renderDiff(diff, { color: false }))).toContain(counts);
    expect(renderDiffMarkdown(diff)).toContain(counts);
  });
});

test('control: a renderer that calls an observed break grey "observed" is caught', () => {
  const report = everyVerdict();
  const html = renderHtml(report).replace(/>observed: BREAKS \(security\)</g, '>observed<');
  expect(readHtml(html, 'tr')).not.toEqual(truth(report));
  const md = renderMarkdown(report).replace(/, \d+ observed \(\d+ breaking\)/, '');
  expect(md).not.toContain(reportCounts(report));
});
