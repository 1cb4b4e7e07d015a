/**
 * A pooler's answer to a startup packet no server accepts, as its fingerprint. The packet asks
 * for protocol 2.0 (PostgreSQL dropped it in 14; every pooler refuses it) and carries no user,
 * database or password, so the answer comes before any login and before the pool is touched.
 * Each refuses in its own words (measured on the fixtures):
 *
 *   PostgreSQL 15     `E` "FATAL:  unsupported frontend protocol 2.0: ..." (protocol 2 framing)
 *   PgBouncer         ErrorResponse 08P01 "old V2 protocol not supported"
 *   pgpool-II 4.3     `E` "no PostgreSQL user name specified in startup packet"
 *   pgagroal 1.6.0    `E` "connection refused" 0x00, then one stray 0x00 byte
 *
 * Only pgagroal is named from it: discovery needs to know it before asking PgBouncer's admin
 * console (see discovery.ts), and its stray byte is a wire finding like the one its admin
 * console refusal carries. The others are named by the probes that also read their version.
 */
import net from 'node:net';
import { netAddress, type Target } from '../target/target.js';
import type { Discovery, WireFinding } from '../types.js';
import { hexOf } from '../wire/violation.js';
import { IDENTIFY_TAG } from './probes.js';

/** Length 8, protocol 2.0 (major 2 in the high 16 bits): no parameters follow. */
const V2_STARTUP = Buffer.from([0, 0, 0, 8, 0, 2, 0, 0]);
/** pgagroal_write_connection_refused_old: `E`, the words, their terminator. */
const PGAGROAL_REFUSAL = Buffer.concat([Buffer.from('Econnection refused', 'latin1'), Buffer.from([0])]);
/** Every pooler sends its refusal in one write: once bytes came, this is enough for the rest. */
const SETTLE_MS = 1000;
/** Every refusal measured is under 100 bytes: a target that streams more is cut off here, not buffered. */
const MOST_BYTES = 512;

export interface Fingerprint {
  pooler: Discovery['pooler'];
  finding: WireFinding | null;
}

/**
 * Sends the protocol 2.0 startup and reads the answer until the target closes, `SETTLE_MS` after
 * its first bytes, or `timeoutMs`. Never throws: a target that cannot be reached or answers
 * nothing is simply not named here.
 */
export async function askStartupFingerprint(target: Target, timeoutMs: number): Promise<Fingerprint> {
  const answer = await readRefusal(target, timeoutMs);
  return classifyRefusal(answer);
}

/** What the answer names: pgagroal (and its stray byte as a finding), or nothing. */
export function classifyRefusal(answer: Buffer): Fingerprint {
  if (!answer.subarray(0, PGAGROAL_REFUSAL.length).equals(PGAGROAL_REFUSAL)) return { pooler: null, finding: null };
  const pooler = {
    name: 'pgagroal',
    version: null,
    how: 'its refusal of a protocol 2.0 startup ("connection refused")',
  };
  const extra = answer.subarray(PGAGROAL_REFUSAL.length);
  if (extra.length === 0) return { pooler, finding: null };
  return {
    pooler,
    finding: {
      probe: IDENTIFY_TAG,
      session: 'fingerprint',
      connection: 'a startup packet asking for protocol 2.0, which every server refuses; it only identifies the pooler',
      direction: 'backend',
      type: extra[0] === 0 ? '\\x00' : String.fromCharCode(extra[0]!),
      name: 'unknown message',
      declaredLength: null,
      actualLength: null,
      offset: PGAGROAL_REFUSAL.length,
      hex: hexOf(extra),
      reason: `${extra.length} byte(s) after the complete refusal, belonging to no message (pgagroal_write_empty)`,
      consequence: 'the pooler is named by the refusal; nothing more was asked on this connection',
    },
  };
}

function readRefusal(target: Target, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(netAddress(target));
    let settle: NodeJS.Timeout | undefined;
    let received = 0;
    const done = (): void => {
      clearTimeout(timer);
      clearTimeout(settle);
      socket.destroy();
      resolve(Buffer.concat(chunks).subarray(0, MOST_BYTES));
    };
    const timer = setTimeout(done, timeoutMs);
    socket.once('connect', () => socket.write(V2_STARTUP));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= MOST_BYTES) return done();
      settle ??= setTimeout(done, SETTLE_MS);
    });
    socket.once('close', done);
    socket.once('error', done);
  });
}
