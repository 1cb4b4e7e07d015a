/**
 * temp/on-commit-drop: does a temp table created `ON COMMIT DROP` work for the transaction
 * that created it, as a driver sends it (one message per statement), and vanish at COMMIT?
 * This is the form pooling documentation recommends instead of a plain temp table.
 *
 *   A:  BEGIN
 *   A:  SELECT pg_backend_pid() AS pid; CREATE TEMP TABLE <t> (v int) ON COMMIT DROP   -- b1
 *   A:  INSERT INTO <t> VALUES (1) RETURNING pg_backend_pid() AS pid
 *   A:  SELECT pg_backend_pid() AS pid, count(*)::int AS n FROM <t>
 *   A:  COMMIT
 *   A:  SELECT pg_backend_pid() AS pid; SELECT to_regclass('pg_temp.<t>') IS NOT NULL AS survived; <drop if so>
 *   O:  (only when A's last step ran elsewhere) the same probe, on b1
 *
 * Labels, beyond `works` (the table existed inside its transaction only) and `rejected` (the
 * transaction block itself was refused):
 * - `lost`: inside its own transaction the table was missing, or a statement ran on another
 *   backend (a pooler that does not keep a transaction on one server connection).
 * - `leaked`: the table was still there on b1 after COMMIT.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { answered, boolOf, errorText, numberOf, refused, stepOf, stepsOf } from '../../engine/record/step-reading.js';
import { markersFor } from '../../engine/record/markers.js';
import { dismiss } from '../../engine/steering/holders.js';
import { landOn } from '../../engine/steering/land-on.js';
import { cleanupBlock } from '../../engine/steering/state-scenario.js';
import type { Judgement, StepRecord } from '../../engine/types.js';
import { LANDING_TAGS } from '../../engine/record/tags.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  begin: 'A.begin',
  insert: 'A.insert',
  read: 'A.read',
  commit: 'A.commit',
  after: 'A.after',
} as const;

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  works: { means: 'the table existed inside its transaction only' },
  lost: {
    means: 'the table was missing inside its own transaction (the transaction ran on more than one backend)',
    advice:
      'The pooler split one transaction across server connections: keep the work on a direct connection and report it to the pooler.',
  },
  leaked: {
    means: 'the table survived COMMIT',
    advice:
      'The temp table outlived its transaction: check that the client really sends BEGIN (autocommit drivers may not), and drop it explicitly.',
  },
  rejected: {
    means: 'the transaction block itself was refused',
    advice:
      'The pooler refuses transaction blocks (statement pooling), so ON COMMIT DROP tables vanish after each statement: use a transaction-pooling mode, or one statement (a CTE) instead of a temp table.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const onCommitDrop = defineCheck({
  id: 'temp/on-commit-drop',
  title: 'a temp table ON COMMIT DROP works inside its transaction and is gone after it',
  severity: 'correctness',
  docs: ['https://www.pgbouncer.org/features.html (ON COMMIT DROP temp tables: yes in transaction pooling)'],
  summary: '`CREATE TEMP TABLE ... ON COMMIT DROP` inside one transaction',
  outcomes: OUTCOMES,
  async scenario(scn) {
    const t = markersFor(scn.ctx.runId, this.id).tempTable;
    const survived = `SELECT to_regclass('pg_temp.${t}') IS NOT NULL AS survived`;
    const drop = `IF to_regclass('pg_temp.${t}') IS NOT NULL THEN DROP TABLE pg_temp.${t}; END IF;`;
    const a = await scn.open('A');
    if ((await a.run(TAGS.begin, 'BEGIN')).error) return;
    const created = await a.run(
      LANDING_TAGS.create,
      `SELECT pg_backend_pid() AS pid; CREATE TEMP TABLE ${t} (v int) ON COMMIT DROP`,
    );
    if (created.error || created.pid === null) return;
    await a.run(TAGS.insert, `INSERT INTO ${t} VALUES (1) RETURNING pg_backend_pid() AS pid`);
    await a.run(TAGS.read, `SELECT pg_backend_pid() AS pid, count(*)::int AS n FROM ${t}`);
    await a.run(TAGS.commit, 'COMMIT');
    const after = await a.run(TAGS.after, `SELECT pg_backend_pid() AS pid; ${survived}; ${cleanupBlock(drop)}`);
    if (after.pid === created.pid || scn.discovery.mode === 'direct') return;
    // A's next statement went elsewhere: look at b1 itself.
    const landing = await landOn(scn, created.pid, {
      statements: [survived, cleanupBlock(drop, created.pid)],
      releaseBy: 'wait',
      holdMs: 100,
    });
    await dismiss([landing.observer, ...landing.others]);
  },
  judge: judgeOnCommitDrop,
  evidence: (j) => j.reason,
});

/**
 * - BEGIN or CREATE refused (an SQLSTATE, or the pooler hanging up): `rejected`.
 * - INSERT or SELECT inside the transaction failed with 42P01, or ran on another backend, or
 *   the SELECT did not count the row: `lost`.
 * - A probe on b1 after COMMIT (A's next statement, or an observer) found the table: `leaked`;
 *   found it gone: `works`. No probe on b1: inconclusive.
 */
export function judgeOnCommitDrop(steps: readonly StepRecord[]): Judgement<Label> {
  const begin = stepOf(steps, TAGS.begin);
  const create = stepOf(steps, LANDING_TAGS.create);
  for (const s of [begin, create]) {
    if (refused(s))
      return {
        outcome: 'rejected',
        facts: { rejectedWith: errorText(s) },
        reason: `the transaction was refused: ${errorText(s)}`,
      };
  }
  if (!create || create.error || create.pid === null)
    return { outcome: null, facts: {}, reason: `A could not create the table: ${errorText(create) ?? 'no pid'}` };
  const b1 = create.pid;
  const inside = [stepOf(steps, TAGS.insert), stepOf(steps, TAGS.read)];
  const commit = stepOf(steps, TAGS.commit);
  const probes = [stepOf(steps, TAGS.after), ...stepsOf(steps, LANDING_TAGS.observe)].filter(
    (s): s is StepRecord => !!s && s.pid === b1 && !s.error,
  );
  const facts = {
    aBackend: b1,
    insideOnOneBackend: inside.every((s) => s?.pid === b1),
    rowsInside: numberOf(inside[1], 'n'),
    committed: answered(commit) && !commit.error,
    probedBackend: probes[0]?.pid ?? null,
    survivedCommit: probes.length > 0 ? boolOf(probes[0], 'survived') : null,
  };
  const missing = inside.find((s) => s?.error?.code === '42P01');
  if (missing)
    return {
      outcome: 'lost',
      facts,
      reason: `the table was missing inside its own transaction: ${errorText(missing)}`,
    };
  const elsewhere = inside.find((s) => s && s.pid !== null && s.pid !== b1);
  if (elsewhere)
    return {
      outcome: 'lost',
      facts,
      reason: `a statement of A's transaction ran on backend ${elsewhere.pid}, not ${b1}`,
    };
  if (inside.some((s) => !answered(s) || s.error || s.pid === null))
    return {
      outcome: null,
      facts,
      reason: `A's statements inside the transaction did not all answer (${inside.map((s) => errorText(s) ?? 'ok').join(', ')})`,
    };
  if (facts.rowsInside !== 1)
    return {
      outcome: 'lost',
      facts,
      reason: `the table did not hold A's row inside the transaction (count ${String(facts.rowsInside)})`,
    };
  if (!facts.committed)
    return { outcome: null, facts, reason: `A's COMMIT did not succeed: ${errorText(commit) ?? 'missing'}` };
  if (facts.survivedCommit === null)
    return { outcome: null, facts, reason: `nobody looked at backend ${b1} after COMMIT` };
  if (facts.survivedCommit)
    return { outcome: 'leaked', facts, reason: `the table was still on backend ${b1} after COMMIT` };
  return {
    outcome: 'works',
    facts,
    reason: `created, filled and read on backend ${b1} inside one transaction, and gone from it after COMMIT`,
  };
}
