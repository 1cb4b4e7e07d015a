/**
 * Putting another client on a given backend: the heart of "force reuse, then prove it".
 *
 * Candidates connect one by one and each takes whatever backend the pooler hands it, and keeps
 * it. A candidate that lands on the wanted backend becomes the observer; the others stay
 * holders until the caller releases them. With a pool of P backends and the wanted one idle,
 * at most P candidates are needed: each miss pins one more backend, so the wanted one ends up
 * the only one free. No pooler ordering (LIFO, round robin) is assumed.
 *
 * The loop stops early when a candidate is queued (no backend within the wait bound): the
 * wanted backend may then be unavailable to other clients at all, which is itself an answer
 * (session pooling: it belongs to its client while that client is connected). On a pooler
 * that other clients share, though, the candidate may only have queued behind their traffic.
 * So after a queue a probe looks at the wanted backend in pg_stat_activity (`observe.probe`):
 * idle since before the candidate started means the pooler kept it back; recently used means
 * other traffic got it, and a fresh candidate tries again (a few times). The judge reads the
 * probe (judging/landing.ts); the landing itself decides nothing.
 */
import { take, type Hold, type TakeOptions } from './holders.js';
import { isCapacityRefusal } from '../record/capacity-refusal.js';
import { openOrRefused } from './admitted.js';
import { connectTag, LANDING_TAGS, probeTagFor } from '../record/tags.js';
import { probeReading } from '../record/landing-probe.js';
import type { Scenario } from './scenario.js';
import type { Session } from '../session/session.js';

export interface Landing {
  /** The candidate sitting on the wanted backend, or null. */
  observer: Hold | null;
  /** Candidates that landed elsewhere and still hold their backends. */
  others: Hold[];
  /** A candidate was queued or could not connect within the bound. */
  waited: boolean;
  /** Candidates tried. */
  tries: number;
}

export interface LandOptions extends TakeOptions {
  /** Session label prefix: candidates are `${prefix}1`, `${prefix}2`... */
  prefix?: string;
  /** Step tag for each candidate's take. */
  tag?: string;
  /** Most candidates to try; defaults to the pool size discovery found (or 1 without pooling). */
  maxTries?: number;
  /** Probe the wanted backend after a queue, and retry when other traffic explains it; default true. */
  probe?: boolean;
}

/** Fresh candidates after a queue that other traffic explains: the traffic is usually brief. */
const RETRIES_AFTER_TRAFFIC = 2;

/** Tries to place a new client on backend `pid`. */
export async function landOn(scn: Scenario, pid: number, opts: LandOptions = {}): Promise<Landing> {
  const { prefix = 'O', tag = LANDING_TAGS.observe } = opts;
  const maxTries = opts.maxTries ?? defaultTries(scn);
  const others: Hold[] = [];
  let label = 0;
  let retries = 0;
  for (let tries = 1; tries <= maxTries; tries++) {
    label++;
    // The caller's own last use of `pid` ended before the landing; any use after this
    // candidate started is someone else's.
    const started = performance.now();
    const session = await openCandidate(scn, `${prefix}${label}`, connectTag(tag));
    const hold = session ? await take(scn, session, tag, opts) : null;
    // PgBouncer's query_wait_timeout refuses a queued take: a queue that ended in a refusal.
    const refused = hold !== null && !hold.waited && hold.pid === null && isCapacityRefusal(hold.step?.error);
    if (hold && !hold.waited && !refused) {
      if (hold.pid === pid) return { observer: hold, others, waited: false, tries: label };
      others.push(hold);
      continue;
    }
    if (opts.probe === false || retries >= RETRIES_AFTER_TRAFFIC || scn.interrupted)
      return { observer: null, others, waited: true, tries: label };
    const seen = await probeBackend(scn, pid, others, tag, performance.now() - started);
    if (seen !== 'busy') return { observer: null, others, waited: true, tries: label };
    retries++;
    tries--;
  }
  return { observer: null, others, waited: false, tries: label };
}

/**
 * A candidate's connection. A pooler that refuses clients at capacity (53300, "no more
 * connections allowed") instead of queueing them says the same as a queue: no further client
 * gets a backend now. The refusal is recorded (judging/landing.ts reads it as a queue).
 */
async function openCandidate(scn: Scenario, label: string, tag: string): Promise<Session | null> {
  const s = await openOrRefused(scn, label, candidateConnectMs(scn), tag);
  return s === 'refused' ? null : s;
}

/**
 * Looks at backend `pid` after a candidate queued: from a holder already inside its
 * transaction (it cannot queue), else over --direct, else not at all (recorded as such).
 * `quiet` is computed by the server: idle, and no state change for `sinceMs`, the time since
 * the queued candidate started. The caller last used `pid` before the landing began, and none
 * of our candidates did (one that had would be the observer), so a change inside the window
 * is another client's - and a pid idle all through it was kept from the queued candidate.
 */
async function probeBackend(
  scn: Scenario,
  pid: number,
  others: Hold[],
  tag: string,
  sinceMs: number,
): Promise<'quiet' | 'busy' | 'unknown'> {
  const windowMs = Math.floor(sinceMs);
  // pg_stat_clear_snapshot: inside a transaction pg_stat_activity is a snapshot taken at its
  // first use, which could predate the queue.
  const sql = `SELECT pg_stat_clear_snapshot(); SELECT ${pid} AS target_pid, count(*)::int AS present, max(state) AS state,
    coalesce(bool_and(state = 'idle' AND state_change <= clock_timestamp() - make_interval(secs => ${(windowMs / 1000).toFixed(3)})), false) AS quiet
    FROM pg_stat_activity WHERE pid = ${pid}`;
  const probeTag = probeTagFor(tag);
  const session = await probeSession(scn, others);
  if (!session) {
    scn.note(
      '-',
      probeTag,
      `(no session can look at backend ${pid}: every holder is busy in a statement and there is no --direct)`,
      { facts: { target_pid: pid }, error: 'no probe session' },
    );
    return 'unknown';
  }
  const step = await session.run(probeTag, sql);
  return probeReading(step);
}

/** A holder inside an open transaction (never queued: it has its backend), or a direct session. */
async function probeSession(scn: Scenario, others: Hold[]): Promise<Session | null> {
  const inTransaction = [...others].reverse().find((h) => h.session.alive && h.step?.txStatus === 'T');
  if (inTransaction) return inTransaction.session;
  if (!scn.ctx.direct) return null;
  try {
    return await scn.open('P', { to: 'direct' });
  } catch {
    return null;
  }
}

/**
 * Without pooling every client gets a fresh backend, so one candidate shows it; with a pool
 * of P, P candidates are enough (see above); a pool of unknown size gets the discovery bound.
 */
function defaultTries(scn: Scenario): number {
  const d = scn.discovery;
  if (d.mode === 'direct') return 1;
  return d.poolSize ?? d.poolBound;
}

/** A candidate that cannot even connect within this bound is being queued by the pooler. */
export function candidateConnectMs(scn: Scenario): number {
  return Math.min(scn.ctx.bounds.connectMs, scn.waitMs + 3 * scn.discovery.connectLatencyMs);
}
