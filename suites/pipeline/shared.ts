/**
 * What the `pipeline/*` checks say alike: the outcomes of a pipeline that got no proper answer
 * (stalled, dropped, malformed), with their advice, another client in A's transaction
 * (leaked), and the judge's common first steps.
 */
import type { OutcomeInfo } from '../../engine/execute/check.js';
import type { KnownWedge } from '../../engine/execute/known-wedge.js';
import {
  crossing,
  dedicated,
  firstTransportFailure,
  pipeSteps,
  sharedBackend,
  type TransportLabel,
} from '../../engine/judging/pipeline-record.js';
import { markerOf } from '../../engine/record/step-reading.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';

const DRIVERS =
  "Until the pooler is fixed, turn the driver's pipelining off: psycopg 3 without `conn.pipeline()`, pgjdbc `executeBatch` replaced by single statements, pgx `SendBatch` replaced by single queries, asyncpg without `executemany`.";

export const TRANSPORT_OUTCOMES = {
  stalled: {
    means:
      'the pipeline got no complete answer within the step bound: the client would wait forever (the facts say how long pooltest waited)',
    advice: `The pooler loses a pipeline's answers: look for pipelining fixes in its release notes, upgrade, and report the record to its maintainers. ${DRIVERS}`,
  },
  dropped: {
    means: 'the pooler closed the connection while the pipeline was in flight',
    advice: `The pooler ends connections that pipeline: check its logs for the reason and upgrade it. ${DRIVERS}`,
  },
  malformed: {
    means:
      'the pooler answered the pipeline with bytes that break the protocol (PROTOCOL_VIOLATION evidence in the facts)',
    advice: `Report it to the pooler's maintainers with the bytes. ${DRIVERS}`,
  },
} satisfies Record<TransportLabel, OutcomeInfo>;

/**
 * pgagroal 1.6.0's transaction pipeline: a worker whose client's next transaction finds no free
 * server connection it can use loops in pgagroal_get_connection (pool.c: blocking_timeout 0,
 * 1 µs sleeps) and never reads its client again. It can use only a slot whose file descriptor
 * number, as the main process numbers it, is a socket in its own process, so a server
 * connection opened at its own login or after its fork is never usable to it; and a client
 * that leaves without Terminate makes its worker close the last server connection it used
 * (worker.c, WORKER_SERVER_FAILURE), which a later login opens again. The pipeline checks do
 * both (a client leaving mid-pipeline; pipelines whose transactions each need a server), and
 * left workers spinning with their clients long gone: the pool of 2 then refuses logins (its
 * malformed 53300) until pgagroal restarts. Nothing a client sends reaches the loop, and ending
 * the backends through --direct left a spinning worker spinning (the next login, handed a
 * dead server, added one).
 */
export const PGAGROAL_TRANSACTION_WEDGE: KnownWedge = {
  pooler: 'pgagroal',
  mode: 'transaction',
  why: 'a worker left waiting for a server connection with the rest of a pipeline keeps spinning after its client left, and the pool then refuses every login until pgagroal restarts',
};

/**
 * Another client in A's transaction (`leaked`), as pipeline/error and pipeline/prepared say it
 * (pipeline/transactions, the isolation check, says more).
 */
export const LEAKED = {
  means:
    "another client read the pipeline's transaction-local state, or A's transaction ran on a backend another client held",
  advice:
    'The pooler lets two clients into one server transaction: stop pipelining through it and report it to its maintainers.',
} satisfies OutcomeInfo;

/** The setting's value A's transaction `seg` of round `round` carries (`<marker>-r<round>-s<seg>`). */
export function markValue(marker: string, round: number, seg: number): string {
  return `${marker}-r${round}-s${seg}`;
}

/**
 * The judge's first steps for every pipeline check: no pipeline recorded (inconclusive), an
 * unanswered pipeline (its transport label), another client in A's transaction (`leaked`).
 * Otherwise null, and the check's own reading goes on.
 */
export function pipelineVerdict(steps: readonly StepRecord[]): Judgement<TransportLabel | 'leaked'> | null {
  const pipe = pipeSteps(steps);
  const marker = markerOf(steps, 'pipe');
  const facts = { pipelineSegments: pipe.length, backendsOfA: new Set(pipe.map((s) => s.pid)).size };
  if (pipe.length === 0 || marker === '') return { outcome: null, facts, reason: "no record of A's pipeline" };
  const failed = firstTransportFailure(pipe);
  if (failed) return { outcome: failed.label, facts: { ...facts, unanswered: failed.why }, reason: failed.why };
  const crossed = crossing(steps, marker);
  if (crossed) return { outcome: 'leaked', facts: { ...facts, crossing: crossed }, reason: crossed };
  return null;
}

/**
 * A good outcome stands only when the rounds gave the pooler its chance to get it wrong: a
 * backend served A's pipeline and another client during the check, or every client has a
 * backend of its own. The reason why not, or null.
 */
export function unproven(steps: readonly StepRecord[], discovery: Discovery): string | null {
  if (dedicated(discovery)) return null;
  return sharedBackend(steps) === null
    ? "no backend served both A's pipeline and another client during the rounds: the pool was never shared, so nothing is proven"
    : null;
}
