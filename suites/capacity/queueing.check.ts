/**
 * capacity/queueing: with more concurrent transactions than the pool has backends, does every
 * one wait its turn, or are some refused?
 *
 *   T1..Tn, each its own client (n = 3 x pool size: 6 for a pool of 2), connect at once and,
 *   once all have connected (or a short bound has passed), send at once:
 *       SELECT pg_backend_pid() AS pid, 200 AS sleep_ms, <server clock ms> AS began;
 *       SELECT pg_sleep(0.2);
 *       SELECT <server clock ms> AS ended
 *       then disconnect (a session pooler hands the backend on only then)
 *
 * Start and end come from the server's clock, one clock for all clients, so a transaction's
 * start offset from the first one is its wait for a backend wherever the pooler made it wait:
 * before its first row (PgBouncer) or in the listen queue before the login (pgpool-II). With
 * a pool of 2 the six run in three rounds: offsets of about 0, 0, 200, 200, 400, 400 ms.
 *
 * A pooler that refuses at capacity instead of queueing (discovery's clientLimit, k clients):
 * T1..Tk first keep logging in until it admits them (the run's previous clients may still hold
 * its slots for a moment), then the rest connect; what matters is what becomes of those.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { failedStep } from '../../engine/judging/absence.js';
import { errorSummary, readCrowd } from '../../engine/judging/crowd-record.js';
import { numberOf } from '../../engine/record/step-reading.js';
import { crowd } from '../../engine/steering/crowd.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  connect: 'queue.connect',
  tx: 'queue.tx',
} as const;

const CLOCK = `(extract(epoch FROM clock_timestamp()) * 1000)::float8`;
const SLEEP_MS = 200;

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  queued: {
    means: 'every transaction succeeded; those beyond the pool waited their turn',
    advice:
      'Transactions beyond the pool wait for a backend: keep transactions short, and size the pool for your peak concurrency if the waits matter.',
  },
  rejected: {
    means: 'the pooler refused some clients instead of queueing them (its message verbatim in the facts)',
    advice:
      'The pooler refused clients instead of queueing them: raise its client limit (max_client_conn for PgBouncer) or its wait timeout, and retry refused connections with backoff in the application.',
  },
  unlimited: {
    means:
      'every transaction got a backend at once: nothing limits concurrency (direct, or a pool larger than the crowd)',
    advice:
      'Nothing limits concurrency here: every transaction got a backend at once, so a burst of clients can exhaust max_connections; put a pooler in front if that matters.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const queueing = defineCheck({
  id: 'capacity/queueing',
  title: 'more concurrent transactions than backends wait their turn and all succeed',
  // A refusal at capacity is one of its answers (rejected / overflowed), not a doubt.
  answersWithRefusals: true,
  severity: 'availability',
  docs: [
    'https://www.pgbouncer.org/config.html#query_wait_timeout (clients wait in a queue for a server)',
    'https://www.pgpool.net/docs/latest/en/html/runtime-config-connection.html (num_init_children: further clients wait in the listen queue)',
  ],
  summary: '3 x pool size concurrent 200 ms transactions: do they wait their turn or fail',
  outcomes: OUTCOMES,
  flags: ['timing-dependent'],
  leavesNoState: 'its transactions only read the backend pid and the clock, and sleep',
  async scenario(scn) {
    // Three per backend, not two: a crowd of 2 x pool size stays within a client limit a little
    // above it (PgBouncer with max_client_conn 4 and a pool of 2 queued all four), where a third
    // round meets it and shows the refusal (docs/compatibility.md's max_client_conn 4 column).
    const n = Math.min(24, 3 * (scn.discovery.poolSize ?? 2));
    const sql = `SELECT pg_backend_pid() AS pid, ${SLEEP_MS} AS sleep_ms, ${CLOCK} AS began; SELECT pg_sleep(${SLEEP_MS / 1000}); SELECT ${CLOCK} AS ended`;
    await crowd(scn, {
      count: n,
      prefix: 'T',
      connectTag: TAGS.connect,
      connectMs: scn.ctx.bounds.connectMs,
      startTogetherMs: scn.waitMs + 3 * scn.discovery.connectLatencyMs,
      // A pooler that refuses at capacity: its limit's worth of clients first (see crowd.ts).
      // One whose logins take a slot (session pooling, pgpool-II's children): the pool's worth
      // first, so that the crowd begins once the slots the run's earlier clients had are free
      // again. Without it, pgpool-II still busy with cancel/routing's cancel connection (which
      // it never closes) started one of the first two transactions some 100 ms late, on a
      // backend nobody had used before: a delay, not a queue (inconclusive).
      ...admitFirst(scn.discovery),
      work: async (s) => void (await s.run(TAGS.tx, sql)),
    });
  },
  judge: judgeQueueing,
});

/** How many clients of the crowd log in before the others start (crowd.ts, admitFirst). */
function admitFirst(d: Discovery): { admitFirst?: number } {
  if (d.clientLimit) return { admitFirst: d.clientLimit.clients };
  if (d.mode === 'session' && d.poolSize !== null) return { admitFirst: d.poolSize };
  return {};
}

/**
 * - No client recorded: inconclusive.
 * - Any client refused (an error at login or in its transaction): `rejected`, with the errors
 *   verbatim. Clients only left without an answer within the step bound: inconclusive - no
 *   answer is no refusal (a pooler that stalls leaves them so too).
 * - Every transaction's start and end read from the server clock, else inconclusive.
 * - Some transaction started half a transaction or more after the first: `queued`, provided
 *   each late one ran on a backend an earlier transaction of the crowd had used (it waited for
 *   that backend); a late start on a backend nobody else used is a delay, not a queue
 *   (a stalled network before direct Postgres): inconclusive.
 * - All started together: `unlimited` (no pool limit met: direct Postgres, or a pool larger
 *   than the crowd).
 */
export function judgeQueueing(steps: readonly StepRecord[], discovery: Discovery): Judgement<Label> {
  const clients = readCrowd(steps, TAGS.connect, TAGS.tx);
  if (clients.length === 0) return { outcome: null, facts: {}, reason: 'no transaction was recorded' };
  const failed = clients.filter((c) => c.state !== 'served');
  const base = { transactions: clients.length, poolSize: discovery.poolSize, noPool: discovery.poolSize === null };
  const unanswered = failed.find((c) => c.state === 'waited');
  if (unanswered?.failure && failed.every((c) => c.state === 'waited'))
    return {
      outcome: null,
      facts: { ...base, failed: failed.length, waitedPastBound: failed.length },
      reason: `${failed.length} of ${clients.length} transactions got no answer within the bound, and none was refused: no answer is neither a refusal nor a turn in a queue (${failedStep(unanswered.failure)})`,
    };
  if (failed.length > 0) {
    return {
      outcome: 'rejected',
      facts: { ...base, failed: failed.length, rejectedWith: errorSummary(failed) },
      reason: `${failed.length} of ${clients.length} transactions failed: ${errorSummary(failed)}`,
    };
  }
  const runs = clients
    .map((c) => c.work[0]!)
    .map((s) => ({
      pid: s.pid,
      began: numberOf(s, 'began'),
      ended: numberOf(s, 'ended'),
      sleepMs: numberOf(s, 'sleep_ms'),
    }));
  if (runs.some((r) => r.began === null || r.ended === null || r.sleepMs === null)) {
    return { outcome: null, facts: base, reason: 'a transaction did not report its start and end' };
  }
  const sleepMs = runs[0]!.sleepMs!;
  const first = Math.min(...runs.map((r) => r.began!));
  const offsets = runs.map((r) => Math.round(r.began! - first)).sort((x, y) => x - y);
  const waited = offsets.filter((o) => o >= sleepMs / 2).length;
  const facts = {
    ...base,
    backends: new Set(runs.map((r) => r.pid)).size,
    peakConcurrent: peakOverlap(runs.map((r) => [r.began!, r.ended!] as const)),
    waited,
    maxWaitMs: offsets[offsets.length - 1]!,
    rounds: rounds(offsets, sleepMs),
    expectedRounds: discovery.poolSize ? Math.ceil(clients.length / discovery.poolSize) : 1,
    startOffsetsMs: offsets.join(','),
  };
  const late = runs.filter((r) => r.began! - first >= sleepMs / 2);
  const strayed = late.find((r) => !runs.some((o) => o !== r && o.pid === r.pid && o.began! < r.began!));
  if (strayed)
    return {
      outcome: null,
      facts,
      reason: `a transaction started ${Math.round(strayed.began! - first)} ms late on backend ${String(strayed.pid)}, which no earlier transaction had used: it waited for something other than a backend (a stalled network?), not in a queue`,
    };
  if (waited === 0)
    return {
      outcome: 'unlimited',
      facts,
      reason: `all ${clients.length} transactions ran at once on ${facts.backends} backends`,
    };
  return {
    outcome: 'queued',
    facts,
    reason: `all ${clients.length} succeeded; ${waited} waited for a backend, up to ${facts.maxWaitMs} ms, in ${facts.rounds} rounds on ${facts.backends} backends`,
  };
}

/** Most intervals open at one instant. */
function peakOverlap(intervals: ReadonlyArray<readonly [number, number]>): number {
  const edges = intervals
    .flatMap(
      ([b, e]) =>
        [
          [b, 1],
          [e, -1],
        ] as const,
    )
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let open = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (open += d));
  return peak;
}

/** Groups of starts, a new group wherever a start comes half a transaction after the previous one. */
function rounds(sortedOffsets: readonly number[], sleepMs: number): number {
  return sortedOffsets.reduce((n, o, i) => (i > 0 && o - sortedOffsets[i - 1]! >= sleepMs / 2 ? n + 1 : n), 1);
}
