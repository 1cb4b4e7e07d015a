/**
 * `--log FILE`: a PostgreSQL server log, streamed chunk by chunk so a multi-gigabyte log runs
 * in the same memory as a small one. `-` reads standard input (`zcat log.gz | pooltest audit
 * --log -`). Statements keep the line their log entry starts on as their source.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { PooltestError } from '../engine/errors.js';
import type { AuditCollector } from './audit-collector.js';
import type { InputSummary } from './audit-types.js';
import { fileError } from './input-checks.js';
import { LineSplitter, type RawLine } from './line-splitter.js';
import type { ProgressSink } from './read-progress.js';
import { detectLogFormat, logReader, type LogFormat } from './log-format.js';
import type { LogEvents, LogReader } from './log-reader.js';
import type { LoggedStatement } from './log-message.js';

/** How to read one log. */
export interface LogInputOptions {
  /** `auto` decides from the first non-empty line. */
  format: LogFormat | 'auto';
  maxStatementBytes: number;
  /** Used for `-`; defaults to process.stdin. */
  stdin?: NodeJS.ReadableStream;
  /** Told how far the read has got (audit/read-progress.ts). */
  progress?: ProgressSink;
}

/** Enough to see a binary file for what it is before reading it line by line. */
const BINARY_SNIFF_BYTES = 64 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** Streams one log into the collector; returns its summary and any warnings. */
export async function auditLogFile(
  path: string,
  collector: AuditCollector,
  opts: LogInputOptions,
): Promise<{ summary: InputSummary; warnings: string[] }> {
  let totalBytes: number | null = null;
  if (path !== '-') {
    try {
      const info = await stat(path);
      if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      totalBytes = info.size;
    } catch (error) {
      throw fileError(path, error, '--log');
    }
  }
  const name = path === '-' ? 'stdin' : path;
  const state = new LogState(name, collector, opts);
  const stream = path === '-' ? (opts.stdin ?? process.stdin) : createReadStream(path, { highWaterMark: CHUNK_BYTES });
  let lines = 0;
  let bytesRead = 0;
  const splitter = new LineSplitter(opts.maxStatementBytes, (line) => {
    lines++;
    state.line(line);
  });
  let first = true;
  opts.progress?.start(name, totalBytes);
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      if (first) {
        first = false;
        const nul = bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0);
        if (nul !== -1)
          throw new PooltestError(
            'AUDIT_INPUT',
            `--log ${name}: looks binary (NUL byte at offset ${nul}); not a PostgreSQL log`,
            { file: name, offset: nul },
          );
      }
      splitter.push(bytes);
      bytesRead += bytes.length;
      opts.progress?.update(bytesRead, lines);
    }
    splitter.end();
    state.end();
  } catch (error) {
    if (error instanceof PooltestError) throw error;
    throw fileError(name, error, '--log');
  } finally {
    opts.progress?.done();
    if ('destroy' in stream && typeof stream.destroy === 'function' && stream !== process.stdin) stream.destroy();
  }
  return state.result();
}

/** Per-log bookkeeping: the reader once the format is known, and the counts for the summary. */
class LogState implements LogEvents {
  private reader: LogReader | null = null;
  private format: LogFormat | null = null;
  private lines = 0;
  /** Log entries that carried a statement (a text may hold several statements). */
  private statements = 0;
  private named = 0;
  private invalidUtf8 = 0;
  private firstInvalidLine = 0;
  private readonly before: number;

  constructor(
    private readonly name: string,
    private readonly collector: AuditCollector,
    private readonly opts: LogInputOptions,
  ) {
    this.before = collector.statements;
  }

  line(line: RawLine): void {
    this.lines++;
    if (!line.validUtf8 && this.invalidUtf8++ === 0) this.firstInvalidLine = line.lineNo;
    if (this.reader === null) {
      if (line.text.trim() === '') return;
      this.format = this.opts.format === 'auto' ? detectLogFormat(line.text) : this.opts.format;
      this.reader = logReader(this.format, this, this.opts.maxStatementBytes);
    }
    this.reader.line(line);
  }

  end(): void {
    this.reader?.end();
  }

  statement(found: LoggedStatement, line: number): void {
    const named = found.namedProtocol && found.name !== undefined ? found.name : null;
    // A parse or bind line of a named statement: evidence of the statement, not a run of it.
    if (found.phase === 'parse' || found.phase === 'bind') {
      if (named !== null) this.collector.namedStatement(named, found.text, 0, `${this.name}:${line}`);
      return;
    }
    this.statements++;
    if (found.namedProtocol) this.named++;
    const multiLine = this.reader?.multiLineStatements === true;
    this.collector.consume(
      found.text,
      1,
      (offset) => `${this.name}:${multiLine ? line + newlinesBefore(found.text, offset) : line}`,
    );
    if (named !== null) this.collector.namedStatement(named, found.text, 1, `${this.name}:${line}`);
  }

  tooLong(head: string, line: number, bytes: number): void {
    this.statements++;
    this.collector.countStatements(1);
    this.collector.unparsed(
      head,
      `${this.name}:${line}`,
      `statement too long to parse: ${bytes} bytes (limit ${this.opts.maxStatementBytes}, see --max-statement-bytes)`,
      1,
    );
  }

  result(): { summary: InputSummary; warnings: string[] } {
    const format = this.format ?? (this.opts.format === 'auto' ? 'stderr' : this.opts.format);
    if (this.lines > 0 && (this.reader?.entries ?? 0) === 0) {
      throw new PooltestError(
        'AUDIT_INPUT',
        `--log ${this.name}: no PostgreSQL log entries found (read as ${format}); is it a server log? (--log-format stderr|csvlog|jsonlog)`,
        { file: this.name },
      );
    }
    const warnings: string[] = [];
    if (this.lines === 0) warnings.push(`--log ${this.name} is empty`);
    else if (this.statements === 0)
      warnings.push(
        `--log ${this.name}: no statements logged; set log_statement = 'all' (or log_min_duration_statement = 0) on the server`,
      );
    if (this.invalidUtf8 > 0)
      warnings.push(
        `--log ${this.name}: ${this.invalidUtf8} line(s) are not valid UTF-8 (first: line ${this.firstInvalidLine}); read with replacement characters`,
      );
    const summary: InputSummary = {
      kind: 'log',
      name: this.name,
      statements: this.collector.statements - this.before,
      format,
    };
    if (this.named > 0) summary.namedProtocolExecutions = this.named;
    if (this.invalidUtf8 > 0) summary.invalidUtf8Lines = this.invalidUtf8;
    return { summary, warnings };
  }
}

function newlinesBefore(text: string, offset: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
