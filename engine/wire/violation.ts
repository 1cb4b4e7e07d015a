/**
 * What the frame reader reports when a peer breaks the PostgreSQL v3 wire protocol: one
 * structured value with the evidence (the offending bytes in hex), carried by a
 * {@link PooltestError} with the stable code `PROTOCOL_VIOLATION`.
 */
import { PooltestError } from '../record/errors.js';

/** Which side sent the bytes: `backend` = server/pooler to client, `frontend` = client to server. */
export type Direction = 'backend' | 'frontend';

/** How many bytes of an offending message the evidence keeps. */
export const EVIDENCE_BYTES = 64;

export interface ProtocolViolation {
  direction: Direction;
  /** The message's type byte as a character (`E`), `startup` for an untyped packet, or `\x00`-style for a non-printable byte. */
  type: string;
  /** The message's name (`ErrorResponse`), or `unknown`. */
  name: string;
  /** The length the message declares (its int32, which counts itself), when it got that far. */
  declaredLength: number | null;
  /**
   * The length the bytes call for or deliver, when it differs and is known: what the content
   * needs (an ErrorResponse whose terminator lies beyond its declared length needs at least
   * one byte more), what a fixed-size message must have, or what arrived before the
   * connection closed.
   */
  actualLength: number | null;
  /** Byte offset of the message's first byte in the stream since the reader started. */
  offset: number;
  /** Up to {@link EVIDENCE_BYTES} bytes from the message's start, as spaced hex. */
  hex: string;
  /** One human sentence saying what is wrong. */
  reason: string;
}

/** A {@link PooltestError} (`PROTOCOL_VIOLATION`) carrying the structured {@link ProtocolViolation}. */
export class ProtocolViolationError extends PooltestError {
  readonly violation: ProtocolViolation;

  constructor(violation: ProtocolViolation) {
    super('PROTOCOL_VIOLATION', describeViolation(violation), {
      direction: violation.direction,
      type: violation.type,
      name: violation.name,
      declaredLength: violation.declaredLength,
      actualLength: violation.actualLength,
      offset: violation.offset,
      hex: violation.hex,
    });
    this.violation = violation;
  }
}

/** The sentence a report shows: which message, declared vs actual length, the bytes. */
export function describeViolation(v: ProtocolViolation): string {
  const who = v.direction === 'backend' ? 'the server' : 'the client';
  const what = v.type === 'startup' ? v.name : `${v.name} ('${v.type}')`;
  const lengths =
    v.declaredLength === null
      ? ''
      : `, declared length ${v.declaredLength}${v.actualLength === null ? '' : `, actual ${v.actualLength}`}`;
  return `protocol violation by ${who}: ${what}${lengths}: ${v.reason}; bytes at stream offset ${v.offset}: ${v.hex || '(none)'}`;
}

/** Spaced hex of at most {@link EVIDENCE_BYTES} bytes. */
export function hexOf(bytes: Uint8Array): string {
  const n = Math.min(bytes.length, EVIDENCE_BYTES);
  let out = '';
  for (let i = 0; i < n; i++) out += (i === 0 ? '' : ' ') + bytes[i]!.toString(16).padStart(2, '0');
  return bytes.length > n ? `${out} ... (${bytes.length - n} more)` : out;
}

/** A type byte as the report shows it: the letter, or an escape for a non-printable byte. */
export function typeChar(code: number): string {
  return code >= 0x21 && code <= 0x7e ? String.fromCharCode(code) : `\\x${code.toString(16).padStart(2, '0')}`;
}

/**
 * The structured violation an error carries: a {@link ProtocolViolationError}'s own, or one
 * rebuilt from a `PROTOCOL_VIOLATION` error's detail (connect errors are re-coded on the way
 * out, engine/session/connect.ts). Null for any other error.
 */
export function violationIn(err: unknown): ProtocolViolation | null {
  if (err instanceof ProtocolViolationError) return err.violation;
  if (!(err instanceof PooltestError) || err.code !== 'PROTOCOL_VIOLATION') return null;
  const d = err.detail;
  const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
  return {
    direction: d.direction === 'frontend' ? 'frontend' : 'backend',
    type: typeof d.type === 'string' ? d.type : 'unknown',
    name: typeof d.name === 'string' ? d.name : 'unknown message',
    declaredLength: num(d.declaredLength),
    actualLength: num(d.actualLength),
    offset: num(d.offset) ?? 0,
    hex: typeof d.hex === 'string' ? d.hex : '',
    reason: err.message,
  };
}
