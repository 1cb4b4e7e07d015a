/**
 * Discovery's second time on a target (engine/discovery/pool-watch.ts, after a destructive check): the
 * pool is counted and classified again, and everything else is taken from the first discovery.
 */
import type { Session } from '../session/session.js';
import type { Scenario } from '../steering/scenario.js';
import { classify, countPool, modeDecided, readReuse } from './pool-count.js';
import type { DiscoveryOptions } from './options.js';
import type { Discovery } from '../types.js';

/**
 * The pool counted again with what `known` already says of the target: what a destructive
 * check can change is the number of backends and how they are shared, not the round trip, the
 * pooler's name, or whether it accepts BEGIN. A pooler that changed its mind about BEGIN makes
 * holders fail, which the count reports as a failure like any other.
 */
export async function recount(
  scn: Scenario,
  d: Discovery,
  first: Session,
  opts: DiscoveryOptions,
  known: Discovery,
  /** D's backend, read by the server query just before: the count need not read it again. */
  idlePid: number,
): Promise<void> {
  Object.assign(d, {
    rttMs: known.rttMs,
    connectLatencyMs: Math.min(d.connectLatencyMs, known.connectLatencyMs),
    waitBoundMs: opts.waitMs ?? known.waitBoundMs,
    pooler: known.pooler,
    transactionBlocks: known.transactionBlocks,
    holderStrategy: known.holderStrategy,
    // Read again only where the count has to (countPool): else what the first discovery saw.
    clientKeepsBackend: known.clientKeepsBackend,
  });
  // Where the pooler is known to share backends and to admit idle clients freely, a holder's
  // login holds nothing: holders log in ahead of their turn (see countPool).
  const knownShared =
    (known.mode === 'transaction' || known.mode === 'statement') && !known.clientLimit && !known.spareRoomRefused;
  // Only a smaller pool matters to a recount (engine/discovery/pool-watch.ts): holding as many backends as
  // before proves it is not, with no wait for a holder the pooler queues.
  const seen = await countPool(scn, d, first, {
    ...opts,
    knownShared,
    idlePid,
    ...(known.poolSize ? { stopAt: known.poolSize } : {}),
  });
  // A recount that saw backends shared between connected clients needs no new client.
  if (!modeDecided(d)) await readReuse(scn, d, seen, opts);
  classify(d);
}
