/**
 * What the three log-format readers share: they receive lines and report statements through
 * {@link LogEvents}. Readers keep at most one entry in memory, bounded by the statement limit.
 */
import type { RawLine } from './line-splitter.js';
import type { LoggedStatement } from './log-message.js';

/** A statement found in a log, at the line its entry starts on. */
export interface LogEvents {
  statement(found: LoggedStatement, line: number): void;
  /** A statement longer than the limit: reported with its beginning, not parsed. */
  tooLong(head: string, line: number, bytes: number): void;
}

/** One log format's reader. */
export interface LogReader {
  /** Lines that were recognisably log entries of this format (a log with none is not a log). */
  readonly entries: number;
  /** True when newlines inside a statement are lines of the file (stderr, csvlog). */
  readonly multiLineStatements: boolean;
  line(line: RawLine): void;
  end(): void;
}
