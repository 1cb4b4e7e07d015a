/**
 * The bookkeeping of one log being read: the reader once the format is known, statements into
 * the collector with their `file:line` sources, and the counts its summary and warnings come
 * from. Whole logs and workers' chunks of a log (log-parallel.ts) share it.
 */
import { PooltestError } from '../engine/record/errors.js';
import type { AuditCollector } from './audit-collector.js';
import type { InputSummary } from './audit-types.js';
import type { RawLine } from './line-splitter.js';
import { detectLogFormat, logReader, type LogFormat } from './log-format.js';
import type { LoggedStatement } from './log-message.js';
import type { LogEvents, LogReader } from './log-reader.js';

/** How to read the log. */
export interface LogStateOptions {
  /** `auto` decides from the first non-empty line. */
  format: LogFormat | 'auto';
  maxStatementBytes: number;
}

/** What a log (or a chunk of one) held; plain data, so a worker can send it. */
export interface LogCounts {
  format: LogFormat | null;
  lines: number;
  /** Lines that were recognisably log entries of the format. */
  entries: number;
  /** Log entries that carried a statement (a text may hold several statements). */
  statements: number;
  named: number;
  invalidUtf8: number;
  firstInvalidLine: number;
  /** Statements the collector counted for this log. */
  collected: number;
}

/** Per-log bookkeeping: the reader once the format is known, and the counts for the summary. */
export class LogState implements LogEvents {
  private reader: LogReader | null = null;
  readonly counts: LogCounts;
  private readonly before: number;
  /** The statement being consumed, for {@link locate} (one function for all, not one per statement). */
  private at = 0;
  private atText: string | null = null;
  /** The source of an offset in the statement being consumed: its line, counting newlines before it in a multi-line format. */
  private readonly locate = (offset: number): string =>
    `${this.name}:${this.atText === null ? this.at : this.at + newlinesBefore(this.atText, offset)}`;

  constructor(
    private readonly name: string,
    private readonly collector: AuditCollector,
    private readonly opts: LogStateOptions,
  ) {
    this.before = collector.statements;
    this.counts = emptyCounts();
  }

  line(line: RawLine): void {
    const c = this.counts;
    c.lines++;
    if (!line.validUtf8 && c.invalidUtf8++ === 0) c.firstInvalidLine = line.lineNo;
    if (this.reader === null) {
      if (line.text.trim() === '') return;
      c.format = this.opts.format === 'auto' ? detectLogFormat(line.text) : this.opts.format;
      this.reader = logReader(c.format, this, this.opts.maxStatementBytes);
    }
    this.reader.line(line);
  }

  end(): void {
    this.reader?.end();
    this.counts.entries = this.reader?.entries ?? 0;
    this.counts.collected = this.collector.statements - this.before;
  }

  statement(found: LoggedStatement, line: number): void {
    const named = found.namedProtocol && found.name !== undefined ? found.name : null;
    // A parse or bind line of a named statement: evidence of the statement, not a run of it.
    if (found.phase === 'parse' || found.phase === 'bind') {
      if (named !== null) this.collector.namedStatement(named, found.text, 0, `${this.name}:${line}`);
      return;
    }
    this.counts.statements++;
    if (found.namedProtocol) this.counts.named++;
    this.at = line;
    this.atText = this.reader?.multiLineStatements === true ? found.text : null;
    this.collector.consume(found.text, 1, this.locate);
    if (named !== null) this.collector.namedStatement(named, found.text, 1, `${this.name}:${line}`);
  }

  tooLong(head: string, line: number, bytes: number): void {
    this.counts.statements++;
    this.collector.countStatements(1);
    this.collector.unparsed(
      head,
      `${this.name}:${line}`,
      `statement too long to parse: ${bytes} bytes (limit ${this.opts.maxStatementBytes}, see --max-statement-bytes)`,
      1,
    );
  }
}

function newlinesBefore(text: string, offset: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Counts before the first line. */
function emptyCounts(): LogCounts {
  return {
    format: null,
    lines: 0,
    entries: 0,
    statements: 0,
    named: 0,
    invalidUtf8: 0,
    firstInvalidLine: 0,
    collected: 0,
  };
}

/**
 * The counts of one log read in parts (a worker per chunk), added up in the parts' order: the
 * first part that saw a format or an invalid line is the one the whole log reports.
 */
export function addLogCounts(parts: readonly LogCounts[]): LogCounts {
  const total = emptyCounts();
  for (const p of parts) {
    total.format ??= p.format;
    if (total.invalidUtf8 === 0 && p.invalidUtf8 > 0) total.firstInvalidLine = p.firstInvalidLine;
    total.lines += p.lines;
    total.entries += p.entries;
    total.statements += p.statements;
    total.named += p.named;
    total.invalidUtf8 += p.invalidUtf8;
    total.collected += p.collected;
  }
  return total;
}

/** A log's summary and warnings from its counts (after {@link LogState.end}). */
export function logResult(
  name: string,
  counts: LogCounts,
  requested: LogFormat | 'auto',
): { summary: InputSummary; warnings: string[] } {
  const format = counts.format ?? (requested === 'auto' ? 'stderr' : requested);
  if (counts.lines > 0 && counts.entries === 0) {
    throw new PooltestError(
      'AUDIT_INPUT',
      `--log ${name}: no PostgreSQL log entries found (read as ${format}); is it a server log? (--log-format stderr|csvlog|jsonlog)`,
      { file: name },
    );
  }
  const warnings: string[] = [];
  if (counts.lines === 0) warnings.push(`--log ${name} is empty`);
  else if (counts.statements === 0)
    warnings.push(
      `--log ${name}: no statements logged; set log_statement = 'all' (or log_min_duration_statement = 0) on the server`,
    );
  if (counts.invalidUtf8 > 0)
    warnings.push(
      `--log ${name}: ${counts.invalidUtf8} line(s) are not valid UTF-8 (first: line ${counts.firstInvalidLine}); read with replacement characters`,
    );
  const summary: InputSummary = {
    kind: 'log',
    name,
    statements: counts.collected,
    format,
  };
  if (counts.named > 0) summary.namedProtocolExecutions = counts.named;
  if (counts.invalidUtf8 > 0) summary.invalidUtf8Lines = counts.invalidUtf8;
  return { summary, warnings };
}
