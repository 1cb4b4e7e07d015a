/**
 * Bounds-checked reads over one message payload. A payload that ends early or lacks a string's
 * terminating NUL throws, and the tracker stops following that connection (the bytes are still
 * relayed): a malformed message never reads past its frame or loops.
 */
export class PayloadReader {
  private at = 0;

  constructor(private readonly buf: Buffer) {}

  byte(): number {
    this.need(1);
    return this.buf[this.at++]!;
  }

  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.at);
    this.at += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.at);
    this.at += 4;
    return v;
  }

  bytes(n: number): Buffer {
    this.need(n);
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  /** A NUL-terminated UTF-8 string. */
  cstring(): string {
    const end = this.buf.indexOf(0, this.at);
    if (end === -1) throw new Error(`string at byte ${this.at} has no terminating NUL`);
    const s = this.buf.toString('utf8', this.at, end);
    this.at = end + 1;
    return s;
  }

  private need(n: number): void {
    if (n < 0 || this.at + n > this.buf.length)
      throw new Error(`needs ${n} byte(s) at ${this.at} of a ${this.buf.length}-byte payload`);
  }
}
