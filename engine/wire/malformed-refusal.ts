/**
 * A refusal the pooler worded correctly but framed wrongly. pgagroal 1.6.0 refuses a login
 * beyond its pool with `FATAL 53300 connection pool is full` in an ErrorResponse whose declared
 * length is one byte short of its fields (the last terminator lies outside it): the wire guard
 * stops on it, rightly, yet what the pooler meant is plain from the bytes. Discovery reads that
 * meaning back from the violation's evidence, so the count of the pool ends at the refusal (as
 * for a well-formed one) and the malformed framing is a wire finding, not the end of the run.
 */
import type { ProtocolViolation } from './violation.js';

/** What a malformed ErrorResponse said, when its bytes hold a SQLSTATE and a message. */
export interface DecodedRefusal {
  code: string;
  message: string;
}

/**
 * Reads the fields of a malformed ErrorResponse from the violation's hex (at most 64 bytes, so
 * a long message may be cut: the SQLSTATE comes early). Null when the message is not an
 * ErrorResponse or holds no SQLSTATE: nothing is guessed.
 */
export function decodeMalformedError(v: ProtocolViolation): DecodedRefusal | null {
  if (v.direction !== 'backend' || v.type !== 'E' || !/^[0-9a-f]{2}( [0-9a-f]{2})*$/i.test(v.hex.trim())) return null;
  const bytes = Buffer.from(
    v.hex
      .trim()
      .split(' ')
      .map((h) => Number.parseInt(h, 16)),
  );
  // Type byte and the 4-byte length, then fields: a type byte and a NUL-terminated string each.
  const fields = new Map<string, string>();
  let at = 5;
  while (at < bytes.length && bytes[at] !== 0) {
    const type = String.fromCharCode(bytes[at]!);
    const end = bytes.indexOf(0, at + 1);
    const value = bytes.subarray(at + 1, end < 0 ? bytes.length : end).toString('utf8');
    fields.set(type, value);
    if (end < 0) break;
    at = end + 1;
  }
  const code = fields.get('C');
  if (!code || !/^[0-9A-Z]{5}$/.test(code)) return null;
  return { code, message: fields.get('M') ?? '' };
}
