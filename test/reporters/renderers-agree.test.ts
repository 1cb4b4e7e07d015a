/**
 * No renderer hides a break. One report, judged from recorded logs of a whole catalogue run
 * against PgBouncer 1.18 in transaction mode (its profile asserted, so `auth/stale-password`,
 * which no profile expects, is an observed security break), goes through every renderer: the
 * terminal, Markdown, HTML, JUnit, the matrix (terminal, Markdown, HTML) and the diff (terminal,
 * Markdown). Each output is parsed back, and each must say the same of every check: its
 * outcome, its verdict in the same words (`observed: BREAKS (security)`) and its severity; and
 * each counts every verdict, observations included.
 */
import { XMLParser } from 'fast-xml-parser';
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

/** What a renderer says about one check. */
interface Said {
  outcome: string | null;
  verdict: string;
  severity: string;
}
type Reading = Record<string, Said>;

const SEVERITY_HEADING = /^(security|correctness|availability) \(\d+\)$/;

/** The terminal report: rows under their severity headings. */
function readTerminal(text: string): Reading {
  const out: Reading = {};
  let severity = '';
  for (const line of text.split('\n')) {
    const heading = SEVERITY_HEADING.exec(line);
    if (heading) severity = heading[1]!;
    const row = /^([a-z-]+\/[a-z-]+)\s+(\S+)\s+(\S+)\s+(.+)$/.exec(line);
    if (row && severity) out[row[1]!] = { outcome: dash(row[2]!), verdict: row[4]!.trim(), severity };
  }
  return out;
}

/** A Markdown table's rows whose first cell is a check id, as cells. */
function markdownRows(text: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^\| `([a-z-]+\/[a-z-]+)`/.exec(line);
    if (m)
      rows.set(
        m[1]!,
        line
          .slice(1, -1)
          .split(' | ')
          .map((c) => c.trim()),
      );
  }
  return rows;
}

/** Signs and emphasis off: the words under them. */
function words(cell: string): string {
  return cell
    .replace(/\*\*/g, '')
    .replace(/[✅❌⚠️⏭❔❗\uFE0F]/gu, '')
    .replace(/\\(.)/g, '$1')
    .trim();
}

function readMarkdown(text: string): Reading {
  const out: Reading = {};
  for (const [id, [, severity, outcome, , verdict]] of markdownRows(text))
    out[id] = { outcome: dash(words(outcome!).replace(/`/g, '')), verdict: words(verdict!), severity: severity! };
  return out;
}

function unescapeHtml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The HTML report's overview rows (and, as a second reading, each check's card). */
function readHtml(html: string, part: 'tr' | 'section'): Reading {
  const out: Reading = {};
  const re = new RegExp(`<${part}[^>]* data-id="([^"]+)" data-severity="([^"]+)"[^>]*>([\\s\\S]*?)</${part}>`, 'g');
  for (const m of html.matchAll(re)) {
    const body = m[3]!;
    const verdict = /<span class="verdict[^"]*">([^<]*)<\/span>/.exec(body)?.[1];
    const outcome = /<code class="(?:breaks)?">([^<]*)<\/code>/.exec(body)?.[1] ?? null;
    out[unescapeHtml(m[1]!)] = {
      outcome: outcome && unescapeHtml(outcome),
      verdict: unescapeHtml(verdict ?? '?'),
      severity: m[2]!,
    };
  }
  return out;
}

function readJunit(xml: string): { reading: Reading; summary: string } {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
    testsuites: {
      testsuite: {
        properties: { property: Prop[] };
        testcase: Array<{ name: string; properties?: { property: Prop[] } }>;
      };
    };
  };
  const suite = doc.testsuites.testsuite;
  const reading: Reading = {};
  for (const tc of suite.testcase) {
    if (tc.name === 'pooltest/sweep') continue;
    const prop = (n: string): string | null => tc.properties?.property.find((p) => p.name === n)?.value ?? null;
    reading[tc.name] = {
      outcome: prop('outcome'),
      verdict: prop('verdictText') ?? '?',
      severity: prop('severity') ?? '?',
    };
  }
  return { reading, summary: suite.properties.property.find((p) => p.name === 'summary')?.value ?? '' };
}
interface Prop {
  name: string;
  value: string;
}

/** The terminal matrix's one column: an outcome and a mark, under severity headings. */
function readMatrixTerminal(text: string): Reading {
  const marks: Record<string, (s: string) => string> = {
    '!': (s) => `observed: BREAKS (${s})`,
    '~': () => 'observed: no break',
    '~?': () => 'observed: effect unknown',
    '✗': () => 'FAIL',
    '?': () => 'inconclusive',
  };
  const out: Reading = {};
  let severity = '';
  for (const line of text.split('\n')) {
    const heading = SEVERITY_HEADING.exec(line);
    if (heading) severity = heading[1]!;
    const row = /^([a-z-]+\/[a-z-]+)\s+(\S+)(?: ([\d.]+x(?: \[[\d.]+-[\d.]+\])?))?(?: (!|~\?|~|✗|\?))?$/.exec(line);
    if (!row || !severity) continue;
    const outcome = row[2] === 'skipped' || row[2] === '-' ? null : row[2]!;
    const verdict = row[4]
      ? marks[row[4]]!(severity)
      : row[2] === 'skipped'
        ? 'skipped'
        : row[2] === '-'
          ? 'inconclusive'
          : 'pass';
    out[row[1]!] = { outcome, verdict, severity };
  }
  return out;
}

function readMatrixMarkdown(text: string): Reading {
  const out: Reading = {};
  for (const [id, [, severity, cell]] of markdownRows(text)) {
    const outcome = /`([^`]+)`/.exec(cell!)?.[1] ?? null;
    const observed = /(observed: .*)$/.exec(words(cell!))?.[1];
    const verdict =
      observed ??
      (cell!.includes('❌') ? 'FAIL' : cell!.includes('⚠️') ? 'inconclusive' : outcome === null ? 'skipped' : 'pass');
    out[id] = { outcome, verdict, severity: severity! };
  }
  return out;
}

function readMatrixHtml(html: string): Reading {
  const out: Reading = {};
  for (const m of html.matchAll(/<tr data-id="([^"]+)">([\s\S]*?)<\/tr>/g)) {
    const severity = /<td class="sev">([^<]+)<\/td>/.exec(m[2]!)![1]!;
    const cell = /<td class="([^"]*)">([\s\S]*?)<\/td>$/.exec(m[2]!)!;
    const outcome = /<code[^>]*>([^<]*)<\/code>/.exec(cell[2]!)?.[1] ?? null;
    const shown = [...cell[2]!.matchAll(/<span class="(?:none|breaks)">([^<]*)<\/span>/g)].map((x) => x[1]!);
    const verdict = outcome === null ? shown[0]! : (shown[0] ?? 'pass');
    out[m[1]!] = { outcome, verdict: unescapeHtml(verdict), severity };
  }
  return out;
}

/** The diff's NEW side: outcome and verdict, under severity headings (terminal) or in columns (Markdown). */
function readDiffTerminal(text: string): Reading {
  const out: Reading = {};
  let severity = '';
  for (const line of text.split('\n')) {
    const heading = SEVERITY_HEADING.exec(line);
    if (heading) severity = heading[1]!;
    const row = /^([a-z-]+\/[a-z-]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.+)$/.exec(line);
    if (row && severity) out[row[1]!] = { outcome: dash(row[3]!), verdict: row[5]!.trim(), severity };
  }
  return out;
}

function readDiffMarkdown(text: string): Reading {
  const out: Reading = {};
  for (const [id, [, severity, , outcome, , verdict]] of markdownRows(text))
    out[id] = { outcome: dash(words(outcome!).replace(/`/g, '')), verdict: words(verdict!), severity: severity! };
  return out;
}

function dash(s: string): string | null {
  return s === '-' || s === '—' ? null : s;
}

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
    expect(renderMatrixTerminal(matrix, { color: false })).toContain(counts);
    expect(renderMatrixMarkdown(matrix)).toContain(counts);
    expect(renderDiff(diff, { color: false })).toContain(counts);
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
