/**
 * Counts a run's sequential round trips directly, from the delaying proxies' own record of
 * what was on the wire, instead of deriving them from two noisy wall times.
 *
 * Every chunk a proxy delays is "in flight" from its arrival until it is due to leave. Joining
 * those intervals over every connection (and every proxy of the condition) gives the time
 * during which at least one byte of the run was travelling: chunks that travel at the same time
 * (concurrent logins, holders answering together) overlap and count once; chunks that wait for
 * each other (a query, then the next one on its answer) add up. With the same delay each way,
 * one sequential round trip is two such delays, so the count is the joined time over the round
 * trip. CPU time, fixed sleeps and timeouts are not on the wire and do not count: they show up
 * as the wall time the round trips do not explain.
 */

/** The union of in-flight intervals, built online (intervals arrive in order of their start). */
export class SequentialWire {
  private closedMs = 0;
  private openFrom = 0;
  private openTo = 0;
  private intervals = 0;

  /** One chunk in flight from `fromMs` to `toMs`. Starts never go backwards (one clock, arrival order). */
  add(fromMs: number, toMs: number): void {
    if (toMs <= fromMs) return;
    this.intervals += 1;
    if (this.intervals > 1 && fromMs <= this.openTo) {
      this.openTo = Math.max(this.openTo, toMs);
      return;
    }
    this.closedMs += this.openTo - this.openFrom;
    this.openFrom = fromMs;
    this.openTo = toMs;
  }

  /**
   * Time with at least one chunk in flight, in ms: a meter, read at the present moment `nowMs`
   * (default: everything added). The interval still in flight counts up to `nowMs`, so
   * readings taken between phases add up to the whole. (A reading for a moment already past
   * would count what arrived since: take readings as things happen.)
   */
  busyMs(nowMs = Number.POSITIVE_INFINITY): number {
    const open = Math.max(0, Math.min(this.openTo, nowMs) - this.openFrom);
    return this.closedMs + (this.intervals > 0 ? open : 0);
  }

  /** Sequential round trips so far, given the delay added each way. */
  roundTrips(delayEachWayMs: number, nowMs?: number): number {
    return delayEachWayMs > 0 ? this.busyMs(nowMs) / (2 * delayEachWayMs) : 0;
  }
}
