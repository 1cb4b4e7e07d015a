/**
 * Opening a `pg` connection with a time bound and turning every way it can fail into a coded
 * {@link PooltestError} that names the target (never its password) and the limit.
 */
import net from 'node:net';
import pg from 'pg';
import { PooltestError } from '../record/errors.js';
import { onAbort } from '../record/time.js';
import { describeTarget, isSocketHost, netAddress, pgConfig, type Target } from '../target/target.js';
import { assertGuarded, bytesReceived, guardClient } from '../wire/pg-guard.js';
import { foreignProtocolError } from '../wire/foreign-protocol.js';

/**
 * What to do about a refused login, said once for every pooler's wording of it (PgBouncer 1.18:
 * 08P01 "SASL authentication failed"; Postgres: 28P01). A pooler checks the password itself,
 * against its own list (PgBouncer's auth_file or auth_query), so both may need the change.
 */
const AUTH_HINT =
  "check the user and password (--user, --password, PGPASSWORD, the URL's or ~/.pgpass); a pooler checks them against its own list too (PgBouncer: auth_file or auth_query)";
/**
 * Connects, honouring libpq's two-attempt modes: `prefer` tries TLS first and falls back to
 * plaintext when the server does not offer it; `allow` tries plaintext first and uses TLS when
 * the server insists. Which attempt worked is remembered per endpoint in `learned` (the run's,
 * engine/context/run-state.ts), so a run's many sessions do not each pay for the failed one; without
 * it (a one-off connection) nothing is remembered.
 */
export async function connectClient(
  target: Target,
  timeoutMs: number,
  applicationName: string,
  learned: Map<string, boolean> = new Map(),
  giveUp?: AbortSignal,
): Promise<pg.Client> {
  if (target.sslmode !== 'prefer' && target.sslmode !== 'allow')
    return connectOnce(target, timeoutMs, applicationName, target.sslmode !== 'disable', giveUp);
  const key = `${target.host}:${target.port}:${target.sslmode}`;
  const first = learned.get(key) ?? target.sslmode === 'prefer';
  try {
    const client = await connectOnce(target, timeoutMs, applicationName, first, giveUp);
    learned.set(key, first);
    return client;
  } catch (err) {
    // libpq: `prefer` falls back to plaintext when TLS is refused or does not fit pg_hba; `allow`
    // tries TLS after plaintext was refused for want of encryption.
    const retry = first
      ? /does not support SSL/i.test(String((err as Error).message)) ||
        (err instanceof PooltestError && err.code === 'TLS_FAILED')
      : err instanceof PooltestError && err.code === 'TLS_FAILED';
    if (!retry || giveUp?.aborted) throw err;
    const client = await connectOnce(target, timeoutMs, applicationName, !first, giveUp);
    learned.set(key, !first);
    return client;
  }
}

/**
 * `giveUp`: the caller stops waiting before `timeoutMs` (a crowd whose logins stopped coming,
 * engine/steering/crowd.ts); the attempt fails with the signal's reason, a coded error.
 */
async function connectOnce(
  target: Target,
  timeoutMs: number,
  applicationName: string,
  tls: boolean,
  giveUp?: AbortSignal,
): Promise<pg.Client> {
  const client = new pg.Client(pgConfig(target, timeoutMs, applicationName, tls));
  // An error emitted while connecting would otherwise be unhandled.
  client.on('error', () => undefined);
  // Every backend byte is validated before pg parses it (see wire/pg-guard.ts).
  guardClient(client);
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = onAbort(giveUp, null);
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        // pg's own connectionTimeoutMillis covers the socket; this covers a TLS or startup
        // exchange that stalls after it.
        timer = setTimeout(() => reject(new Error('timeout expired')), timeoutMs + 50);
      }),
      gaveUp.promise.then(() => Promise.reject(giveUp!.reason)),
    ]);
    assertGuarded(client);
    return client;
  } catch (err) {
    const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
    stream?.destroy();
    throw classifyConnectError(err, target, timeoutMs, bytesReceived(client));
  } finally {
    clearTimeout(timer);
    gaveUp.dispose();
  }
}

/**
 * Maps a connection failure to a stable code. `received`: bytes the server sent before it
 * failed, when known (a server that closes without one byte is not a PostgreSQL refusal).
 */
export function classifyConnectError(
  err: unknown,
  target: Target,
  timeoutMs: number,
  received: number | null = null,
): PooltestError {
  const where = describeTarget(target);
  if (err instanceof PooltestError) return foreignProtocolError(err, where) ?? err;
  const e = err as Error & { code?: string };
  const msg = e?.message ?? String(err);
  const detail = { target: where, sqlstate: e?.code ?? null };
  switch (e?.code) {
    case 'ENOENT':
    case 'ECONNREFUSED':
      // A Unix socket: no file (ENOENT) or nobody behind it (ECONNREFUSED), as psql says it.
      if (isSocketHost(target.host)) {
        const { path } = netAddress(target) as { path: string };
        return new PooltestError('TARGET_REFUSED', `no server listens on socket "${path}" (${where})`, detail);
      }
      if (e.code === 'ENOENT') break;
      return new PooltestError(
        'TARGET_REFUSED',
        `connection to ${where} refused: nothing listens on port ${target.port}`,
        detail,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new PooltestError('TARGET_UNREACHABLE', `host "${target.host}" of ${where} cannot be resolved`, detail);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return new PooltestError('TARGET_UNREACHABLE', `${where} is unreachable (${e.code})`, detail);
    case '28P01':
      return new PooltestError(
        'AUTH_FAILED',
        `authentication failed for user "${target.user}" at ${where}: ${msg}; ${AUTH_HINT}`,
        detail,
      );
    case '3D000':
      return new PooltestError(
        'DATABASE_NOT_FOUND',
        `database "${target.database}" does not exist at ${where}: ${msg}`,
        detail,
      );
    case '28000':
      // pg_hba refusals name the encryption state since PostgreSQL 12 ("..., no encryption" for
      // a hostssl-only entry, "..., SSL encryption" for hostnossl): an encryption mismatch.
      // (No TLS exists on a Unix socket, so there the refusal is about the login.)
      if (/ssl|tls|no encryption/i.test(msg) && !isSocketHost(target.host))
        return new PooltestError('TLS_FAILED', `${where} refused this connection's encryption: ${msg}`, detail);
      return new PooltestError('AUTH_FAILED', `${where} refused user "${target.user}": ${msg}`, detail);
    default:
      break;
  }
  if (/SSL required/i.test(msg)) {
    // PgBouncer with client_tls_sslmode=require answers a plaintext startup with "SSL required".
    return new PooltestError(
      'TLS_FAILED',
      `${where} requires TLS, and sslmode=${target.sslmode} connected without it: ${msg}`,
      detail,
    );
  }
  if (!target.password && /client password must be a string/i.test(msg)) {
    // pg's words for "the server asked for a password and there is none" (SCRAM): say it as psql does.
    return new PooltestError(
      'AUTH_FAILED',
      `${where} asks for a password and none was given: pass --password, set PGPASSWORD, put it in the URL, or add a line for it to the password file (~/.pgpass, or the file PGPASSFILE names; one that others can read is ignored)`,
      detail,
    );
  }
  if (/password|SASL|SCRAM|authentication/i.test(msg)) {
    return new PooltestError('AUTH_FAILED', `authentication with ${where} failed: ${msg}; ${AUTH_HINT}`, detail);
  }
  if (/timeout expired|timed out/i.test(msg)) {
    // How much of an answer came tells a silent peer from one stuck (or flooding) in its login.
    return new PooltestError('STEP_TIMEOUT', `${where} did not complete the connection within ${timeoutMs} ms`, {
      ...detail,
      received,
    });
  }
  if (/error establishing an SSL connection/i.test(msg)) {
    // pg's words for an answer to the SSLRequest that is not the one byte 'S' or 'N': an SSH
    // greeting, an HTTP page. TLS_FAILED still, so that sslmode=prefer tries plaintext next.
    return new PooltestError(
      'TLS_FAILED',
      `${where} answered the SSLRequest with neither 'S' nor 'N' alone: it does not speak the PostgreSQL protocol (or refused TLS with an error); check the host and port (PostgreSQL listens on 5432 by default, PgBouncer on 6432)`,
      detail,
    );
  }
  if (/ssl|tls|certificate|self.signed/i.test(msg)) {
    return new PooltestError('TLS_FAILED', `TLS with ${where} failed: ${msg}`, detail);
  }
  if (received === 0 && /terminated unexpectedly|ECONNRESET|EPIPE/i.test(msg)) {
    // A PostgreSQL server or pooler that refuses says why (an ErrorResponse) before it closes.
    return new PooltestError(
      'NOT_POSTGRES',
      `${where} closed the connection without answering the PostgreSQL startup (not one byte): it does not speak the PostgreSQL protocol, or it drops this client at once; check the host and port (PostgreSQL listens on 5432 by default, PgBouncer on 6432)`,
      detail,
    );
  }
  if (/terminated unexpectedly|ECONNRESET|unexpected|Unknown message|EPIPE/i.test(msg)) {
    return new PooltestError('NOT_POSTGRES', `${where} did not answer like a PostgreSQL server: ${msg}`, detail);
  }
  return new PooltestError('TARGET_UNREACHABLE', `cannot connect to ${where}: ${msg}`, detail);
}

/**
 * Opens and closes a bare TCP connection: tells "refused" and "unreachable" apart from
 * "accepts but does not speak" before pg's less specific errors get in the way.
 */
export function probeTcp(target: Target, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(netAddress(target));
    const timer = setTimeout(() => {
      socket.destroy();
      // The wait as this process measured it, beside the bound it was given: on a busy machine
      // the timer fires late, and this tells "the bound was honoured, late" (2000 ms, gave up
      // after 2600) from "some other bound applied" without timing the whole process from outside.
      const waitedMs = Math.round(performance.now() - started);
      reject(
        new PooltestError(
          'TARGET_UNREACHABLE',
          `no TCP connection to ${describeTarget(target)} within ${timeoutMs} ms (gave up after ${waitedMs} ms)`,
          { target: describeTarget(target), waitedMs },
        ),
      );
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(classifyConnectError(err, target, timeoutMs));
    });
  });
}
