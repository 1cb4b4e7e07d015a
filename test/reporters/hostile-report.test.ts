/**
 * Reports are files anyone can hand to pooltest, and their strings came from a target: an
 * outcome, a pooler's name or a host holding terminal escape sequences or line breaks must
 * reach neither the terminal (an OSC sequence retitles the window, CSI 2J clears it) nor a
 * Markdown table as markup. Each renderer is fed the same hostile text in every field it
 * prints.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Chalk } from 'chalk';
import { afterAll, describe, expect, test } from 'vitest';
import type { Report } from '../../engine/types.js';
import { renderDiffMarkdown } from '../../reporters/diff-markdown.js';
import { renderDiff } from '../../reporters/diff-terminal.js';
import { renderMatrixMarkdown, renderMatrixTerminal } from '../../reporters/matrix-text.js';
import { buildMatrix } from '../../reporters/matrix.js';
import { diffReports } from '../../reporters/report-diff.js';
import { createProgress } from '../../reporters/progress-reporter.js';
import { renderQuiet, renderReport } from '../../reporters/terminal-reporter.js';
import { renderWatchMarkdown, renderWatchTerminal } from '../../watch/watch-render.js';
import type { WatchReport } from '../../watch/watch-types.js';
import { runAudit } from '../audit/audit-helpers.js';
import { CONTROL, directReport, ESCAPES, pgbouncerReport } from './samples.js';

/** The PgBouncer sample with hostile text wherever a report file could hold it. */
function hostileReport(): Report {
  const r = pgbouncerReport();
  r.runId = ESCAPES;
  r.target.host = ESCAPES;
  r.discovery.pooler = { name: ESCAPES, version: ESCAPES, how: ESCAPES };
  r.discovery.serverVersion = ESCAPES;
  r.discovery.notes = [`server finding: ${ESCAPES}`];
  for (const c of r.checks.slice(1)) {
    c.title = ESCAPES;
    c.evidence = ESCAPES;
    c.reason = ESCAPES;
    c.advice = ESCAPES;
  }
  // An id this version does not know may hold any outcome (a newer pooltest's check).
  r.checks[0]!.id = `future/${ESCAPES}`;
  r.checks[0]!.outcome = ESCAPES;
  r.checks[0]!.verdict = 'fail';
  return r;
}

/** No control characters, and the hostile line break never starts a line of its own. */
function expectTerminalSafe(text: string): void {
  expect(text).not.toMatch(CONTROL);
  expect(text.split('\n').filter((l) => l.startsWith('FORGED'))).toEqual([]);
}

describe('hostile report text in the terminal', () => {
  test('diff prints escape sequences and line breaks from either report as plain text', () => {
    const text = renderDiff(diffReports(directReport(), hostileReport()), { color: false, width: 100 });
    expect(text).toContain('?]0;PWNED??[2J?[31mRED FORGED LINE');
    expectTerminalSafe(text);
    expectTerminalSafe(renderDiff(diffReports(hostileReport(), directReport()), { color: false, quiet: true }));
  });

  test('matrix prints a hostile outcome, pooler or host as plain text', () => {
    const m = buildMatrix([
      { report: directReport(), source: 'direct.json' },
      { report: hostileReport(), source: 'esc.json' },
    ]);
    expectTerminalSafe(renderMatrixTerminal(m, { color: false }));
  });

  test('the run report, full, verbose and quiet, prints hostile fields as plain text', () => {
    for (const verbose of [false, true]) expectTerminalSafe(renderReport(hostileReport(), { color: false, verbose }));
    expectTerminalSafe(renderQuiet(hostileReport(), { color: false }));
  });

  test('progress lines print a hostile outcome and wait reason as plain text', () => {
    let out = '';
    const p = createProgress({ total: 1, color: false, tty: false, write: (t) => (out += t) });
    p.onWait(ESCAPES, 1000);
    p.onCheckResult(hostileReport().checks[0]!);
    expectTerminalSafe(out);
  });

  test("the colour a renderer adds is kept; only the report's own escapes go", () => {
    const text = renderDiff(diffReports(directReport(), hostileReport()), { color: true });
    expect(text).toContain('\u001b[1m'); // chalk's bold, level 1
    expect(text).not.toContain('\u001b]0;');
    expect(text).not.toContain('\u001b[2J');
  });

  test("watch prints a client's application_name and SQL with escapes as plain text", () => {
    expectTerminalSafe(renderWatchTerminal(hostileWatch(), new Chalk({ level: 0 }), 100));
    const md = renderWatchMarkdown(hostileWatch());
    expect(md).not.toMatch(CONTROL);
  });

  test('audit prints a statement with escapes in it as plain text', async () => {
    const file = path.join(dir, 'esc.sql');
    writeFileSync(file, `SET search_path TO "${ESCAPES}";\nSELECT 1;\n`);
    const run = await runAudit(['--sql', file]);
    expect(run.stdout).toContain('search_path');
    expectTerminalSafe(run.stdout);
  });
});

describe('hostile report text in Markdown', () => {
  test('diff and matrix Markdown keep every table row one row, with no control characters', () => {
    const docs = [
      renderDiffMarkdown(diffReports(directReport(), hostileReport())),
      renderMatrixMarkdown(
        buildMatrix([
          { report: directReport(), source: 'direct.json' },
          { report: hostileReport(), source: 'esc.json' },
        ]),
      ),
    ];
    for (const md of docs) {
      expect(md).not.toMatch(CONTROL);
      expect(md.split('\n').filter((l) => l.startsWith('FORGED'))).toEqual([]);
    }
  });

  test('a pipe, a tag or a line break in a severity or title does not split or restyle the diff table', () => {
    const r = hostileReport();
    for (const c of r.checks) c.severity = '| x <img src=y> \n' as Report['checks'][number]['severity'];
    const md = renderDiffMarkdown(diffReports(directReport(), r));
    const rows = md.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length).toBe(8);
    // The rows are there (a severity this version does not know gets its own place), and the
    // tag is escaped (`\<img`), never live.
    expect(md).toContain('\\<img');
    expect(md).not.toMatch(/(?<!\\)<img/);
  });
});

const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function hostileWatch(): WatchReport {
  const statement = { sql: `SET application_name = '${ESCAPES}'`, what: ESCAPES, transaction: 1 };
  return {
    schemaVersion: 2,
    tool: { name: 'pooltest', command: 'watch' },
    generatedAt: '2026-12-01T00:00:00.000Z',
    upstream: ESCAPES,
    listen: ESCAPES,
    command: { argv: [ESCAPES], exitCode: 0, signal: null },
    pooler: { name: ESCAPES, basis: 'typical', outcomes: {}, parameters: {} },
    summary: {
      connections: 1,
      transactions: 2,
      statements: 2,
      unanswered: 0,
      parsedTexts: 2,
      findings: 1,
      breaking: 1,
      durationMs: 1,
    },
    findings: [
      {
        check: 'session/set-leak',
        title: ESCAPES,
        severity: 'correctness',
        state: ESCAPES,
        created: statement,
        used: { ...statement, transaction: 2 },
        use: 'explicit',
        evidence: 'seen',
        how: ESCAPES,
        certain: true,
        connection: { id: 1, applicationName: ESCAPES, user: ESCAPES, database: ESCAPES, clientPort: 1 },
        count: 1,
        connections: 1,
        connectionIds: [1],
        outcome: ESCAPES,
        parameter: null,
        basis: 'typical',
        breaks: true,
        advice: ESCAPES,
      },
    ],
    overflow: { [ESCAPES]: 1 },
    warnings: [ESCAPES],
  };
}
