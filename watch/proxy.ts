/**
 * The recording proxy: listens on loopback, relays every byte between each client and the
 * upstream unchanged, and hands copies of the framed messages to an observer. Authentication
 * (SCRAM included) passes through untouched: the proxy never needs the password.
 *
 * The only bytes it does not relay are the startup-phase requests it must answer itself: an
 * SSLRequest or GSSENCRequest from the client gets 'N' (the client talks plaintext to a proxy
 * on loopback), while the proxy negotiates TLS upstream on its own when the upstream URL asks
 * for it. A CancelRequest is forwarded on a fresh upstream connection, as the server expects.
 *
 * Malformed traffic never hangs a connection: a bad startup packet closes it with a warning;
 * a malformed message later stops the observation of that connection (warning) while the
 * bytes go on being relayed, so the client and server see exactly what they would directly.
 */
import net from 'node:net';
import type { Target } from '../engine/target/target.js';
import { isPooltestError } from '../engine/record/errors.js';
import {
  CANCEL_REQUEST,
  GSSENC_REQUEST,
  MessageStream,
  SSL_REQUEST,
  startupCode,
  type Frame,
} from './message-stream.js';
import { connectUpstream, type UpstreamSocket } from './upstream.js';

/** What the proxy tells its observer about one connection. */
export interface ConnectionObserver {
  frontend(frame: Frame): void;
  backend(frame: Frame): void;
  closed(): void;
}

export interface ProxyOptions {
  upstream: Target;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  connectTimeoutMs?: number;
  /** Bound on a client sending its StartupMessage (PostgreSQL's authentication_timeout is 60 s). */
  startupTimeoutMs?: number;
  /** Called for each client connection that reached its StartupMessage. */
  observe(clientPort: number): ConnectionObserver;
  warn(text: string): void;
}

/** A running proxy. */
export interface RunningProxy {
  host: string;
  port: number;
  /** Client connections accepted so far. */
  accepted(): number;
  /** Stops listening, closes every connection, and waits (bounded) until they are gone. */
  stop(): Promise<void>;
}

/** Starts the proxy; resolves once it listens. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const sockets = new Set<net.Socket | UpstreamSocket>();
  // Connections still open: a set, so a long watch over many short connections stays bounded.
  const closing = new Set<Promise<void>>();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted++;
    const done = handleClient(client, options, sockets);
    closing.add(done);
    void done.then(() => closing.delete(done));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => options.warn(`proxy: ${error.message}`));
  const address = server.address() as net.AddressInfo;
  return {
    host,
    port: address.port,
    accepted: () => accepted,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      // Every connection's observer has been told by now (destroy closes synchronously enough);
      // the bound guards against a socket that never emits 'close'.
      await Promise.race([Promise.all([...closing]), new Promise((r) => setTimeout(r, 2_000).unref())]);
    },
  };
}

/** One client connection, from its first byte to its close. */
function handleClient(
  client: net.Socket,
  options: ProxyOptions,
  sockets: Set<net.Socket | UpstreamSocket>,
): Promise<void> {
  return new Promise((resolveClosed) => {
    sockets.add(client);
    client.setNoDelay(true);
    const front = new MessageStream('frontend');
    const back = new MessageStream('backend');
    const clientPort = client.remotePort ?? 0;
    let upstream: UpstreamSocket | null = null;
    let observer: ConnectionObserver | null = null;
    // Startup-phase bytes not relayed yet; the first `answered` of them were SSL/GSS requests.
    let held: Buffer[] = [];
    let heldBytes = 0;
    let answered = 0;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(startupTimer);
      // end() first: what one side sent last (a FATAL ErrorResponse) still reaches the other.
      closeSoon(client);
      if (upstream) closeSoon(upstream);
      observer?.closed();
      resolveClosed();
    };
    client.once('close', () => sockets.delete(client));
    const startupTimer = setTimeout(() => {
      options.warn(
        `client port ${clientPort}: no StartupMessage within ${options.startupTimeoutMs ?? 30_000} ms; closed`,
      );
      finish();
    }, options.startupTimeoutMs ?? 30_000);
    client.on('error', () => finish());
    client.on('close', () => finish());

    const observeFront = (frames: Frame[], violation: string | null): void => {
      for (const frame of frames) observer?.frontend(frame);
      if (violation !== null)
        options.warn(
          `client port ${clientPort}: malformed client traffic (${violation}); relayed unobserved from here`,
        );
    };

    // Startup phase: read untyped packets until the StartupMessage, answering SSL/GSS requests.
    const onStartupData = (chunk: Buffer): void => {
      held.push(chunk);
      heldBytes += chunk.length;
      const { frames, violation } = front.push(chunk);
      for (const [i, frame] of frames.entries()) {
        const code = startupCode(frame);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          answered += frame.length + 4;
          client.write('N');
          continue;
        }
        client.removeListener('data', onStartupData);
        client.pause();
        const raw = Buffer.concat(held).subarray(answered);
        held = [];
        if (code === CANCEL_REQUEST) return void forwardCancel(raw, options, finish);
        clearTimeout(startupTimer);
        observer = options.observe(clientPort);
        // A violation after the StartupMessage is the server's to judge: relay, warn.
        observeFront(frames.slice(i), violation);
        return void connect(raw);
      }
      if (violation !== null) {
        options.warn(`client port ${clientPort}: malformed startup packet (${violation}); closed`);
        return finish();
      }
      // Only SSL/GSS requests so far, all answered: forget their bytes.
      if (answered === heldBytes) {
        held = [];
        heldBytes = 0;
        answered = 0;
      }
    };
    client.on('data', onStartupData);

    const connect = async (first: Buffer): Promise<void> => {
      try {
        upstream = await connectUpstream(options.upstream, options.connectTimeoutMs ?? 10_000);
      } catch (error) {
        const message = isPooltestError(error) ? error.message : String(error);
        options.warn(`client port ${clientPort}: ${message}`);
        client.end(errorResponse(`pooltest watch could not reach the upstream: ${message}`));
        return void setTimeout(finish, 100).unref();
      }
      if (finished) return void upstream.destroy();
      sockets.add(upstream);
      const up = upstream;
      up.once('close', () => sockets.delete(up));
      upstream.setNoDelay(true);
      upstream.on('error', () => finish());
      upstream.on('close', () => finish());
      relay(client, upstream, (chunk) => {
        const r = front.push(chunk);
        observeFront(r.frames, r.violation);
      });
      relay(upstream, client, (chunk) => {
        const r = back.push(chunk);
        for (const frame of r.frames) observer?.backend(frame);
        if (r.violation !== null)
          options.warn(
            `client port ${clientPort}: malformed server traffic (${r.violation}); relayed unobserved from here`,
          );
      });
      upstream.write(first);
      // Both were paused explicitly (the upstream while reading its SSLRequest answer).
      upstream.resume();
      client.resume();
    };
  });
}

/** Flushes and closes a socket, destroying it if the peer does not finish within a bound. */
function closeSoon(socket: net.Socket): void {
  if (socket.destroyed) return;
  socket.end();
  setTimeout(() => socket.destroy(), 2_000).unref();
}

/** Copies `from` to `to` with backpressure, observing each chunk after it is written. */
function relay(from: net.Socket, to: net.Socket, observe: (chunk: Buffer) => void): void {
  from.on('data', (chunk: Buffer) => {
    if (!to.write(chunk)) from.pause();
    observe(chunk);
  });
  to.on('drain', () => from.resume());
}

/** A CancelRequest travels on its own connection; the server answers nothing and closes. */
function forwardCancel(raw: Buffer, options: ProxyOptions, finish: () => void): void {
  connectUpstream(options.upstream, options.connectTimeoutMs ?? 10_000).then(
    (socket) => {
      socket.on('error', () => undefined);
      socket.end(raw, () => finish());
      setTimeout(() => socket.destroy(), 1_000).unref();
    },
    (error: unknown) => {
      options.warn(`cancel request not forwarded: ${isPooltestError(error) ? error.message : String(error)}`);
      finish();
    },
  );
}

/** An ErrorResponse (FATAL, SQLSTATE 08006) so the client shows why instead of a bare close. */
function errorResponse(message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C08006\0M${message}\0\0`, 'utf8');
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}
