/**
 * notify/listen: does a NOTIFY reach the client that ran LISTEN, and only that client?
 *
 *   A:  SELECT pg_backend_pid() AS pid; LISTEN <ch>                            -- backend b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid                               -- lands on b1, never listened
 *   N:  SELECT pg_backend_pid() AS pid; NOTIFY <ch>, '<payload>'               -- a third client
 *   O:  COMMIT                          -- b1 delivers pending notifications when it goes idle
 *   A:  SELECT pg_backend_pid() AS pid  -- A's next transaction, a chance for delivery to A
 *   (wait up to the wait bound for notifications on every session)
 *
 * The observer cannot clean up inside its take here (UNLISTEN before the NOTIFY would hide the
 * misrouting), so A's old backend is cleaned afterwards by landing on it once more.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { unseen, unseenReason } from '../../engine/judging/absence.js';
import { errorText, markerOf, sqlError, stepOf } from '../../engine/record/step-reading.js';
import { markersFor } from '../../engine/record/markers.js';
import { dismiss, landingHoldMs } from '../../engine/steering/holders.js';
import { cleanOn } from '../../engine/steering/clean-on.js';
import { landOn } from '../../engine/steering/land-on.js';
import { cleanupBlock } from '../../engine/steering/state-scenario.js';
import { LAND_ON_A, LANDING_TAGS } from '../../engine/record/tags.js';
import type { Scenario } from '../../engine/steering/scenario.js';
import type { Judgement, StepRecord } from '../../engine/types.js';

/** The third client's NOTIFY: this check's own step (the shared ones are LANDING_TAGS). */
const NOTIFY_TAG = 'N.notify';

/** A session's wait for notifications after the NOTIFY. */
function waitTag(label: string): string {
  return `${label}.wait`;
}

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  delivered: { means: 'the notification reached the listener' },
  misrouted: {
    means: 'the notification reached a client that never listened',
    advice:
      'LISTEN on a direct (or session-pooled) connection: through transaction pooling the listening backend is shared and its notifications go to whichever client holds it.',
  },
  dropped: {
    means: 'the notification reached nobody',
    advice:
      'LISTEN on a direct (or session-pooled) connection: the pooler does not deliver notifications to the listening client.',
  },
  rejected: {
    means: 'LISTEN was refused',
    advice: 'The pooler refuses LISTEN: listen on a direct connection.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const listen = defineCheck({
  id: 'notify/listen',
  title: 'a NOTIFY reaches the client that listens, and nobody else',
  severity: 'correctness',
  docs: ['https://www.pgbouncer.org/features.html (LISTEN: never in transaction pooling; NOTIFY: yes)'],
  summary: 'LISTEN on one client, NOTIFY from another: who receives it',
  outcomes: OUTCOMES,
  flags: ['timing-dependent'],
  uses: LAND_ON_A,
  decisive: [{ has: 'notification' }], // whoever got the NOTIFY: O1 (misrouted) or A (delivered)
  audit: {
    statement: 'LISTEN',
    consequence: 'notifications go to whoever holds that backend, or to nobody (dropped)',
    priority: 50,
    claims: { statements: { state: ['LISTEN'], cleanup: ['UNLISTEN'] } },
  },
  async scenario(scn) {
    const m = markersFor(scn.ctx.runId, this.id);
    const unlisten = `UNLISTEN ${m.channel};`;
    scn.recordMarkers({ channel: m.channel, payload: m.tag });
    const a = await scn.open('A');
    const listened = await a.run(LANDING_TAGS.create, `SELECT pg_backend_pid() AS pid; LISTEN ${m.channel}`);
    if (listened.error || listened.pid === null) return;
    const b1 = listened.pid;
    const landing = await landOn(scn, b1, {
      statements: [],
      releaseBy: 'wait',
      holdMs: landingHoldMs(scn.discovery),
    });
    await dismiss(landing.others);
    const n = await scn.open('N');
    await n.run(NOTIFY_TAG, `SELECT pg_backend_pid() AS pid; NOTIFY ${m.channel}, '${m.tag}'`);
    await landing.observer?.release(LANDING_TAGS.release);
    await a.run(LANDING_TAGS.readback, 'SELECT pg_backend_pid() AS pid');
    // Once another session has the notification the outcome is `misrouted` whatever comes
    // later, so b1's UNLISTEN need not wait for A's short wait: they go together. While nobody
    // has it, the wait comes first, so that nothing else lands on b1 until it ends.
    const elsewhere = deliveredElsewhere(scn, m.channel);
    // Settled here and thrown below, in order: a login of its that fails while A waits must
    // not be a rejection nobody handles.
    const cleaned =
      elsewhere && landing.observer
        ? cleanOn(scn, b1, unlisten).then(
            () => null,
            (err: unknown) => ({ err }),
          )
        : null;
    await a.collectNotifications(waitTag('A'), listenerWaitMs(scn, elsewhere));
    for (const s of [landing.observer?.session, n]) await s?.collectNotifications(waitTag(s.label), 0);
    if (cleaned) {
      const failed = await cleaned;
      if (failed) throw failed.err;
    } else if (landing.observer) await cleanOn(scn, b1, unlisten);
    await a.run(LANDING_TAGS.cleanup, cleanupBlock(unlisten));
  },
  judge: judgeListen,
  evidence: (j) => j.reason,
});

/** Whether a session other than A has received a notification on `channel`. */
function deliveredElsewhere(scn: Scenario, channel: string): boolean {
  return scn.steps.some(
    (s) =>
      s.session !== 'A' && s.notifications.some((n) => n.channel === channel.toLowerCase() || n.channel === channel),
  );
}

/**
 * How long A waits for its notification. Nobody has it yet: the whole wait bound, since "nobody
 * got it" (`dropped`) is a negative that only the bound proves. Another session already got it
 * (the observer, with its COMMIT): the outcome is `misrouted` whatever A sees, and Postgres
 * delivers a notification once per listening backend, so A could only get it from a pooler
 * that copies it; for that, a few round trips after A's own next transaction are plenty (the
 * copy would travel like any other message on A's connection), with a floor for timer noise.
 */
function listenerWaitMs(scn: Scenario, elsewhere: boolean): number {
  return elsewhere ? Math.min(scn.waitMs, Math.max(25, Math.round(4 * scn.discovery.rttMs))) : scn.waitMs;
}

/**
 * - LISTEN failed with an SQLSTATE: `rejected`.
 * - The NOTIFY failed, or never ran: inconclusive.
 * - Any session other than A received the payload: `misrouted`.
 * - A received it: `delivered`.
 * - Nobody did: `dropped`, provided every step after the NOTIFY that would have carried it was
 *   answered (see `carriers`); one that timed out or failed leaves it inconclusive.
 */
export function judgeListen(steps: readonly StepRecord[]): Judgement<Label> {
  const listen = stepOf(steps, LANDING_TAGS.create);
  if (sqlError(listen))
    return {
      outcome: 'rejected',
      facts: { rejectedWith: errorText(listen) },
      reason: `LISTEN was refused: ${errorText(listen)}`,
    };
  if (!listen || listen.error || listen.pid === null)
    return { outcome: null, facts: {}, reason: `A could not LISTEN: ${errorText(listen) ?? 'no pid'}` };
  const notify = stepOf(steps, NOTIFY_TAG);
  if (!notify || notify.error)
    return { outcome: null, facts: {}, reason: `the NOTIFY failed: ${errorText(notify) ?? 'not sent'}` };
  const channel = markerOf(steps, 'channel');
  const receivers = new Map<string, number>();
  for (const s of steps) {
    for (const n of s.notifications) if (n.channel === channel) receivers.set(s.session, s.pid ?? -1);
  }
  const wrong = [...receivers.keys()].filter((label) => label !== 'A');
  const facts = {
    listenerBackend: listen.pid,
    notifierBackend: notify.pid,
    listenerReceived: receivers.has('A'),
    receivedBy: [...receivers.keys()].join(',') || null,
  };
  if (wrong.length > 0)
    return {
      outcome: 'misrouted',
      facts,
      reason: `the notification reached ${wrong.join(', ')}, which never listened${receivers.has('A') ? ' (and A)' : ''}; A listened on backend ${listen.pid}`,
    };
  if (receivers.has('A'))
    return { outcome: 'delivered', facts, reason: `A received the notification sent from backend ${notify.pid}` };
  const missed = unseen(carriers(steps, listen.pid, notify.seq));
  if (missed) return { outcome: null, facts, reason: unseenReason('dropped', missed) };
  return { outcome: 'dropped', facts, reason: 'nobody received the notification within the wait bound' };
}

/**
 * The steps after the NOTIFY that would have carried the notification to a client: A's next
 * transaction and its wait, and, when an observer held A's old backend, that observer's COMMIT
 * (b1 delivers when it goes idle) and its wait. "Nobody received it" stands only when each of
 * them was answered: a stalled pooler leaves them unanswered, and then nothing arrives either.
 */
function carriers(
  steps: readonly StepRecord[],
  b1: number,
  after: number,
): Array<readonly [string, StepRecord | undefined]> {
  const later = (tag: string): StepRecord | undefined => steps.find((s) => s.tag === tag && s.seq > after);
  const looks: Array<readonly [string, StepRecord | undefined]> = [
    [LANDING_TAGS.readback, later(LANDING_TAGS.readback)],
    [waitTag('A'), later(waitTag('A'))],
  ];
  // Timed out or not: a candidate that reached b1 holds it, and b1 delivers only once it lets go.
  const observer = steps.find((s) => s.tag === LANDING_TAGS.observe && s.pid === b1 && s.seq < after);
  if (observer) {
    const mine = (tag: string): StepRecord | undefined =>
      steps.find((s) => s.session === observer.session && s.tag === tag && s.seq > after);
    looks.push([`${observer.session} ${LANDING_TAGS.release}`, mine(LANDING_TAGS.release)]);
    looks.push([waitTag(observer.session), mine(waitTag(observer.session))]);
  }
  return looks;
}
