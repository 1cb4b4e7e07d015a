/**
 * Many clients at once: the shared step of the capacity checks. Every client starts in the
 * same tick, connects through the target, does its work, and then either leaves at once (so a
 * session pooler or pgpool-II can hand its backend to the next client) or stays connected
 * until the caller is done (so clients really are connected together).
 *
 * A client that cannot connect is recorded as a `<tag>.connect` step - with the server's
 * SQLSTATE when it sent one (53300 "too many clients") - and is not retried: a refusal is
 * what the capacity checks are looking for.
 */
import { within } from '../time.js';
import type { Session } from '../session/session.js';
import type { Scenario } from './scenario.js';

export interface CrowdOptions {
  /** How many clients. */
  count: number;
  /** Session labels are `${prefix}1` ... `${prefix}${count}`. */
  prefix: string;
  /** Tag of the connection step recorded for a client that could not connect. */
  connectTag: string;
  /** Bound on each connection (a pooler may hold new connections in its listen queue). */
  connectMs: number;
  /** What each connected client does; its queries record themselves. */
  work(session: Session, index: number): Promise<void>;
  /** Keep clients connected after their work; `Scenario.closeAll` ends them. */
  stayConnected?: boolean;
  /**
   * Hold every client's work until all have connected (or failed), but at most this long, so
   * that slow logins do not look like waiting for a backend. A pooler that queues logins
   * (pgpool-II) never lets them all connect: the bound releases the ones that did.
   */
  startTogetherMs?: number;
}

/** Runs the crowd; resolves with the clients that connected (in index order, null for the others). */
export async function crowd(scn: Scenario, opts: CrowdOptions): Promise<Array<Session | null>> {
  // The crowd must be all this run has connected to the target: idle logins made ahead of
  // need would count against its client limit (max_client_conn) and turn waits into refusals.
  await scn.ownClientsOnly();
  let settled = 0;
  let allSettled!: () => void;
  const together = new Promise<void>((r) => (allSettled = r));
  const start =
    opts.startTogetherMs === undefined ? Promise.resolve() : within(together, opts.startTogetherMs, undefined);
  const clients = Array.from({ length: opts.count }, async (_, i) => {
    const session = await openOrRecord(scn, `${opts.prefix}${i + 1}`, opts.connectTag, opts.connectMs);
    if (++settled === opts.count) allSettled();
    if (!session) return null;
    await start;
    await opts.work(session, i);
    if (!opts.stayConnected) await session.close();
    return session;
  });
  return Promise.all(clients);
}

/** `tryOpen`, except that a refused connection is also only recorded, never thrown. */
async function openOrRecord(scn: Scenario, label: string, tag: string, connectMs: number): Promise<Session | null> {
  try {
    return await scn.tryOpen(label, tag, connectMs);
  } catch {
    // tryOpen recorded the failure as a step before throwing it.
    return null;
  }
}
