/**
 * pipeline/disconnect: a client leaves with a pipeline in flight (inside an explicit
 * transaction, and not): does the next client on its backend start clean (no open transaction,
 * none of its prepared statements), and does the pooler still serve later clients normally,
 * prepared statements included?
 *
 *   per round r (6 rounds, explicit transaction in odd rounds where the target allows transaction
 *   blocks, none under statement pooling; stopped at the first that breaks):
 *   A<r>: one write (wire level):
 *           [odd r: Parse/Bind/Describe/Execute BEGIN]
 *           Parse "" SELECT pg_backend_pid() AS pid, set_config('pooltest.pipe', $1, true) AS mark
 *           Bind "" ('<marker>-r<r>-s1'); Describe; Execute; Sync                 -- backend b1, status T or I
 *         then, without reading: Parse "<name>" (the same text); Bind "<name>" (s2); Execute;
 *           Parse/Bind/Execute SELECT pg_sleep(0.2); Sync; Bind "<name>" (s3); Execute; Sync
 *           -- and the socket is closed at once
 *   D:    (at the same moment) SELECT pg_backend_pid() AS pid, coalesce(current_setting('pooltest.pipe', true), '') AS seen
 *   N:    [BEGIN;] SELECT pg_backend_pid() AS pid; SELECT coalesce(current_setting('pooltest.pipe', true), '') AS seen,
 *           (SELECT count(*)::int FROM pg_prepared_statements WHERE name LIKE 'pooltest\_<run>%') AS leftover
 *           -- candidates until one lands on b1; if none can, P asks pg_stat_activity until b1 is gone
 *   L<r>: Parse "<name>" (the same name, as the same driver would use); Bind/Execute; Sync; Bind/Execute; Sync;
 *           Close S "<name>"; Sync                                                   (wire level)
 *
 * The issue this answers: after a psycopg 3 client was killed with a failing pipeline in
 * flight, later clients of a pooler got errors about prepared statements they never made.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { firstTransportFailure, pipeSteps } from '../../engine/judging/pipeline-record.js';
import { markersFor } from '../../engine/record/markers.js';
import { errorText, markerOf, numberOf, stepsOf } from '../../engine/record/step-reading.js';
import { PIPELINE_TAGS, segmentTag } from '../../engine/record/tags.js';
import { wireSkipReason } from '../../engine/session/wire-session.js';
import { awaitBackendGone } from '../../engine/steering/backend-gone.js';
import { dismiss, landingHoldMs, letGo } from '../../engine/steering/holders.js';
import { landOn } from '../../engine/steering/land-on.js';
import { PIPE_LOOK, PIPE_SETTING, PIPELINE_ROUNDS, unnamed, useNamed } from '../../engine/steering/pipeline-rounds.js';
import type { Scenario } from '../../engine/steering/scenario.js';
import type { Judgement, StepRecord } from '../../engine/types.js';
import * as fe from '../../engine/wire/frontend.js';
import { markValue, pipelineVerdict, TRANSPORT_OUTCOMES, PGAGROAL_TRANSACTION_WEDGE } from './shared.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  inflight: 'A.inflight',
  left: 'A.left',
  next: 'N.take',
  gone: 'P.gone',
  later: 'L.pipe',
} as const;

const MARK = `SELECT pg_backend_pid() AS pid, set_config('${PIPE_SETTING}', $1, true) AS mark`;
const ECHO = 'SELECT pg_backend_pid() AS pid, $1::text AS echo';

const OUTCOMES = {
  clean: {
    means:
      "every time, the next client on the departed client's backend found no open transaction and none of its statements (or that backend was gone), and a later client's named statements worked",
  },
  inherited: {
    means:
      "the next client on that backend found the departed client's open transaction, its transaction-local value, or its prepared statement",
    advice:
      'The pooler hands on a server a client left in the middle of a pipeline without resetting it: upgrade it (Odyssey 1.5.2 drops such a server instead of reusing it), and have clients end their pipelines before they exit.',
  },
  broken: {
    means:
      "a later client's pipeline with a named statement failed (for example 42P05 or 26000 for statements it never made)",
    advice:
      "The pooler's prepared-statement tracking is confused by a client that left mid-pipeline: upgrade it and report the record; until then make drivers use unnamed statements (psycopg 3: prepare_threshold=None; pgjdbc: prepareThreshold=0).",
  },
  ...TRANSPORT_OUTCOMES,
} satisfies Record<string, OutcomeInfo>;

type Label = keyof typeof OUTCOMES;

export const disconnect = defineCheck({
  id: 'pipeline/disconnect',
  title: 'after a client leaves with a pipeline in flight, the next client starts clean',
  summary:
    'a client leaves with a pipeline in flight, inside BEGIN and not, six times: the next client on its backend finds no transaction and no statement of it, and later clients with named statements are served',
  severity: 'correctness',
  docs: [
    'https://www.postgresql.org/docs/15/protocol-flow.html#PROTOCOL-FLOW-PIPELINING',
    'https://www.pgbouncer.org/config.html#server_reset_query',
    'https://www.pgpool.net/docs/latest/en/html/runtime-config-connection-pooling.html (reset_query_list)',
  ],
  outcomes: OUTCOMES,
  skipIf: (ctx) => wireSkipReason(ctx.target),
  wedges: [PGAGROAL_TRANSACTION_WEDGE],
  async scenario(scn) {
    const m = markersFor(scn.ctx.runId, this.id);
    scn.recordMarkers({ pipe: m.tag, statement: m.preparedName });
    for (let round = 1; round <= PIPELINE_ROUNDS && !scn.interrupted; round++) {
      if (!(await leaveMidPipeline(scn, round, m.tag, m.preparedName))) break;
    }
    scn.evidenceComplete();
  },
  judge: judgeDisconnect,
  evidence: (j) => j.reason,
});

/** One round; false when it broke or could not go on. */
async function leaveMidPipeline(scn: Scenario, round: number, marker: string, name: string): Promise<boolean> {
  const a = await scn.openWire(`A${round}`);
  const start = await a.exchange(
    [segmentTag(PIPELINE_TAGS.pipe, 1)],
    [
      // Statement pooling refuses transaction blocks: there every round leaves outside one.
      ...(round % 2 === 1 && scn.discovery.transactionBlocks === 'allowed' ? unnamed('BEGIN') : []),
      ...unnamed(MARK, [markValue(marker, round, 1)]),
      fe.sync(),
    ],
  );
  const b1 = start.steps[0]?.pid ?? null;
  if (start.end.kind !== 'complete' || b1 === null) return false;
  // The named statement is parsed in the part left in flight: one parsed in the answered part
  // outlives its client on any pooler that tracks no statements (prepared/protocol-named's
  // finding), and whether the next client met it on b1 then hung on timing, not on the departure.
  a.sendOnly(TAGS.inflight, [
    fe.parse(name, MARK),
    fe.bind('', name, [markValue(marker, round, 2)]),
    fe.execute(),
    ...unnamed('SELECT pg_sleep(0.2)'),
    fe.sync(),
    fe.bind('', name, [markValue(marker, round, 3)]),
    fe.execute(),
    fe.sync(),
  ]);
  a.drop();
  scn.note(`A${round}`, TAGS.left, '(left with the pipeline in flight: socket closed)');
  // D competes for the pool and is let go: under session pooling a connected client keeps its
  // backend, and with D still there the later client L would queue behind pooltest's own.
  const d = await scn.open(`D${round}`);
  await d.run(PIPELINE_TAGS.compete, PIPE_LOOK);
  await letGo(scn, d);
  const landing = await landOn(scn, b1, {
    prefix: `N${round}.`,
    tag: TAGS.next,
    statements: [
      `SELECT coalesce(current_setting('${PIPE_SETTING}', true), '') AS seen, (SELECT count(*)::int FROM pg_prepared_statements WHERE name LIKE 'pooltest\\_${scn.ctx.runId}%') AS leftover`,
    ],
    releaseBy: 'wait',
    holdMs: landingHoldMs(scn.discovery),
  });
  await dismiss([landing.observer, ...landing.others]);
  if (!landing.observer) await awaitBackendGone(scn, `P${round}`, TAGS.gone, b1);
  const l = await scn.openWire(`L${round}`);
  const later = await l.exchange(TAGS.later, [
    fe.parse(name, ECHO),
    ...useNamed(name, [markValue(marker, round, 1)]),
    fe.sync(),
    ...useNamed(name, [markValue(marker, round, 2)]),
    fe.close('S', name),
    fe.sync(),
  ]);
  await l.close();
  return later.end.kind === 'complete' && later.steps.every((s) => s.error === null);
}

/**
 * Per round, from A<r>'s answered start (backend b1) on:
 * - A's start unanswered: `stalled`, `dropped`, `malformed`; D read A's value: `leaked` is not
 *   a label here, it reads as `inherited` (the value outlived A's connection).
 * - A client that took a backend after A left and sits on b1 found a transaction in progress
 *   (25001), A's value, or a statement of this run's: `inherited`.
 * - L's pipeline failed or echoed wrongly: `broken` (unanswered: its transport label).
 * - Nobody on b1 and b1 still in pg_stat_activity (or not asked): inconclusive for that round.
 * - Every round fine: `clean`.
 */
export function judgeDisconnect(steps: readonly StepRecord[]): Judgement<Label> {
  const early = pipelineVerdict(steps.filter((s) => s.tag !== PIPELINE_TAGS.compete));
  if (early && early.outcome !== 'leaked') return early as Judgement<Label>;
  const marker = markerOf(steps, 'pipe');
  const starts = pipeSteps(steps);
  let proven = 0;
  for (const [i, start] of starts.entries()) {
    const round = i + 1;
    const b1 = start.pid;
    if (b1 === null || start.error)
      return { outcome: null, facts: { round }, reason: `A${round}'s start failed: ${errorText(start) ?? 'no pid'}` };
    const after = (s: StepRecord): boolean =>
      s.seq > start.seq && (starts[i + 1] === undefined || s.seq < starts[i + 1]!.seq);
    const seenBy = steps.find(
      (s) => after(s) && s.results.flat().some((r) => typeof r.seen === 'string' && r.seen.startsWith(marker)),
    );
    const next = stepsOf(steps, TAGS.next).find((s) => after(s) && s.pid === b1 && !s.timedOut);
    const facts = { round, aBackend: b1, explicitTransaction: /\bBEGIN\b/.test(start.sql) };
    if (seenBy)
      return {
        outcome: 'inherited',
        facts,
        reason: `${seenBy.session} read A${round}'s value after A${round} left (${seenBy.tag})`,
      };
    if (next) {
      const inProgress = next.notices.find((n) => n.code === '25001');
      const leftover = numberOf(next, 'leftover');
      if (inProgress || (leftover ?? 0) > 0)
        return {
          outcome: 'inherited',
          facts: { ...facts, leftover },
          reason: inProgress
            ? `${next.session} on backend ${b1} after A${round} left: ${inProgress.message}`
            : `${next.session} on backend ${b1} after A${round} left found ${leftover} of this run's prepared statement(s)`,
        };
      if (leftover !== null) proven++;
    } else if (numberOf(stepsOf(steps, TAGS.gone).filter(after).at(-1), 'alive') === 0) proven++;
    const later = stepsOf(steps, `${TAGS.later}.1`)
      .concat(stepsOf(steps, `${TAGS.later}.2`))
      .filter(after);
    const lost = firstTransportFailure(later);
    if (lost) return { outcome: lost.label, facts, reason: `a later client: ${lost.why}` };
    if (later.length === 0)
      return {
        outcome: null,
        facts,
        reason: `L${round}, the later client, is not in the record (it could not log in)`,
      };
    const failed = later.find((s) => s.error || s.results[0]?.[0]?.echo === undefined);
    if (later.length < 2 || failed)
      return {
        outcome: 'broken',
        facts: { ...facts, sqlstate: failed?.error?.code ?? null },
        reason: `L${round}, a later client, after A${round} left: ${failed ? (errorText(failed) ?? 'no row') : 'no answer recorded'}`,
      };
  }
  const facts = { rounds: starts.length, provenRounds: proven };
  if (starts.length === 0) return { outcome: null, facts, reason: "no record of A's pipeline" };
  if (proven < starts.length)
    return {
      outcome: null,
      facts,
      reason: `in ${starts.length - proven} round(s) no client could be placed on A's backend and it did not end`,
    };
  return {
    outcome: 'clean',
    facts,
    reason: `${starts.length} clients left mid-pipeline: each next client on that backend started clean (or the backend ended), later clients were served`,
  };
}
