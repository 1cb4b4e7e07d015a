/**
 * locks/advisory-xact: is a transaction-level advisory lock exclusive while its transaction
 * runs, and gone when it ends? This is the lock pooling documentation recommends instead of
 * `pg_advisory_lock`.
 *
 *   B:  (connects first, so that its try is a single round trip)
 *   A:  BEGIN; SELECT pg_backend_pid() AS pid;
 *       SELECT pg_advisory_xact_lock(<ns>, <k>) IS NOT NULL AS locked             -- b1, held
 *   B:  SELECT pg_backend_pid() AS pid, pg_try_advisory_xact_lock(<ns>, <k>) AS got   -- false
 *   A:  COMMIT
 *   B:  SELECT pg_backend_pid() AS pid, pg_try_advisory_xact_lock(<ns>, <k>) AS got   -- true
 *
 * Where transaction blocks are refused (statement pooling) A holds the lock the only way left:
 * inside one long statement (`...; SELECT pg_sleep(n)`), and "COMMIT" is that statement ending.
 * The lock still works there, for one statement; a multi-statement transaction around it is
 * what the pooler refuses (see statement/transaction-block). B's tries end their own implicit
 * transactions, so nothing is left to clean.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { answered, boolOf, errorText, sqlError, stepOf } from '../../engine/record/step-reading.js';
import { LOCK_NAMESPACE, markersFor } from '../../engine/record/markers.js';
import { take, landingHoldMs } from '../../engine/steering/holders.js';
import type { Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  take: 'A.take',
  try: 'B.try',
  commit: 'A.commit',
  after: 'B.after',
} as const;

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  exclusive: {
    means: 'another client was refused while the transaction held the lock, and got it after COMMIT',
  },
  shared: {
    means: 'another client got the lock while the transaction held it',
    advice:
      'Two clients held the same transaction lock at once: the pooler let them share a transaction or lost it; take the lock on a direct connection and report it to the pooler.',
  },
  rejected: {
    means: 'the lock function was refused',
    advice: 'The pooler refuses advisory lock functions: take locks on a direct connection.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const advisoryXact = defineCheck({
  id: 'locks/advisory-xact',
  title: 'a transaction advisory lock excludes every other client until its transaction ends',
  severity: 'correctness',
  docs: [
    'https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS (transaction-level locks are released at the end of the transaction)',
    'https://www.pgbouncer.org/features.html (session-level advisory locks: never; transaction-level locks are not restricted)',
  ],
  summary: '`pg_advisory_xact_lock`: exclusive while the transaction runs, released at commit',
  outcomes: OUTCOMES,
  async scenario(scn) {
    const lock = `${LOCK_NAMESPACE}, ${markersFor(scn.ctx.runId, this.id).lockKey}`;
    const tryLock = `SELECT pg_backend_pid() AS pid, pg_try_advisory_xact_lock(${lock}) AS got`;
    const b = await scn.open('B');
    const a = await scn.open('A');
    const held = await take(scn, a, TAGS.take, {
      statements: [`SELECT pg_advisory_xact_lock(${lock}) IS NOT NULL AS locked`],
      releaseBy: 'wait',
      holdMs: landingHoldMs(scn.discovery),
    });
    if (held.pid !== null) await b.run(TAGS.try, tryLock);
    await held.release(TAGS.commit);
    if (held.pid !== null) await b.run(TAGS.after, tryLock);
  },
  judge: judgeAdvisoryXact,
  evidence: (j) => j.reason,
});

/**
 * - A's lock failed with an SQLSTATE: `rejected`; without one, or no pid: inconclusive.
 * - B's try must have answered, with a pid, before A's transaction ended (by the record's
 *   order under BEGIN, by its timing under a long statement); otherwise inconclusive.
 * - B got the lock: `shared`. B was refused: `exclusive`, provided B got it once A's
 *   transaction had ended (else inconclusive: the lock outlived its transaction).
 */
export function judgeAdvisoryXact(steps: readonly StepRecord[]): Judgement<Label> {
  const lock = stepOf(steps, TAGS.take);
  if (sqlError(lock))
    return {
      outcome: 'rejected',
      facts: { rejectedWith: errorText(lock) },
      reason: `the lock was refused: ${errorText(lock)}`,
    };
  if (!lock || lock.pid === null || boolOf(lock, 'locked') !== true) {
    return { outcome: null, facts: {}, reason: `A could not take the lock: ${errorText(lock) ?? 'no pid'}` };
  }
  const b1 = lock.pid;
  const commit = stepOf(steps, TAGS.commit);
  const inBlock = /^BEGIN\b/.test(lock.sql);
  const tried = stepOf(steps, TAGS.try);
  // Under BEGIN the lock lasts until COMMIT, which the record orders; a long statement is
  // recorded only when it ends, so its timing says whether B's try fell inside it.
  const duringHold = (s: StepRecord): boolean =>
    inBlock
      ? commit !== undefined && s.seq > lock.seq && s.seq < commit.seq
      : s.startMs >= lock.startMs && s.startMs + s.durationMs <= lock.startMs + lock.durationMs;
  const after = stepOf(steps, TAGS.after);
  const facts = {
    aBackend: b1,
    heldFor: inBlock ? 'transaction' : 'statement',
    otherBackend: tried?.pid ?? null,
    otherGotLockWhileHeld: boolOf(tried, 'got'),
    otherGotLockAfter: boolOf(after, 'got'),
  };
  if (!answered(tried) || tried.error || tried.pid === null)
    return { outcome: null, facts, reason: `the other client's try did not answer: ${errorText(tried) ?? 'missing'}` };
  if (!duringHold(tried))
    return {
      outcome: null,
      facts,
      reason: "the other client's try did not finish while A's transaction held the lock",
    };
  const where = tried.pid === b1 ? `on A's own backend ${b1}` : `on backend ${tried.pid}`;
  if (facts.otherGotLockWhileHeld === true)
    return {
      outcome: 'shared',
      facts,
      reason: `another client ${where} got the lock while A's ${facts.heldFor} held it on backend ${b1}`,
    };
  if (facts.otherGotLockWhileHeld !== false)
    return { outcome: null, facts, reason: "the other client's try returned no answer" };
  if (facts.otherGotLockAfter !== true)
    return {
      outcome: null,
      facts,
      reason: `the lock was still refused after A's ${facts.heldFor} ended (${errorText(after) ?? 'got false'})`,
    };
  return {
    outcome: 'exclusive',
    facts,
    reason: `another client ${where} was refused while A's ${facts.heldFor} held the lock on backend ${b1}, and got it once it ended`,
  };
}
