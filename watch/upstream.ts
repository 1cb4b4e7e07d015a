/**
 * Opening the proxy's side of one connection: TCP to the upstream, then TLS when its URL asks
 * for it. The proxy speaks plaintext to its own clients on loopback (it answers their
 * SSLRequest with 'N') and negotiates TLS upstream itself, as libpq would for that sslmode.
 */
import net from 'node:net';
import tls from 'node:tls';
import { PooltestError } from '../engine/record/errors.js';
import { classifyConnectError } from '../engine/session/connect.js';
import { hostPort, isSocketHost, netAddress, type Target } from '../engine/target/target.js';
import { tlsOptions } from '../engine/target/tls-files.js';
import { SSL_REQUEST } from './message-stream.js';

/** A connected upstream socket, plaintext or TLS. */
export type UpstreamSocket = net.Socket | tls.TLSSocket;

/**
 * Connects to `target` within `timeoutMs`: TCP, then SSLRequest and the TLS handshake for
 * sslmode prefer (falling back to plaintext on 'N'), require, verify-ca and verify-full.
 */
export async function connectUpstream(target: Target, timeoutMs: number): Promise<UpstreamSocket> {
  const socket = await connectTcp(target, timeoutMs);
  // libpq never negotiates TLS over a Unix socket, whatever sslmode says.
  if (target.sslmode === 'disable' || target.sslmode === 'allow' || isSocketHost(target.host)) return socket;
  try {
    const answer = await sslAnswer(socket, timeoutMs, target);
    if (answer === 'N') {
      if (target.sslmode === 'prefer') return socket;
      throw new PooltestError(
        'TLS_FAILED',
        `${hostPort(target.host, target.port)} refused TLS (answered 'N' to SSLRequest) but sslmode=${target.sslmode} requires it`,
      );
    }
    return await handshake(socket, target, timeoutMs);
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

/** The connection to the upstream: TCP, or its Unix socket (a host that is a directory, as for libpq). */
function connectTcp(target: Target, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(netAddress(target));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new PooltestError(
          'TARGET_UNREACHABLE',
          `upstream ${where(target)}: no ${isSocketHost(target.host) ? 'connection' : 'TCP connection'} within ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      // The same codes as every other command's connection errors: ECONNREFUSED is TARGET_REFUSED.
      const coded = classifyConnectError(error, target, timeoutMs);
      const why =
        coded.code !== 'TARGET_REFUSED'
          ? error.message
          : isSocketHost(target.host)
            ? 'no server listens on that socket'
            : `connection refused: nothing listens on port ${target.port}`;
      reject(new PooltestError(coded.code, `upstream ${where(target)}: ${why}`, coded.detail));
    });
  });
}

/** The upstream as a message names it: host and port, or the socket file. */
function where(target: Target): string {
  const address = netAddress(target);
  return 'path' in address ? `socket "${address.path}"` : hostPort(target.host, target.port);
}

/** Sends SSLRequest and reads the one-byte answer. */
function sslAnswer(socket: net.Socket, timeoutMs: number, target: Target): Promise<'S' | 'N'> {
  return new Promise((resolve, reject) => {
    const done = (fn: () => void): void => {
      clearTimeout(timer);
      socket.removeListener('data', onData);
      socket.removeListener('error', onError);
      socket.removeListener('close', onClose);
      fn();
    };
    const onData = (chunk: Buffer): void => {
      socket.pause();
      const byte = String.fromCharCode(chunk[0]!);
      // Bytes after the answer would be read as if they came through TLS (CVE-2021-23214).
      if (chunk.length !== 1 || (byte !== 'S' && byte !== 'N')) {
        done(() =>
          reject(
            new PooltestError(
              'NOT_POSTGRES',
              `upstream ${hostPort(target.host, target.port)} answered SSLRequest with ${chunk.length} unexpected byte(s)`,
            ),
          ),
        );
        return;
      }
      done(() => resolve(byte));
    };
    const onError = (error: Error): void =>
      done(() =>
        reject(
          new PooltestError(
            'CONNECTION_LOST',
            `upstream ${hostPort(target.host, target.port)} during SSLRequest: ${error.message}`,
          ),
        ),
      );
    const onClose = (): void =>
      done(() =>
        reject(
          new PooltestError(
            'CONNECTION_LOST',
            `upstream ${hostPort(target.host, target.port)} closed during SSLRequest`,
          ),
        ),
      );
    const timer = setTimeout(
      () =>
        done(() =>
          reject(
            new PooltestError(
              'STEP_TIMEOUT',
              `upstream ${hostPort(target.host, target.port)}: no answer to SSLRequest within ${timeoutMs} ms`,
            ),
          ),
        ),
      timeoutMs,
    );
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
    const request = Buffer.alloc(8);
    request.writeInt32BE(8, 0);
    request.writeInt32BE(SSL_REQUEST, 4);
    socket.write(request);
  });
}

function handshake(socket: net.Socket, target: Target, timeoutMs: number): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const secure = tls.connect({
      ...tlsOptions(target),
      socket,
      servername: net.isIP(target.host) ? undefined : target.host,
    });
    const timer = setTimeout(() => {
      secure.destroy();
      reject(
        new PooltestError(
          'TLS_FAILED',
          `upstream ${hostPort(target.host, target.port)}: no TLS handshake within ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    secure.once('secureConnect', () => {
      clearTimeout(timer);
      secure.removeAllListeners('error');
      resolve(secure);
    });
    secure.once('error', (error) => {
      clearTimeout(timer);
      secure.destroy();
      reject(new PooltestError('TLS_FAILED', `upstream ${hostPort(target.host, target.port)}: ${error.message}`));
    });
  });
}
