/**
 * locks/advisory-session: is a session-level advisory lock exclusive to the client holding it?
 *
 *   A:  SELECT pg_backend_pid() AS pid, pg_advisory_lock(<ns>, <k>) IS NOT NULL AS locked   -- b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                          -- lands on b1
 *       SELECT count(*)::int AS held_before FROM pg_locks WHERE ... AND pid = pg_backend_pid();
 *       SELECT pg_try_advisory_lock(<ns>, <k>) AS got;
 *       SELECT pg_advisory_unlock(<ns>, <k>) AS gave_back      -- one level: its own, never A's
 *   A:  SELECT pg_backend_pid() AS pid, pg_advisory_unlock(<ns>, <k>) AS unlocked
 *       -- elsewhere: false, with WARNING "you don't own a lock of type ExclusiveLock"
 *
 * Advisory locks belong to the backend session and are re-entrant within it, so a client on
 * A's old backend "gets" A's lock. `held_before` tells that apart from a pooler that dropped
 * the lock (the lock was not there when the other client arrived).
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { answered, boolOf, errorText, numberOf, sqlError, stepOf, stepsOf } from '../../engine/record/step-reading.js';
import { LOCK_NAMESPACE, markersFor } from '../../engine/record/markers.js';
import { releaseHeldLocksSql } from '../../engine/steering/release-locks.js';
import { runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';
import type { Judgement, StepRecord } from '../../engine/types.js';
import { LANDING_TAGS } from '../../engine/record/tags.js';

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  exclusive: { means: 'another client was refused the lock' },
  shared: {
    means: "another client on the owner's backend also got the lock, and the owner's unlock warned",
    advice:
      'Use pg_advisory_xact_lock inside a transaction: a session lock stays on the server connection, the next client there "holds" it too, and your unlock misses.',
  },
  released: {
    means: 'the pooler dropped the lock between transactions',
    advice:
      'The pooler drops session advisory locks between transactions: use pg_advisory_xact_lock inside one transaction.',
  },
  rejected: {
    means: 'the lock function was refused',
    advice: 'The pooler refuses session advisory locks: use pg_advisory_xact_lock.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const advisorySession = defineCheck({
  id: 'locks/advisory-session',
  title: 'a session advisory lock excludes every other client',
  severity: 'correctness',
  docs: ['https://www.pgbouncer.org/features.html (session-level advisory locks: never in transaction pooling)'],
  summary: "`pg_advisory_lock`: is another client refused; does the owner's unlock warn",
  outcomes: OUTCOMES,
  uses: STATE_SCENARIO,
  audit: {
    statement: 'session-level advisory lock',
    consequence: 'another client on that backend also "holds" it; the unlock may land elsewhere',
    priority: 40,
    claims: {
      // The _xact_ variants end with the transaction: they leave nothing for a later one.
      functions: {
        state: ['pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock', 'pg_try_advisory_lock_shared'],
        cleanup: ['pg_advisory_unlock', 'pg_advisory_unlock_shared', 'pg_advisory_unlock_all'],
      },
    },
  },
  async scenario(scn) {
    const k = markersFor(scn.ctx.runId, this.id).lockKey;
    const lock = `${LOCK_NAMESPACE}, ${k}`;
    await runStateScenario(scn, {
      create: `SELECT pg_advisory_lock(${lock}) IS NOT NULL AS locked`,
      observe: [
        `SELECT count(*)::int AS held_before FROM pg_locks WHERE locktype = 'advisory' AND classid = ${LOCK_NAMESPACE} AND objid = ${k} AND objsubid = 2 AND pid = pg_backend_pid() AND granted`,
        `SELECT pg_try_advisory_lock(${lock}) AS got`,
        `SELECT pg_advisory_unlock(${lock}) AS gave_back`,
        `SELECT count(*)::int AS held_after FROM pg_locks WHERE locktype = 'advisory' AND classid = ${LOCK_NAMESPACE} AND objid = ${k} AND objsubid = 2 AND pid = pg_backend_pid() AND granted`,
      ],
      readback: `SELECT pg_advisory_unlock(${lock}) AS unlocked`,
      // Only where the lock is held: an unlock that misses is a WARNING in the server's log.
      cleanup: releaseHeldLocksSql(LOCK_NAMESPACE, [k]),
    });
  },
  judge: judgeAdvisory,
  evidence: (j) => `${j.reason}${j.facts.aUnlockWarned ? "; A's unlock warned it does not own the lock" : ''}`,
});

/**
 * - A's lock failed with an SQLSTATE: `rejected`.
 * - A candidate on A's old backend: the lock was already held there (`held_before` > 0):
 *   `shared`; not held and the candidate got it: `released`.
 * - Candidates elsewhere: any was refused: `exclusive`; all got it: `released`.
 * - Otherwise inconclusive.
 */
export function judgeAdvisory(steps: readonly StepRecord[]): Judgement<Label> {
  const create = stepOf(steps, LANDING_TAGS.create);
  if (sqlError(create))
    return {
      outcome: 'rejected',
      facts: { rejectedWith: errorText(create) },
      reason: `the lock was refused: ${errorText(create)}`,
    };
  if (!create || create.error || create.pid === null || boolOf(create, 'locked') !== true) {
    return { outcome: null, facts: {}, reason: `A could not take the lock: ${errorText(create) ?? 'no pid'}` };
  }
  const b1 = create.pid;
  const unlock = stepOf(steps, LANDING_TAGS.readback);
  const takes = stepsOf(steps, LANDING_TAGS.observe).filter((t) => answered(t) && t.pid !== null);
  const onB1 = takes.find((t) => t.pid === b1);
  const elsewhere = takes.filter((t) => t.pid !== b1);
  const facts = {
    aBackend: b1,
    aUnlockBackend: unlock?.pid ?? null,
    aUnlocked: boolOf(unlock, 'unlocked'),
    aUnlockWarned: unlock?.notices.some((n) => /don't own|do not own/i.test(n.message)) ?? false,
    otherOnSameBackend: onB1 !== undefined,
    otherHeldBefore: onB1 ? (numberOf(onB1, 'held_before') ?? 0) > 0 : null,
    otherGotLock: onB1
      ? boolOf(onB1, 'got')
      : elsewhere.length > 0
        ? elsewhere.some((t) => boolOf(t, 'got') === true)
        : null,
  };
  if (onB1) {
    if (facts.otherHeldBefore)
      return {
        outcome: 'shared',
        facts,
        reason: `another client on backend ${b1} found A's lock already held by its session and got it too`,
      };
    if (boolOf(onB1, 'got') === true)
      return {
        outcome: 'released',
        facts,
        reason: `A's lock was gone from backend ${b1} when the next client arrived`,
      };
    return { outcome: null, facts, reason: `the client on backend ${b1} neither held nor got the lock` };
  }
  if (elsewhere.some((t) => boolOf(t, 'got') === false))
    return {
      outcome: 'exclusive',
      facts,
      reason: `another client (backend ${elsewhere[0]!.pid}) was refused A's lock`,
    };
  if (elsewhere.length > 0 && elsewhere.every((t) => boolOf(t, 'got') === true))
    return { outcome: 'released', facts, reason: 'another client got the lock A should still hold' };
  return { outcome: null, facts, reason: 'no other client could try the lock' };
}
