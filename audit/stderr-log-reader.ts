/**
 * PostgreSQL's plain `stderr` log format: `<log_line_prefix>SEVERITY:  message`. Whatever the
 * prefix holds (timestamp, pid, user@db...), the severity is the word right before the first
 * `:  ` (colon, two spaces). A message with several lines continues on lines that start with a
 * tab: PostgreSQL adds one to each continuation line, and we strip exactly that one.
 *
 * Lines are recognised by their bytes: most lines of a busy log are not statements (DETAIL
 * parameters, connections, errors), and decoding each into a string was the largest cost of
 * reading a log once the parser was screened off. Only a statement's text is decoded; the
 * common `statement: ` and `execute <unnamed>: ` messages are matched on bytes, anything else
 * after `LOG:  ` is decoded and read by statementFromMessage (log-message.ts), which stays the
 * one definition of what the messages mean.
 */
import type { RawLine } from './line-splitter.js';
import { SEVERITIES, statementFromMessage, type LoggedStatement } from './log-message.js';
import type { LogEvents, LogReader } from './log-reader.js';

const STATEMENT = Buffer.from('statement: ');
const EXECUTE_UNNAMED = Buffer.from('execute <unnamed>: ');
/** The severity words as bytes, with the length of the longest. */
const SEVERITY_BYTES = [...SEVERITIES].map((s) => Buffer.from(s));
const LONGEST_SEVERITY = Math.max(...SEVERITY_BYTES.map((s) => s.length));
const L = 0x4c;
const O = 0x4f;
const G = 0x47;

/** Reads stderr-format lines. */
export class StderrLogReader implements LogReader {
  entries = 0;
  readonly multiLineStatements = true;
  /*
   * The statement being read, until a line that does not continue it. Fields of the reader
   * rather than an object per statement: a busy log has a million of them, and `found` is
   * reused for the two common messages (statement, execute <unnamed>), which LogState reads
   * during the call and never keeps.
   */
  private isOpen = false;
  private found: LoggedStatement = { text: '', namedProtocol: false };
  private readonly common: LoggedStatement = { text: '', namedProtocol: false };
  /** Continuation lines' texts, when there are any. */
  private more: string[] | null = null;
  private line0 = 0;
  private bytes = 0;
  private tooLong = false;

  constructor(
    private readonly events: LogEvents,
    private readonly maxStatementBytes: number,
  ) {}

  line(line: RawLine): void {
    const buf = line.buffer;
    const start = line.start;
    const end = line.end;
    if (end > start && buf[start] === 0x09) {
      this.continueWith(line);
      return;
    }
    this.flush();
    const sep = separatorIn(buf, start, end);
    if (sep === -1) return;
    const wordStart = severityStart(buf, start, sep);
    const isLog = sep - wordStart === 3 && buf[wordStart] === L && buf[wordStart + 1] === O && buf[wordStart + 2] === G;
    if (!isLog && !isSeverity(buf, wordStart, sep)) return;
    this.entries++;
    if (!isLog) return;
    const message = sep + 3;
    // An ASCII line's text is the same string in latin1 as in UTF-8, and latin1 is a copy.
    const encoding = line.ascii ? 'latin1' : 'utf8';
    let found: LoggedStatement | null = this.common;
    if (startsWith(buf, message, end, STATEMENT)) {
      found.text = buf.toString(encoding, message + STATEMENT.length, end);
      found.phase = undefined;
    } else if (startsWith(buf, message, end, EXECUTE_UNNAMED)) {
      found.text = buf.toString(encoding, message + EXECUTE_UNNAMED.length, end);
      found.phase = 'run';
    } else found = statementFromMessage(buf.toString(encoding, message, end));
    if (found === null) return;
    this.isOpen = true;
    this.found = found;
    this.more = null;
    this.line0 = line.lineNo;
    this.bytes = line.bytes;
    this.tooLong = line.truncated || line.bytes > this.maxStatementBytes;
  }

  end(): void {
    this.flush();
  }

  private continueWith(line: RawLine): void {
    if (!this.isOpen) return;
    this.bytes += line.bytes;
    if (line.truncated || this.bytes > this.maxStatementBytes) this.tooLong = true;
    // Past the limit only the size is tracked; the beginning is kept for the report.
    if (!this.tooLong)
      (this.more ??= []).push(line.buffer.toString(line.ascii ? 'latin1' : 'utf8', line.start + 1, line.end));
  }

  private flush(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    const found = this.found;
    if (this.more !== null) found.text = `${found.text}\n${this.more.join('\n')}`;
    if (this.tooLong) this.events.tooLong(found.text, this.line0, this.bytes);
    else this.events.statement(found, this.line0);
  }
}

/**
 * First offset of `:  ` in `buf[start, end)`, or -1. A loop in JavaScript: the separator sits
 * a few dozen bytes into the line, nearer than a native Buffer.indexOf call is cheap.
 */
function separatorIn(buf: Buffer, start: number, end: number): number {
  for (let i = start; i + 2 < end; i++) if (buf[i] === 0x3a && buf[i + 1] === 0x20 && buf[i + 2] === 0x20) return i;
  return -1;
}

function startsWith(buf: Buffer, at: number, end: number, prefix: Buffer): boolean {
  if (end - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

/** Start of the run of capital letters and digits that ends at `end` (not before `lineStart`). */
function severityStart(buf: Buffer, lineStart: number, end: number): number {
  let start = end;
  while (start > lineStart) {
    const c = buf[start - 1]!;
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39)) start--;
    else break;
  }
  return start;
}

function isSeverity(buf: Buffer, start: number, end: number): boolean {
  const length = end - start;
  if (length === 0 || length > LONGEST_SEVERITY) return false;
  // Byte by byte in JavaScript: Buffer.compare is a native call, dearer than these few bytes.
  for (const word of SEVERITY_BYTES) {
    if (word.length !== length) continue;
    let i = 0;
    while (i < length && buf[start + i] === word[i]) i++;
    if (i === length) return true;
  }
  return false;
}
