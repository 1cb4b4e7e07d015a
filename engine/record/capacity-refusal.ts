/**
 * Refusals at capacity: some poolers answer "pool is full" instead of making a client wait.
 * pgpool-II with reserved_connections refuses the next client at login with 53300 "Sorry, too
 * many clients already"; PgBouncer refuses logins beyond max_client_conn ("no more connections
 * allowed (max_client_conn)") and disconnects a client that waited query_wait_timeout for a
 * server ("query_wait_timeout", 08P01). Each is the pooler's boundary, not an outage and not
 * an unreachable target: discovery counts the pool up to it, and a check that needs more
 * clients than the pooler admits says so.
 */
import type { ErrorRecord, StepRecord } from './step-record.js';

/** Poolers' own words for "no room for you now". */
const FULL_MESSAGES = new RegExp(
  [
    'too many clients',
    'too many connections',
    'no more connections allowed',
    'max_client_conn',
    'query_wait_timeout',
    'pool(er)? is full',
    'no (free|available) (connection|slot|server)',
    'max_db_connections',
    'max_user_connections',
  ].join('|'),
  'i',
);

/** Whether an error (as recorded) is a refusal at capacity: SQLSTATE 53300, or a pooler's words for it. */
export function isCapacityRefusal(e: Pick<ErrorRecord, 'code' | 'message'> | null | undefined): boolean {
  if (!e) return false;
  return e.code === '53300' || FULL_MESSAGES.test(e.message);
}

/** The first step of a record whose error is a refusal at capacity, if any. */
export function capacityRefusalIn(steps: readonly StepRecord[]): StepRecord | undefined {
  return steps.find((s) => isCapacityRefusal(s.error));
}
