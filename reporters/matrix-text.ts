/**
 * The compatibility matrix for the terminal and for Markdown (a docs page such as
 * docs/compatibility.md, or a pull-request comment). A cell is the outcome and a verdict mark;
 * a cell whose outcome differs from the first column is marked `*` (terminal) or bold
 * (Markdown), and an outcome that breaks applications is flagged.
 */
import { Chalk } from 'chalk';
import type { Matrix, MatrixCell } from './matrix.js';
import { code, inline, table } from './markdown.js';
import { cut, oneLine, pad, terminalSafe } from './terminal-text.js';

const MARK: Readonly<Record<string, string>> = { pass: '', fail: ' ✗', inconclusive: ' ?', skipped: '' };
const BADGE: Readonly<Record<string, string>> = { pass: '', fail: ' ❌', inconclusive: ' ⚠️', skipped: '' };

/** Terminal text: one line per check, a column per target (numbered, named below the table). */
export function renderMatrixTerminal(unsafe: Matrix, opts: { color: boolean; width?: number }): string {
  // Cells and column names come from report files: printable before any of them is measured.
  const m = terminalSafe(unsafe);
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const idWidth = Math.max(5, ...m.rows.map((r) => r.id.length));
  const cellText = (x: MatrixCell): string =>
    `${x.outcome ?? (x.verdict === null ? 'absent' : x.verdict === 'skipped' ? 'skipped' : '-')}${MARK[x.verdict ?? ''] ?? ''}${x.differs ? '*' : ''}`;
  const widths = m.columns.map((_, i) => Math.max(4, ...m.rows.map((r) => cellText(r.cells[i]!).length)));
  const lines = [
    'pooltest matrix',
    ...m.columns.map((col, i) =>
      oneLine(`  [${i + 1}] ${col.name}: ${col.target}${col.profile ? `, profile ${col.profile}` : ''}`),
    ),
    '',
  ];
  lines.push(c.bold(`${pad('CHECK', idWidth)}  ${m.columns.map((_, i) => pad(`[${i + 1}]`, widths[i]!)).join('  ')}`));
  for (const row of m.rows) {
    const cells = row.cells.map((x, i) => {
      const text = pad(cellText(x), widths[i]!);
      return x.differs ? c.yellow.bold(text) : x.breaks ? c.red(text) : text;
    });
    lines.push(`${pad(row.id, idWidth)}  ${cells.join('  ')}`.trimEnd());
  }
  const differ = m.rows.filter((r) => r.cells.some((x) => x.differs)).length;
  lines.push(
    '',
    cut(
      `${m.rows.length} checks, ${m.columns.length} targets; ${differ} check(s) differ from [1] (marked *); ✗ failed its expectation, ? inconclusive`,
      opts.width ?? 120,
    ),
  );
  return lines.join('\n') + '\n';
}

/** GitHub-flavoured Markdown: the table, a legend, and what each column is. */
export function renderMatrixMarkdown(m: Matrix, title = 'pooltest compatibility matrix'): string {
  const header = ['Check', ...m.columns.map((c) => inline(c.name))];
  const rows = m.rows.map((r) => [`${code(r.id)}`, ...r.cells.map(cellMarkdown)]);
  const differ = m.rows.filter((r) => r.cells.some((x) => x.differs)).length;
  const columns = m.columns.map((c) => {
    const pooler = c.pooler ? inline(c.pooler) : 'no pooler identified';
    const profile = c.profile ? `, profile ${code(c.profile)}` : '';
    const sweep = c.sweepClean === null ? 'not run' : c.sweepClean ? 'clean' : '**dirty**';
    const run = `run ${code(c.runId)} at ${inline(c.startedAt)}`;
    return `- **${inline(c.name)}**: ${pooler}, ${inline(c.mode)} mode, PostgreSQL ${inline(c.server)}${profile}; ${run}; sweep ${sweep}`;
  });
  const legend = [
    `**Bold**: the outcome differs from the first column (${inline(m.columns[0]?.name ?? '')})`,
    '⚠ after an outcome: it breaks an application written for a direct connection',
    "❌ failed the column's profile",
    '⚠️ inconclusive',
    '— no outcome (skipped or not run)',
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

function cellMarkdown(x: MatrixCell): string {
  if (x.outcome === null)
    return `${x.verdict === null ? 'absent' : x.verdict === 'skipped' ? '— skipped' : '—'}${BADGE[x.verdict ?? ''] ?? ''}`;
  const label = x.differs ? `**${code(x.outcome)}**` : code(x.outcome);
  return `${label}${x.breaks ? ' ⚠' : ''}${BADGE[x.verdict ?? ''] ?? ''}`;
}
