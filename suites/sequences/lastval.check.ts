/**
 * sequences/lastval: does `lastval()` (and `currval()`) stay with the client that called
 * `nextval`? Code that inserts and then asks `SELECT lastval()` in a separate statement gets
 * its id from whichever backend runs that statement.
 *
 *   A:  SELECT pg_backend_pid() AS pid; CREATE TEMP SEQUENCE <s> START <n>;
 *       SELECT nextval('pg_temp.<s>') AS made                                     -- backend b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                  -- lands on b1
 *       DO: RAISE NOTICE 'pooltest lastval %', lastval()  (or 'undefined' on SQLSTATE 55000)
 *   A:  SELECT pg_backend_pid() AS pid; SELECT lastval() AS mine
 *       -- 55000 "lastval is not yet defined in this session", or another client's number
 *
 * The sequence is temporary, so it needs no CREATE right and exists only on b1; its start is
 * unique to the run, so a matching number can only be A's. The observer reads lastval inside a
 * PL/pgSQL block that catches 55000: an error in its take would end its hold (and, under
 * statement pooling, its long statement). Dropping the sequence is the whole cleanup: lastval
 * is undefined again once its sequence is gone.
 */
import { defineCheck } from '../../engine/execute/check.js';
import { stateOutcomes } from '../../engine/judging/state-outcomes.js';
import { valueOf } from '../../engine/record/step-reading.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { markersFor } from '../../engine/record/markers.js';
import { runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';
import type { StepRecord } from '../../engine/types.js';
import { LANDING_TAGS } from '../../engine/record/tags.js';

const NOTICE = /^pooltest lastval (\S+)$/;

export const lastval = defineCheck({
  id: 'sequences/lastval',
  title: 'lastval() after nextval stays with the client that called it',
  severity: 'correctness',
  docs: [
    'https://www.postgresql.org/docs/current/functions-sequence.html (lastval and currval are per session)',
    'https://www.pgbouncer.org/features.html (transaction pooling: session state is not kept)',
  ],
  summary: '`nextval`, then `lastval()` in the next transaction; what does the next client get',
  outcomes: stateOutcomes({
    leaked:
      "Use INSERT ... RETURNING id (or call lastval/currval in the same statement or transaction as nextval): the next client on your server connection reads your last value, and you read someone else's.",
    lost: 'Use INSERT ... RETURNING id, or call lastval/currval in the same transaction as nextval: the value does not survive to your next transaction.',
    pinned: 'The pooler pins clients after nextval; INSERT ... RETURNING keeps multiplexing.',
    rejected: 'The pooler refused the sequence statements: use INSERT ... RETURNING.',
  }),
  uses: STATE_SCENARIO,
  audit: {
    statement: 'currval() / lastval() after the transaction that called nextval()',
    consequence: "another backend has no value, or another client's value",
    priority: 90,
    claims: {
      // currval() and lastval() read what this backend's last nextval() returned; nextval()
      // alone is harmless, so only the watch (which pairs it with a later read) follows it.
      functions: { state: ['currval', 'lastval'], setup: ['nextval', 'setval'] },
      statements: { cleanup: ['DISCARD SEQUENCES'] },
    },
  },
  async scenario(scn) {
    const m = markersFor(scn.ctx.runId, this.id);
    const s = m.sequenceName;
    await runStateScenario(scn, {
      create: `CREATE TEMP SEQUENCE ${s} START ${m.lockKey}; SELECT nextval('pg_temp.${s}') AS made`,
      observe: [
        `DO $pooltest$ BEGIN PERFORM pg_catalog.set_config('client_min_messages', 'notice', true); BEGIN RAISE NOTICE 'pooltest lastval %', lastval(); EXCEPTION WHEN object_not_in_prerequisite_state THEN RAISE NOTICE 'pooltest lastval undefined'; END; END $pooltest$`,
      ],
      readback: 'SELECT lastval() AS mine',
      cleanup: `IF to_regclass('pg_temp.${s}') IS NOT NULL THEN DROP SEQUENCE pg_temp.${s}; END IF;`,
    });
  },
  judge(steps, discovery) {
    const made = String(
      valueOf(
        steps.find((s) => s.tag === LANDING_TAGS.create),
        'made',
      ) ?? '',
    );
    const j = judgeState(steps, discovery, {
      seenByOther: (take) => {
        const seen = observedLastval(take);
        return seen === null || made === '' ? null : seen === made;
      },
      keptByA: (readback) => {
        if (readback.error?.code === '55000') return false;
        const mine = ownLastval(readback);
        return mine === null ? null : mine === made;
      },
      show: (step) => {
        if (step.tag !== LANDING_TAGS.readback) return `lastval() = ${observedLastval(step) ?? '?'}`;
        return step.error
          ? `lastval() failed: ${step.error.code ?? ''} ${step.error.message}`
          : `lastval() = ${ownLastval(step) ?? '?'}`;
      },
    });
    const mine = ownLastval(steps.find((s) => s.tag === LANDING_TAGS.readback));
    j.facts.aValue = made || null;
    // A number that is not A's: lastval() answered from another client's sequence.
    j.facts.aGotOtherValue = mine === null ? null : mine !== made;
    return j;
  },
});

/** A's own lastval() from its readback row, as text (bigint arrives as a string), or null. */
function ownLastval(readback: StepRecord | undefined): string | null {
  const v = valueOf(readback, 'mine');
  return v === undefined || v === null ? null : String(v);
}

/** What the observer's lastval() gave: a number, 'undefined', or null when it did not say. */
function observedLastval(take: StepRecord): string | null {
  for (const n of take.notices) {
    const hit = NOTICE.exec(n.message);
    if (hit) return hit[1]!;
  }
  return null;
}
