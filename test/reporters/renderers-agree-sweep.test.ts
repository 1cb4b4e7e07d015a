/**
 * Every renderer tells the run's own sweep (issue 40): `pooltest matrix` printed `sweep **dirty**`
 * for a run whose report said `Sweep: unknown - could not look for leftovers`, because the
 * matrix kept only `clean: false`. Three runs, one clean, one dirty, one whose sweep could not
 * look, go through the report's renderers (terminal, Markdown, HTML, JUnit), the matrix
 * (terminal, Markdown, HTML) and the diff (terminal, Markdown); each output is read back and must
 * give each run the state its report gave it, with the reason where it could not look.
 */
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, test } from 'vitest';
import type { Report, SweepState } from '../../engine/types.js';
import { renderDiffMarkdown } from '../../reporters/diff-markdown.js';
import { renderDiff } from '../../reporters/diff-terminal.js';
import { renderHtml } from '../../reporters/html-reporter.js';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { renderMarkdown } from '../../reporters/markdown-reporter.js';
import { buildMatrix, columnSweep, type Matrix } from '../../reporters/matrix.js';
import { renderMatrixHtml } from '../../reporters/matrix-html.js';
import { renderMatrixMarkdown, renderMatrixTerminal } from '../../reporters/matrix-text.js';
import { diffReports } from '../../reporters/report-diff.js';
import { renderReport } from '../../reporters/terminal-reporter.js';
import { visitedWhere } from '../../engine/sweep/names.js';
import { recordedReport } from '../support/recorded-report.js';
import { unescapeHtml, unfold } from '../support/renderer-readings.js';
import { sweepResult } from '../support/sweep.js';

const REASON = 'the target stopped answering (connect ECONNREFUSED 127.0.0.1:6432)';

function run(state: SweepState, n: number): Report {
  const r = recordedReport();
  r.runId = `run${n}`;
  r.sweep =
    state === 'clean'
      ? sweepResult('clean', { backendsVisited: [101, 102], via: ['target', 'direct'] })
      : state === 'dirty'
        ? sweepResult('dirty', { backendsVisited: [7], leftovers: ['backend 7: locks = 1'] })
        : sweepResult('unknown', { reason: REASON });
  return r;
}

const STATES: readonly SweepState[] = ['clean', 'dirty', 'unknown'];
const runs = STATES.map((s, i) => run(s, i + 1));
const state = /\b(clean|dirty|unknown)\b/i;

/** The state a text gives after `lead` (the words every renderer uses), lower case. */
function after(text: string, lead: RegExp): string | null {
  const m = new RegExp(`${lead.source}(?:\\*\\*|\\*|<span class="[^"]*">)?${state.source}`, `${lead.flags}i`).exec(
    text,
  );
  return m ? m[1]!.toLowerCase() : null;
}

function junitState(xml: string): string | null {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
    testsuites: {
      testsuite: {
        testcase: Array<{ name: string; properties?: { property: Array<{ name: string; value: string }> } }>;
      };
    };
  };
  const sweep = doc.testsuites.testsuite.testcase.find((c) => c.name === 'pooltest/sweep');
  return sweep?.properties?.property.find((p) => p.name === 'state')?.value ?? null;
}

/** Each column's sweep as the matrix renderer at hand spells it, in column order. */
function matrixStates(m: Matrix): Record<string, string[]> {
  const lines = (text: string, lead: RegExp): string[] =>
    text
      .split('\n')
      .filter((l) => lead.test(l))
      .map((l) => after(l, /sweep /) ?? '?');
  return {
    terminal: lines(unfold(renderMatrixTerminal(m, { color: false })), /^ {2}\[\d+\] /),
    Markdown: lines(renderMatrixMarkdown(m), /^- \*\*/),
    HTML: renderMatrixHtml(m)
      .split('<li>')
      .slice(1)
      .map((l) => after(l, /sweep /) ?? '?'),
  };
}

describe.each(STATES.map((s, i) => [s, runs[i]!] as const))('a run whose sweep was %s', (want, report) => {
  test.each([
    ['terminal', () => after(renderReport(report, { color: false }), /^Sweep: /m)],
    ['Markdown', () => after(renderMarkdown(report), /Sweep: /)],
    ['HTML', () => after(renderHtml(report), /<p id="sweep">/)],
    ['JUnit', () => junitState(renderJunit(report))],
    [
      'diff (terminal, NEW side)',
      () => after(unfold(renderDiff(diffReports(runs[0]!, report), { color: false })), /NEW .*sweep /),
    ],
    [
      'diff (Markdown, NEW side)',
      () => after(renderDiffMarkdown(diffReports(runs[0]!, report)), /\*\*NEW\*\*: .*sweep /),
    ],
  ] as const)('%s says so', (_, read) => {
    expect(read()).toBe(want);
  });
});

describe('the matrix of the three runs', () => {
  const matrix = buildMatrix(runs.map((report, i) => ({ report, name: `run ${i + 1}`, source: `r${i}.json` })));

  test.each(['terminal', 'Markdown', 'HTML'])("%s gives each column its own run's state", (renderer) => {
    expect(matrixStates(matrix)[renderer]).toEqual(['clean', 'dirty', 'unknown']);
  });

  test('the unknown sweep carries its reason in every matrix output, as its report did', () => {
    expect(unfold(renderMatrixTerminal(matrix, { color: false }))).toContain(REASON);
    expect(renderMatrixMarkdown(matrix)).toContain(REASON);
    expect(unescapeHtml(renderMatrixHtml(matrix))).toContain(REASON);
  });

  test('a matrix written before the state was kept says "not clean", never "dirty" (control: the old reading)', () => {
    const old: Matrix = JSON.parse(JSON.stringify(matrix)) as Matrix;
    for (const c of old.columns) {
      delete c.sweep;
      delete c.sweepText;
    }
    expect(old.columns.map((c) => columnSweep(c).state)).toEqual(['clean', 'not clean', 'not clean']);
    expect(renderMatrixMarkdown(old)).not.toMatch(/sweep \*\*dirty\*\*/i);
    // What the matrix printed before: sweepClean false read as dirty, wrong for run 3.
    const before = old.columns.map((c) => (c.sweepClean ? 'clean' : 'dirty'));
    expect(before).not.toEqual(matrixStates(matrix).Markdown);
  });
});

test("a sweep's doubt names the backend it looked at, or the client that reached none: never `backend ?`", () => {
  expect(visitedWhere({ pid: 4242, session: 'N1' })).toBe('backend 4242');
  expect(visitedWhere({ pid: null, session: 'N2' })).toBe('client N2 (no backend reached)');
});
