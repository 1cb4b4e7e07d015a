/**
 * prepared/protocol-named: does a driver's named prepared statement (pg's `{ name, text }`,
 * the extended protocol) keep working across transactions, and stay out of other clients' way?
 *
 *   A:  Parse/Bind/Execute "<p>": SELECT pg_backend_pid() AS pid, 42 AS answer      -- backend b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                    -- lands on b1
 *       SELECT count(*)::int AS visible FROM pg_prepared_statements WHERE name = '<p>';
 *       SAVEPOINT pooltest
 *   A:  Bind/Execute "<p>"          -- pg skips Parse for a name it has parsed: 26000 elsewhere
 *   O:  Parse/Bind/Execute "<p>"    -- the same name on A's old backend: 42P05 "already exists"
 *   O:  ROLLBACK TO SAVEPOINT pooltest; DEALLOCATE <p> where it exists; COMMIT
 *
 * Poolers that track protocol-level statements (PgBouncer >= 1.21 with max_prepared_statements,
 * PgCat, PgDog, Odyssey) rename them per server connection and prepare them again wherever the
 * client lands, so both uses work. Under statement pooling the observer cannot run a second
 * statement on b1: it only lists the name there (and cleans up in the same statement).
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { answered, errorText, numberOf, sqlError, stepOf, stepsOf } from '../../engine/record/step-reading.js';
import { candidatesExhausted } from '../../engine/judging/state-judge.js';
import { markersFor } from '../../engine/record/markers.js';
import { dismiss, landingHoldMs } from '../../engine/steering/holders.js';
import { landOn } from '../../engine/steering/land-on.js';
import { cleanupBlock, endLanding } from '../../engine/steering/state-scenario.js';
import { LAND_ON_A, LANDING_TAGS } from '../../engine/record/tags.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  prepare: 'observe.prepare',
  /** The observer undoes its PREPARE and deallocates on A's old backend. */
  cleanup: 'observe.cleanup',
} as const;

const TEXT = 'SELECT pg_backend_pid() AS pid, 42 AS answer';

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  works: {
    means: 'the named statement worked in both transactions, and another client could prepare the same name',
  },
  failed: {
    means: "a later use failed (26000), or another client's Parse of the same name collided with it (42P05)",
    advice:
      "Turn on the pooler's prepared-statement tracking (PgBouncer >= 1.21: max_prepared_statements > 0), or make the driver use unnamed statements (node-postgres: omit `name`; pgx: QueryExecModeExec; JDBC: prepareThreshold=0).",
  },
  rejected: {
    means: 'the first use of the named statement was refused',
    advice: 'The pooler refuses named prepared statements: use unnamed statements or the simple protocol.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const protocolNamed = defineCheck({
  id: 'prepared/protocol-named',
  title: "a driver's named prepared statement works in every transaction of its client",
  severity: 'correctness',
  docs: [
    'https://www.pgbouncer.org/features.html (protocol-level prepared plans: yes only with max_prepared_statements)',
    'https://www.pgbouncer.org/config.html#max_prepared_statements (since 1.21)',
  ],
  summary: "a driver's named prepared statement used in two transactions; another client preparing the same name",
  outcomes: OUTCOMES,
  uses: LAND_ON_A,
  decisive: [
    { tag: TAGS.prepare, has: 'error' },
    { tag: LANDING_TAGS.readback, has: 'error' },
  ], // 42P05, else 26000
  audit: {
    statement: "a driver's named (protocol-level) prepared statement used across transactions",
    consequence: "a later Bind finds no statement (26000), or another client's Parse of the same name collides (42P05)",
    priority: 85,
    claims: { statements: { state: ['protocol named statement'] } },
  },
  async scenario(scn) {
    const p = markersFor(scn.ctx.runId, this.id).preparedName;
    const dealloc = `IF EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name = '${p}') THEN DEALLOCATE ${p}; END IF;`;
    const visible = `SELECT count(*)::int AS visible FROM pg_prepared_statements WHERE name = '${p}'`;
    const a = await scn.open('A');
    const first = await a.runPrepared(LANDING_TAGS.create, p, TEXT);
    if (first.error || first.pid === null) return;
    const b1 = first.pid;
    // Inside BEGIN the observer goes on to prepare the name itself; the savepoint lets it clean
    // up after the 42P05 that aborts its transaction. A long statement must clean up at once.
    const inBlock = scn.discovery.holderStrategy === 'transaction';
    const landing = await landOn(scn, b1, {
      statements: inBlock ? [visible, 'SAVEPOINT pooltest'] : [visible, cleanupBlock(dealloc, b1)],
      releaseBy: 'wait',
      holdMs: landingHoldMs(scn.discovery),
    });
    await dismiss(landing.others);
    await a.runPrepared(LANDING_TAGS.readback, p, TEXT);
    const observer = landing.observer;
    if (observer && inBlock) {
      await observer.session.runPrepared(TAGS.prepare, p, TEXT);
      await observer.session.run(TAGS.cleanup, `ROLLBACK TO SAVEPOINT pooltest; ${cleanupBlock(dealloc, b1)}`);
    }
    await endLanding(scn, a, observer, cleanupBlock(dealloc));
  },
  judge: judgeProtocolNamed,
  evidence: (j) => j.reason,
});

/**
 * - A's first use failed with an SQLSTATE: `rejected`; without one, or no pid: inconclusive.
 * - The other client on A's old backend could not prepare the same name (42P05): `failed`.
 * - A's second use (Bind/Execute only) failed with 26000: `failed`.
 * - A's second use answered 42 on another backend: `works` (the pooler prepared it there);
 *   on the same backend: `works` only when no other client could be placed on it (a
 *   dedicated backend), else inconclusive.
 */
export function judgeProtocolNamed(steps: readonly StepRecord[], discovery: Discovery): Judgement<Label> {
  const first = stepOf(steps, LANDING_TAGS.create);
  if (sqlError(first))
    return {
      outcome: 'rejected',
      facts: { rejectedWith: errorText(first) },
      reason: `the named statement was refused: ${errorText(first)}`,
    };
  if (!first || first.error || first.pid === null)
    return { outcome: null, facts: {}, reason: `A's first use failed: ${errorText(first) ?? 'no pid'}` };
  const b1 = first.pid;
  const second = stepOf(steps, LANDING_TAGS.readback);
  const observer = stepsOf(steps, LANDING_TAGS.observe).find((t) => t.pid === b1 && !t.timedOut);
  const collision = stepOf(steps, TAGS.prepare);
  const facts = {
    aBackend: b1,
    aSecondUseSentParse: second ? second.sql.startsWith('[Parse') : null,
    aSecondUseBackend: second?.pid ?? null,
    aSecondUseError: errorText(second),
    otherOnOldBackend: observer !== undefined,
    otherSawName: observer ? (numberOf(observer, 'visible') ?? 0) > 0 : null,
    otherPrepareError: errorText(collision),
  };
  if (collision?.error?.code === '42P05')
    return {
      outcome: 'failed',
      facts,
      reason: `another client on A's old backend ${b1} could not prepare the same name: ${errorText(collision)}`,
    };
  if (!answered(second))
    return { outcome: null, facts, reason: `A's second use did not answer: ${errorText(second) ?? 'missing'}` };
  if (second.error?.code === '26000')
    return {
      outcome: 'failed',
      facts,
      reason: `A's second use (Bind/Execute only) ran on a backend without the statement: ${errorText(second)}`,
    };
  if (second.error || second.pid === null || numberOf(second, 'answer') !== 42)
    return { outcome: null, facts, reason: `A's second use gave no answer: ${errorText(second) ?? 'no pid'}` };
  if (second.pid !== b1)
    return {
      outcome: 'works',
      facts,
      reason: `A's second use worked on backend ${second.pid}; it was prepared on ${b1}`,
    };
  if (observer)
    return { outcome: null, facts, reason: `A's second use ran on backend ${b1} while another client held it` };
  if (!candidatesExhausted(steps, discovery))
    return {
      outcome: null,
      facts,
      reason: `A stayed on backend ${b1}, and nothing proves that no other client could use it`,
    };
  return {
    outcome: 'works',
    facts,
    reason: `A's second use worked on its own backend ${b1}; no other client could use it`,
  };
}
