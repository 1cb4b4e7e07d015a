/**
 * The public contract of DESIGN.md "Checks and outcome labels", as data: every check id and the
 * outcome labels its judge may report. Profiles are validated against it, and checks, reporters
 * and docs can import it instead of restating the labels.
 *
 * Adding a check or a label is a contract change: add it here in the same change that makes a
 * judge report it. Removing or renaming one breaks vendors' CI and stored reports.
 */

/**
 * State checks: A creates session state, its next transaction runs elsewhere, and another client
 * sits on A's old backend.
 */
export const STATE_LABELS = [
  /** Stayed with its client on a dedicated backend (direct, session pooling). */
  'session',
  /** Another client observed it, whatever happened to A. */
  'leaked',
  /** Vanished for A and nobody else saw it: the pooler reset it. */
  'lost',
  /** Followed A onto another backend and nobody else saw it: the pooler replays it. */
  'tracked',
  /** The pooler kept A on its backend after the statement. */
  'pinned',
  /** The pooler or the server refused the statement itself. */
  'rejected',
] as const;

export const CHECK_LABELS = {
  'session/set-leak': STATE_LABELS,
  'session/search-path-leak': STATE_LABELS,
  'session/custom-guc-leak': STATE_LABELS,
  'session/role-leak': STATE_LABELS,
  'session/tracked-parameter': STATE_LABELS,
  'session/set-local': ['scoped', 'leaked', 'rejected'],
  'session/reset-on-disconnect': ['reset', 'leaked'],
  // `reset`: afterwards nobody saw the client's state; `missed`: the reset ran on another backend
  // and the state stayed on the old one for the next client; `ignored`: acknowledged on the
  // client's own backend, state still there; `rejected`: the statement was refused.
  'session/discard-all': ['reset', 'missed', 'ignored', 'rejected'],
  'temp/temp-table': STATE_LABELS,
  // `lost`: missing inside its own transaction (split across backends); `leaked`: survived COMMIT;
  // `rejected`: the transaction block itself was refused.
  'temp/on-commit-drop': ['works', 'lost', 'leaked', 'rejected'],
  'prepared/sql-prepare': STATE_LABELS,
  'prepared/protocol-named': ['works', 'failed', 'rejected'],
  'cursors/with-hold': STATE_LABELS,
  'sequences/lastval': STATE_LABELS,
  'locks/advisory-session': ['exclusive', 'shared', 'released', 'rejected'],
  'locks/advisory-xact': ['exclusive', 'shared', 'rejected'],
  'notify/listen': ['delivered', 'misrouted', 'dropped', 'rejected'],
  // `rejected`: BEGIN itself was refused (statement pooling), so no transaction could be abandoned.
  'transactions/abandoned': ['rolled-back', 'inherited', 'rejected'],
  'cancel/routing': ['routed', 'misrouted', 'ignored'],
  // `unlimited`: every transaction got a backend at once (nothing limits concurrency, e.g. direct).
  'capacity/queueing': ['queued', 'rejected', 'unlimited'],
  'capacity/multiplexing': ['multiplexed', 'one-per-client'],
  // Fixture-only: `absorbed` (every client of a burst beyond max_connections was served),
  // `overflowed` (some were refused).
  'capacity/burst': ['absorbed', 'overflowed'],
  // Connect, one query, disconnect, over and over, through the target and directly: the p50
  // cycle is at least 1.25x shorter through the target (`faster`), longer (`slower`), or neither.
  'capacity/connect-churn': ['faster', 'slower', 'same'],
  // Fixture-only: after ALTER ROLE ... PASSWORD, the pooler still admits the old password
  // (`old-accepted`), admits the new one and not the old (`refreshed`, perhaps only after a
  // reload), or admits neither (`rejected`). The facts hold the four cases before and after.
  'auth/stale-password': ['old-accepted', 'refreshed', 'rejected'],
  // `split`: BEGIN was accepted but the statements ran in different transactions or backends.
  'statement/transaction-block': ['allowed', 'rejected', 'split'],
} as const satisfies Record<string, readonly string[]>;

/** A check id of the contract, e.g. `session/set-leak`. */
export type CheckId = keyof typeof CHECK_LABELS;

/** The labels one check may report, e.g. `OutcomeOf<'cancel/routing'>` is `routed | misrouted | ignored`. */
export type OutcomeOf<C extends CheckId> = (typeof CHECK_LABELS)[C][number];

/** Every check id of the contract, in DESIGN.md order. */
export const CHECK_IDS = Object.keys(CHECK_LABELS) as CheckId[];

export function isCheckId(id: string): id is CheckId {
  return Object.hasOwn(CHECK_LABELS, id);
}

/** The labels `id` may report, or null when `id` is not a check of the contract. */
export function labelsOf(id: string): readonly string[] | null {
  return isCheckId(id) ? CHECK_LABELS[id] : null;
}

/** Whether `outcome` is one of the labels check `id` may report. */
export function isLabelOf(id: string, outcome: string): boolean {
  return labelsOf(id)?.includes(outcome) ?? false;
}
