/**
 * `pooltest matrix REPORT...`: merge any number of stored reports (files, or run folders such
 * as `.pooltest/latest`) into one compatibility matrix, checks as rows and targets as columns,
 * printed for the terminal and written as Markdown, HTML or JSON. A report may be named for its
 * column with `NAME=FILE`; otherwise the column is named after the pooler, mode and server.
 * This is how a vendor merges the shards of a CI matrix (one job per pooler, version or mode).
 */
import { existsSync } from 'node:fs';
import { PooltestError } from '../engine/record/errors.js';
import { writeOutput } from './outputs.js';
import { stdoutOutput, type CommandGrammar } from '../common/command-grammar.js';
import { readOrAnswer } from './command-line.js';
import { renderMatrixHtml } from '../reporters/matrix-html.js';
import { renderMatrixMarkdown, renderMatrixTerminal } from '../reporters/matrix-text.js';
import { buildMatrix, type NamedReport } from '../reporters/matrix.js';
import { readReport } from './diff-command.js';
import type { CliIo } from './run-command.js';

/** `pooltest matrix`'s grammar: it reads reports and connects to nothing. */
export const MATRIX_GRAMMAR: CommandGrammar = {
  command: 'matrix',
  synopsis: ['pooltest matrix [NAME=]REPORT... [--markdown FILE] [--html FILE] [--json FILE] [--title T] [--no-color]'],
  about: `Merges pooltest JSON reports (or run folders such as .pooltest/latest) into one compatibility
matrix: checks as rows, one column per report, each cell the outcome and verdict. The first
report is the reference: cells whose outcome differs from it are marked. Name a column with
NAME=REPORT (e.g. pgbouncer-1.23=out/1.23.json); by default columns are named after the
pooler, mode and PostgreSQL version, and two reports that would share a name are refused.
The terminal table fits the terminal's width (120 columns when piped): targets that do not fit
beside each other go to further pages, each with the checks again. Each target's line gives
its run's own sweep (clean, DIRTY, or unknown with the reason) and summary.`,
  shared: {
    json: 'write the matrix as JSON',
    markdown: 'write it as Markdown',
    html: 'write it as one self-contained HTML page',
    'no-color': true,
    color: true,
    help: true,
    version: true,
  },
  own: { title: { section: 'Output', type: 'string', value: 'T', help: 'the title of the Markdown and HTML pages' } },
  sections: ['Output', 'General'],
  notes: 'Exit codes: 0 the matrix was written, 2 a report could not be read or two reports collide.',
  noStdout: null,
  bareTimeout: 'unit',
  stray: () => null,
};

/** Runs `pooltest matrix` with the arguments after `matrix`; returns the exit code. */
export function matrixCommand(argv: string[], io: Pick<CliIo, 'stdout' | 'stderr' | 'color' | 'width'>): number {
  const parsed = readOrAnswer(MATRIX_GRAMMAR, argv, io.stdout);
  if (parsed === null) return 0;
  const v = parsed.shared;
  if (parsed.positionals.length === 0)
    throw new PooltestError('BAD_ARGUMENTS', 'pooltest matrix takes one or more reports (see pooltest matrix --help)');
  const title = parsed.own.find((o) => o.name === 'title')?.values[0];
  const matrix = buildMatrix(parsed.positionals.map(namedReport));
  if (v.json !== undefined) writeOutput(v.json, `${JSON.stringify(matrix, null, 2)}\n`);
  if (v.markdown !== undefined) writeOutput(v.markdown, renderMatrixMarkdown(matrix, title));
  if (v.html !== undefined) writeOutput(v.html, renderMatrixHtml(matrix, title));
  // A document on standard output keeps it to itself: the table goes to stderr.
  const view = stdoutOutput(v) !== null ? io.stderr : io.stdout;
  view(renderMatrixTerminal(matrix, { color: v.color ?? io.color, width: io.width }));
  return 0;
}

/** `FILE`, or `NAME=FILE` when the whole argument is not itself a file. */
function namedReport(arg: string): NamedReport {
  const eq = arg.indexOf('=');
  if (existsSync(arg) || eq <= 0) return { report: readReport(arg), source: arg };
  const name = arg.slice(0, eq).trim();
  const file = arg.slice(eq + 1);
  if (name === '') throw new PooltestError('BAD_ARGUMENTS', `"${arg}": the column name before = is empty`);
  return { report: readReport(file), name, source: file };
}
