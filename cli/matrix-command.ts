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
import { parseSubcommandArgs } from './subcommand-args.js';
import { renderMatrixHtml } from '../reporters/matrix-html.js';
import { renderMatrixMarkdown, renderMatrixTerminal } from '../reporters/matrix-text.js';
import { buildMatrix, type NamedReport } from '../reporters/matrix.js';
import { readReport } from './diff-command.js';
import type { CliIo } from './run-command.js';

export const MATRIX_USAGE = `Usage: pooltest matrix [NAME=]REPORT... [--markdown FILE] [--html FILE] [--json FILE] [--title T] [--no-color]

Merges pooltest JSON reports (or run folders such as .pooltest/latest) into one compatibility
matrix: checks as rows, one column per report, each cell the outcome and verdict. The first
report is the reference: cells whose outcome differs from it are marked. Name a column with
NAME=REPORT (e.g. pgbouncer-1.23=out/1.23.json); by default columns are named after the
pooler, mode and PostgreSQL version, and two reports that would share a name are refused.

Exit codes: 0 the matrix was written, 2 a report could not be read or two reports collide.`;

/** Runs `pooltest matrix` with the arguments after `matrix`; returns the exit code. */
export function matrixCommand(argv: string[], io: Pick<CliIo, 'stdout' | 'color' | 'width'>): number {
  const parsed = parseSubcommandArgs(
    argv,
    {
      markdown: { type: 'string' },
      html: { type: 'string' },
      json: { type: 'string' },
      title: { type: 'string' },
      'no-color': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    } as const,
    MATRIX_USAGE,
    io.stdout,
  );
  if (parsed === null) return 0;
  const v = parsed.values;
  if (parsed.positionals.length === 0)
    throw new PooltestError('BAD_ARGUMENTS', `pooltest matrix takes one or more reports\n\n${MATRIX_USAGE}`);
  const matrix = buildMatrix(parsed.positionals.map(namedReport));
  if (v.json !== undefined) writeOutput(v.json, `${JSON.stringify(matrix, null, 2)}\n`);
  if (v.markdown !== undefined) writeOutput(v.markdown, renderMatrixMarkdown(matrix, v.title));
  if (v.html !== undefined) writeOutput(v.html, renderMatrixHtml(matrix, v.title));
  io.stdout(renderMatrixTerminal(matrix, { color: io.color && !v['no-color'], width: io.width }));
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
