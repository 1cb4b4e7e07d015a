/**
 * One client asking for a protocol version the target may not speak, and what it got: the
 * facts a `protocol/negotiation` judge labels. A 3.2 session is only called served when it is
 * proven: BackendKeyData's key is longer than 3.0's 4 bytes, and a CancelRequest carrying the
 * whole key stops a running pg_sleep with 57014. A negotiated session must answer a query.
 */
import {
  cancelPacket,
  rawQuery,
  rawStartup,
  RawConnection,
  type RawEndpoint,
  type ServerError,
} from './raw-startup.js';

export type NegotiationLabel = 'served' | 'negotiated' | 'refused' | 'dropped' | 'malformed' | 'inconclusive';

export interface NegotiationFacts {
  label: NegotiationLabel;
  /** The startup version asked for, as major.minor. */
  asked: string;
  /** One sentence a reader can check against the messages. */
  why: string;
  /** Message type bytes the target sent, in order. */
  seen: string[];
  error?: ServerError;
  keyBytes?: number;
  /** PROTOCOL_VIOLATION evidence when the reply was malformed. */
  violation?: { evidence: string; hex: string };
}

const SLEEP_SECONDS = 30;

export async function probeNegotiation(
  ep: RawEndpoint,
  version: number,
  extra: Record<string, string>,
  boundMs: number,
): Promise<NegotiationFacts> {
  const asked = `${version >> 16}.${version & 0xffff}`;
  const { result, conn } = await rawStartup(ep, version, extra, boundMs);
  const base = { asked, seen: result.seen };
  const end = result.end;
  if (end.kind === 'refused')
    return {
      ...base,
      label: 'refused',
      error: end.error,
      why: end.pre30
        ? `a pre-3.0 ErrorResponse (protocol 2: no length, no fields): ${end.error.message}`
        : `${end.error.severity} ${end.error.code}: ${end.error.message}`,
    };
  if (end.kind === 'dropped')
    return {
      ...base,
      label: 'dropped',
      why: `the connection was ${end.how === 'reset' ? 'reset' : 'closed'} with no error`,
    };
  if (end.kind === 'violation')
    return { ...base, label: 'malformed', violation: { evidence: end.evidence, hex: end.hex }, why: end.evidence };
  if (end.kind === 'timeout')
    return { ...base, label: 'inconclusive', why: `no ReadyForQuery, error or close within ${end.waitedMs} ms` };
  if (end.kind === 'auth-unsupported')
    return {
      ...base,
      label: 'inconclusive',
      why: `the target asked for ${end.method}, which the raw client does not speak`,
    };
  if (!conn) return { ...base, label: 'inconclusive', why: 'no connection after ReadyForQuery' };
  try {
    const keyBytes = result.key?.key.length;
    if (result.negotiated) {
      const q = await rawQuery(conn, 'SELECT 1', boundMs);
      return q.ok
        ? {
            ...base,
            label: 'negotiated',
            keyBytes,
            why: `NegotiateProtocolVersion down to 3.${result.negotiated.minor}, and SELECT 1 answered`,
          }
        : {
            ...base,
            label: 'inconclusive',
            keyBytes,
            why: `NegotiateProtocolVersion, then SELECT 1 failed: ${describe(q)}`,
          };
    }
    if (!result.key || result.key.key.length <= 4)
      return {
        ...base,
        label: 'inconclusive',
        keyBytes,
        why: `accepted ${asked} without NegotiateProtocolVersion but sent a ${keyBytes ?? 0}-byte cancel key (3.0's size): not proven to speak 3.2`,
      };
    return { ...base, keyBytes, ...(await proveCancel(ep, conn, result.key, boundMs)) };
  } finally {
    conn.close();
  }
}

function describe(q: { ok: false; error: ServerError } | { ok: false; end: { kind: string } }): string {
  return 'error' in q ? `${q.error.code} ${q.error.message}` : q.end.kind;
}

async function proveCancel(
  ep: RawEndpoint,
  conn: RawConnection,
  key: { pid: number; key: Buffer },
  boundMs: number,
): Promise<{ label: NegotiationLabel; why: string }> {
  const sleeping = rawQuery(conn, `SELECT pg_sleep(${SLEEP_SECONDS})`, boundMs);
  // Give the query time to start: a cancel that arrives before it is lost, not a defect.
  await new Promise((r) => setTimeout(r, Math.min(300, boundMs / 4)));
  const canceller = await RawConnection.open(ep, boundMs);
  if (canceller instanceof RawConnection) {
    canceller.write(cancelPacket(key.pid, key.key));
    canceller.socket.end();
  }
  const q = await sleeping;
  if (!q.ok && 'error' in q && q.error.code === '57014')
    return {
      label: 'served',
      why: `a ${key.key.length}-byte cancel key, and a CancelRequest with it stopped pg_sleep (57014)`,
    };
  return {
    label: 'inconclusive',
    why: `a ${key.key.length}-byte cancel key, but the cancel with it did not stop pg_sleep: ${q.ok ? 'the query finished' : describe(q)}`,
  };
}
