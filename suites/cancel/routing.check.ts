/**
 * cancel/routing: does a cancel request stop the query it names, and only that one?
 *
 *   A:  SET LOCAL statement_timeout = '<net>'; SELECT pg_backend_pid() AS pid; <flush>;
 *       SELECT pg_sleep(<long>)                                                   -- backend a
 *   B:  SET LOCAL statement_timeout = '<net>'; SELECT pg_backend_pid() AS pid; <flush>;
 *       SELECT pg_sleep(<short>)                                                  -- backend b, not a
 *   (both pids have arrived, so both queries are running)
 *   X:  CancelRequest with A's BackendKeyData, on a new connection to the target
 *   (A and B end; both disconnect; the cancel connection is awaited until the target closes it)
 *
 * Behind a pooler the key is the pooler's, not the backend's: the pooler must map it to the
 * server A is linked to. Both sleeps end by themselves within a second or two; the
 * transaction-local statement_timeout (the net) ends them even if pg_sleep were interrupted and
 * restarted. The cancel connection is awaited after A and B leave because a pooler with no
 * free process reads it late (pgpool-II): by then A's backend is idle, where Postgres ignores
 * a cancel, instead of running some later client's query.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { boolOf, errorText, numberOf, stepOf } from '../../engine/record/step-reading.js';
import { sendCancelRequest } from '../../engine/session/cancel.js';
import { startLongStatement } from '../../engine/steering/long-statement.js';
import { within } from '../../engine/record/time.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  aSlow: 'A.slow',
  bSlow: 'B.slow',
  send: 'cancel.send',
} as const;

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  routed: { means: "the cancel stopped the client's own query and the other client's completed" },
  misrouted: {
    means: "the cancel stopped another client's query",
    advice:
      "A cancel stopped another client's query: do not rely on cancel through this pooler (use statement_timeout), and report it to the pooler.",
  },
  ignored: {
    means: 'neither query was cancelled: client-side cancels and timeouts stop working',
    advice:
      'Cancels through this target do not stop the query (pgpool-II needs a free child process to read one): bound queries with SET LOCAL statement_timeout instead of relying on client-side cancel, and keep spare capacity (num_init_children above your client count).',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const routing = defineCheck({
  id: 'cancel/routing',
  title: "a cancel request stops the query it names and leaves other clients' queries alone",
  severity: 'availability',
  docs: [
    'https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-CANCELING-REQUESTS',
    'https://www.pgbouncer.org/config.html#cancel_wait_timeout (cancels are forwarded to the server the client is linked to)',
    'https://www.pgpool.net/docs/latest/en/html/managing-client-connections.html (with every child busy, a new connection - a cancel request too - waits for a free one)',
  ],
  summary: "a CancelRequest with A's key while A and B both run slow queries: whose query stops",
  outcomes: OUTCOMES,
  flags: ['timing-dependent'],
  leavesNoState: 'its sessions only sleep and read the backend pid, under a SET LOCAL that ends with the transaction',
  async scenario(scn) {
    const { shortMs, longMs } = sleepsFor(scn.discovery);
    const net = `SET LOCAL statement_timeout = '${longMs + 1000}ms'`;
    const a = await scn.open('A');
    const b = await scn.open('B');
    const aRun = startLongStatement(
      a,
      TAGS.aSlow,
      [net, 'SELECT pg_backend_pid() AS pid'],
      longMs,
      longMs + scn.ctx.bounds.stepMs,
    );
    const bRun = startLongStatement(
      b,
      TAGS.bSlow,
      [net, 'SELECT pg_backend_pid() AS pid'],
      shortMs,
      shortMs + scn.ctx.bounds.stepMs,
    );
    const both = await within(Promise.all([aRun.pid, bRun.pid]), scn.waitMs + longMs, null);
    const key = a.cancelKey;
    const running = both !== null && both[0] !== null && both[1] !== null;
    const sentAt = scn.recorder.now();
    const cancel =
      running && key ? sendCancelRequest(scn.ctx.target, key.processId, key.secretKey, longMs + 2 * scn.waitMs) : null;
    await Promise.all([aRun.done, bRun.done]);
    await Promise.all([a.close(), b.close()]);
    if (!cancel || !key) {
      scn.note('X', TAGS.send, '(no cancel sent)', {
        error: running ? 'the target sent no BackendKeyData' : 'A and B were not both running',
      });
      return;
    }
    const delivery = await cancel;
    scn.note('X', TAGS.send, `CancelRequest(${key.processId}, <secret>)`, {
      startMs: sentAt,
      facts: {
        written: delivery.written,
        closed_after_ms: delivery.closedByPeer ? delivery.ms : null,
        written_after_ms: delivery.writtenMs,
        b_sleep_ms: shortMs,
      },
    });
  },
  judge: judgeCancelRouting,
});

/**
 * B's sleep must outlast the time a cancel needs to travel through the pooler (a new TCP
 * connection to it, and from it to the server), so a misrouted one would still find B running;
 * A's sleep is longer, so "A ran to the end" is unambiguous.
 *
 * The request is written about one round trip after B's sleep began (B's pid has to come back
 * first) and reaches the server half a round trip and the pooler's own hop later: a fraction
 * of a login, which is a TCP connection and several exchanges more. So three logins' worth,
 * and ten round trips, leave B's sleep running several times longer than any cancel can take
 * to arrive, and 300 ms covers a busy machine on loopback. (Five logins and twenty round trips
 * were more margin than the proof needs: at a 20 ms round trip they cost the check 150 ms,
 * at 80 ms most of a second.) Longer than the client's own bound (2 s): not worth waiting for.
 */
export function sleepsFor(d: Pick<Discovery, 'connectLatencyMs' | 'rttMs'>): { shortMs: number; longMs: number } {
  const shortMs = Math.min(2000, Math.max(300, 3 * d.connectLatencyMs, 10 * d.rttMs));
  return { shortMs, longMs: shortMs + 200 };
}

/** SQLSTATE 57014 from a cancel request (a statement_timeout raises 57014 too, with another message). */
function cancelledByRequest(s: StepRecord | undefined): boolean {
  return s?.error?.code === '57014' && /user request/i.test(s.error.message);
}

/**
 * - A or B has no pid, or both ran on the same backend, or no cancel was written: inconclusive.
 * - B's query was cancelled: `misrouted` (whatever happened to A).
 * - A's query was cancelled and B's completed: `routed`.
 * - Both completed without error: `ignored`, provided the request was written while B's sleep
 *   was certainly still running (before B's start plus its sleep, on the client's clock: the
 *   server began the sleep after that start). Written later - a busy machine that connected
 *   late - it could not have stopped either query, nor shown a misrouting: inconclusive.
 * - Either query timed out or failed otherwise (the safety net firing): inconclusive.
 */
export function judgeCancelRouting(steps: readonly StepRecord[]): Judgement<Label> {
  const a = stepOf(steps, TAGS.aSlow);
  const b = stepOf(steps, TAGS.bSlow);
  const sent = stepOf(steps, TAGS.send);
  const closedAfter = numberOf(sent, 'closed_after_ms');
  const writtenAt = writtenAtMs(sent);
  const bSleepMs = numberOf(sent, 'b_sleep_ms');
  const facts = {
    aBackend: a?.pid ?? null,
    bBackend: b?.pid ?? null,
    aCancelled: cancelledByRequest(a),
    bCancelled: cancelledByRequest(b),
    cancelWritten: boolOf(sent, 'written'),
    cancelConnectionClosedAfterMs: closedAfter,
    // Past B's earliest possible end, in ms (negative: before it); null when not recorded.
    cancelWrittenAfterBEndMs:
      writtenAt === null || bSleepMs === null || !b ? null : Math.round(writtenAt - (b.startMs + bSleepMs)),
  };
  if (!a || !b || a.pid === null || b.pid === null)
    return {
      outcome: null,
      facts,
      reason: `A and B did not both report a backend: ${errorText(a) ?? errorText(b) ?? 'no pid'}`,
    };
  if (a.pid === b.pid) return { outcome: null, facts, reason: `A and B ran on the same backend ${a.pid}` };
  if (!sent || facts.cancelWritten !== true)
    return { outcome: null, facts, reason: `no cancel request was sent: ${errorText(sent) ?? 'missing'}` };
  if (facts.bCancelled)
    return {
      outcome: 'misrouted',
      facts,
      reason: `A's cancel request stopped B's query on backend ${b.pid}${facts.aCancelled ? " (and A's)" : ''}`,
    };
  const odd = [a, b].find((s) => s.timedOut || (s.error !== null && !cancelledByRequest(s)));
  if (odd)
    return {
      outcome: null,
      facts,
      reason: `${odd.session}'s slow query ended abnormally: ${errorText(odd) ?? 'no answer within its bound'}`,
    };
  if (facts.aCancelled)
    return {
      outcome: 'routed',
      facts,
      reason: `A's query on backend ${a.pid} was cancelled (57014); B's on backend ${b.pid} completed`,
    };
  if (facts.cancelWrittenAfterBEndMs !== null && facts.cancelWrittenAfterBEndMs >= 0)
    return {
      outcome: null,
      facts,
      reason: `neither query was cancelled, but the cancel request was written ${facts.cancelWrittenAfterBEndMs} ms after B's sleep could have ended: too late to tell an ignored cancel from one that found nothing to stop`,
    };
  // Postgres and PgBouncer close the cancel connection once they have read it; pgpool-II
  // reads it only when a child process is free, and leaves it open.
  const closed =
    closedAfter === null
      ? 'the target never closed the cancel connection'
      : `the target closed the cancel connection after ${closedAfter} ms`;
  return {
    outcome: 'ignored',
    facts,
    reason: `neither query was cancelled; A's ran its full ${a.durationMs} ms; ${closed}`,
  };
}

/** When the request was handed to the socket, on the record's clock (null in records made before it was kept). */
function writtenAtMs(sent: StepRecord | undefined): number | null {
  const after = numberOf(sent, 'written_after_ms');
  return sent && after !== null ? sent.startMs + after : null;
}
