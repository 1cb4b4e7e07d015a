/**
 * The judges of a driver run: pure functions over the record (driver-scenario.ts), one per
 * phase. Labels:
 *
 * | label | meaning |
 * |---|---|
 * | `works` | the driver's query answered on the backend steering put it on, with no server error |
 * | `retried` | it answered, but only because the driver retried after a server error it received (seen in the driver's own log, or in the server's log on the backend the step ran on) |
 * | `failed` | the driver raised the server's error (26000 "does not exist", 42P05 "already exists", ...) to the application |
 *
 * No label (inconclusive) when the landing the label rests on is not in the record: A's warm-up
 * runs on one backend b1, then A's next use on another backend (moved), B's runs on b1 (collision).
 * Where every connection keeps a backend of its own (direct, session pooling), the landing
 * record proves no other client could use b1, and staying there is `works`.
 */
import { stepOf, stepsOf } from '../engine/record/step-reading.js';
import { readLanding, sharesBackends } from '../engine/judging/landing.js';
import type { Discovery, Facts, Judgement, StepRecord } from '../engine/types.js';
import { hiddenErrors } from './hidden-errors.js';
import { judgeBatch } from './judge-batch.js';
import { judgeMigration } from './migration-judge.js';
import { DRIVER_SCENARIOS, DRIVER_TAGS, isInPhase, isPhaseless, phasePrefix, type DriverScenarioId } from './tags.js';

// The phases are defined with their tags (tags.ts); readers of the judges import them from here too.
export { DRIVER_SCENARIOS, type DriverScenarioId } from './tags.js';
export { hiddenErrors } from './hidden-errors.js';

export const DRIVER_OUTCOMES: Record<string, { means: string; breaks: boolean }> = {
  works: { means: 'answered on the backend steering put it on, with no server error', breaks: false },
  retried: {
    means: "answered only because the driver retried after a server error (seen in its own log or the server's)",
    breaks: false,
  },
  failed: { means: "the application got the server's error from the driver", breaks: true },
  stalled: {
    means: 'a batch got no answer within the step bound (the agent was killed; the facts say how long pooltest waited)',
    breaks: true,
  },
  split: {
    means: "one transaction's batch ran on more than one backend or in more than one transaction",
    breaks: true,
  },
};

/**
 * The steps of one scenario, as its vetoes (vetoes.ts) and diagrams read them: its own phase, the configuration's steps without a
 * phase (connect, close, engine notes), and, for the collision, A's first use it compares with.
 * An outage in the cursor phase says nothing about the moved phase that ran before it.
 */
export function phaseSteps(steps: readonly StepRecord[], scenario: DriverScenarioId): StepRecord[] {
  return steps.filter(
    (s) =>
      isPhaseless(s.tag) ||
      isInPhase(s.tag, scenario) ||
      (scenario === 'collision' && s.tag === DRIVER_TAGS.moved.create),
  );
}

function runs(step: StepRecord | undefined): Array<Record<string, unknown>> {
  return step?.results[0] ?? [];
}

function pidsOf(step: StepRecord | undefined): Array<number | null> {
  return runs(step).map((r) => (typeof r.pid === 'number' ? r.pid : null));
}

function none(facts: Facts, reason: string): Judgement {
  return { outcome: null, facts, reason };
}

/** The backend every run of a warm-up step ran on, or why there is none. */
function oneBackend(step: StepRecord | undefined, what: string): number | string {
  if (!step) return `${what} did not run`;
  if (step.timedOut) return `${what} did not answer within its bound`;
  const pids = pidsOf(step);
  if (pids.length === 0 || pids.some((p) => p === null)) return `${what} has runs without a backend pid`;
  const distinct = new Set(pids);
  if (distinct.size > 1) return `${what} ran on several backends (${[...distinct].join(', ')}): nothing was steered`;
  return pids[0] as number;
}

/** A failed step's SQLSTATE error is the application's failure, wherever it ran. */
function failure(step: StepRecord, facts: Facts, what: string): Judgement | null {
  if (!step.error) return null;
  if (step.error.code)
    return { outcome: 'failed', facts, reason: `${what} failed: ${step.error.code} ${step.error.message}` };
  return none(facts, `${what} failed without a server error: ${step.error.message}`);
}

/**
 * moved and cursor (each phase's tags in DRIVER_TAGS): A's use after the move.
 * - A's first step failed with an SQLSTATE: `failed` (the driver fails even unsteered).
 * - A's first step ran on several backends, or has no pids: inconclusive.
 * - A's next use failed with an SQLSTATE: `failed`.
 * - A's next use answered on another backend: `retried` when the driver's log shows a server
 *   error during it, else `works`.
 * - It answered on b1: only where backends are not shared and the landing proves no other
 *   client could use b1 (direct, session pooling) does it count (`works`/`retried`); otherwise
 *   inconclusive.
 */
export function judgeMovedUse(
  steps: readonly StepRecord[],
  discovery: Discovery,
  scenario: 'moved' | 'cursor',
): Judgement {
  const tags = DRIVER_TAGS[scenario];
  const first = stepOf(steps, tags.create);
  const facts: Facts = {};
  // An error without SQLSTATE is the driver's own (pgpool-II answering psycopg's named-cursor
  // Describe in a way psycopg cannot read): said as it is, not as "runs without a pid".
  if (first?.timedOut) return none(facts, "A's first use did not answer within its bound (the agent was killed)");
  if (first?.error) return failure(first, facts, "A's first use") as Judgement;
  const b1 = oneBackend(first, "A's first use");
  if (typeof b1 === 'string') return none(facts, b1);
  facts.aBackend = b1;
  const next = stepOf(steps, tags.readback);
  if (!next) return none(facts, "A's next use did not run");
  if (next.timedOut) return none(facts, "A's next use did not answer within its bound");
  const observer = stepsOf(steps, tags.observe).find((t) => t.pid === b1 && !t.timedOut);
  facts.otherOnOldBackend = observer !== undefined;
  facts.aNextBackend = next.pid;
  const hidden = hiddenErrors(next);
  facts.hiddenServerErrors = hidden.length;
  if (hidden.length > 0) facts.hiddenError = hidden[0] ?? null;
  const failed = failure(next, facts, "A's next use");
  if (failed) return failed;
  if (scenario === 'moved' && runs(next)[0]?.answer !== 42) return none(facts, "A's next use gave no answer");
  const label = hidden.length > 0 ? 'retried' : 'works';
  const how = hidden.length > 0 ? `, after the driver received ${hidden[0]}` : '';
  if (next.pid === null) return none(facts, "A's next use read no backend pid");
  if (next.pid !== b1)
    return {
      outcome: label,
      facts,
      reason: `A's next use worked on backend ${next.pid}${how}; A's first ran on ${b1}`,
    };
  if (observer) return none(facts, `A's next use ran on backend ${b1} while another client held it`);
  // Where backends are shared between clients (transaction pooling), nothing keeps b1 for A: a
  // candidate that "queued" there was slow (a busy machine), not refused b1, and A staying on
  // b1 means the move did not happen. Seen on PgBouncer 1.25.2 at load 17: asyncpg's defaults
  // read `works` (A kept b1, "queue") where every quiet run fails.
  if (sharesBackends(discovery))
    return none(facts, `A's next use ran on its old backend ${b1} again: nothing was moved (backends are shared here)`);
  const landing = readLanding(steps, discovery, b1, phasePrefix(scenario));
  if (landing.reservedBy === null)
    return none(facts, `A stayed on backend ${b1}, and nothing proves that no other client could use it`);
  return { outcome: label, facts, reason: `A kept its own backend ${b1} (${landing.reservedBy})${how}` };
}

/**
 * collision: B (another process of the same driver) on A's old backend b1.
 * - A's first use failed: not run, inconclusive.
 * - B's runs failed with an SQLSTATE: `failed` (42P05 when A's name was still there).
 * - Every run of B answered on b1: `retried` when the driver's log shows a server error, else `works`.
 * - B ran elsewhere: `works` only where backends are not shared between clients (nobody can
 *   ever meet A's statements); otherwise inconclusive.
 */
export function judgeCollision(steps: readonly StepRecord[], discovery: Discovery): Judgement {
  const facts: Facts = {};
  const first = stepOf(steps, DRIVER_TAGS.moved.create);
  // The collision is run only after A's statement stands on b1 (driver-scenario.ts).
  if (first?.error)
    return none(
      facts,
      `not run: A's own first use failed (${`${first.error.code ?? ''} ${first.error.message}`.trim()})`,
    );
  const b1 = oneBackend(first, "A's first use");
  if (typeof b1 === 'string') return none(facts, b1);
  facts.aBackend = b1;
  const b = stepOf(steps, DRIVER_TAGS.collision.create);
  if (!b) {
    // A framework's login runs statements of its own (SQLAlchemy's dialect prepares them): the
    // error B's login met is said as it is. Where that login ran is not recorded, so no label.
    const refused = stepOf(steps, DRIVER_TAGS.collision.connect)?.error;
    const why = refused ? `: it could not connect (${`${refused.code ?? ''} ${refused.message}`.trim()})` : '';
    return none(facts, `B did not run${why}`);
  }
  if (b.timedOut) return none(facts, "B's runs did not answer within their bound");
  const pids = pidsOf(b);
  facts.bBackends = [...new Set(pids)].join(',');
  const hidden = hiddenErrors(b);
  facts.hiddenServerErrors = hidden.length;
  if (hidden.length > 0) facts.hiddenError = hidden[0] ?? null;
  const failed = failure(b, facts, `B (another process${b.pid !== null ? `, on backend ${b.pid}` : ''})`);
  if (failed) return failed;
  const label = hidden.length > 0 ? 'retried' : 'works';
  const how = hidden.length > 0 ? `, after the driver received ${hidden[0]}` : '';
  if (pids.length > 0 && pids.every((p) => p === b1))
    return { outcome: label, facts, reason: `B ran ${pids.length} times on A's old backend ${b1}${how}` };
  if (!sharesBackends(discovery))
    return {
      outcome: label,
      facts,
      reason: `B ran on its own backend (${facts.bBackends}): connections do not share backends here${how}`,
    };
  return none(facts, `B did not land on A's old backend ${b1} (it ran on ${facts.bBackends})`);
}

/** The phases a configuration's record holds steps of (what ran), in order. */
export function recordedPhases(steps: readonly StepRecord[]): DriverScenarioId[] {
  return DRIVER_SCENARIOS.filter((p) => steps.some((s) => isInPhase(s.tag, p)));
}

/** The judgement of each phase in `phases` from one driver configuration's record. */
export function judgeDriverRun(
  steps: readonly StepRecord[],
  discovery: Discovery,
  phases: readonly DriverScenarioId[],
): Partial<Record<DriverScenarioId, Judgement>> {
  const judges: Record<DriverScenarioId, () => Judgement> = {
    moved: () => judgeMovedUse(steps, discovery, 'moved'),
    collision: () => judgeCollision(steps, discovery),
    cursor: () => judgeMovedUse(steps, discovery, 'cursor'),
    batch: () => judgeBatch(steps, discovery),
    migration: () => judgeMigration(steps, discovery),
  };
  return Object.fromEntries(phases.map((p) => [p, judges[p]()]));
}
