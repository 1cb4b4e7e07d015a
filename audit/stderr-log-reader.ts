/**
 * PostgreSQL's plain `stderr` log format: `<log_line_prefix>SEVERITY:  message`. Whatever the
 * prefix holds (timestamp, pid, user@db...), the severity is the word right before the first
 * `:  ` (colon, two spaces). A message with several lines continues on lines that start with a
 * tab: PostgreSQL adds one to each continuation line, and we strip exactly that one.
 */
import type { RawLine } from './line-splitter.js';
import { SEVERITIES, statementFromMessage, type LoggedStatement } from './log-message.js';
import type { LogEvents, LogReader } from './log-reader.js';

interface OpenStatement {
  found: LoggedStatement;
  parts: string[];
  line: number;
  bytes: number;
  tooLong: boolean;
}

/** Reads stderr-format lines. */
export class StderrLogReader implements LogReader {
  entries = 0;
  readonly multiLineStatements = true;
  private open: OpenStatement | null = null;

  constructor(
    private readonly events: LogEvents,
    private readonly maxStatementBytes: number,
  ) {}

  line(line: RawLine): void {
    if (line.text.charCodeAt(0) === 0x09) {
      this.continueWith(line);
      return;
    }
    this.flush();
    const sep = line.text.indexOf(':  ');
    if (sep === -1) return;
    const severity = wordBefore(line.text, sep);
    if (!SEVERITIES.has(severity)) return;
    this.entries++;
    if (severity !== 'LOG') return;
    const found = statementFromMessage(line.text.slice(sep + 3));
    if (found === null) return;
    this.open = {
      found,
      parts: [found.text],
      line: line.lineNo,
      bytes: line.bytes,
      tooLong: line.truncated || line.bytes > this.maxStatementBytes,
    };
  }

  end(): void {
    this.flush();
  }

  private continueWith(line: RawLine): void {
    const open = this.open;
    if (open === null) return;
    open.bytes += line.bytes;
    if (line.truncated || open.bytes > this.maxStatementBytes) open.tooLong = true;
    // Past the limit only the size is tracked; the beginning is kept for the report.
    if (!open.tooLong) open.parts.push(line.text.slice(1));
  }

  private flush(): void {
    const open = this.open;
    if (open === null) return;
    this.open = null;
    const text = open.parts.length === 1 ? open.parts[0]! : open.parts.join('\n');
    if (open.tooLong) this.events.tooLong(text, open.line, open.bytes);
    else this.events.statement({ ...open.found, text }, open.line);
  }
}

/** The run of capital letters and digits that ends at `end`. */
function wordBefore(text: string, end: number): string {
  let start = end;
  while (start > 0) {
    const c = text.charCodeAt(start - 1);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39)) start--;
    else break;
  }
  return text.slice(start, end);
}
