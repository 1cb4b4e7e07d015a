/**
 * A target that does not speak PostgreSQL at all: an SSH server's greeting, an HTTP error page,
 * a TLS record, garbage. The frame reader stops such bytes at once (an unknown type byte, or a
 * length of hundreds of megabytes read out of ASCII text), but its sentence is about message
 * types and lengths, which tells a user who typed the wrong port nothing. These helpers tell the
 * two cases apart and say the plain one in one line: the first bytes as text, and "check the
 * port". The code stays `PROTOCOL_VIOLATION` (exit 2: a protocol violation before any check
 * means pooltest could not run, INTERPRETING.md section 8), with the violation's evidence in the
 * detail as before, so scripts that gate on the code see no change; only the sentence is new.
 */
import { PooltestError } from '../record/errors.js';
import { SPECS } from './messages.js';
import { ProtocolViolationError, hexOf, typeChar, violationIn, type ProtocolViolation } from './violation.js';

/**
 * The messages a server's answer to a StartupMessage may begin with: an authentication request,
 * an error (a refusal), a notice, or a protocol version negotiation. Anything else in the first
 * byte is not a PostgreSQL server answering, whatever follows.
 */
const STARTUP_ANSWER_TYPES = new Set(['R', 'E', 'N', 'v']);

/**
 * Above this a declared length at the very start of the stream is not a message but text read
 * as a length (printable bytes make lengths of 500 MB and more): no startup answer comes near
 * it (an ErrorResponse is bounded at 1 MiB).
 */
const IMPLAUSIBLE_FIRST_LENGTH = 1024 * 1024;

/** How many of the first bytes the one-line message shows, as escaped text. */
const SHOWN_BYTES = 48;

/**
 * The violation of a stream whose first byte cannot begin an answer to the startup, or null.
 * Called with the first chunk a fresh connection receives (wire/pg-guard.ts).
 */
export function firstByteViolation(chunk: Buffer): ProtocolViolationError | null {
  const first = chunk[0];
  if (first === undefined || STARTUP_ANSWER_TYPES.has(String.fromCharCode(first))) return null;
  return new ProtocolViolationError({
    direction: 'backend',
    type: typeChar(first),
    name: SPECS.backend[first]?.name ?? 'unknown message',
    declaredLength: chunk.length >= 5 ? chunk.readInt32BE(1) : null,
    actualLength: null,
    offset: 0,
    hex: hexOf(chunk),
    reason: `an answer to the startup begins with Authentication ('R'), ErrorResponse ('E'), NoticeResponse ('N') or NegotiateProtocolVersion ('v'), not 0x${first.toString(16).padStart(2, '0')}`,
  });
}

/**
 * Whether a violation is in the first bytes of the stream and nothing like a PostgreSQL message:
 * a type byte no server sends, or a length that is text. A known message with a plausible
 * length in the wrong place (a ReadyForQuery first) is a PostgreSQL peer breaking the protocol,
 * and keeps the frame reader's sentence: "check the port" would send its user the wrong way.
 */
function isForeign(v: ProtocolViolation): boolean {
  if (v.direction !== 'backend' || v.offset !== 0) return false;
  return v.name === 'unknown message' || (v.declaredLength !== null && v.declaredLength > IMPLAUSIBLE_FIRST_LENGTH);
}

/**
 * `err` as the plain "does not speak the PostgreSQL protocol" error when it is a violation in
 * the first bytes a fresh connection received and they are nothing like a PostgreSQL message;
 * null otherwise (a PostgreSQL-shaped message that is wrong keeps the frame reader's sentence).
 */
export function foreignProtocolError(err: unknown, where: string): PooltestError | null {
  if (isForeignProtocolError(err)) return err;
  const v = violationIn(err);
  if (!v || !isForeign(v) || !(err instanceof PooltestError)) return null;
  const bytes = bytesOfHex(v.hex);
  const kind = guessService(bytes);
  return new PooltestError(
    'PROTOCOL_VIOLATION',
    `${where} does not speak the PostgreSQL protocol: the first bytes it sent were ${printable(bytes, moreOf(v.hex))}${kind ? ` (${kind})` : ''}; check the host and port (PostgreSQL listens on 5432 by default, PgBouncer on 6432)`,
    { ...err.detail, foreignProtocol: true },
  );
}

/** Whether `err` is the error {@link foreignProtocolError} makes (discovery passes it on unwrapped). */
export function isForeignProtocolError(err: unknown): err is PooltestError {
  return err instanceof PooltestError && err.code === 'PROTOCOL_VIOLATION' && err.detail.foreignProtocol === true;
}

/** What the first bytes look like, when they are a well-known greeting or answer. */
function guessService(b: Buffer): string | null {
  const text = b.toString('latin1');
  if (text.startsWith('SSH-')) return "an SSH server's greeting";
  if (/^HTTP\/\d/.test(text)) return "an HTTP server's answer";
  // A TLS record (alert 0x15, handshake 0x16, version 3.x): a service that expects TLS from the
  // first byte, where PostgreSQL's TLS begins in the clear with an SSLRequest.
  if ((b[0] === 0x15 || b[0] === 0x16) && b[1] === 0x03)
    return 'a TLS record: a service that speaks TLS from its first byte';
  return null;
}

/** The evidence's spaced hex back to bytes (at most EVIDENCE_BYTES of them). */
function bytesOfHex(hex: string): Buffer {
  const pairs = hex.split(' ... ')[0]!.match(/[0-9a-f]{2}/g) ?? [];
  return Buffer.from(pairs.map((p) => parseInt(p, 16)));
}

/** How many bytes the evidence left out (hexOf's "... (N more)"). */
function moreOf(hex: string): number {
  return Number(/\.\.\. \((\d+) more\)/.exec(hex)?.[1] ?? 0);
}

/**
 * Bytes as a quoted one-line string: printable ASCII as is, common control characters as
 * \r \n \t, anything else as \xNN, bounded at {@link SHOWN_BYTES} with the count they come from, so
 * a hostile peer can neither flood the terminal nor move its cursor.
 */
export function printable(b: Buffer, alsoOmitted = 0): string {
  const named: Record<number, string> = { 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x22: '\\"', 0x5c: '\\\\' };
  let out = '';
  for (const byte of b.subarray(0, SHOWN_BYTES))
    out +=
      named[byte] ??
      (byte >= 0x20 && byte <= 0x7e ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`);
  const total = b.length + alsoOmitted;
  return `"${out}"${total > SHOWN_BYTES ? ` (the first ${SHOWN_BYTES} of the ${total} bytes of its first read)` : ''}`;
}
