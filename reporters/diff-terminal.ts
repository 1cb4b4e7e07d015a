/**
 * `pooltest diff` and `--compare` in the terminal: the two runs named, then every check side
 * by side (grouped by severity), what the change means for the application, and the advice
 * for each break right under it.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { ChangeKind, DiffEntry, DiffSide, ReportDiff } from './report-diff.js';
import { verdictCounts, verdictPhrase } from './verdict-text.js';
import { sideWhat, targetText } from './report-text.js';
import { groupBySeverity } from './severity.js';
import { oneLine, outcomeWidth, terminalSafe, wrap } from './terminal-text.js';

export interface DiffTerminalOptions {
  color: boolean;
  /** Terminal width to fold long lines at. */
  width?: number;
  /** Only breaks and the summary. */
  quiet?: boolean;
}

/** Renders a diff for the terminal. */
export function renderDiff(unsafe: ReportDiff, opts: DiffTerminalOptions): string {
  // Both sides were read from files: every string is made printable before any line uses it.
  const diff = terminalSafe(unsafe);
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const width = opts.width ?? 100;
  const lines: string[] = [];
  if (!opts.quiet) {
    lines.push(c.bold('pooltest diff'), sideLine('OLD', diff.old, width), sideLine('NEW', diff.new, width), '');
    const w = Math.max(5, ...diff.entries.map((e) => e.id.length));
    const ow = outcomeWidth(
      'OLD',
      diff.entries.flatMap((e) => [e.old, e.new]),
    );
    lines.push(
      c.bold(`${'CHECK'.padEnd(w)}  ${'OLD'.padEnd(ow)}  ${'NEW'.padEnd(ow)}  ${'CHANGE'.padEnd(7)}  NEW VERDICT`),
    );
    for (const group of groupBySeverity(diff.entries)) {
      lines.push(c.bold.underline(`${group.severity} (${group.checks.length})`));
      for (const e of group.checks) {
        lines.push(
          `${e.id.padEnd(w)}  ${(e.old ?? '-').padEnd(ow)}  ${(e.new ?? '-').padEnd(ow)}  ${changeText(e.change, c)}${' '.repeat(Math.max(0, 7 - e.change.length))}  ${newVerdict(e)}`.trimEnd(),
        );
        // Folded, never cut: the advice is what a reader acts on (the main report folds it too).
        if (e.change !== 'same') lines.push(c.dim(wrap(`    ${e.why}`, width, 4)));
        if (e.change === 'breaks')
          lines.push(
            c.cyan(wrap(`    advice: ${e.advice ?? 'none recorded for this outcome; see INTERPRETING.md'}`, width, 12)),
          );
      }
    }
    lines.push('');
  } else {
    for (const e of diff.entries.filter((x) => x.change === 'breaks')) {
      lines.push(`${c.red.bold('BREAKS')} ${oneLine(`${e.id}: ${e.old} -> ${e.new}. ${e.advice ?? ''}`.trimEnd())}`);
    }
  }
  const s = diff.summary;
  // Folded before the label is made bold, so that its colour codes are not counted as width.
  if (!opts.quiet) lines.push(wrap(`NEW      ${newCounts(diff)}`, width, 9).replace(/^NEW/, c.bold('NEW')));
  lines.push(
    `${c.bold('Changes')}  ${c.red(`${s.breaks} break(s)`)}, ${c.green(`${s.fixed} fixed`)}, ${s.same} same, ${s.changed} changed, ${c.yellow(`${s.unknown} unknown`)}  exit ${s.exitCode}`,
  );
  return lines.join('\n') + '\n';
}

function sideLine(label: string, s: DiffSide, width: number): string {
  const what = sideWhat(s);
  const sweep = s.sweep ? `  sweep ${s.sweep}` : '';
  return wrap(
    `  ${label}  ${targetText(s.target)}  ${what}  PostgreSQL ${s.serverVersion}  run ${s.runId}  ${s.startedAt}${sweep}`,
    width,
    7,
  );
}

/** NEW's verdict in the words of every renderer (verdict-text.ts); a check NEW did not run has none. */
export function newVerdict(e: DiffEntry): string {
  return e.newVerdict === null ? '' : verdictPhrase({ verdict: e.newVerdict, outcome: e.new, severity: e.severity });
}

/** Every verdict of NEW counted, as the reports count them. */
export function newCounts(diff: ReportDiff): string {
  const ran = diff.entries.filter((e) => e.newVerdict !== null);
  return verdictCounts(ran.map((e) => ({ verdict: e.newVerdict!, outcome: e.new })));
}

function changeText(k: ChangeKind, c: ChalkInstance): string {
  switch (k) {
    case 'breaks':
      return c.red.bold('BREAKS');
    case 'fixed':
      return c.green('fixed');
    case 'unknown':
      return c.yellow('unknown');
    default:
      return c.dim(k);
  }
}
