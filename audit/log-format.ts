/**
 * Telling the three PostgreSQL log formats apart from the first line of a log: jsonlog lines
 * are JSON objects, csvlog records start with a quoted-free timestamp and a comma, everything
 * else is read as stderr format (whose prefix is whatever log_line_prefix says).
 */
import type { LogEvents, LogReader } from './log-reader.js';
import { CsvLogReader } from './csv-log-reader.js';
import { JsonLogReader } from './json-log-reader.js';
import { StderrLogReader } from './stderr-log-reader.js';

/** The formats `--log-format` accepts. */
export type LogFormat = 'stderr' | 'csvlog' | 'jsonlog';

export const LOG_FORMATS: readonly LogFormat[] = ['stderr', 'csvlog', 'jsonlog'];

/**
 * csvlog's first field: `2024-05-01 10:00:00.123 UTC,` (log_time with a one-word zone and then
 * the comma). A stderr line with the same timestamp prefix has a space after the zone instead.
 */
const CSV_START = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? [^ ,"]+,/;

/** The format of a log whose first non-empty line is `first`. */
export function detectLogFormat(first: string): LogFormat {
  if (first.startsWith('{')) return 'jsonlog';
  if (CSV_START.test(first)) return 'csvlog';
  return 'stderr';
}

/** A reader for `format`. */
export function logReader(format: LogFormat, events: LogEvents, maxStatementBytes: number): LogReader {
  switch (format) {
    case 'jsonlog':
      return new JsonLogReader(events, maxStatementBytes);
    case 'csvlog':
      return new CsvLogReader(events, maxStatementBytes);
    case 'stderr':
      return new StderrLogReader(events, maxStatementBytes);
  }
}
