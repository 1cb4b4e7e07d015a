/**
 * pipeline/prepared: a named statement parsed inside a pipeline and used again, inside it and
 * in later pipelines, without a new Parse (the way a driver's statement cache works: psycopg 3
 * prepares after `prepare_threshold` uses, pgjdbc after `prepareThreshold`, pgx and asyncpg at
 * once): does every use answer, on whichever backend the pooler picks?
 *
 *   per round r (6 rounds; stopped at the first that breaks):
 *   C:  BEGIN; SELECT pg_backend_pid() AS pid          -- holds a backend (A's last, on a LIFO pool)
 *   A:  one write:                                                          (wire level)
 *         1: [round 1 only: Parse "<name>" SELECT pg_backend_pid() AS pid, $1::text AS echo]
 *            Bind "<name>" ('<marker>-r<r>-s1'); Describe; Execute; Sync
 *         2: Bind "<name>" ('<marker>-r<r>-s2'); Describe; Execute; Sync
 *   D:  (at the same moment) SELECT pg_backend_pid() AS pid, coalesce(current_setting('pooltest.pipe', true), '') AS seen
 *   C:  the same read; COMMIT
 *   A:  Close S "<name>"; Sync
 *
 * A pooler without prepared-statement tracking sends a later Bind to a backend that never saw
 * the Parse (26000). The name carries the run's marker, so the tidy-up after the check
 * deallocates it on every backend A used where the pooler passed it on unchanged.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { dedicated, pidsOf, pipeSegments, pipeSteps, roundsReaching } from '../../engine/judging/pipeline-record.js';
import { markersFor } from '../../engine/record/markers.js';
import { errorText, markerOf } from '../../engine/record/step-reading.js';
import { PIPELINE_CLOSE_TAG, PIPELINE_TAGS } from '../../engine/record/tags.js';
import { wireSkipReason } from '../../engine/session/wire-session.js';
import { PIPE_LOOK, pipelineRounds, useNamed } from '../../engine/steering/pipeline-rounds.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';
import * as fe from '../../engine/wire/frontend.js';
import { LEAKED, markValue, pipelineVerdict, TRANSPORT_OUTCOMES, PGAGROAL_TRANSACTION_WEDGE } from './shared.js';

const TEXT = 'SELECT pg_backend_pid() AS pid, $1::text AS echo';

const OUTCOMES = {
  works: {
    means: 'every use of the named statement answered its own value, on every backend the pooler gave the pipelines',
  },
  failed: {
    means:
      'a use of the named statement failed (26000 where it was never prepared, 42P05 for a name in use) or answered a wrong value',
    advice:
      "Turn on the pooler's prepared-statement tracking (PgBouncer 1.21 or later: max_prepared_statements > 0), or make the driver use unnamed statements (psycopg 3: prepare_threshold=None; pgjdbc: prepareThreshold=0; pgx: QueryExecModeExec; asyncpg: statement_cache_size=0).",
  },
  leaked: LEAKED,
  ...TRANSPORT_OUTCOMES,
} satisfies Record<string, OutcomeInfo>;

type Label = keyof typeof OUTCOMES;

export const prepared = defineCheck({
  id: 'pipeline/prepared',
  title: 'a named statement parsed in a pipeline works in that pipeline and in later ones',
  summary:
    "a named statement parsed once and used again without Parse, inside one pipeline and across six, while two other clients compete (a driver's statement cache)",
  severity: 'correctness',
  docs: [
    'https://www.pgbouncer.org/config.html#max_prepared_statements (since 1.21)',
    'https://github.com/yandex/odyssey/blob/master/docs/configuration/rules.md (pool_reserve_prepared_statement, yes by default since 1.5.0)',
    'https://www.postgresql.org/docs/15/protocol-flow.html#PROTOCOL-FLOW-PIPELINING',
  ],
  outcomes: OUTCOMES,
  skipIf: (ctx) => wireSkipReason(ctx.target),
  wedges: [PGAGROAL_TRANSACTION_WEDGE],
  async scenario(scn) {
    const m = markersFor(scn.ctx.runId, this.id);
    const name = m.preparedName;
    scn.recordMarkers({ pipe: m.tag, statement: name });
    const a = await pipelineRounds(scn, {
      look: PIPE_LOOK,
      async pipeline(a, round) {
        const x = await a.exchange(PIPELINE_TAGS.pipe, [
          ...(round === 1 ? [fe.parse(name, TEXT)] : []),
          ...useNamed(name, [markValue(m.tag, round, 1)]),
          fe.sync(),
          ...useNamed(name, [markValue(m.tag, round, 2)]),
          fe.sync(),
        ]);
        return x.end.kind === 'complete' && x.steps.every((s) => s.error === null);
      },
    });
    scn.evidenceComplete();
    await a.exchange(PIPELINE_CLOSE_TAG, [fe.close('S', name), fe.sync()]);
  },
  judge: judgePrepared,
  evidence: (j) => j.reason,
});

/**
 * - No pipeline: inconclusive; unanswered: `stalled`, `dropped`, `malformed`; another client
 *   in A's transaction: `leaked`.
 * - Any use that failed or echoed another value than `<marker>-r<round>-s<segment>`: `failed`.
 * - All right: `works`, once a use ran on a backend other than the one the first Parse ran on
 *   (the pooler had to prepare it there), or every client has its own backend; else inconclusive.
 */
export function judgePrepared(steps: readonly StepRecord[], discovery: Discovery): Judgement<Label> {
  const early = pipelineVerdict(steps);
  if (early) return early;
  const marker = markerOf(steps, 'pipe');
  const pipe = pipeSteps(steps);
  const segments = pipeSegments(steps);
  const parsedOn = pipe[0]?.pid ?? null;
  for (const { step: s, seg, round } of segments) {
    const want = markValue(marker, round, seg);
    const echo = s.results[0]?.[0]?.echo;
    if (s.error || echo !== want) {
      const problem = s.error
        ? `use ${seg} of round ${round} on backend ${s.pid ?? '?'} failed: ${errorText(s)}`
        : `use ${seg} of round ${round} answered ${String(echo)} where ${want} was asked for`;
      return {
        outcome: 'failed',
        facts: { round, segment: seg, sqlstate: s.error?.code ?? null, problem },
        reason: problem,
      };
    }
  }
  const backends = new Set(pipe.flatMap(pidsOf));
  const facts = { rounds: roundsReaching(segments, 1), parsedOn, backendsUsed: backends.size };
  if (!dedicated(discovery) && backends.size < 2)
    return {
      outcome: null,
      facts,
      reason: `every use ran on backend ${parsedOn}, where it was parsed: the pooler never had to prepare it elsewhere`,
    };
  return {
    outcome: 'works',
    facts,
    reason: `every use answered its value, on ${backends.size} backend(s) (parsed on ${parsedOn})`,
  };
}
