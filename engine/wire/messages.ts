/**
 * The PostgreSQL v3 message types each side may send, their length bounds, and checks of
 * their content that are cheap and certain. Every check works on `buf[start, end)` by index
 * arithmetic: no slices, no strings, nothing allocated unless the message is malformed.
 *
 * A type not listed for its direction is a violation. Bounds: `min`/`max` are on the declared
 * length (which counts its own 4 bytes); a huge declared length on a message that is always
 * small is refused at its header, before the reader waits for (or buffers) its body.
 */

/** What is wrong with a message's content; `actualLength` when the content implies a length. */
export interface Problem {
  reason: string;
  actualLength?: number;
}

export interface MessageSpec {
  name: string;
  min: number;
  /** Upper bound on the declared length; `null` = the reader's `maxMessageBytes`. */
  max: number | null;
  /** Validates the body `buf[start, end)`; absent for opaque bodies (CopyData and such). */
  check?: (buf: Buffer, start: number, end: number) => Problem | null;
}

/** Big-endian int32 at `p` (the caller checked `p + 4 <= end`): plain arithmetic, cheaper than readInt32BE's checks on the hot path. */
export function int32At(buf: Buffer, p: number): number {
  return (buf[p]! << 24) | (buf[p + 1]! << 16) | (buf[p + 2]! << 8) | buf[p + 3]!;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** Index just past the NUL ending the string at `p`, or -1 when it does not end before `end`. */
export function cstringEnd(buf: Buffer, p: number, end: number): number {
  if (p >= end) return -1;
  const i = buf.indexOf(0, p);
  return i === -1 || i >= end ? -1 : i + 1;
}

/** ErrorResponse/NoticeResponse: fields (type byte + NUL-terminated string), then a 0 byte, all inside the length. */
function fields(buf: Buffer, start: number, end: number): Problem | null {
  let p = start;
  for (;;) {
    if (p >= end) {
      return {
        reason: "the field list's final terminator (a 0 byte) lies outside the declared length",
        actualLength: end - start + 5,
      };
    }
    const t = buf[p]!;
    if (t === 0) {
      return p + 1 === end
        ? null
        : {
            reason: `${end - p - 1} byte(s) follow the field list's terminator inside the declared length`,
            actualLength: p + 1 - start + 4,
          };
    }
    const next = cstringEnd(buf, p + 1, end);
    if (next === -1)
      return {
        reason: `field '${String.fromCharCode(t)}' at body offset ${p - start} is not NUL-terminated inside the declared length`,
      };
    p = next;
  }
}

/** The fields of an ErrorResponse the protocol says are always present, as type bytes. */
const ALWAYS_IN_ERRORS: ReadonlyArray<[number, string]> = [
  [0x53, 'S (severity)'],
  [0x43, 'C (the SQLSTATE)'],
  [0x4d, 'M (the message)'],
];

/**
 * ErrorResponse: framed as {@link fields}, and holding severity, SQLSTATE and message, which
 * the protocol says are always present. Without its SQLSTATE an error cannot be told from a
 * connection that broke (a record's error code is the server's SQLSTATE): a finding about the
 * server, not something to guess past. NoticeResponse is held only to its framing.
 */
function errorFields(buf: Buffer, start: number, end: number): Problem | null {
  const framing = fields(buf, start, end);
  if (framing) return framing;
  // Framing is sound here: every field ends inside the body and the list ends with a 0 byte.
  const seen = new Set<number>();
  for (let p = start; buf[p] !== 0; p = cstringEnd(buf, p + 1, end)) seen.add(buf[p]!);
  const missing = ALWAYS_IN_ERRORS.filter(([type]) => !seen.has(type));
  if (missing.length === 0) return null;
  return {
    reason: `no field ${missing.map(([, name]) => name).join(', ')}: the protocol says an ErrorResponse always has its severity, SQLSTATE and message`,
  };
}

/** Strings that must fill the body exactly (`count` of them). */
function strings(count: number): (buf: Buffer, start: number, end: number) => Problem | null {
  return (buf, start, end) => {
    let p = start;
    for (let i = 0; i < count; i++) {
      p = cstringEnd(buf, p, end);
      if (p === -1) return { reason: `string ${i + 1} of ${count} is not NUL-terminated inside the declared length` };
    }
    return p === end
      ? null
      : {
          reason: `${end - p} byte(s) follow the message's content inside the declared length`,
          actualLength: p - start + 4,
        };
  };
}

/** A list of strings ended by an empty one, filling the body (SASL mechanisms, startup parameters). */
function stringList(buf: Buffer, start: number, end: number): Problem | null {
  let p = start;
  for (;;) {
    if (p >= end) return { reason: "the list's final empty string lies outside the declared length" };
    if (buf[p] === 0)
      return p + 1 === end
        ? null
        : { reason: `${end - p - 1} byte(s) follow the list's terminator`, actualLength: p + 1 - start + 4 };
    p = cstringEnd(buf, p, end);
    if (p === -1) return { reason: 'a string of the list is not NUL-terminated inside the declared length' };
  }
}

function exact(p: number, end: number, start: number): Problem | null {
  if (p > end) return { reason: 'its content runs past the declared length', actualLength: p - start + 4 };
  return p === end
    ? null
    : {
        reason: `${end - p} byte(s) follow the message's content inside the declared length`,
        actualLength: p - start + 4,
      };
}

function dataRow(buf: Buffer, start: number, end: number): Problem | null {
  if (end - start < 2) return { reason: 'no column count' };
  const count = buf.readInt16BE(start);
  if (count < 0) return { reason: `negative column count ${count}` };
  let p = start + 2;
  for (let i = 0; i < count; i++) {
    if (p + 4 > end) return { reason: `column ${i + 1} of ${count} has no length inside the declared length` };
    const len = int32At(buf, p);
    if (len < -1) return { reason: `column ${i + 1} declares length ${len}` };
    p += 4 + Math.max(len, 0);
    if (p > end)
      return {
        reason: `column ${i + 1} of ${count} (${len} bytes) runs past the declared length`,
        actualLength: p - start + 4,
      };
  }
  return exact(p, end, start);
}

function rowDescription(buf: Buffer, start: number, end: number): Problem | null {
  if (end - start < 2) return { reason: 'no field count' };
  const count = buf.readInt16BE(start);
  if (count < 0) return { reason: `negative field count ${count}` };
  let p = start + 2;
  for (let i = 0; i < count; i++) {
    p = cstringEnd(buf, p, end);
    if (p === -1)
      return { reason: `the name of field ${i + 1} of ${count} is not NUL-terminated inside the declared length` };
    p += 18;
    if (p > end)
      return { reason: `field ${i + 1} of ${count} runs past the declared length`, actualLength: p - start + 4 };
  }
  return exact(p, end, start);
}

/** Counted int16/int32 lists: `head` bytes before an int16 count of `each`-byte items. */
function counted(head: number, each: number): (buf: Buffer, start: number, end: number) => Problem | null {
  return (buf, start, end) => {
    if (end - start < head + 2) return { reason: 'no item count' };
    const count = buf.readInt16BE(start + head);
    if (count < 0) return { reason: `negative item count ${count}` };
    return exact(start + head + 2 + count * each, end, start);
  };
}

function notification(buf: Buffer, start: number, end: number): Problem | null {
  return end - start < 4 ? { reason: 'no process id' } : strings(2)(buf, start + 4, end);
}

function functionResult(buf: Buffer, start: number, end: number): Problem | null {
  if (end - start < 4) return { reason: 'no result length' };
  const len = buf.readInt32BE(start);
  if (len < -1) return { reason: `result declares length ${len}` };
  return exact(start + 4 + Math.max(len, 0), end, start);
}

function negotiateVersion(buf: Buffer, start: number, end: number): Problem | null {
  if (end - start < 8) return { reason: 'no option count' };
  const count = buf.readInt32BE(start + 4);
  if (count < 0) return { reason: `negative option count ${count}` };
  let p = start + 8;
  for (let i = 0; i < count; i++) {
    p = cstringEnd(buf, p, end);
    if (p === -1) return { reason: `option ${i + 1} of ${count} is not NUL-terminated inside the declared length` };
  }
  return exact(p, end, start);
}

/** Declared length each authentication request must have (`null` = variable). */
const AUTH_LENGTHS = new Map<number, number | null>([
  [0, 8],
  [2, 8],
  [3, 8],
  [5, 12],
  [6, 8],
  [7, 8],
  [8, null],
  [9, 8],
  [10, null],
  [11, null],
  [12, null],
]);

function authentication(buf: Buffer, start: number, end: number): Problem | null {
  const code = buf.readInt32BE(start);
  if (!AUTH_LENGTHS.has(code)) return { reason: `unknown authentication request code ${code}` };
  const want = AUTH_LENGTHS.get(code);
  const declared = end - start + 4;
  if (want != null && declared !== want)
    return { reason: `authentication request ${code} must have length ${want}`, actualLength: want };
  return code === 10 ? stringList(buf, start + 4, end) : null;
}

function readyForQuery(buf: Buffer, start: number): Problem | null {
  const s = buf[start]!;
  return s === 0x49 || s === 0x54 || s === 0x45
    ? null
    : { reason: `transaction status 0x${s.toString(16).padStart(2, '0')} is none of I, T, E` };
}

const fixed = (name: string, len: number, check?: MessageSpec['check']): MessageSpec => ({
  name,
  min: len,
  max: len,
  ...(check ? { check } : {}),
});

const BACKEND: Record<string, MessageSpec> = {
  R: { name: 'Authentication', min: 8, max: 64 * KIB, check: authentication },
  K: { name: 'BackendKeyData', min: 12, max: 12 + 256 },
  '2': fixed('BindComplete', 4),
  '3': fixed('CloseComplete', 4),
  C: { name: 'CommandComplete', min: 5, max: 64 * KIB, check: strings(1) },
  d: { name: 'CopyData', min: 4, max: null },
  c: fixed('CopyDone', 4),
  G: { name: 'CopyInResponse', min: 7, max: 7 + 2 * 0x7fff, check: counted(1, 2) },
  H: { name: 'CopyOutResponse', min: 7, max: 7 + 2 * 0x7fff, check: counted(1, 2) },
  W: { name: 'CopyBothResponse', min: 7, max: 7 + 2 * 0x7fff, check: counted(1, 2) },
  D: { name: 'DataRow', min: 6, max: null, check: dataRow },
  I: fixed('EmptyQueryResponse', 4),
  E: { name: 'ErrorResponse', min: 5, max: MIB, check: errorFields },
  V: { name: 'FunctionCallResponse', min: 8, max: null, check: functionResult },
  v: { name: 'NegotiateProtocolVersion', min: 12, max: 64 * KIB, check: negotiateVersion },
  n: fixed('NoData', 4),
  N: { name: 'NoticeResponse', min: 5, max: MIB, check: fields },
  A: { name: 'NotificationResponse', min: 10, max: MIB, check: notification },
  t: { name: 'ParameterDescription', min: 6, max: 6 + 4 * 0x7fff, check: counted(0, 4) },
  S: { name: 'ParameterStatus', min: 6, max: 64 * KIB, check: strings(2) },
  '1': fixed('ParseComplete', 4),
  s: fixed('PortalSuspended', 4),
  Z: fixed('ReadyForQuery', 5, readyForQuery),
  T: { name: 'RowDescription', min: 6, max: 16 * MIB, check: rowDescription },
};

const FRONTEND: Record<string, MessageSpec> = {
  B: { name: 'Bind', min: 12, max: null },
  C: { name: 'Close', min: 6, max: 64 * KIB },
  d: { name: 'CopyData', min: 4, max: null },
  c: fixed('CopyDone', 4),
  f: { name: 'CopyFail', min: 5, max: MIB, check: strings(1) },
  D: { name: 'Describe', min: 6, max: 64 * KIB },
  E: { name: 'Execute', min: 9, max: 64 * KIB },
  H: fixed('Flush', 4),
  F: { name: 'FunctionCall', min: 14, max: null },
  P: { name: 'Parse', min: 8, max: null },
  p: { name: 'PasswordMessage', min: 4, max: MIB },
  Q: { name: 'Query', min: 5, max: null, check: strings(1) },
  S: fixed('Sync', 4),
  X: fixed('Terminate', 4),
};

function table(specs: Record<string, MessageSpec>): Array<MessageSpec | undefined> {
  const out: Array<MessageSpec | undefined> = new Array(256);
  for (const [k, spec] of Object.entries(specs)) out[k.charCodeAt(0)] = spec;
  return out;
}

/** Specs indexed by type byte, for each direction. */
export const SPECS = { backend: table(BACKEND), frontend: table(FRONTEND) };

/** PostgreSQL's own bound on a startup packet (MAX_STARTUP_PACKET_LENGTH). */
export const MAX_STARTUP_LENGTH = 10_000;

/** Request codes of the untyped packets a client may open a connection with. */
export const CANCEL_REQUEST = 80877102;
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;

/** Kind of an untyped packet by its request code, with its content check. */
export function startupKind(
  code: number,
  length: number,
  buf: Buffer,
  start: number,
  end: number,
): { kind: UntypedKind; problem: Problem | null } {
  if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
    return {
      kind: code === SSL_REQUEST ? 'ssl-request' : 'gssenc-request',
      problem: length === 8 ? null : { reason: 'an SSLRequest/GSSENCRequest has length 8', actualLength: 8 },
    };
  }
  if (code === CANCEL_REQUEST) {
    // 16 bytes in protocol 3.0; protocol 3.2 allows a secret key of up to 256 bytes.
    return {
      kind: 'cancel',
      problem:
        length >= 16 && length <= 12 + 256
          ? null
          : { reason: 'a CancelRequest has length 16 (up to 268 in protocol 3.2)' },
    };
  }
  if (code >>> 16 === 3) return { kind: 'startup', problem: stringList(buf, start + 4, end) };
  return {
    kind: 'startup',
    problem: { reason: `unknown request code ${code} (protocol ${code >>> 16}.${code & 0xffff})` },
  };
}

export type UntypedKind = 'startup' | 'ssl-request' | 'gssenc-request' | 'cancel';
