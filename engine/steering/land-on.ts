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
 * wanted backend is then not available to other clients at all, which is itself an answer
 * (session pooling: it belongs to its client while that client is connected).
 */
import { take, type Hold, type TakeOptions } from './holders.js';
import type { Scenario } from './scenario.js';

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
}

/** Tries to place a new client on backend `pid`. */
export async function landOn(scn: Scenario, pid: number, opts: LandOptions = {}): Promise<Landing> {
  const { prefix = 'O', tag = 'observe.take' } = opts;
  const maxTries = opts.maxTries ?? defaultTries(scn);
  const others: Hold[] = [];
  for (let i = 1; i <= maxTries; i++) {
    const session = await scn.tryOpen(`${prefix}${i}`, `${tag}.connect`, candidateConnectMs(scn));
    if (!session) return { observer: null, others, waited: true, tries: i };
    const hold = await take(scn, session, tag, opts);
    if (hold.waited) return { observer: null, others, waited: true, tries: i };
    if (hold.pid === pid) return { observer: hold, others, waited: false, tries: i };
    others.push(hold);
  }
  return { observer: null, others, waited: false, tries: maxTries };
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
function candidateConnectMs(scn: Scenario): number {
  return Math.min(scn.ctx.bounds.connectMs, scn.waitMs + 3 * scn.discovery.connectLatencyMs);
}
