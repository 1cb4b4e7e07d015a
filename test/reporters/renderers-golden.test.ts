/**
 * Every renderer's output for recorded reports, byte for byte, against golden files in
 * test/reporters/golden/. The reports are judged again from recorded event logs
 * (test/recorded, through judgeRun as the executor judges) for five fixtures with their profiles
 * and one without, plus variants a healthy run does not show (a failed check, an inconclusive
 * one, a skip, hostile text, a dirty, an unknown and an interrupted sweep), and the recorded
 * drivers runs, judged again through the drivers' vetoes. So a change to the executor, the
 * judging or a renderer that alters a single byte of what a user reads shows here.
 *
 * A change of output that is meant (a new summary line, another HTML layout) is accepted by
 * writing the golden files again from the code as it now is, then reading their diff:
 *
 *     UPDATE_GOLDEN=1 npx vitest run test/reporters/renderers-golden.test.ts
 *
 * Terminal text is rendered with colour off and a fixed width, so the files hold no escapes.
 * Each file is named after what it holds plus `.golden` (`pgpool.junit.xml.golden`): the
 * walkers of stored reports and documents (test/judges/rejudge.test.ts, the format check) are
 * not to take renderer output for a report of a run.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { judgeDriverRun, type DriverScenarioId } from '../../drivers/judge.js';
import type { DriversReport } from '../../drivers/run-drivers.js';
import { vetoed } from '../../drivers/vetoes.js';
import type { Discovery, Report } from '../../engine/types.js';
import { renderDiffMarkdown } from '../../reporters/diff-markdown.js';
import { renderDiff } from '../../reporters/diff-terminal.js';
import { renderDriversHtml } from '../../reporters/drivers-html.js';
import { renderDriversJunit } from '../../reporters/drivers-junit.js';
import { renderDriversMarkdown, renderDriversTerminal } from '../../reporters/drivers-text.js';
import { renderHtml } from '../../reporters/html-reporter.js';
import { diffToJson, reportToJson } from '../../reporters/json-reporter.js';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { renderMarkdown } from '../../reporters/markdown-reporter.js';
import { buildMatrix } from '../../reporters/matrix.js';
import { renderMatrixHtml } from '../../reporters/matrix-html.js';
import { renderMatrixMarkdown, renderMatrixTerminal } from '../../reporters/matrix-text.js';
import { diffReports } from '../../reporters/report-diff.js';
import { renderQuiet, renderReport } from '../../reporters/terminal-reporter.js';
import { recordedReport, summed } from '../support/recorded-report.js';
import { sweepResult } from '../support/sweep.js';
import { troubledReport } from './samples.js';

const GOLDEN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const WIDTH = 120;

/**
 * `text` equals the golden file `name`, or (UPDATE_GOLDEN=1) becomes it. A mismatch names the
 * first line that differs, rather than printing two reports of a megabyte side by side.
 */
function matchesGolden(name: string, text: string): void {
  const file = path.join(GOLDEN, `${name}.golden`);
  if (UPDATE) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  if (!existsSync(file))
    throw new Error(`no golden file ${name}: write it with UPDATE_GOLDEN=1 npx vitest run ${relativeSelf()}`);
  const want = readFileSync(file, 'utf8');
  if (text === want) return;
  const got = text.split('\n');
  const had = want.split('\n');
  const at = got.findIndex((line, i) => line !== had[i]);
  const line = at === -1 ? got.length : at;
  throw new Error(
    `${name} differs from its golden file at line ${line + 1}\n` +
      `  golden: ${had[line] ?? '(end of output)'}\n` +
      `  now:    ${got[line] ?? '(end of output)'}\n` +
      `if the change is meant: UPDATE_GOLDEN=1 npx vitest run ${relativeSelf()}`,
  );
}

function relativeSelf(): string {
  return 'test/reporters/renderers-golden.test.ts';
}

/**
 * A check report in the formats a user can ask for. The whole JSON report, the verbose terminal
 * text and the HTML page (each a quarter of a megabyte or more: they carry every step) are held
 * for the reports named in {@link WHOLE}; for the others, the judgement of every check (what
 * the JSON says of it, less its steps), so that each recording's re-judging is held too.
 */
function everyCheckRenderer(name: string, report: Report): void {
  matchesGolden(`${name}.terminal.txt`, renderReport(report, { color: false, width: WIDTH }));
  matchesGolden(`${name}.quiet.txt`, renderQuiet(report, { color: false, width: WIDTH }));
  matchesGolden(`${name}.md`, renderMarkdown(report));
  matchesGolden(`${name}.junit.xml`, renderJunit(report));
  if (WHOLE.includes(name)) {
    matchesGolden(`${name}.verbose.txt`, renderReport(report, { color: false, width: WIDTH, verbose: true }));
    matchesGolden(`${name}.json`, reportToJson(report));
    matchesGolden(`${name}.html`, renderHtml(report));
  } else if (FIXTURES.includes(name)) {
    const judged = report.checks.map(({ steps: _steps, ...rest }) => rest);
    matchesGolden(`${name}.judged.json`, `${JSON.stringify(judged, null, 2)}\n`);
  }
}

/** The reports held whole: a healthy run with its profile, another pooler, trouble. */
const WHOLE = ['pgbouncer-transaction', 'pgpool', 'troubled'];

/** The recorded reports of the fixtures, each with its own profile. */
const FIXTURES = ['direct', 'pgbouncer-transaction', 'pgbouncer-session', 'pgbouncer-statement', 'pgpool'];

/** The PgBouncer run with a sweep that could not look, and the run interrupted before it. */
function unknownSweep(interrupted: boolean): Report {
  const r = recordedReport();
  r.sweep = sweepResult('unknown', { reason: 'the sweep could not finish: nothing listens on port 6432' });
  summed(r);
  if (interrupted) r.summary = { ...r.summary, exitCode: 130, interrupted: true };
  return r;
}

const VARIANTS: Record<string, () => Report> = {
  ...Object.fromEntries(FIXTURES.map((f) => [f, () => recordedReport(f, f)])),
  'pgbouncer-transaction-observed': () => recordedReport('pgbouncer-transaction', null),
  troubled: troubledReport,
  'sweep-unknown': () => unknownSweep(false),
  interrupted: () => unknownSweep(true),
};

describe('check reports, byte for byte', () => {
  test.each(Object.keys(VARIANTS))('%s', (name) => everyCheckRenderer(name, VARIANTS[name]!()));

  test('the matrix of the five fixtures', () => {
    // Each recording is its own run here (the matrix refuses one run twice).
    const reports = FIXTURES.map((f) => ({ report: { ...recordedReport(f, f), runId: f }, source: `${f}.json` }));
    const matrix = buildMatrix(reports);
    matchesGolden('matrix.terminal.txt', renderMatrixTerminal(matrix, { color: false, width: WIDTH }));
    matchesGolden('matrix.md', renderMatrixMarkdown(matrix));
    matchesGolden('matrix.html', renderMatrixHtml(matrix));
    matchesGolden('matrix.json', `${JSON.stringify(matrix, null, 2)}\n`);
  });

  test('the diff from PostgreSQL direct to PgBouncer in transaction mode', () => {
    const diff = diffReports(recordedReport('direct', 'direct'), recordedReport());
    matchesGolden('diff.terminal.txt', renderDiff(diff, { color: false, width: WIDTH }));
    matchesGolden('diff.quiet.txt', renderDiff(diff, { color: false, width: WIDTH, quiet: true }));
    matchesGolden('diff.md', renderDiffMarkdown(diff));
    matchesGolden('diff.json', diffToJson(diff));
  });
});

/**
 * A recorded drivers run with every result judged again from its record, as the drivers run
 * judges it (the driver's judge, then the engine's vetoes). The stored reason and the
 * server-log fact stay: they depend on a log that is not part of the record.
 */
function rejudgedDrivers(stack: string): DriversReport {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), `../recorded/drivers-${stack}.json`);
  const report = JSON.parse(readFileSync(file, 'utf8')) as DriversReport;
  const discovery = { ...report.discovery, steps: [] } as Discovery;
  for (const r of report.results) {
    const record = r.record === null ? null : report.records[r.record];
    if (!record) continue;
    const j = judgeDriverRun(record.steps, discovery, [r.scenario as DriverScenarioId])[r.scenario as DriverScenarioId];
    if (!j) continue;
    const v = vetoed(j, record.steps, discovery, r.scenario);
    r.outcome = v.outcome;
    r.facts = { ...v.facts, serverLogRead: r.facts.serverLogRead ?? null };
    r.reason = r.reason.startsWith(v.reason) ? r.reason : v.reason;
  }
  return report;
}

test.skipIf(UPDATE)('control: one byte changed in a rendering is caught, naming its line', () => {
  const md = renderMarkdown(recordedReport());
  const changed = md.replace('| `session/set-leak`', '| `session/set-leek`');
  expect(changed).not.toBe(md);
  expect(() => matchesGolden('pgbouncer-transaction.md', changed)).toThrow(/set-leek/);
  expect(() => matchesGolden('pgbouncer-transaction.md', `${md}\n`)).toThrow(/end of output/);
});

describe('drivers reports, byte for byte', () => {
  test.each(['direct', 'pgbouncer-transaction'])('drivers-%s', (stack) => {
    const report = rejudgedDrivers(stack);
    const name = `drivers-${stack}`;
    matchesGolden(`${name}.terminal.txt`, renderDriversTerminal(report));
    matchesGolden(`${name}.md`, renderDriversMarkdown(report));
    matchesGolden(`${name}.junit.xml`, renderDriversJunit(report));
    if (stack !== 'direct') matchesGolden(`${name}.html`, renderDriversHtml(report));
    matchesGolden(
      `${name}.judged.json`,
      `${JSON.stringify(
        report.results.map(({ id, outcome, verdict, reason, facts }) => ({ id, outcome, verdict, reason, facts })),
        null,
        2,
      )}\n`,
    );
  });
});
