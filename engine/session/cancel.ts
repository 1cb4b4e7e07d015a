/**
 * Sending a CancelRequest by hand. pg only cancels its own "active query" through a
 * deprecated path; pooltest needs to cancel with a key of its choosing (the cancel/routing
 * check, and statement-mode holders that release their backend by being cancelled).
 */
import net from 'node:net';
import { netAddress, type Target } from '../target/target.js';

/** 1234 in the high 16 bits, 5678 in the low: the protocol's CancelRequest code. */
const CANCEL_REQUEST_CODE = 80877102;

/** What became of a CancelRequest, as far as the client can tell. */
export interface CancelDelivery {
  /** The 16 bytes were handed to the socket. */
  written: boolean;
  /**
   * The peer closed the connection: it read the request (Postgres and PgBouncer close at once).
   * A pooler with no free process to accept the connection (pgpool-II with every child busy)
   * leaves it open, with the request unread in its listen queue.
   */
  closedByPeer: boolean;
  /** Milliseconds from connecting to the close (or to the bound). */
  ms: number;
  /** Milliseconds from connecting until the request was handed to the socket (null: never). */
  writtenMs: number | null;
}

/**
 * Opens a fresh TCP connection to the target, writes the 16-byte CancelRequest and waits for
 * the peer to close (or `timeoutMs`). The protocol sends no reply either way, so a delivery
 * says the request was written and read, not that it took effect.
 */
export function sendCancelRequest(
  target: Target,
  processId: number,
  secretKey: number,
  timeoutMs: number,
): Promise<CancelDelivery> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect(netAddress(target));
    let written = false;
    let writtenMs: number | null = null;
    let settled = false;
    const done = (closedByPeer: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ written, closedByPeer, ms: Math.round(performance.now() - started), writtenMs });
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => {
      const msg = Buffer.alloc(16);
      msg.writeInt32BE(16, 0);
      msg.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      msg.writeInt32BE(processId, 8);
      msg.writeInt32BE(secretKey, 12);
      socket.write(msg, () => {
        written = true;
        writtenMs = Math.round(performance.now() - started);
      });
    });
    socket.once('close', () => done(true));
    socket.once('error', () => done(false));
  });
}
