/**
 * Splits a byte stream into lines without ever holding more than one bounded line: a line
 * longer than the limit keeps its first `maxLineBytes` bytes and is marked truncated, so a
 * 10 MB line (or a binary file with no newline at all) cannot blow up memory.
 */
import { isAscii, isUtf8 } from 'node:buffer';

/**
 * One line of the input, without its line terminator. Valid only during the call it is given
 * to: the splitter reuses one object and the chunk's memory, so a reader keeps values, never the
 * line. The line's bytes are `buffer[start, end)`; `text` decodes them on first use, so a reader
 * that recognises lines by their bytes (stderr-log-reader.ts) decodes only what it keeps.
 */
export interface RawLine {
  readonly text: string;
  readonly buffer: Buffer;
  readonly start: number;
  /** End of the line's kept bytes (before a `\r\n`'s `\r`). */
  readonly end: number;
  /** 1-based. */
  lineNo: number;
  /** Length of the whole line in bytes, including any part dropped by truncation. */
  bytes: number;
  truncated: boolean;
  /** `"` bytes in the dropped part (CSV readers need the parity of the whole line). */
  droppedQuotes: number;
  validUtf8: boolean;
  /**
   * Every kept byte is below 0x80, so `buffer.toString('latin1', ...)` of it is the same
   * string as UTF-8 decoding, made by a plain copy instead of a decoder.
   */
  ascii: boolean;
}

/** The splitter's one reused line (see {@link RawLine}). */
class LineView implements RawLine {
  buffer: Buffer = Buffer.alloc(0);
  start = 0;
  end = 0;
  lineNo = 0;
  bytes = 0;
  truncated = false;
  droppedQuotes = 0;
  validUtf8 = true;
  ascii = true;
  private decoded: string | null = null;

  get text(): string {
    this.decoded ??= this.buffer.toString(this.ascii ? 'latin1' : 'utf8', this.start, this.end);
    return this.decoded;
  }

  set(buffer: Buffer, start: number, end: number): void {
    this.buffer = buffer;
    this.start = start;
    this.end = end;
    this.decoded = null;
  }
}

/** Feeds lines to `onLine` as chunks arrive. */
export class LineSplitter {
  private readonly view = new LineView();
  private pending: Buffer[] = [];
  private pendingKept = 0;
  private pendingTotal = 0;
  private droppedQuotes = 0;
  private lineNo = 0;

  /** @param linesBefore lines of the file before the part this splitter reads (numbering goes on from there) */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: RawLine) => void,
    linesBefore = 0,
  ) {
    this.lineNo = linesBefore;
  }

  push(chunk: Buffer): void {
    // Checking the whole chunk once is far cheaper than per line; lines are re-checked only
    // when the chunk as a whole is not valid (which includes a character split across chunks).
    const chunkValid = isUtf8(chunk);
    // Logs are mostly ASCII: known per chunk, a line's text is then copied, not decoded.
    const chunkAscii = chunkValid && isAscii(chunk);
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(0x0a, pos);
      const end = nl === -1 ? chunk.length : nl;
      if (nl !== -1 && this.pendingTotal === 0 && end - pos <= this.maxLineBytes) {
        this.emitSlice(chunk, pos, end, chunkValid, chunkAscii);
      } else {
        this.keep(chunk.subarray(pos, end));
        if (nl !== -1) this.emitPending();
      }
      pos = end + 1;
    }
  }

  /** Emits a last line that had no newline. */
  end(): void {
    if (this.pendingTotal > 0) this.emitPending();
  }

  private emitSlice(chunk: Buffer, start: number, end: number, chunkValid: boolean, chunkAscii: boolean): void {
    const stop = end > start && chunk[end - 1] === 0x0d ? end - 1 : end;
    const view = this.view;
    view.set(chunk, start, stop);
    view.lineNo = ++this.lineNo;
    view.bytes = end - start;
    view.truncated = false;
    view.droppedQuotes = 0;
    view.validUtf8 = chunkValid || isUtf8(chunk.subarray(start, stop));
    view.ascii = chunkAscii;
    this.onLine(view);
  }

  private keep(part: Buffer): void {
    this.pendingTotal += part.length;
    const room = this.maxLineBytes - this.pendingKept;
    if (room > 0) {
      // Copy: the chunk's buffer is reused by the stream once we return.
      const kept = Buffer.from(part.subarray(0, room));
      this.pending.push(kept);
      this.pendingKept += kept.length;
    }
    for (let i = room > 0 ? room : 0, q = part.indexOf(0x22, i); q !== -1; q = part.indexOf(0x22, q + 1))
      this.droppedQuotes++;
  }

  private emitPending(): void {
    let line = Buffer.concat(this.pending, this.pendingKept);
    if (line.length > 0 && line[line.length - 1] === 0x0d && this.pendingTotal === this.pendingKept)
      line = line.subarray(0, line.length - 1);
    const truncated = this.pendingTotal > this.pendingKept;
    const view = this.view;
    view.set(line, 0, line.length);
    view.lineNo = ++this.lineNo;
    view.bytes = this.pendingTotal;
    view.truncated = truncated;
    view.droppedQuotes = this.droppedQuotes;
    // A truncated line may end inside a character: only its kept part is judged.
    view.validUtf8 = isUtf8(truncated ? trimPartialCharacter(line) : line);
    view.ascii = isAscii(line);
    this.onLine(view);
    this.pending = [];
    this.pendingKept = 0;
    this.pendingTotal = 0;
    this.droppedQuotes = 0;
  }
}

/** Drops an incomplete UTF-8 sequence at the end of a cut buffer. */
function trimPartialCharacter(bytes: Buffer): Buffer {
  let i = bytes.length - 1;
  let continuation = 0;
  while (i >= 0 && continuation < 3 && (bytes[i]! & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  return i >= 0 && bytes[i]! >= 0xc0 ? bytes.subarray(0, i) : bytes;
}
