/**
 * pipeline/transactions: when a client pipelines several implicit transactions (many
 * Parse/Bind/Execute and several Syncs in one write, as psycopg 3's pipeline mode, pgjdbc
 * batches, pgx SendBatch and postgres.js do), does every answer come back, in order, each
 * transaction wholly on one backend, with none of its state seen by another client?
 *
 *   per round (6 rounds; stopped at the first that breaks):
 *   C:  BEGIN; SELECT pg_backend_pid() AS pid                      -- holds a backend
 *   A:  one write, three implicit transactions s = 1..3:                    (wire level)
 *         Parse/Bind/Describe/Execute SELECT pg_backend_pid() AS pid,
 *                                      set_config('pooltest.pipe', '<marker>-r<round>-s<s>', true) AS mark
 *         Parse/Bind/Describe/Execute SELECT pg_backend_pid() AS pid, current_setting('pooltest.pipe', true) AS seen
 *         Sync
 *   D:  (at the same moment) SELECT pg_backend_pid() AS pid, coalesce(current_setting('pooltest.pipe', true), '') AS seen
 *   C:  SELECT pg_backend_pid() AS pid, coalesce(current_setting('pooltest.pipe', true), '') AS seen; COMMIT
 *
 * A transaction pooler may hand the backend to another client at each ReadyForQuery with status
 * I, but not in the middle of a transaction, and the answers must keep the order of the Syncs.
 * The setting is transaction-local, so nothing outlives a transaction: the check leaves no state.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { markedProblem, pipeSegments, roundsReaching } from '../../engine/judging/pipeline-record.js';
import { markersFor } from '../../engine/record/markers.js';
import { markerOf } from '../../engine/record/step-reading.js';
import { PIPELINE_TAGS } from '../../engine/record/tags.js';
import { wireSkipReason } from '../../engine/session/wire-session.js';
import { markedTransaction, PIPE_LOOK, pipelineRounds } from '../../engine/steering/pipeline-rounds.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';
import { markValue, pipelineVerdict, TRANSPORT_OUTCOMES, unproven, PGAGROAL_TRANSACTION_WEDGE } from './shared.js';

/** Implicit transactions per pipeline. */
const SEGMENTS = 3;

const OUTCOMES = {
  ordered: {
    means:
      'every answer of every pipeline arrived, in order, each transaction wholly on one backend, and no other client saw its state',
  },
  misordered: {
    means: "answers were missing, out of order, or not the ones asked for (another transaction's value came back)",
    advice:
      "The pooler mixes up a pipeline's answers: upgrade it and report the record to its maintainers; until then turn the driver's pipelining off.",
  },
  split: {
    means:
      "one implicit transaction's statements ran on two backends, or its second statement did not see what its first set",
    advice:
      'The pooler moves a pipeline to another server in the middle of a transaction: upgrade it; until then send each transaction on its own (no pipelining) or inside BEGIN/COMMIT.',
  },
  leaked: {
    means:
      "another client read the pipeline's transaction-local state, or A's transaction ran on a backend another client held inside its transaction",
    advice:
      'The pooler lets two clients into one server transaction: stop pipelining through it and report it to its maintainers; it is a data-isolation defect.',
  },
  ...TRANSPORT_OUTCOMES,
} satisfies Record<string, OutcomeInfo>;

type Label = keyof typeof OUTCOMES;

export const transactions = defineCheck({
  id: 'pipeline/transactions',
  title: "a pipeline's implicit transactions are answered in order, each on one backend",
  summary:
    'three implicit transactions in one write (Parse/Bind/Execute/Sync), six rounds, while two other clients compete: every answer, in order, each transaction on one backend, its state seen by nobody else',
  severity: 'correctness',
  docs: [
    'https://www.postgresql.org/docs/15/protocol-flow.html#PROTOCOL-FLOW-PIPELINING',
    'https://www.pgbouncer.org/features.html (transaction pooling)',
  ],
  outcomes: OUTCOMES,
  leavesNoState: 'transaction-local settings only (set_config(..., true)): nothing outlives a transaction',
  skipIf: (ctx) => wireSkipReason(ctx.target),
  wedges: [PGAGROAL_TRANSACTION_WEDGE],
  async scenario(scn) {
    const marker = markersFor(scn.ctx.runId, this.id).tag;
    scn.recordMarkers({ pipe: marker });
    await pipelineRounds(scn, {
      look: PIPE_LOOK,
      async pipeline(a, round) {
        const batch = Array.from({ length: SEGMENTS }, (_, i) => markedTransaction(markValue(marker, round, i + 1)));
        const x = await a.exchange(PIPELINE_TAGS.pipe, batch.flat());
        return x.end.kind === 'complete' && x.steps.every((s) => s.error === null);
      },
    });
    scn.evidenceComplete();
  },
  judge: judgeTransactions,
  evidence: (j) => j.reason,
});

/**
 * - No pipeline in the record: inconclusive. An unanswered segment: `stalled` (no answer within
 *   the bound), `dropped` (connection ended), `malformed` (protocol violation).
 * - C or D read A's value, or a segment ran on the backend C held: `leaked`.
 * - Segment s of round r must answer `<marker>-r<r>-s<s>` from one backend, read back by its
 *   second statement, ending with status I: two backends or a wrong read-back is `split`;
 *   anything else wrong (a missing set, another segment's value, an error) `misordered`.
 * - All right: `ordered`, if a backend served both A and another client during the rounds (or
 *   every client has its own backend); otherwise inconclusive.
 */
export function judgeTransactions(steps: readonly StepRecord[], discovery: Discovery): Judgement<Label> {
  const early = pipelineVerdict(steps);
  if (early) return early;
  const marker = markerOf(steps, 'pipe');
  const segments = pipeSegments(steps);
  for (const { step: s, seg, round } of segments) {
    const problem = markedProblem(s, markValue(marker, round, seg));
    if (problem)
      return {
        outcome: problem.startsWith('split') ? 'split' : 'misordered',
        facts: { round, segment: seg, problem },
        reason: problem,
      };
  }
  const rounds = roundsReaching(segments, 1);
  const facts = { rounds, segmentsPerRound: SEGMENTS, backendsOfA: new Set(segments.map((s) => s.step.pid)).size };
  const why = unproven(steps, discovery);
  if (why) return { outcome: null, facts, reason: why };
  return {
    outcome: 'ordered',
    facts,
    reason: `${rounds} pipelines of ${SEGMENTS} transactions: every answer in order, each transaction on one backend`,
  };
}
