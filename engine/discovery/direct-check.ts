/**
 * `--direct` is checked before anything else runs: it is used only by the sweep at the end and
 * by a few checks, so a mistyped host or password would otherwise surface after the whole run,
 * as a sweep that could not look. One bounded connection and `SELECT 1`, then closed.
 *
 * It must be PostgreSQL itself, not the pooler given twice: the run's presence lock (a session
 * advisory lock, steering/other-runs.ts) and the sweep's direct look need a session that keeps
 * its backend. Postgres's BackendKeyData names the backend's own pid; a pooler sends a key of
 * its own (PgBouncer, Odyssey: random numbers), so a key that is not `pg_backend_pid()` means
 * something between us and the server. A pooler that passes the backend's key on is not
 * caught; one that cannot answer pg_backend_pid() is left to the checks.
 */
import { connectClient } from '../session/connect.js';
import { APPLICATION_NAME } from '../session/session.js';
import { PooltestError } from '../record/errors.js';
import { describeTarget, type Target } from '../target/target.js';
import { within } from '../record/time.js';

type Client = Awaited<ReturnType<typeof connectClient>>;

/** Throws a coded error naming `--direct` when it cannot be reached or logged into. */
export async function checkDirect(
  direct: Target,
  bounds: { connectMs: number; stepMs: number },
  signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted)
    throw new PooltestError('INTERRUPTED', 'interrupted before discovery; nothing to clean up on the target');
  let client;
  try {
    client = await connectClient(direct, bounds.connectMs, APPLICATION_NAME);
  } catch (err) {
    // Keep the classified code (TARGET_REFUSED, AUTH_FAILED...): only the message names the flag.
    if (err instanceof PooltestError) throw new PooltestError(err.code, `--direct: ${err.message}`, err.detail);
    throw err;
  }
  try {
    const answer = await within(
      client.query('SELECT 1 AS one').then(
        () => 'ok' as const,
        (e: Error) => e,
      ),
      bounds.stepMs,
      'timeout' as const,
    );
    if (answer === 'timeout')
      throw new PooltestError(
        'STEP_TIMEOUT',
        `--direct: ${describeTarget(direct)} did not answer SELECT 1 within ${bounds.stepMs} ms`,
      );
    if (answer instanceof Error)
      throw new PooltestError(
        'NOT_POSTGRES',
        `--direct: ${describeTarget(direct)} refused SELECT 1: ${answer.message}`,
      );
    await refusePooler(client, direct, bounds.stepMs);
  } finally {
    await within(
      client.end().catch(() => undefined),
      500,
      undefined,
    );
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}

/** Refuses a --direct whose BackendKeyData does not name the backend that runs its queries. */
async function refusePooler(client: Client, direct: Target, stepMs: number): Promise<void> {
  const keyPid = (client as unknown as { processID?: number }).processID;
  if (typeof keyPid !== 'number') return;
  const pid = await within(
    client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid').then(
      (r) => r.rows[0]?.pid ?? null,
      () => null,
    ),
    stepMs,
    null,
  );
  if (pid === null || pid === keyPid) return;
  throw new PooltestError('BAD_ARGUMENTS', `--direct: ${keyMismatchMessage(describeTarget(direct), keyPid, pid)}`, {
    keyPid: unsigned32(keyPid),
    backendPid: pid,
  });
}

/**
 * BackendKeyData's process id is 32 bits the server chooses. PostgreSQL puts the backend's pid
 * there; a pooler puts a number of its own (PgBouncer: random bits), which `pg` reads as a
 * signed integer, so half the time it would print as a negative "pid". Printed unsigned, it is
 * the number that was on the wire.
 */
function unsigned32(n: number): number {
  return n >>> 0;
}

/** Why a --direct whose cancel key is not its backend's pid is refused, in a user's words. */
export function keyMismatchMessage(where: string, keyPid: number, backendPid: number): string {
  return (
    `${where} is not PostgreSQL itself: its queries run on backend ${backendPid}, but the cancel key it ` +
    `sent at login names process ${unsigned32(keyPid)}. PostgreSQL's key names the session's own backend; ` +
    'a pooler answers logins with a key of its own, as this one did. Give the PostgreSQL server behind the ' +
    'pooler (its host:port), or leave --direct out'
  );
}
