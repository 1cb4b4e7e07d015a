/**
 * Discovery's step 3 (see discovery.ts): T, a second client, logs in (timed: the first login of
 * a process also pays for loading and warming up, T's is what later logins cost) and opens a
 * transaction block. Statement pooling refuses `BEGIN`; a pooler that admits one client at a
 * time refuses T, and the block is then tried on D.
 */
import type { Session } from '../session/session.js';
import type { Scenario } from '../steering/scenario.js';
import { openOrRefused } from '../steering/admitted.js';
import type { Discovery } from '../types.js';

export interface SecondLogin {
  session: Promise<Session | null | 'refused'>;
  /** How long the login took, once it ended. */
  ms: Promise<number>;
}

/** T's login through the target, timed (a failure rejects `session`, as openOrRefused does). */
export function secondLogin(scn: Scenario): SecondLogin {
  const t0 = performance.now();
  const session = openOrRefused(scn, 'T', scn.ctx.bounds.connectMs, 'discovery.transaction-block.connect');
  // Awaited by the transaction-block probe; a failure before that is discovery's own.
  session.catch(() => undefined);
  const ms = session.then(
    () => Math.round(performance.now() - t0),
    () => 0,
  );
  return { session, ms };
}

/**
 * Returns how long T's login took (null when the pooler admitted no second client), and T
 * itself when the probe left it connected outside a transaction: the pool count's first holder
 * (see countPool's `firstHolder`).
 */
export async function probeTransactionBlocks(
  d: Discovery,
  first: Session,
  second: SecondLogin,
): Promise<{ connectMs: number | null; holder: Session | null }> {
  const s = await second.session;
  // A pooler that admits one client at a time refuses T while D is connected: probe on D.
  if (s === 'refused' || s === null) {
    d.notes.push('transaction blocks probed on the first client: the pooler admitted no second one');
    await probeOn(first, d);
    return { connectMs: null, holder: null };
  }
  const connectMs = await second.ms;
  const idle = await probeOn(s, d);
  if (idle && s.alive) return { connectMs, holder: s };
  await s.close();
  return { connectMs, holder: null };
}

/** True when the block committed and `s` is idle again (a client like any other that just logged in). */
async function probeOn(s: Session, d: Discovery): Promise<boolean> {
  const step = await s.run('discovery.transaction-block', 'BEGIN; SELECT pg_backend_pid() AS pid');
  if (step.txStatus === 'T') {
    const commit = await s.run('discovery.transaction-block', 'COMMIT');
    return commit.error === null && commit.txStatus === 'I';
  } else {
    d.transactionBlocks = 'refused';
    d.holderStrategy = 'statement';
    d.notes.push(`transaction blocks refused: ${step.error?.message ?? 'the connection was closed'}`);
    return false;
  }
}
