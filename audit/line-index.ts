/**
 * Line numbers for character offsets in a text, so findings and parse errors point at
 * `file.sql:LINE` as an editor shows it.
 */
export class LineIndex {
  /** Character offsets where lines 2, 3, ... start. */
  private readonly starts: number[] = [];

  constructor(text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  /** 1-based line of a character offset. */
  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  }
}

/**
 * Converts increasing byte offsets of a UTF-8 buffer into character offsets of its decoded
 * text, in linear time overall (the lexer and parser count bytes, JavaScript counts UTF-16 units).
 */
export class ByteToChar {
  private byte = 0;
  private char = 0;

  constructor(private readonly bytes: Buffer) {}

  /** Character offset of `byteOffset`; offsets must not decrease between calls. */
  at(byteOffset: number): number {
    if (byteOffset < this.byte) throw new Error('ByteToChar offsets must not decrease');
    this.char += this.bytes.toString('utf8', this.byte, byteOffset).length;
    this.byte = byteOffset;
    return this.char;
  }
}
