/**
 * session/set-local: does `SET LOCAL` stay inside its transaction, as drivers send it (one
 * message per statement)?
 *
 *   A:  BEGIN
 *   A:  SELECT pg_backend_pid() AS pid; SET LOCAL statement_timeout = '<marker>'   -- backend b1
 *   A:  SELECT current_setting('statement_timeout') AS inside
 *   A:  COMMIT
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                  -- lands on b1
 *       SELECT current_setting('statement_timeout') AS seen
 *   A:  SELECT pg_backend_pid() AS pid, current_setting('statement_timeout') AS after
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { failedStep, unseenReason } from '../../engine/judging/absence.js';
import { answered, errorText, markerOf, refused, stepOf, stepsOf, valueOf } from '../../engine/record/step-reading.js';
import { markersFor } from '../../engine/record/markers.js';
import { dismiss, landingHoldMs } from '../../engine/steering/holders.js';
import { landOn } from '../../engine/steering/land-on.js';
import { cleanupBlock, endLanding } from '../../engine/steering/state-scenario.js';
import { LAND_ON_A, LANDING_TAGS } from '../../engine/record/tags.js';
import type { Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  begin: 'A.begin',
  inside: 'A.inside',
  commit: 'A.commit',
} as const;

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  scoped: { means: 'SET LOCAL was seen inside its transaction only' },
  leaked: {
    means: "the value outlived its transaction: the client's next transaction or another client on its backend saw it",
    advice:
      'SET LOCAL outlived its transaction: check that the client really sends BEGIN (autocommit drivers may not), and report it to the pooler.',
  },
  rejected: {
    means: 'BEGIN or SET LOCAL was refused, or the pooler closed the connection',
    advice:
      'The pooler refuses transaction blocks (statement pooling): SET LOCAL cannot work; use a transaction-pooling mode or per-role defaults.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const setLocal = defineCheck({
  id: 'session/set-local',
  title: 'SET LOCAL is visible inside its transaction and nowhere after it',
  severity: 'correctness',
  docs: ['https://www.postgresql.org/docs/current/sql-set.html (SET LOCAL)'],
  summary: '`BEGIN; SET LOCAL ...; COMMIT`: visible inside only',
  outcomes: OUTCOMES,
  uses: LAND_ON_A,
  async scenario(scn) {
    const m = markersFor(scn.ctx.runId, this.id);
    const guard = `IF current_setting('statement_timeout') = '${m.statementTimeout}' THEN RESET statement_timeout; END IF;`;
    scn.recordMarkers({ statement_timeout: m.statementTimeout });
    const a = await scn.open('A');
    const begin = await a.run(TAGS.begin, 'BEGIN');
    if (begin.error) return;
    const set = await a.run(
      LANDING_TAGS.create,
      `SELECT pg_backend_pid() AS pid; SET LOCAL statement_timeout = '${m.statementTimeout}'`,
    );
    if (set.error || set.pid === null) return;
    await a.run(TAGS.inside, `SELECT current_setting('statement_timeout') AS inside`);
    await a.run(TAGS.commit, 'COMMIT');
    const landing = await landOn(scn, set.pid, {
      statements: [`SELECT current_setting('statement_timeout') AS seen`, cleanupBlock(guard, set.pid)],
      releaseBy: 'wait',
      holdMs: landingHoldMs(scn.discovery),
    });
    await dismiss(landing.others);
    await a.run(LANDING_TAGS.readback, `SELECT pg_backend_pid() AS pid, current_setting('statement_timeout') AS after`);
    await endLanding(scn, a, landing.observer, cleanupBlock(guard));
  },
  judge: judgeSetLocal,
});

/**
 * - BEGIN or SET LOCAL refused (an SQLSTATE, or the pooler closing the connection on BEGIN):
 *   `rejected`.
 * - The value was not visible inside the transaction: inconclusive.
 * - A's next transaction, or another client on b1, still sees it: `leaked`.
 * - Otherwise `scoped`, provided A's next transaction and the observer on b1 (if any) each
 *   read a value: a step without one (an error, a stall) proves no absence.
 */
export function judgeSetLocal(steps: readonly StepRecord[]): Judgement<Label> {
  const begin = stepOf(steps, TAGS.begin);
  const set = stepOf(steps, LANDING_TAGS.create);
  for (const s of [begin, set]) {
    if (refused(s)) {
      return {
        outcome: 'rejected',
        facts: { rejectedWith: errorText(s) },
        reason: `the transaction block was refused: ${errorText(s)}`,
      };
    }
  }
  if (!set) return { outcome: null, facts: {}, reason: 'A never ran SET LOCAL' };
  // Sent but unanswered (a reset or closed connection, a stall): no reading either way.
  if (set.pid === null)
    return { outcome: null, facts: {}, reason: `A's SET LOCAL got no answer: ${errorText(set) ?? 'no backend pid'}` };
  const marker = markerOf(steps, 'statement_timeout');
  const inside = valueOf(stepOf(steps, TAGS.inside), 'inside');
  const readback = stepOf(steps, LANDING_TAGS.readback);
  const observer = stepsOf(steps, LANDING_TAGS.observe).find((t) => t.pid === set.pid && !t.timedOut);
  // A value not seen counts only where a value was read: an errored readback or an observer
  // cut short (a stalled pooler) shows nothing either way.
  const after = valueOf(readback, 'after');
  const seen = valueOf(observer, 'seen');
  const facts = {
    aBackend: set.pid,
    visibleInside: inside === marker,
    visibleAfterInA: answered(readback) && typeof after === 'string' ? after === marker : null,
    otherOnSameBackend: observer !== undefined,
    otherSaw: observer && typeof seen === 'string' ? seen === marker : null,
  };
  if (!facts.visibleInside)
    return {
      outcome: null,
      facts,
      reason: `SET LOCAL was not visible inside its own transaction (saw ${String(inside)})`,
    };
  if (facts.visibleAfterInA || facts.otherSaw)
    return {
      outcome: 'leaked',
      facts,
      reason: facts.otherSaw
        ? `another client on backend ${set.pid} saw the SET LOCAL value`
        : 'A still saw the value after COMMIT',
    };
  if (facts.visibleAfterInA === null)
    return { outcome: null, facts, reason: `A's next transaction did not answer: ${errorText(readback) ?? 'missing'}` };
  if (observer && facts.otherSaw === null)
    return {
      outcome: null,
      facts,
      reason: unseenReason('scoped', `${failedStep(observer, 'no reading')} on backend ${set.pid}`),
    };
  return {
    outcome: 'scoped',
    facts,
    reason: `visible inside the transaction only${observer ? `; the next client on backend ${set.pid} saw the default` : ''}`,
  };
}
