/**
 * The compatibility matrix for the terminal and for Markdown (a docs page such as
 * docs/compatibility.md, or a pull-request comment). A cell is the outcome and a verdict mark;
 * a cell whose outcome differs from the first column is marked `*` (terminal) or bold
 * (Markdown), and an outcome that breaks applications is flagged.
 */
import { Chalk } from 'chalk';
import { columnSweep, type Matrix, type MatrixCell, type MatrixColumn } from './matrix.js';
import { code, inline, table } from './markdown.js';
import { pad, terminalSafe, wrap } from './terminal-text.js';
import type { Severity, Verdict } from '../engine/types.js';
import { groupBySeverity } from './severity.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { verdictCounts, verdictPhrase } from './verdict-text.js';

/**
 * Terminal cells are narrow (ten targets side by side), so a verdict is a mark after the
 * outcome; the legend spells each mark in the words of the other renderers (verdict-text.ts),
 * and the group heading above the rows gives the severity of a break.
 */
const MARK: Readonly<Record<string, string>> = {
  pass: '',
  FAIL: ' ✗',
  inconclusive: ' ?',
  skipped: '',
  'observed: BREAKS': ' !',
  'observed: no break': ' ~',
  'observed: effect unknown': ' ~?',
};
const BADGE: Readonly<Record<string, string>> = { pass: '', fail: ' ❌', inconclusive: ' ⚠️', skipped: '' };

/** The phrase of a cell's verdict (verdict-text.ts), with its row's severity. */
function phrase(x: MatrixCell, severity: Severity): string | null {
  return x.verdict === null ? null : verdictPhrase({ verdict: x.verdict, outcome: x.outcome, severity });
}

/** The mark for a cell: the phrase without the severity, which the row's group heading gives. */
function mark(x: MatrixCell, severity: Severity): string {
  return MARK[(phrase(x, severity) ?? '').replace(/ \(.*\)$/, '')] ?? '';
}

/** How many of each verdict column `i` gave, in the words of the other renderers. */
function columnCounts(m: Matrix, i: number): string {
  return verdictCounts(
    m.rows.map((r) => r.cells[i]!).filter((x) => x.verdict !== null) as Array<{
      verdict: Verdict;
      outcome: string | null;
    }>,
  );
}

/**
 * Terminal text: what each target is (numbered), then one line per check, a column per target
 * headed by its number and name. Every line fits `width` (120 when piped): columns that do not
 * fit beside each other go to further pages of the table, each with the check column again,
 * rather than a table eight targets wide (247 columns under headers `[1]`...`[8]`).
 */
export function renderMatrixTerminal(unsafe: Matrix, opts: { color: boolean; width?: number }): string {
  // Cells and column names come from report files: printable before any of them is measured.
  const m = terminalSafe(unsafe);
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const width = opts.width ?? 120;
  const idWidth = Math.max(5, ...m.rows.map((r) => r.id.length));
  const cellText = (x: MatrixCell, severity: Severity): string =>
    `${x.seen && x.seen.length > 1 ? x.seen.join('|') : (x.outcome ?? (x.verdict === null ? 'absent' : x.verdict === 'skipped' ? 'skipped' : '-'))}${x.measure ? ` ${x.measure}` : ''}${mark(x, severity)}${x.differs ? '*' : ''}`;
  const heads = m.columns.map((col, i) => `[${i + 1}] ${col.name}`);
  // A column is as wide as its widest cell, and wide enough for its name's words up to a point.
  const widths = m.columns.map((_, i) =>
    Math.max(
      10,
      ...m.rows.map((r) => cellText(r.cells[i]!, r.severity).length),
      Math.min(HEAD_WORD, longestWord(heads[i]!)),
    ),
  );
  const lines = [
    'pooltest matrix',
    ...m.columns.map((col, i) =>
      wrap(
        `  [${i + 1}] ${col.name}: ${col.target}${col.profile ? `, profile ${col.profile}` : ''}; sweep ${columnSweep(col).text}; ${columnCounts(m, i)}`,
        width,
        6,
      ),
    ),
  ];
  for (const page of pages(widths, width - idWidth)) {
    lines.push('');
    const headLines = page.map((i) => headWrap(heads[i]!, widths[i]!));
    const depth = Math.max(...headLines.map((h) => h.length));
    for (let k = 0; k < depth; k++) {
      const cells = page.map((i, n) => pad(headLines[n]![k] ?? '', widths[i]!));
      lines.push(c.bold(`${pad(k === 0 ? 'CHECK' : '', idWidth)}  ${cells.join('  ')}`.trimEnd()));
    }
    for (const group of groupBySeverity(m.rows)) {
      lines.push(c.bold.underline(`${group.severity} (${group.checks.length})`));
      for (const row of group.checks) {
        const cells = page.map((i) => {
          const x = row.cells[i]!;
          const text = pad(cellText(x, row.severity), widths[i]!);
          return x.differs ? c.yellow.bold(text) : x.breaks ? c.red(text) : text;
        });
        lines.push(`${pad(row.id, idWidth)}  ${cells.join('  ')}`.trimEnd());
      }
    }
  }
  const differ = m.rows.filter((r) => r.cells.some((x) => x.differs)).length;
  lines.push(
    '',
    wrap(
      `${m.rows.length} checks, ${m.columns.length} targets; ${differ} check(s) differ from [1] (marked *); ✗ FAIL (failed its expectation), ? inconclusive`,
      width,
      2,
    ),
    wrap(
      '! observed: BREAKS (the severity of its group; nothing was asserted), ~ observed: no break, ~? observed: effect unknown',
      width,
      2,
    ),
  );
  return lines.join('\n') + '\n';
}

/** The widest a column grows for a word of its name (longer words are cut over lines). */
const HEAD_WORD = 16;

function longestWord(text: string): number {
  return Math.max(0, ...text.split(' ').map((w) => w.length));
}

/** Columns in pages: as many side by side as fit in `room` (each after two spaces), at least one. */
function pages(widths: readonly number[], room: number): number[][] {
  const out: number[][] = [];
  let page: number[] = [];
  let used = 0;
  widths.forEach((w, i) => {
    if (page.length > 0 && used + 2 + w > room) {
      out.push(page);
      page = [];
      used = 0;
    }
    page.push(i);
    used += 2 + w;
  });
  if (page.length > 0) out.push(page);
  return out;
}

/** A column's heading folded into lines of `width`, a word longer than that cut over lines. */
function headWrap(text: string, width: number): string[] {
  const words = text
    .split(' ')
    .flatMap((w) => (w.length <= width ? [w] : (w.match(new RegExp(`.{1,${width}}`, 'g')) ?? [])));
  return wrap(words.join(' '), width, 0).split('\n');
}

/** GitHub-flavoured Markdown: the table, a legend, and what each column is. */
export function renderMatrixMarkdown(m: Matrix, title = 'pooltest compatibility matrix'): string {
  const header = ['Check', 'Severity', ...m.columns.map((c) => inline(c.name))];
  const rows = m.rows.map((r) => [`${code(r.id)}`, r.severity, ...r.cells.map((x) => cellMarkdown(x, r.severity))]);
  const differ = m.rows.filter((r) => r.cells.some((x) => x.differs)).length;
  const columns = m.columns.map((c, i) => {
    const pooler = c.pooler ? inline(c.pooler) : 'no pooler identified';
    const profile = c.profile ? `, profile ${code(c.profile)}` : '';
    const sweep = sweepMarkdown(c);
    const run = `run ${code(c.runId)} at ${inline(c.startedAt)}`;
    return `- **${inline(c.name)}**: ${pooler}, ${inline(c.mode)} mode, PostgreSQL ${inline(c.server)}${profile}; ${run}; sweep ${sweep}; ${columnCounts(m, i)}`;
  });
  const legend = [
    `**Bold**: the outcome differs from the first column (${inline(m.columns[0]?.name ?? '')})`,
    '⚠ after an outcome: it breaks an application written for a direct connection',
    "❌ failed the column's profile",
    '⚠️ inconclusive',
    '— no outcome (skipped or not run)',
    'an observation (nothing asserted) is spelled out: `observed: BREAKS (severity)` or `observed: no break`',
  ].join('; ');
  return [
    `### ${inline(title)}`,
    '',
    `${m.rows.length} checks against ${m.columns.length} targets. ${legend}. ${differ} check(s) differ somewhere.`,
    '',
    table(header, rows),
    '',
    ...columns,
    '',
  ].join('\n');
}

/** The column's sweep in its report's words, the state emphasised unless clean. */
function sweepMarkdown(c: MatrixColumn): string {
  const { state, text } = columnSweep(c);
  const rest = inline(text.slice(state.length));
  if (state === 'clean' || state === 'not run') return `${state}${rest}`;
  return `${state === 'dirty' ? '**DIRTY**' : `*${state}*`}${rest}`;
}

function cellMarkdown(x: MatrixCell, severity: Severity): string {
  // A cell seen to vary shows every outcome seen; the page that records it says why in a note.
  if (x.seen && x.seen.length > 1) {
    const set = x.seen.map((o) => code(o)).join(' \\| ');
    return `${x.differs ? `**${set}**` : set}${x.seen.some((o) => outcomeBreaks(o) === true) ? ' ⚠' : ''}${BADGE[x.verdict ?? ''] ?? ''}`;
  }
  if (x.outcome === null)
    return `${x.verdict === null ? 'absent' : x.verdict === 'skipped' ? '— skipped' : '—'}${BADGE[x.verdict ?? ''] ?? ''}`;
  const label = x.differs ? `**${code(x.outcome)}**` : code(x.outcome);
  const measure = x.measure ? ` ${inline(x.measure)}` : '';
  // An observation is spelled out (nothing was asserted, so there is no badge to read).
  const observed = x.verdict === 'observed' ? ` ${x.breaks ? '❗ ' : ''}${inline(phrase(x, severity)!)}` : '';
  return `${label}${measure}${x.breaks ? ' ⚠' : ''}${BADGE[x.verdict ?? ''] ?? ''}${observed}`;
}
