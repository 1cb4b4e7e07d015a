/**
 * PostgreSQL's `csvlog` format: one CSV record per entry, fields in a fixed order
 * (error_severity is the 12th, message the 14th). A quoted field may hold newlines, so a
 * record spans lines until its quotes balance; `""` inside quotes is a literal quote.
 */
import type { RawLine } from './line-splitter.js';
import { SEVERITIES, statementFromMessage } from './log-message.js';
import type { LogEvents, LogReader } from './log-reader.js';

const SEVERITY_FIELD = 11;
const MESSAGE_FIELD = 13;

interface OpenRecord {
  parts: string[];
  line: number;
  bytes: number;
  /** Odd while inside a quoted field. */
  quotes: number;
  tooLong: boolean;
}

/** Reads csvlog lines. */
export class CsvLogReader implements LogReader {
  entries = 0;
  readonly multiLineStatements = true;
  private open: OpenRecord | null = null;

  constructor(
    private readonly events: LogEvents,
    private readonly maxStatementBytes: number,
  ) {}

  line(line: RawLine): void {
    const quotes = countQuotes(line.text) + line.droppedQuotes;
    const open = this.open;
    if (open === null) {
      this.open = {
        parts: [line.text],
        line: line.lineNo,
        bytes: line.bytes,
        quotes,
        tooLong: line.truncated || line.bytes > this.maxStatementBytes,
      };
    } else {
      open.bytes += line.bytes + 1;
      open.quotes += quotes;
      if (line.truncated || open.bytes > this.maxStatementBytes) open.tooLong = true;
      if (!open.tooLong) open.parts.push(line.text);
    }
    if (this.open!.quotes % 2 === 0) this.finish();
  }

  end(): void {
    // An unbalanced last record (a cut-off file) is still read as far as it goes.
    if (this.open !== null) this.finish();
  }

  private finish(): void {
    const record = this.open!;
    this.open = null;
    const text = record.parts.length === 1 ? record.parts[0]! : record.parts.join('\n');
    const fields = csvFields(text, MESSAGE_FIELD + 1);
    if (!SEVERITIES.has(fields[SEVERITY_FIELD] ?? '')) return;
    this.entries++;
    if (fields[SEVERITY_FIELD] !== 'LOG' || fields.length <= MESSAGE_FIELD) return;
    const found = statementFromMessage(fields[MESSAGE_FIELD]!);
    if (found === null) return;
    if (record.tooLong) this.events.tooLong(found.text, record.line, record.bytes);
    else this.events.statement(found, record.line);
  }
}

function countQuotes(text: string): number {
  let n = 0;
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) n++;
  return n;
}

/** The first `limit` fields of a CSV record (a cut-off last field is returned as far as it goes). */
export function csvFields(record: string, limit: number): string[] {
  const fields: string[] = [];
  let i = 0;
  while (fields.length < limit && i <= record.length) {
    if (record.charCodeAt(i) === 0x22) {
      let value = '';
      let from = i + 1;
      for (;;) {
        const q = record.indexOf('"', from);
        if (q === -1) {
          value += record.slice(from);
          i = record.length + 1;
          break;
        }
        value += record.slice(from, q);
        if (record.charCodeAt(q + 1) === 0x22) {
          value += '"';
          from = q + 2;
        } else {
          i = q + 2; // past the closing quote and its comma
          break;
        }
      }
      fields.push(value);
    } else {
      const comma = record.indexOf(',', i);
      const end = comma === -1 ? record.length : comma;
      fields.push(record.slice(i, end));
      i = end + 1;
    }
  }
  return fields;
}
