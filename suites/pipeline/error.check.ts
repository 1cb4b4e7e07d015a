/**
 * pipeline/error: when a statement in the middle of a pipeline fails, does the server's skip to
 * the next Sync reach the client intact: one ErrorResponse and a ReadyForQuery for the failed
 * transaction, the pipeline's later transaction answered, and the client's next transaction
 * clean? A pooler that loses track of the skipped messages leaves the client waiting forever.
 *
 *   per round (6 rounds; stopped at the first that breaks):
 *   C:  BEGIN; SELECT pg_backend_pid() AS pid                      -- holds a backend
 *   A:  one write:                                                          (wire level)
 *         1: the marked transaction (set '<marker>-r<round>-s1', read it back); Sync
 *         2: Parse/Bind('0')/Describe/Execute SELECT pg_backend_pid() AS pid, 1 / $1::int AS boom   -- 22012
 *            Parse/Bind/Describe/Execute SELECT pg_backend_pid() AS pid                            -- skipped
 *            Sync
 *         3: the marked transaction ('<marker>-r<round>-s3'); Sync
 *   D:  (at the same moment) SELECT pg_backend_pid() AS pid, coalesce(current_setting('pooltest.pipe', true), '') AS seen
 *   C:  the same read; COMMIT
 *   A:  Query SELECT pg_backend_pid() AS pid, coalesce(current_setting('pooltest.pipe', true), '') AS seen
 *
 * Users met this with psycopg 3's pipeline mode (issue 38): a failing statement in the middle
 * of a pipeline left the client waiting for answers that never came.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import {
  firstTransportFailure,
  markedProblem,
  pipeSegments,
  roundsReaching,
} from '../../engine/judging/pipeline-record.js';
import { markersFor } from '../../engine/record/markers.js';
import { errorText, markerOf, stepsOf } from '../../engine/record/step-reading.js';
import { PIPELINE_TAGS } from '../../engine/record/tags.js';
import { wireSkipReason } from '../../engine/session/wire-session.js';
import { markedTransaction, PIPE_LOOK, pipelineRounds, unnamed } from '../../engine/steering/pipeline-rounds.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';
import * as fe from '../../engine/wire/frontend.js';
import {
  LEAKED,
  markValue,
  pipelineVerdict,
  TRANSPORT_OUTCOMES,
  unproven,
  PGAGROAL_TRANSACTION_WEDGE,
} from './shared.js';

const OUTCOMES = {
  recovered: {
    means:
      "the failing transaction got its error and ReadyForQuery, the statement after the error was skipped, the pipeline's later transaction and the client's next one were answered and clean",
  },
  broken: {
    means:
      "after the error, the pipeline's later transaction or the client's next transaction failed, was answered wrongly, or the skipped statement ran",
    advice:
      "The pooler mishandles an error inside a pipeline: upgrade it and report the record; until then turn the driver's pipelining off (psycopg 3 without `conn.pipeline()`, pgjdbc without batches).",
  },
  leaked: LEAKED,
  ...TRANSPORT_OUTCOMES,
} satisfies Record<string, OutcomeInfo>;

type Label = keyof typeof OUTCOMES;

export const error = defineCheck({
  id: 'pipeline/error',
  title: 'an error in the middle of a pipeline skips to its Sync, and the client goes on',
  summary:
    'a statement fails (22012) between two implicit transactions of one pipeline, six rounds while two other clients compete: the error and its ReadyForQuery come back, the rest is answered, the next transaction is clean',
  severity: 'availability',
  docs: [
    'https://www.postgresql.org/docs/15/protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY (after an error the backend discards messages until Sync)',
    'https://www.postgresql.org/docs/15/protocol-flow.html#PROTOCOL-FLOW-PIPELINING',
  ],
  outcomes: OUTCOMES,
  leavesNoState: 'transaction-local settings only, and a failed SELECT: nothing outlives a transaction',
  skipIf: (ctx) => wireSkipReason(ctx.target),
  wedges: [PGAGROAL_TRANSACTION_WEDGE],
  async scenario(scn) {
    const marker = markersFor(scn.ctx.runId, this.id).tag;
    scn.recordMarkers({ pipe: marker });
    await pipelineRounds(scn, {
      look: PIPE_LOOK,
      async pipeline(a, round) {
        const x = await a.exchange(PIPELINE_TAGS.pipe, [
          ...markedTransaction(markValue(marker, round, 1)),
          ...unnamed('SELECT pg_backend_pid() AS pid, 1 / $1::int AS boom', ['0']),
          ...unnamed('SELECT pg_backend_pid() AS pid, true AS skipped'),
          fe.sync(),
          ...markedTransaction(markValue(marker, round, 3)),
        ]);
        if (x.end.kind !== 'complete') return false;
        const next = await a.exchange(PIPELINE_TAGS.next, [fe.query(PIPE_LOOK)]);
        return next.end.kind === 'complete' && !next.steps[0]?.error && x.steps[1]?.error?.code === '22012';
      },
    });
    scn.evidenceComplete();
  },
  judge: judgeError,
  evidence: (j) => j.reason,
});

/**
 * - No pipeline: inconclusive; an unanswered segment (or next transaction): `stalled`,
 *   `dropped`, `malformed`; C or D in A's transaction: `leaked`.
 * - Per round: segment 2 must fail with 22012, return no row of the skipped statement and end
 *   with status I; segments 1 and 3 must be right (marked transactions); A's next transaction
 *   must answer without error, status I, seeing no value of A's. Any of that wrong: `broken`.
 * - All right: `recovered`, once a backend served A and another client (or backends are dedicated).
 */
export function judgeError(steps: readonly StepRecord[], discovery: Discovery): Judgement<Label> {
  const early = pipelineVerdict(steps);
  if (early) return early;
  const nexts = stepsOf(steps, PIPELINE_TAGS.next);
  const lost = firstTransportFailure(nexts);
  if (lost) return { outcome: lost.label, facts: { unanswered: lost.why }, reason: lost.why };
  const marker = markerOf(steps, 'pipe');
  const broken = (problem: string, round: number): Judgement<Label> => ({
    outcome: 'broken',
    facts: { round, problem },
    reason: problem,
  });
  const segments = pipeSegments(steps);
  for (const { step: s, seg, round } of segments) {
    if (seg === 2) {
      if (s.error?.code !== '22012')
        return broken(`the failing statement answered ${errorText(s) ?? 'without an error'}, not 22012`, round);
      if (s.results.flat().some((r) => r.skipped !== undefined))
        return broken('the statement after the error ran: the skip to Sync was not kept', round);
      if (s.txStatus !== 'I')
        return broken(`the failed transaction ended with status ${s.txStatus ?? 'none'}, not I`, round);
      continue;
    }
    const problem = markedProblem(s, markValue(marker, round, seg));
    if (problem) return broken(`after the error: ${problem}`, round);
  }
  for (const [i, n] of nexts.entries()) {
    const row = n.results[0]?.[0];
    if (n.error || !row || n.txStatus !== 'I' || row.seen !== '')
      return broken(
        `A's next transaction after pipeline ${i + 1}: ${errorText(n) ?? (row ? `status ${n.txStatus}, seen '${String(row.seen)}'` : 'no row')}`,
        i + 1,
      );
  }
  const done = roundsReaching(segments, 2);
  const facts = { rounds: done, nextTransactions: nexts.length };
  if (nexts.length < done) return { outcome: null, facts, reason: "A's next transaction is missing from the record" };
  const why = unproven(steps, discovery);
  if (why) return { outcome: null, facts, reason: why };
  return {
    outcome: 'recovered',
    facts,
    reason: `${done} pipelines: each error came back with its ReadyForQuery, the rest was answered, the next transaction was clean`,
  };
}
