/**
 * `pooltest diff OLD NEW`: compare two stored reports (files, or run folders holding a
 * report.json, such as `.pooltest/latest`) and say what changes for the application going
 * from OLD to NEW. Exit code 1 when anything breaks, so a pipeline can gate on it.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { renderDiffMarkdown } from '../reporters/diff-markdown.js';
import { renderDiff } from '../reporters/diff-terminal.js';
import { diffToJson } from '../reporters/json-reporter.js';
import { parseJsonBytes } from '../engine/record/json-file.js';
import { PooltestError } from '../engine/record/errors.js';
import { diffReports } from '../reporters/report-diff.js';
import { READABLE_SCHEMA_VERSIONS, upgradeReport } from '../reporters/report-compat.js';
import { REPORT_SCHEMA_VERSION, type Report } from '../engine/types.js';
import { oneLine } from '../reporters/terminal-text.js';
import { labelsOf } from '../suites/labels.js';
import { writeOutput } from './outputs.js';
import { stdoutOutput, type CommandGrammar } from '../common/command-grammar.js';
import { readOrAnswer } from './command-line.js';
import type { CliIo } from './run-command.js';

/** `pooltest diff`'s grammar: it reads two reports and connects to nothing. */
export const DIFF_GRAMMAR: CommandGrammar = {
  command: 'diff',
  synopsis: ['pooltest diff OLD NEW [--markdown FILE] [--json FILE] [--quiet] [--no-color]'],
  about: `Compares two pooltest JSON reports (or run folders such as .pooltest/latest) check by check:
what changes for the application going from OLD (what it runs on today) to NEW.
  breaks   NEW shows an outcome that breaks applications that OLD did not (e.g. session -> leaked)
  fixed    OLD's outcome broke applications, NEW's does not
  same     the same outcome on both
  changed  a different outcome, and neither breaks applications (e.g. session -> tracked)
  unknown  one report or both has no outcome for the check (inconclusive, skipped or not
           run there), or NEW's outcome is one pooltest cannot place; the line says which`,
  shared: {
    json: 'write the comparison as JSON',
    markdown: 'write it as Markdown',
    quiet: 'print only what breaks and the summary',
    'no-color': true,
    color: true,
    help: true,
    version: true,
  },
  own: {},
  sections: ['Output', 'General'],
  notes: 'Exit codes: 0 nothing breaks, 1 something breaks, 2 the reports could not be read.',
  noStdout: null,
  bareTimeout: 'unit',
  stray: () => null,
};

/** Runs `pooltest diff` with the arguments after `diff`; returns the exit code. */
export function diffCommand(argv: string[], io: Pick<CliIo, 'stdout' | 'stderr' | 'color' | 'width'>): number {
  const parsed = readOrAnswer(DIFF_GRAMMAR, argv, io.stdout);
  if (parsed === null) return 0;
  const v = parsed.shared;
  if (parsed.positionals.length !== 2)
    throw new PooltestError('BAD_ARGUMENTS', 'pooltest diff takes two reports, OLD and NEW (see pooltest diff --help)');
  const [oldPath, newPath] = parsed.positionals as [string, string];
  const diff = diffReports(readReport(oldPath), readReport(newPath));
  if (v.json !== undefined) writeOutput(v.json, diffToJson(diff));
  if (v.markdown !== undefined) writeOutput(v.markdown, renderDiffMarkdown(diff));
  // A document on standard output keeps it to itself: the view goes to stderr.
  const view = stdoutOutput(v) !== null ? io.stderr : io.stdout;
  view(renderDiff(diff, { color: v.color ?? io.color, width: io.width, quiet: v.quiet }));
  return diff.summary.exitCode;
}

/** Reads a report file (or a run folder's report.json) and checks it is one this version can compare. */
export function readReport(file: string): Report {
  let resolved = file;
  let bytes: Buffer;
  try {
    if (statSync(file).isDirectory()) resolved = path.join(file, 'report.json');
    bytes = readFileSync(resolved);
  } catch (err) {
    throw new PooltestError(
      'REPORT_INVALID',
      `cannot read a pooltest report from ${resolved}: ${oneLine(err instanceof Error ? err.message : String(err))}`,
    );
  }
  const read = parseJsonBytes(bytes);
  if (!read.ok)
    throw new PooltestError(
      'REPORT_INVALID',
      `cannot read a pooltest report from ${resolved}: ${oneLine(read.problem)}`,
    );
  const value = read.value;
  const problem = reportProblem(value);
  if (problem)
    throw new PooltestError(
      'REPORT_INVALID',
      `${resolved} is not a pooltest report this version can compare: ${problem}`,
    );
  // Schema 1 reports read as schema 2 (their observations were called pass).
  return upgradeReport(value as Report);
}

/**
 * The fields a diff relies on, checked by hand: the full JSON Schema ships for users' own
 * validators, but a validator is not worth a runtime dependency here.
 */
function reportProblem(v: unknown): string | null {
  if (typeof v !== 'object' || v === null) return 'not a JSON object';
  const r = v as Partial<Record<keyof Report, unknown>>;
  if (typeof r.schemaVersion !== 'number' || !READABLE_SCHEMA_VERSIONS.includes(r.schemaVersion))
    return `schemaVersion is ${JSON.stringify(r.schemaVersion)}, expected one of ${READABLE_SCHEMA_VERSIONS.join(', ')} (this version writes ${REPORT_SCHEMA_VERSION})`;
  if (!Array.isArray(r.checks)) return 'no "checks" array';
  const bad = r.checks.find(
    (c: unknown) =>
      typeof c !== 'object' || c === null || typeof (c as { id?: unknown }).id !== 'string' || !('outcome' in c),
  );
  if (bad !== undefined) return `a check without "id" and "outcome": ${quoted(bad)}`;
  const ids = new Set<string>();
  for (const c of r.checks as Array<{ id: string; outcome: unknown; severity?: unknown }>) {
    // One result per check: with two, which one a comparison used would be an accident.
    if (ids.has(c.id)) return `check ${quoted(c.id)} appears twice`;
    ids.add(c.id);
    if (c.severity !== undefined && typeof c.severity !== 'string')
      return `check ${quoted(c.id)} has severity ${quoted(c.severity)}, expected a string`;
    if (c.outcome !== null && typeof c.outcome !== 'string')
      return `check ${quoted(c.id)} has outcome ${quoted(c.outcome)}, expected a label or null`;
    // A check this version knows reports only its declared labels; a newer pooltest's check
    // (an id not in the catalogue) may report anything, and diff calls it unknown.
    const labels = labelsOf(c.id);
    if (typeof c.outcome === 'string' && labels !== null && !labels.includes(c.outcome))
      return `check ${c.id} has outcome ${quoted(c.outcome)}, which is not one of its outcomes (${labels.join(', ')})`;
  }
  for (const key of ['target', 'discovery', 'tool'] as const)
    if (typeof r[key] !== 'object' || r[key] === null) return `no "${key}" object`;
  const pooler = (r.discovery as { pooler?: unknown }).pooler;
  if (
    pooler !== undefined &&
    pooler !== null &&
    (typeof pooler !== 'object' || typeof (pooler as { name?: unknown }).name !== 'string')
  )
    return `discovery.pooler is ${quoted(pooler)}, expected null or an object with a "name" string`;
  return null;
}

/** `value` as JSON, cut to 120 characters and printable: it goes into an error message. */
function quoted(value: unknown): string {
  return oneLine(JSON.stringify(value) ?? String(value)).slice(0, 120);
}
