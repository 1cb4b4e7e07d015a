/**
 * A startup handshake over a raw socket, with pooltest's own writer and the validating frame
 * reader, for protocol versions node-postgres cannot ask for (3.2, the 3.9999 "grease"). What
 * the other side did with the request is the result, never an exception: a reply that breaks
 * the protocol is `violation` with the bytes, silence is `timeout` with the wait, a close with
 * nothing is `dropped`. Every wait is bounded by the caller's `boundMs`.
 *
 * Authentication: trust, cleartext, md5 and SCRAM-SHA-256 (raw-scram.ts) are answered; any
 * other method gives `auth-unsupported`, so a check can say inconclusive with that reason.
 */
import { createHash } from 'node:crypto';
import net from 'node:net';
import { dataRowValues, errorFields, type ServerError } from '../wire/backend.js';
import { FrameReader, type Frame } from '../wire/frame-reader.js';
import { queryMessage, typed } from '../wire/frontend.js';
import { CANCEL_REQUEST } from '../wire/messages.js';
import { ProtocolViolationError } from '../wire/violation.js';
import { scramFinal, scramInitial, scramVerified, type ScramState } from './raw-scram.js';

export type { ServerError } from '../wire/backend.js';

/** 3 << 16 | minor: the startup packet's version field. */
export const protocolVersion = (major: number, minor: number): number => (major << 16) | minor;
export const PROTOCOL_3_2 = protocolVersion(3, 2);
export const PROTOCOL_GREASE = protocolVersion(3, 9999);
export const GREASE_OPTION = '_pq_.test_protocol_negotiation';

export interface RawEndpoint {
  host: string;
  port: number;
  user: string;
  database: string;
  password?: string;
}

export type StartupEnd =
  | { kind: 'ready' }
  | { kind: 'refused'; error: ServerError; pre30?: true }
  | { kind: 'dropped'; how: 'reset' | 'closed' }
  | { kind: 'violation'; evidence: string; hex: string }
  | { kind: 'timeout'; waitedMs: number }
  | { kind: 'auth-unsupported'; method: string };

export interface StartupResult {
  end: StartupEnd;
  /** NegotiateProtocolVersion's newest minor and the options it did not recognise, if sent. */
  negotiated: { minor: number; unrecognised: string[] } | null;
  /** BackendKeyData: the pid and the whole cancel key (4 bytes at 3.0, longer at 3.2). */
  key: { pid: number; key: Buffer } | null;
  /** Message type bytes in the order they arrived, for the evidence. */
  seen: string[];
}

export function startupPacket(version: number, params: Record<string, string>): Buffer {
  const body = Buffer.concat([
    ...Object.entries(params).flatMap(([k, v]) => [Buffer.from(`${k}\0`), Buffer.from(`${v}\0`)]),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(version, 4);
  return Buffer.concat([head, body]);
}

/** A CancelRequest carrying the whole key, whatever its length (3.2 keys are variable). */
export function cancelPacket(pid: number, key: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeInt32BE(12 + key.length, 0);
  head.writeInt32BE(CANCEL_REQUEST, 4);
  head.writeInt32BE(pid, 8);
  return Buffer.concat([head, key]);
}

function md5Password(password: string, user: string, salt: Buffer): string {
  const inner = createHash('md5')
    .update(password + user)
    .digest('hex');
  return (
    'md5' +
    createHash('md5')
      .update(Buffer.concat([Buffer.from(inner), salt]))
      .digest('hex')
  );
}

/**
 * A raw connection that reads validated frames one at a time, each read bounded. Ends (close,
 * reset, violation, timeout) come back as values from `next`.
 */
export class RawConnection {
  private readonly reader = new FrameReader({ direction: 'backend' });
  private readonly queue: Frame[] = [];
  private ended: StartupEnd | null = null;
  private wake: (() => void) | null = null;
  /** The stream's first bytes until five of them tell a protocol 3 message from a pre-3.0 error. */
  private prelude: Buffer | null = Buffer.alloc(0);
  /** A pre-3.0 ErrorResponse read so far (no length: text up to a NUL). */
  private pre30: Buffer | null = null;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      this.finish({ kind: 'dropped', how: err.code === 'ECONNRESET' ? 'reset' : 'closed' });
    });
    // A close in the middle of a message is a malformed reply, not a plain drop.
    socket.on('end', () => this.onEnd());
    socket.on('close', () => this.finish({ kind: 'dropped', how: 'closed' }));
  }

  static open(ep: RawEndpoint, boundMs: number): Promise<RawConnection | StartupEnd> {
    return new Promise((resolve) => {
      // A host that is a directory is where the server's Unix socket lives, as in libpq.
      const socket = ep.host.startsWith('/')
        ? net.connect({ path: `${ep.host}/.s.PGSQL.${ep.port}` })
        : net.connect({ host: ep.host, port: ep.port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ kind: 'timeout', waitedMs: boundMs });
      }, boundMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new RawConnection(socket));
      });
      socket.once('error', () => {
        clearTimeout(timer);
        resolve({ kind: 'dropped', how: 'closed' });
      });
    });
  }

  /**
   * A server that does not speak the startup's version may answer with a protocol 2 ErrorResponse:
   * 'E' and a NUL-terminated text, no length (pgagroal 1.6.0 writes "connection refused" so to
   * any version but 3.0). libpq reads an 'E' whose length would be under 8 or over 30000 as that
   * (PQconnectPoll, "pre-3.0 server"), and so does this, for the stream's first message only.
   */
  private onData(chunk: Buffer): void {
    if (this.pre30) return this.pre30Error(Buffer.concat([this.pre30, chunk]));
    if (this.prelude) {
      const head = Buffer.concat([this.prelude, chunk]);
      if (head.length < 5) {
        this.prelude = head;
        return;
      }
      this.prelude = null;
      const len = head.readInt32BE(1);
      if (head[0] === 0x45 && (len < 8 || len > PRE30_MAX_ERROR)) return this.pre30Error(head);
      chunk = head;
    }
    this.read(() => this.reader.push(chunk, this.queue));
  }

  private pre30Error(buf: Buffer): void {
    const nul = buf.indexOf(0, 1);
    if (nul < 0 && buf.length <= PRE30_MAX_ERROR) {
      this.pre30 = buf;
      return;
    }
    this.pre30 = null;
    if (nul < 0) return this.pre30Cut(buf);
    const message = buf.toString('utf8', 1, nul);
    this.finish({ kind: 'refused', error: { severity: '', code: '', message }, pre30: true });
    this.socket.destroy();
  }

  /** A pre-3.0 error with no NUL before the close or the bound: malformed, with its bytes. */
  private pre30Cut(buf: Buffer): void {
    const hex = [...buf.subarray(0, 32)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    this.finish({
      kind: 'violation',
      evidence: `protocol violation by the server: a pre-3.0 ErrorResponse with no terminating NUL in ${buf.length} bytes; bytes at stream offset 0: ${hex}`,
      hex,
    });
    this.socket.destroy();
  }

  private onEnd(): void {
    if (this.pre30) return this.pre30Cut(this.pre30);
    const head = this.prelude;
    this.prelude = null;
    this.read(() => {
      if (head && head.length > 0) this.reader.push(head, this.queue);
      this.reader.end();
    });
  }

  private read(step: () => unknown): void {
    try {
      step();
    } catch (err) {
      if (!(err instanceof ProtocolViolationError)) throw err;
      this.finish({ kind: 'violation', evidence: err.message, hex: err.violation.hex });
      this.socket.destroy();
    }
    this.wake?.();
  }

  private finish(end: StartupEnd): void {
    this.ended ??= end;
    this.wake?.();
  }

  write(buf: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(buf);
  }

  /** The next frame, or how the connection ended; waits at most until `deadline` (epoch ms). */
  async next(deadline: number, startedAt: number): Promise<Frame | StartupEnd> {
    for (;;) {
      const f = this.queue.shift();
      if (f) return f;
      if (this.ended) return this.ended;
      const left = deadline - Date.now();
      if (left <= 0) return { kind: 'timeout', waitedMs: Date.now() - startedAt };
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.wake = () => {
          clearTimeout(t);
          r();
        };
      });
      this.wake = null;
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** libpq's MAX_ERRLEN: an 'E' declaring more is taken for a pre-3.0 error's text. */
const PRE30_MAX_ERROR = 30_000;

const isFrame = (x: Frame | StartupEnd): x is Frame => 'payload' in x;

/**
 * Sends a startup packet at `version` with `extra` options and reads until ReadyForQuery or an
 * end. The connection stays open on `ready` for the caller's queries; the caller closes it.
 */
export async function rawStartup(
  ep: RawEndpoint,
  version: number,
  extra: Record<string, string>,
  boundMs: number,
): Promise<{ result: StartupResult; conn: RawConnection | null }> {
  const startedAt = Date.now();
  const deadline = startedAt + boundMs;
  const result: StartupResult = { end: { kind: 'ready' }, negotiated: null, key: null, seen: [] };
  const opened = await RawConnection.open(ep, boundMs);
  if (!(opened instanceof RawConnection)) return { result: { ...result, end: opened }, conn: null };
  const conn = opened;
  let scram: ScramState | null = null;
  conn.write(startupPacket(version, { user: ep.user, database: ep.database, ...extra }));
  for (;;) {
    const got = await conn.next(deadline, startedAt);
    if (!isFrame(got)) {
      conn.close();
      return { result: { ...result, end: got }, conn: null };
    }
    result.seen.push(got.type);
    const p = got.payload;
    if (got.type === 'v') {
      const count = p.readInt32BE(4);
      const names: string[] = [];
      let at = 8;
      for (let i = 0; i < count; i++) {
        const end = p.indexOf(0, at);
        names.push(p.toString('utf8', at, end));
        at = end + 1;
      }
      // The protocol page calls the field the newest minor version, but PostgreSQL sends the
      // whole version number (3 << 16 | minor): take the low half either way.
      result.negotiated = { minor: p.readInt32BE(0) & 0xffff, unrecognised: names };
    } else if (got.type === 'K') {
      result.key = { pid: p.readInt32BE(0), key: Buffer.from(p.subarray(4)) };
    } else if (got.type === 'E') {
      conn.close();
      return { result: { ...result, end: { kind: 'refused', error: errorFields(p) } }, conn: null };
    } else if (got.type === 'Z') {
      return { result, conn };
    } else if (got.type === 'R') {
      const code = p.readInt32BE(0);
      if (code === 3) conn.write(typed('p', Buffer.from(`${ep.password ?? ''}\0`)));
      else if (code === 5)
        conn.write(typed('p', Buffer.from(`${md5Password(ep.password ?? '', ep.user, p.subarray(4, 8))}\0`)));
      else if (code === 10 && saslMechanisms(p).includes('SCRAM-SHA-256') && ep.password) {
        const first = scramInitial();
        scram = first.state;
        conn.write(typed('p', first.body));
      } else if (code === 11 && scram) {
        const final = scramFinal(scram, ep.password ?? '', p.toString('utf8', 4));
        if (typeof final === 'string') {
          conn.close();
          return { result: { ...result, end: { kind: 'auth-unsupported', method: `SCRAM: ${final}` } }, conn: null };
        }
        conn.write(typed('p', final));
      } else if (code === 12 && scram) {
        if (!scramVerified(scram, p.toString('utf8', 4))) {
          conn.close();
          return {
            result: { ...result, end: { kind: 'auth-unsupported', method: 'SCRAM: server signature mismatch' } },
            conn: null,
          };
        }
      } else if (code !== 0) {
        conn.close();
        const method =
          code === 10
            ? `SASL ${saslMechanisms(p).join('/')} without a usable mechanism or password`
            : `authentication request ${code}`;
        return { result: { ...result, end: { kind: 'auth-unsupported', method } }, conn: null };
      }
    }
  }
}

/**
 * Runs one simple query on a ready connection and reads to its ReadyForQuery: the error it got
 * (if any), or the end of the connection.
 */
export async function rawQuery(
  conn: RawConnection,
  sql: string,
  boundMs: number,
): Promise<{ ok: true; rows: string[][] } | { ok: false; error: ServerError } | { ok: false; end: StartupEnd }> {
  const startedAt = Date.now();
  const deadline = startedAt + boundMs;
  conn.write(queryMessage(sql));
  const rows: string[][] = [];
  let error: ServerError | null = null;
  for (;;) {
    const got = await conn.next(deadline, startedAt);
    if (!isFrame(got)) return { ok: false, end: got };
    if (got.type === 'D') rows.push(dataRowValues(got.payload).map((v) => v ?? ''));
    else if (got.type === 'E') error = errorFields(got.payload);
    else if (got.type === 'Z') return error ? { ok: false, error } : { ok: true, rows };
  }
}

function saslMechanisms(p: Buffer): string[] {
  return p
    .toString('utf8', 4)
    .split('\0')
    .filter((m) => m !== '');
}
