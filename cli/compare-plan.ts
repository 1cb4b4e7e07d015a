/**
 * `--compare`: may the two runs go at the same time? The rule, in order:
 *
 * 1. The same endpoint (host and port, with every spelling of loopback counted as one) is the
 *    same pool: the two runs' holders would take each other's backends and no landing could
 *    be proven. One after the other.
 * 2. Different endpoints in front of the same PostgreSQL server (two poolers on one server,
 *    or a pooler and that server directly) do not share a pool, but they do share the server,
 *    and each run reads the server's activity: the check engine counts another pooltest run's
 *    sessions there as a run that could disturb its state (steering/other-runs.ts), and
 *    discovery counts busy backends of the same database and user when it sizes the pool. Run
 *    together, each would make the other inconclusive. One after the other.
 * 3. Different servers: nothing is shared but this machine's CPU. At the same time.
 *
 * "The same server" is asked, not guessed from addresses (a pooler's address says nothing
 * about where its server is): each endpoint answers with its server's start time and port,
 * which two servers do not share. When either cannot answer, the runs go one after the other.
 */
import { PooltestError } from '../engine/record/errors.js';
import { connectClient } from '../engine/session/connect.js';
import { describeTarget, type Target } from '../engine/target/target.js';
import { within } from '../engine/record/time.js';

export interface ComparePlan {
  concurrent: boolean;
  /** Why, in words for the terminal. */
  reason: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

function endpointKey(t: Target): string {
  const host = t.host.toLowerCase();
  return `${LOOPBACK.has(host) ? 'loopback' : host}:${t.port}`;
}

/**
 * Which server an endpoint leads to; null when it cannot tell within the bound. With `flag`,
 * an endpoint that cannot be connected to is that flag's coded error (TARGET_REFUSED,
 * AUTH_FAILED...), not a shrug: the baseline is found unreachable before the checks run.
 */
async function serverIdentity(t: Target, boundMs: number, flag?: string): Promise<string | null> {
  let client;
  try {
    client = await connectClient(t, boundMs, 'pooltest');
  } catch (err) {
    if (flag !== undefined && err instanceof PooltestError)
      throw new PooltestError(err.code, `${flag}: ${err.message}`, err.detail);
    return null;
  }
  try {
    const r = await within(
      client.query(
        "SELECT pg_postmaster_start_time()::text AS started, inet_server_port() AS port, current_setting('server_version_num') AS version",
      ),
      boundMs,
      null,
    );
    const row = r?.rows[0] as { started?: string; port?: number | null; version?: string } | undefined;
    return row?.started ? `${row.started}|${row.port ?? 'socket'}|${row.version ?? ''}` : null;
  } catch {
    return null;
  } finally {
    await within(
      client.end().catch(() => undefined),
      boundMs,
      undefined,
    );
  }
}

/**
 * Decides whether the target and the baseline may be tested at the same time (see the file
 * comment). A baseline that cannot be connected to throws its coded error (named `--compare`),
 * as a wrong `--direct` does: found now, it costs no run of the target.
 */
export async function planCompare(target: Target, baseline: Target, boundMs: number): Promise<ComparePlan> {
  if (endpointKey(target) === endpointKey(baseline)) {
    // One pool, but the baseline's login (user, password, database) may still be refused.
    await serverIdentity(baseline, boundMs, '--compare');
    return {
      concurrent: false,
      reason: `${describeTarget(target)} and ${describeTarget(baseline)} are one endpoint, so one pool: one after the other`,
    };
  }
  const [a, b] = await Promise.all([serverIdentity(target, boundMs), serverIdentity(baseline, boundMs, '--compare')]);
  if (a === null || b === null)
    return {
      concurrent: false,
      reason: 'could not tell whether both lead to the same PostgreSQL server: one after the other',
    };
  if (a === b)
    return {
      concurrent: false,
      reason: 'both lead to the same PostgreSQL server, whose activity each run reads: one after the other',
    };
  return { concurrent: true, reason: 'different PostgreSQL servers behind different endpoints: both at once' };
}
