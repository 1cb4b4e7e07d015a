/**
 * PostgreSQL's `jsonlog` format (PostgreSQL 15+): one JSON object per line, newlines inside
 * the message escaped, so every entry is exactly one line.
 */
import type { RawLine } from './line-splitter.js';
import { SEVERITIES, statementFromMessage } from './log-message.js';
import type { LogEvents, LogReader } from './log-reader.js';

/** Reads jsonlog lines. */
export class JsonLogReader implements LogReader {
  entries = 0;
  readonly multiLineStatements = false;

  constructor(
    private readonly events: LogEvents,
    private readonly maxStatementBytes: number,
  ) {}

  line(line: RawLine): void {
    if (line.truncated || line.bytes > this.maxStatementBytes) {
      this.oversized(line);
      return;
    }
    let entry: unknown;
    try {
      entry = JSON.parse(line.text);
    } catch {
      return;
    }
    if (entry === null || typeof entry !== 'object') return;
    const { error_severity: severity, message } = entry as { error_severity?: unknown; message?: unknown };
    if (typeof severity !== 'string' || !SEVERITIES.has(severity)) return;
    this.entries++;
    if (severity !== 'LOG' || typeof message !== 'string') return;
    const found = statementFromMessage(message);
    if (found !== null) this.events.statement(found, line.lineNo);
  }

  end(): void {}

  /**
   * A line too long to parse as JSON: its kept beginning still says whether it is a LOG entry
   * with a statement (the fields come in a fixed order, message after error_severity).
   */
  private oversized(line: RawLine): void {
    const at = line.text.indexOf('"message":"');
    if (at === -1 || !line.text.includes('"error_severity":"LOG"')) return;
    this.entries++;
    let head: string;
    try {
      // Decode the escapes of the kept part by closing the cut string ourselves.
      head = JSON.parse(`"${line.text.slice(at + 11, at + 11 + 4096).replace(/\\?$/, '')}"`) as string;
    } catch {
      head = line.text.slice(at + 11, at + 11 + 4096);
    }
    const found = statementFromMessage(head);
    if (found !== null) this.events.tooLong(found.text, line.lineNo, line.bytes);
  }
}
