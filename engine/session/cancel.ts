/**
 * Sending a CancelRequest by hand. pg only cancels its own "active query" through a
 * deprecated path; pooltest needs to cancel with a key of its choosing (the cancel/routing
 * check, and statement-mode holders that release their backend by being cancelled).
 */
import net from 'node:net';
import type { Target } from '../target.js';

/** 1234 in the high 16 bits, 5678 in the low: the protocol's CancelRequest code. */
const CANCEL_REQUEST_CODE = 80877102;

/**
 * Opens a fresh TCP connection to the target, writes the 16-byte CancelRequest and waits for
 * the peer to close (or `timeoutMs`). The protocol sends no reply either way, so this resolves
 * `true` when the request was written, not when it took effect.
 */
export function sendCancelRequest(target: Target, processId: number, secretKey: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.host, port: target.port });
    let written = false;
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(written);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.once('connect', () => {
      const msg = Buffer.alloc(16);
      msg.writeInt32BE(16, 0);
      msg.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      msg.writeInt32BE(processId, 8);
      msg.writeInt32BE(secretKey, 12);
      socket.write(msg, () => {
        written = true;
      });
    });
    socket.once('close', done);
    socket.once('error', done);
  });
}
