/**
 * Reading a landing (see steering/land-on.ts) from the record: did another client get onto A's
 * old backend, and if not, does the record prove that the pooler kept that backend for A?
 *
 * "Nobody could be placed on b1" is evidence only when nothing else explains it. On a quiet
 * pooler a queued candidate means b1 is reserved; on a pooler other clients share, the
 * candidate may simply have queued behind their traffic, and b1 may have served them
 * meanwhile. So a miss counts as proof only when:
 *
 * - `direct`: discovery found no pooling (every client has its own backend); or
 * - `queue`: a candidate was queued and a probe taken right after shows b1 idle since before
 *   the candidate started (`quiet`): b1 was free all along and the pooler still did not hand
 *   it out; or
 * - `pool`: the pool's size is unknown (no limit up to the bound), backends are not shared
 *   between connected clients, and the bound's worth of candidates all got other backends.
 *
 * With a known pool of P, P candidates that all missed b1 saw P + 1 backends: the pool is not
 * what discovery found (a restart, new server connections, other traffic): no proof.
 */
import type { Discovery, StepRecord } from '../types.js';
import { numberOf, valueOf } from '../record/step-reading.js';
import { isCapacityRefusal } from '../record/capacity-refusal.js';
import { connectTag, LANDING_TAGS } from '../record/tags.js';
import { probeReading, sharesBackends } from '../record/landing-probe.js';

export { sharesBackends };

export type Reservation = 'direct' | 'queue' | 'pool';

export interface LandingReading {
  /** A candidate's take ran on b1. */
  placed: boolean;
  /** How the record proves b1 was kept from other clients, or null. */
  reservedBy: Reservation | null;
  /** Candidates that answered with a backend, and whether any was queued. */
  tries: number;
  queued: boolean;
  /** Distinct backends the candidates and b1 came to. */
  backendsSeen: number;
  /** Why no reservation was proven, for the inconclusive reason. */
  doubt: string;
}

/**
 * Reads the landing on `b1` recorded under `${prefix}${observe}` (default `observe.take`, with
 * `.connect` for connections that timed out, and `observe.probe` for the look at b1 after a
 * queue).
 */
export function readLanding(
  steps: readonly StepRecord[],
  discovery: Discovery,
  b1: number,
  prefix = '',
  observe: string = LANDING_TAGS.observe,
): LandingReading {
  const takes = steps.filter((s) => s.tag === `${prefix}${observe}`);
  const connects = steps.filter((s) => s.tag === connectTag(`${prefix}${observe}`));
  const probes = steps.filter((s) => s.tag === `${prefix}${LANDING_TAGS.probe}` && numberOf(s, 'target_pid') === b1);
  const landed = takes.filter((t) => !t.timedOut && t.pid !== null);
  // A candidate refused at capacity (a pooler that refuses instead of queueing) was queued too
  // where the refusal says the backends are taken: a statement refused after waiting for a
  // server (query_wait_timeout), or a login refused by a pooler whose client limit is its pool
  // (each client owns a backend: pgpool-II's children). A login refused by a client limit wider
  // than the pool (PgBouncer's max_client_conn), or one discovery never met, says nothing of b1.
  const limitIsPool =
    discovery.clientLimit != null && discovery.poolSize !== null && discovery.clientLimit.clients <= discovery.poolSize;
  const queued =
    takes.some((t) => t.timedOut || isCapacityRefusal(t.error)) ||
    connects.some((c) => c.timedOut || (limitIsPool && isCapacityRefusal(c.error)));
  const backendsSeen = new Set([b1, ...landed.map((t) => t.pid)]).size;
  const base = { tries: landed.length, queued, backendsSeen };
  if (landed.some((t) => t.pid === b1)) return { ...base, placed: true, reservedBy: null, doubt: '' };
  if (discovery.mode === 'direct') return { ...base, placed: false, reservedBy: 'direct', doubt: '' };
  if (queued && probes.some((p) => probeReading(p) === 'quiet'))
    return { ...base, placed: false, reservedBy: 'queue', doubt: '' };
  const poolExhausted =
    discovery.poolSize === null && !sharesBackends(discovery) && landed.length >= discovery.poolBound;
  if (poolExhausted) return { ...base, placed: false, reservedBy: 'pool', doubt: '' };
  return { ...base, placed: false, reservedBy: null, doubt: doubtOf(queued, probes, backendsSeen, discovery, b1) };
}

function doubtOf(queued: boolean, probes: StepRecord[], seen: number, d: Discovery, b1: number): string {
  if (d.poolSize !== null && seen > d.poolSize) {
    return `the candidates and A came to ${seen} backends, more than the pool of ${d.poolSize} discovery found: the pool changed (a restart, new server connections) or other traffic interfered`;
  }
  if (!queued && d.poolSize === null && sharesBackends(d))
    return `backends are shared and the pool's size is unknown: missing backend ${b1} proves nothing`;
  if (!queued)
    return `the candidates were not exhausted (${seen - 1} other backend(s) reached${d.poolSize !== null ? `, pool of ${d.poolSize}` : ''}) and none was queued`;
  const last = probes[probes.length - 1];
  if (!last)
    return `a candidate was queued, but nothing could look at backend ${b1} to tell a reserved backend from one busy with other traffic`;
  if (last.error) return `a candidate was queued, and looking at backend ${b1} failed: ${last.error.message}`;
  if (numberOf(last, 'present') === 0) return `a candidate was queued, and backend ${b1} no longer exists`;
  const state = valueOf(last, 'state');
  if (typeof state !== 'string') return `a candidate was queued, and the login may not see the state of backend ${b1}`;
  return `a candidate was queued while backend ${b1} was ${state === 'idle' ? 'recently used' : state} by another client: other traffic, not a reservation, may explain the queue`;
}

/**
 * Every declared landing (a check's `restsOn`) whose miss the record does not prove, one doubt
 * per phase: the observer steps are `${phase}${need.observe}` (with `.connect` for connections
 * that timed out), A's backend is read from `${phase}${need.create}`. A phase is a tag prefix
 * ending in `:` (`discard:`), or none.
 */
export function unprovenLandings(
  steps: readonly StepRecord[],
  discovery: Discovery,
  needs: readonly { create: string; observe: string }[],
): string[] {
  const doubts: string[] = [];
  for (const need of needs) {
    const phases = new Set<string>();
    for (const s of steps) {
      for (const suffix of [need.observe, connectTag(need.observe)]) {
        if (s.tag === suffix || (s.tag.endsWith(`:${suffix}`) && s.tag.length > suffix.length))
          phases.add(s.tag.slice(0, s.tag.length - suffix.length));
      }
    }
    for (const prefix of phases) {
      const b1 = steps.find((s) => s.tag === `${prefix}${need.create}`)?.pid;
      if (typeof b1 !== 'number') continue;
      const landing = readLanding(steps, discovery, b1, prefix, need.observe);
      if (!landing.placed && landing.reservedBy === null)
        doubts.push(prefix ? `${prefix.slice(0, -1)}: ${landing.doubt}` : landing.doubt);
    }
  }
  return doubts;
}
