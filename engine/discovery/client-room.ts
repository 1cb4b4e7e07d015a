/**
 * Discovery's last step: whether the pooler admits, all at once, the idle logins a run keeps
 * ahead of need beside a check's own sessions (steering/spare-session.ts).
 */
import type { Session } from '../session/session.js';
import type { Scenario } from '../steering/scenario.js';
import { openOrRefused } from '../steering/admitted.js';
import { isCapacityRefusal } from '../record/capacity-refusal.js';
import { depthFor } from '../steering/spare-session.js';
import type { OptionalProbes } from './probes.js';
import { violationIn } from '../wire/violation.js';
import type { Discovery } from '../types.js';

/**
 * Where a run will keep logins ahead of need (transaction and statement pooling: see
 * steering/spare-session.ts), checks that the pooler admits that many idle clients beside a
 * check's own sessions, all at once, before any check relies on it. A pooler with a client
 * limit (PgBouncer's max_client_conn) refuses some: that is its client limit, and the run then
 * keeps no spares, so its own idle logins never take the slots its checks need. Logins only, no
 * query: no backend is involved.
 */
export async function probeClientRoom(scn: Scenario, d: Discovery, probes: OptionalProbes): Promise<void> {
  if ((d.mode !== 'transaction' && d.mode !== 'statement') || d.clientLimit) return;
  // The spares, plus a check's own sessions (A, an observer, a notifier).
  const want = depthFor({ discovery: d }) + 3;
  const connectMs = Math.min(scn.ctx.bounds.connectMs, d.waitBoundMs + 3 * d.connectLatencyMs);
  const tries = await Promise.all(
    Array.from({ length: want }, (_, i) =>
      openOrRefused(scn, `R${i + 1}`, connectMs, 'discovery.room.connect').catch((err: unknown) => {
        const violation = violationIn(err);
        if (!violation) return null;
        // A login answered with a malformed message (pgagroal's "connection pool is full" lacks
        // its final terminator) is a finding; it is counted as refused, so no spares are kept.
        probes.record(
          {
            probe: 'discovery.room.connect',
            session: `R${i + 1}`,
            connection: 'an idle login counting the room for logins kept ahead of need',
          },
          'counted as a refused login: no logins are kept ahead of need',
          violation,
        );
        return 'refused' as const;
      }),
    ),
  );
  const admitted = tries.filter((t): t is Session => t !== null && t !== 'refused');
  await Promise.all(admitted.map((s) => s.close()));
  if (!tries.includes('refused')) return;
  const refusal = scn.steps
    .filter((s) => s.tag === 'discovery.room.connect' && isCapacityRefusal(s.error))
    .at(-1)?.error;
  const text = refusal
    ? `${refusal.code ? `${refusal.code} ` : ''}${refusal.message.replace(/^[A-Z_]+: (cannot connect to \S+: )?/, '')}`
    : d.wireFindings?.some((f) => f.probe === 'discovery.room.connect')
      ? 'answered with a malformed message (see the wire findings)'
      : 'refused at capacity';
  // Not a clientLimit: how many it admits depends on who else was connected in that instant,
  // and the landing proofs read clientLimit as the pool's own boundary (judging/landing.ts).
  d.spareRoomRefused = text;
  d.notes.push(
    `the pooler refused ${want - admitted.length} of ${want} idle logins at once (${text}): no logins are kept ahead of need`,
  );
}
