/**
 * Issue 40: with --profile pgbouncer-transaction against PgBouncer 1.18 the summary read
 * `26 checks: 22 pass, 0 fail, 1 observed (0 breaking)`, every documented break hidden in a
 * pass, and a reader deciding on a migration read "healthy". The summary of every renderer now
 * says how many outcomes break an application, next to the verdicts, with or without a
 * profile, all from one function (reporters/summary-counts.ts).
 */
import { describe, expect, test } from 'vitest';
import { renderHtml } from '../../reporters/html-reporter.js';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { renderMarkdown } from '../../reporters/markdown-reporter.js';
import { countsLine, summaryCounts } from '../../reporters/summary-counts.js';
import { renderQuiet, renderReport } from '../../reporters/terminal-reporter.js';
import { reportCounts } from '../../reporters/verdict-text.js';
import { outcomeBreaks } from '../../suites/outcome-breaks.js';
import { recordedReport } from '../support/recorded-report.js';

const breakingIds = (r: ReturnType<typeof recordedReport>): string[] =>
  r.checks.filter((c) => outcomeBreaks(c.outcome) === true).map((c) => c.id);

describe.each([
  ['--profile pgbouncer-transaction', 'pgbouncer-transaction'],
  ['no profile', null],
] as const)('PgBouncer 1.18 transaction, %s', (_, profile) => {
  const report = recordedReport('pgbouncer-transaction', profile);
  const n = summaryCounts(report.checks);

  test('the breaks are counted whatever their verdict, and the passes that are breaks say so', () => {
    expect(n.breaking).toBe(breakingIds(report).length);
    expect(n.breaking).toBeGreaterThanOrEqual(10);
    const line = countsLine(n);
    expect(line.startsWith(`${n.breaking} outcomes break an application; `)).toBe(true);
    if (profile) {
      // Documented breaks pass their expectation: the pass count says how many of them there are.
      expect(n.breakingByVerdict.pass).toBeGreaterThan(0);
      expect(line).toContain(`${n.verdicts.pass} pass (${n.breakingByVerdict.pass} of them expected breaks)`);
    } else {
      expect(line).toContain(`0 pass, 0 fail, ${n.verdicts.observed} observed (${n.breaking} breaking)`);
    }
  });

  test('terminal (full and --quiet), Markdown, HTML and JUnit print those words', () => {
    const counts = reportCounts(report);
    expect(renderReport(report, { color: false })).toMatch(new RegExp(`^Summary  \\d+ checks: ${esc(counts)}  `, 'm'));
    expect(renderQuiet(report, { color: false })).toContain(counts);
    expect(renderMarkdown(report)).toContain(`checks:** ${counts}.`);
    expect(renderHtml(report).replace(/<[^>]+>/g, '')).toContain(counts);
    const xml = renderJunit(report);
    expect(xml).toContain(`<property name="summary" value="${counts}"/>`);
    expect(xml).toContain(`<property name="summary.breaking" value="${n.breaking}"/>`);
  });
});

test('a run where nothing breaks says so in words, not with a zero to find', () => {
  const direct = recordedReport('direct', 'direct');
  expect(summaryCounts(direct.checks).breaking).toBe(breakingIds(direct).length);
  if (breakingIds(direct).length === 0) expect(reportCounts(direct)).toMatch(/^no outcome breaks an application; /);
  // Control: a report edited to hold one leak is counted as one.
  const one = recordedReport('direct', 'direct');
  Object.assign(
    one.checks.find((c) => c.id === 'session/set-leak')!,
    { outcome: 'leaked', verdict: 'fail' },
  );
  const counted = summaryCounts(one.checks);
  expect(counted.breaking).toBe(breakingIds(direct).length + 1);
  expect(countsLine(counted)).toMatch(/\d+ fail \(1 breaking\)/);
});

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
