/**
 * The wire guard: every backend byte a `pg` client receives is validated by a
 * {@link FrameReader} before pg-protocol's parser sees it. pg-protocol trusts declared
 * lengths; a pooler that sends an ErrorResponse whose terminator lies outside its length
 * (one does, when its pool is exhausted) sends it into a synchronous endless loop that no
 * timer or signal can interrupt. Through the guard that message is never parsed: the
 * connection is destroyed and the pending step fails with `PROTOCOL_VIOLATION`.
 *
 * Why not pg's `stream` option: with TLS, pg layers `tls.connect({ socket })` over the stream
 * it was given and hands the TLS socket to the parser, so a wrapper passed as `stream` would
 * see only ciphertext. pg calls `connection.attachListeners(stream)` with exactly the stream
 * the parser reads (the socket, or the TLS socket after the upgrade), and pg-protocol's
 * `parse` listens to nothing but its 'data' and 'end'. The guard wraps that one method on the
 * client's own connection object and hands the parser a source that forwards validated
 * chunks unchanged (the same Buffer). {@link assertGuarded} fails loudly if a pg release
 * stops calling it, rather than letting runs go unguarded.
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type pg from 'pg';
import { PooltestError } from '../record/errors.js';
import { FrameReader } from './frame-reader.js';
import { ProtocolViolationError } from './violation.js';
import { firstByteViolation } from './foreign-protocol.js';

/** pg's Connection, as far as the guard touches it: the parser reads the stream it is given. */
interface GuardableConnection {
  attachListeners(stream: Duplex | EventEmitter): unknown;
}

const guarded = new WeakMap<
  pg.Client,
  { attached: boolean; violation: ProtocolViolationError | null; received: number }
>();

/** Installs the guard on a client that has not connected yet. */
export function guardClient(client: pg.Client, opts: { maxMessageBytes?: number } = {}): void {
  const connection = (client as unknown as { connection?: Partial<GuardableConnection> }).connection;
  const original = connection?.attachListeners;
  if (!connection || typeof original !== 'function') {
    throw new PooltestError(
      'INTERNAL',
      'this version of pg has no connection.attachListeners: the wire guard cannot be installed (pooltest pins pg 8.x)',
    );
  }
  const state = { attached: false, violation: null as ProtocolViolationError | null, received: 0 };
  guarded.set(client, state);
  connection.attachListeners = function (this: GuardableConnection, stream: Duplex): unknown {
    state.attached = true;
    return original.call(
      this,
      guardedSource(
        stream,
        opts,
        (v) => (state.violation ??= v),
        (n) => (state.received += n),
      ),
    );
  };
}

/** Throws INTERNAL when a connected client's parser was attached without passing the guard. */
export function assertGuarded(client: pg.Client): void {
  if (guarded.get(client)?.attached !== true) {
    throw new PooltestError(
      'INTERNAL',
      'pg connected without attaching its parser through the wire guard: this pg version is not supported',
    );
  }
}

/** How many bytes the server sent this client through the guard (0: not one, or never attached). */
export function bytesReceived(client: pg.Client): number {
  return guarded.get(client)?.received ?? 0;
}

/** The violation that closed this client's connection, if one did. */
export function violationOf(client: pg.Client): ProtocolViolationError | null {
  return guarded.get(client)?.violation ?? null;
}

/**
 * What pg-protocol's parser listens to instead of the stream: 'data' with each chunk once the
 * reader found nothing wrong in it, and 'end'. On a violation nothing more is forwarded (not
 * even the valid frames before it in the same chunk: the connection is being dropped anyway)
 * and the stream is destroyed with the violation, which pg reports as the connection's error:
 * the connect or the query in flight fails with it.
 */
function guardedSource(
  stream: Duplex,
  opts: { maxMessageBytes?: number },
  onViolation: (v: ProtocolViolationError) => void,
  onBytes: (n: number) => void,
): EventEmitter {
  const source = new EventEmitter();
  const reader = new FrameReader({
    direction: 'backend',
    ...(opts.maxMessageBytes !== undefined ? { maxMessageBytes: opts.maxMessageBytes } : {}),
  });
  let stopped = false;
  const stop = (err: unknown): void => {
    stopped = true;
    const v =
      err instanceof ProtocolViolationError
        ? err
        : new PooltestError('INTERNAL', `wire guard: ${err instanceof Error ? err.message : String(err)}`);
    if (v instanceof ProtocolViolationError) onViolation(v);
    stream.destroy(v);
  };
  let first = true;
  stream.on('data', (chunk: Buffer) => {
    if (stopped || chunk.length === 0) return;
    onBytes(chunk.length);
    try {
      // The frame reader knows message types, not where a stream is: the first byte is checked
      // apart, so that a peer that is no PostgreSQL server is named at its first byte (an
      // 'S' of "SSH-2.0" would otherwise pass as a ParameterStatus of some 500 MB).
      const foreign = first ? firstByteViolation(chunk) : null;
      first = false;
      if (foreign) throw foreign;
      reader.check(chunk);
    } catch (err) {
      stop(err);
      return;
    }
    source.emit('data', chunk);
  });
  stream.on('end', () => {
    if (stopped) return;
    try {
      // A server that closes inside a message truncated it: that is evidence too.
      reader.end();
    } catch (err) {
      stop(err);
      return;
    }
    source.emit('end');
  });
  return source;
}
