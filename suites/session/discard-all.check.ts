/**
 * session/discard-all: does a client's own `DISCARD ALL` (or `RESET ALL`) clear the state it
 * set earlier? Frameworks send it to "clean the connection" on checkout or checkin. Behind
 * transaction pooling it resets whichever backend the statement lands on: not necessarily
 * the one holding the client's state, and possibly one holding another client's.
 *
 *   phase `discard` (then phase `reset`, with `SELECT pg_backend_pid() AS pid; RESET ALL`):
 *   A:  SELECT pg_backend_pid() AS pid; SET app.tenant_id = '<marker>'           -- backend b1
 *   H:  [BEGIN;] SELECT pg_backend_pid() AS pid         -- candidates until one holds b1
 *   A:  DISCARD ALL                             -- alone: it refuses to run in a transaction
 *   A:  SELECT pg_backend_pid() AS pid, coalesce(current_setting('app.tenant_id', true), '') AS mine
 *   H:  (lets b1 go, disconnects)
 *   L:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                 -- lands on b1
 *       SELECT coalesce(current_setting('app.tenant_id', true), '') AS seen
 *
 * The holders are the landing on A's old backend the engine knows how to prove (tag
 * `observe.take`: when nobody could hold b1, the record must show the pooler kept it for A);
 * the later look at b1 is a second landing (`look.take`).
 *
 * Labels (worst first when the phases differ):
 * - `missed`: A's reset ran while another client held b1 (so on some other backend), and
 *   afterwards the next client on b1 still saw A's state.
 * - `ignored`: A's reset ran on b1 itself (A kept its backend) and A still had the state.
 * - `rejected`: the pooler or server refused the statement.
 * - `reset`: afterwards nobody saw A's state: not A on its own backend, not the next client on
 *   b1 (whoever reset it; the facts say where A's reset ran).
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { answered, errorText, markerOf, refused, stepOf, stepsOf, valueOf } from '../../engine/record/step-reading.js';
import { phaseSteps, worstOf } from '../../engine/judging/phases.js';
import { candidatesExhausted } from '../../engine/judging/state-judge.js';
import { markersFor } from '../../engine/record/markers.js';
import { dismiss } from '../../engine/steering/holders.js';
import { landOn } from '../../engine/steering/land-on.js';
import type { Scenario } from '../../engine/steering/scenario.js';
import { cleanupBlock } from '../../engine/steering/state-scenario.js';
import { LAND_ON_A, LANDING_TAGS, releaseTagFor } from '../../engine/record/tags.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  reset: 'A.reset',
} as const;

const READ = `coalesce(current_setting('app.tenant_id', true), '')`;
const PHASES: Array<[phase: string, statement: string]> = [
  ['discard', 'DISCARD ALL'],
  ['reset', 'SELECT pg_backend_pid() AS pid; RESET ALL'],
];

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  reset: { means: "afterwards nobody saw the client's state" },
  missed: {
    means: 'the reset ran on another backend, and the state stayed on the old one for the next client',
    advice:
      "DISCARD ALL and RESET ALL reset the server connection the statement lands on, not the one holding your earlier state (and perhaps someone else's): keep state transaction-scoped (SET LOCAL, set_config(..., true)) instead of cleaning up after it.",
  },
  ignored: {
    means: "the reset was acknowledged on the client's own backend and the state is still there",
    advice:
      'The pooler acknowledged the reset without resetting the session: keep state transaction-scoped (SET LOCAL, set_config(..., true)).',
  },
  rejected: {
    means: 'the reset was refused',
    advice:
      'The pooler refuses DISCARD ALL / RESET ALL: keep state transaction-scoped so that there is nothing to reset.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const discardAll = defineCheck({
  id: 'session/discard-all',
  title: "a client's own DISCARD ALL / RESET ALL clears the state it set",
  severity: 'correctness',
  docs: [
    'https://www.postgresql.org/docs/current/sql-discard.html (resets the current session)',
    'https://www.pgbouncer.org/features.html (SET/RESET: never in transaction pooling)',
  ],
  summary: "the client's own `DISCARD ALL` / `RESET ALL`: does it clear the client's state",
  outcomes: OUTCOMES,
  uses: LAND_ON_A,
  async scenario(scn) {
    const tag = markersFor(scn.ctx.runId, this.id).tag;
    for (const [phase, statement] of PHASES) await runPhase(scn, phase, statement, `${tag}-${phase}`);
  },
  judge(steps, discovery) {
    const phases = PHASES.map(([phase]) => ({ phase, judgement: judgePhase(phaseSteps(steps, phase), discovery) }));
    return worstOf(phases, ['missed', 'ignored', 'rejected', 'reset']);
  },
});

async function runPhase(scn: Scenario, phase: string, statement: string, value: string): Promise<void> {
  const t = (tag: string): string => `${phase}:${tag}`;
  const cleanup = `IF ${READ} = '${value}' THEN RESET app.tenant_id; END IF;`;
  scn.recordMarkers({ value }, phase);
  const a = await scn.open('A');
  const created = await a.run(t(LANDING_TAGS.create), `SELECT pg_backend_pid() AS pid; SET app.tenant_id = '${value}'`);
  if (created.error || created.pid === null) return;
  const b1 = created.pid;
  // Hold b1 so that A's reset must run wherever else the pooler sends it. The holder carries
  // no state, so under statement pooling it may be let go by a cancel.
  const hold = await landOn(scn, b1, { prefix: 'H', tag: t(LANDING_TAGS.observe) });
  await dismiss(hold.others);
  await a.run(t(TAGS.reset), statement);
  await a.run(t(LANDING_TAGS.readback), `SELECT pg_backend_pid() AS pid, ${READ} AS mine`);
  await dismiss([hold.observer]);
  if (hold.observer) {
    const look = await landOn(scn, b1, {
      prefix: 'L',
      tag: t(LANDING_TAGS.look),
      probe: false,
      statements: [`SELECT ${READ} AS seen`, cleanupBlock(cleanup, b1)],
      releaseBy: 'wait',
      holdMs: 100,
    });
    // The look's own take cleaned b1, so A's cleanup (wherever it lands) need not wait for the
    // look to let b1 go: at a distance, one round trip fewer per phase.
    await Promise.all([
      dismiss([look.observer, ...look.others]),
      a.run(t(LANDING_TAGS.cleanup), cleanupBlock(cleanup)),
    ]);
  } else await a.run(t(LANDING_TAGS.cleanup), cleanupBlock(cleanup));
  await a.close();
}

/**
 * One phase, in order:
 * - A's state not created: inconclusive. A's reset refused: `rejected`; unanswered: inconclusive.
 * - A's readback unanswered or without pid (b2): inconclusive.
 * - A holder sat on b1 while A's reset ran (by record order, or a long statement's timing):
 *   b2 = b1 is a contradiction (inconclusive); the next client on b1 saw the state: `missed`;
 *   did not: `reset`; nobody got on b1 afterwards: inconclusive.
 * - Nobody could hold b1 (candidates queued or exhausted, or direct) and A stayed on it: A
 *   still has the state: `ignored`; not: `reset`. Otherwise inconclusive.
 */
export function judgePhase(steps: readonly StepRecord[], discovery: Discovery): Judgement<Label> {
  const create = stepOf(steps, LANDING_TAGS.create);
  if (!create || create.error || create.pid === null)
    return { outcome: null, facts: {}, reason: `A could not set its state: ${errorText(create) ?? 'no pid'}` };
  const b1 = create.pid;
  const value = markerOf(steps, 'value');
  const reset = stepOf(steps, TAGS.reset);
  if (refused(reset))
    return {
      outcome: 'rejected',
      facts: { rejectedWith: errorText(reset) },
      reason: `the reset was refused: ${errorText(reset)}`,
    };
  if (!answered(reset) || reset.error)
    return {
      outcome: null,
      facts: { aBackend: b1 },
      reason: `A's reset did not answer: ${errorText(reset) ?? 'missing'}`,
    };
  const readback = stepOf(steps, LANDING_TAGS.readback);
  if (!answered(readback) || readback.error || readback.pid === null)
    return {
      outcome: null,
      facts: { aBackend: b1 },
      reason: `A's next statement did not answer: ${errorText(readback) ?? 'no pid'}`,
    };
  const b2 = readback.pid;
  const holder = stepsOf(steps, LANDING_TAGS.observe).find((h) => h.pid === b1 && !h.timedOut);
  // The holder's own release: a candidate that landed elsewhere (Odyssey hands out the other
  // backend first) was released earlier, and its COMMIT says nothing about b1.
  const release = holder
    ? steps.find((s) => s.tag === releaseTagFor(LANDING_TAGS.observe) && s.session === holder.session)
    : undefined;
  // Inside BEGIN the hold ends with the recorded COMMIT; a long statement is recorded when it
  // ends, so its timing must cover A's reset.
  const heldDuringReset = !holder
    ? false
    : release
      ? holder.seq < reset.seq && reset.seq < release.seq
      : holder.startMs <= reset.startMs && reset.startMs + reset.durationMs <= holder.startMs + holder.durationMs;
  const observer = stepsOf(steps, LANDING_TAGS.look).find((o) => o.pid === b1 && !o.timedOut);
  const seen = valueOf(observer, 'seen');
  const facts = {
    aBackend: b1,
    aNextBackend: b2,
    oldBackendHeldDuringReset: heldDuringReset,
    aStillHasState: valueOf(readback, 'mine') === value,
    otherSawState: typeof seen === 'string' ? seen === value : null,
  };
  if (holder) {
    if (!facts.oldBackendHeldDuringReset)
      return { outcome: null, facts, reason: `A's reset did not run while backend ${b1} was held` };
    if (b2 === b1)
      return { outcome: null, facts, reason: `A's next statement ran on backend ${b1} while another client held it` };
    if (facts.otherSawState === null)
      return { outcome: null, facts, reason: `nobody looked at backend ${b1} after A's reset` };
    if (facts.otherSawState)
      return {
        outcome: 'missed',
        facts,
        reason: `A's reset ran while another client held backend ${b1} (A was next seen on ${b2}); ${observer?.session ?? 'another client'} then found A's state on ${b1}`,
      };
    return {
      outcome: 'reset',
      facts,
      reason: `backend ${b1} was clean after A's reset, which ran while another client held it (A was next seen on ${b2})`,
    };
  }
  if (b2 !== b1)
    return {
      outcome: null,
      facts,
      reason: `A moved from backend ${b1} to ${b2}, but nobody held ${b1} during its reset`,
    };
  if (!candidatesExhausted(steps, discovery))
    return {
      outcome: null,
      facts,
      reason: `A stayed on backend ${b1}, and nothing proves that no other client could use it`,
    };
  if (facts.aStillHasState)
    return { outcome: 'ignored', facts, reason: `A's reset ran on its own backend ${b1} and A still had its state` };
  return { outcome: 'reset', facts, reason: `A's reset ran on its own backend ${b1} and cleared the state` };
}
