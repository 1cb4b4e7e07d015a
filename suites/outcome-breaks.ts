/**
 * Which observed outcome labels break an application that was written for a direct connection.
 * One table for the whole product: `pooltest diff` and `--compare` use it to call a change a
 * break or a fix, and `pooltest audit` uses it to say whether a statement it found would break.
 * The labels and their meanings are the public vocabulary in DESIGN.md ("Checks and outcome
 * labels", and suites/labels.ts as data); a label missing here is reported as `unknown`, never
 * guessed. A test keeps this table complete for every label in labels.ts.
 */

/** `true`: the application sees a difference; `false`: it keeps its meaning; or unknown. */
export type OutcomeBreaks = boolean | 'unknown';

/**
 * Every label, with whether it breaks. The value is what an application that relies on
 * direct-connection semantics experiences, not whether the pooler behaves as documented.
 */
export const OUTCOME_BREAKS: Readonly<Record<string, boolean>> = {
  // State checks: the state stays with its client (or follows it) versus escapes or vanishes.
  session: false,
  tracked: false,
  // Pinning keeps the semantics; it costs multiplexing, not correctness.
  pinned: false,
  leaked: true,
  lost: true,
  // A refused statement is an error the application did not get before.
  rejected: true,
  scoped: false,
  // Advisory locks.
  exclusive: false,
  shared: true,
  released: true,
  // LISTEN/NOTIFY.
  delivered: false,
  misrouted: true,
  dropped: true,
  // Protocol-level named statements.
  works: false,
  failed: true,
  // A dying client's transaction.
  'rolled-back': false,
  inherited: true,
  // State left by a client that disconnected, or a DISCARD ALL that ran on another backend
  // (`missed`) or did nothing (`ignored`, below): the next client finds it.
  reset: false,
  missed: true,
  // Cancel requests: an ignored cancel means statement timeouts done client-side stop working.
  // (`ignored` also covers DISCARD ALL acknowledged without effect.)
  routed: false,
  ignored: true,
  // Capacity: waiting is what a pool is for, and so is never having to wait; failing
  // (`rejected`, above) is not.
  queued: false,
  unlimited: false,
  // A burst beyond max_connections: served, or some clients refused.
  absorbed: false,
  overflowed: true,
  multiplexed: false,
  // One backend per client is costly but does not change what statements mean.
  'one-per-client': false,
  // Connect-per-request speed: a cost, never a change of meaning.
  faster: false,
  slower: false,
  same: false,
  // A password change: the old one still logging in is a difference an application (and its
  // security review) did not have directly; the pooler following the change is what Postgres does.
  'old-accepted': true,
  refreshed: false,
  // Transaction blocks: allowed as on Postgres, or split across transactions (atomicity lost).
  allowed: false,
  split: true,
};

/** Maps an outcome label (null when the check was inconclusive or skipped) to breaks, fine or unknown. */
export function outcomeBreaks(outcome: string | null): OutcomeBreaks {
  if (outcome === null) return 'unknown';
  return Object.hasOwn(OUTCOME_BREAKS, outcome) ? OUTCOME_BREAKS[outcome]! : 'unknown';
}
