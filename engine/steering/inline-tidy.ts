/**
 * The tidy-up after a check, done by the check's own last steps. After every check that can
 * leave state the engine visits every backend of the pool, counts what carries the check's
 * markers and removes it (sweep.ts, tidy): at a distance that is a round trip after every check,
 * on top of the check's own last one. The state scenario ends holding the pool's backends
 * anyway: the observer commits on A's old backend while A cleans up on the other. Where the
 * engine allows it (execute.ts), the tidy-up's statements ride at the end of those two
 * messages, and the engine's visits are skipped when the record shows they stood in for them:
 *
 * - they ran, without error, after every other step of the check through the target;
 * - on every backend the check's steps ran on, and on as many backends as the pool has.
 *
 * Otherwise (a pool wider than what the check held, a step that failed or timed out, A landing
 * on the backend the observer just left) the visits run as before, and what the inline
 * inspections found is reported either way. The statements are the tidy-up's own, on the
 * backend the step holds, after the check's own cleanup: the same reading, one round trip
 * earlier. The step records its own SQL with a note and its own answers; the tidy-up's answers
 * are kept apart (InlineVisit), as the visits' are. Transaction pooling only, with transaction
 * holders: a statement-strategy observer has no message to carry them.
 */
import type { Session } from '../session/session.js';
import { QUEUED_MESSAGE_MAX_BYTES, queryMessageBytes } from './holders.js';
import type { Scenario } from './scenario.js';
import type { StepRecord } from '../types.js';

/** One statement's rows. */
type Rows = Array<Record<string, unknown>>;

/** The column of the tidy-up's first statement: the backend it ran on. */
export const TIDY_PID = 'tidy_pid';

/**
 * Appended to the recorded SQL of a step that carried the tidy-up. Part of stored reports, so
 * kept as first recorded: the file it names is engine/sweep/visit-sql.ts now.
 */
export const INLINE_TIDY_NOTE =
  '[+ the tidy-up after the check: inspection and cleanup of this backend, engine/visit-sql.ts]';

/** The tidy-up's statements for a step's tail: its backend's pid, then `visit` (inspection, cleanup). */
export function inlineTidyStatements(visit: readonly string[]): string[] {
  return [`SELECT pg_backend_pid() AS ${TIDY_PID}`, ...visit];
}

/**
 * Runs `sql` as step `tag` on `s`, followed in the same message by the tidy-up's statements
 * where the scenario carries them (Scenario.inlineTidy). For a COMMIT, they run after it, on
 * the same backend (a pooler hands it on only once the message is done); otherwise in the
 * step's implicit transaction.
 */
export async function runWithTidy(
  scn: Scenario,
  s: Session,
  tag: string,
  sql: string,
  /** `s` holds its backend (a transaction is open): its message never waits in a pooler's queue. */
  holds: boolean,
): Promise<StepRecord> {
  const statements = scn.inlineTidy;
  // A message that may wait in a pooler's queue stays within what PgBouncer forwards whole
  // (QUEUED_MESSAGE_MAX_BYTES, holders.ts); larger, the tidy-up visits after the check instead.
  const fits = holds || queryMessageBytes([sql, ...(statements ?? [])].join('; ')) <= QUEUED_MESSAGE_MAX_BYTES;
  if (!statements || !fits) return s.run(tag, sql);
  let sets: Rows[] = [];
  const step = await s.run(tag, sql, {
    tail: { statements, column: TIDY_PID, note: INLINE_TIDY_NOTE, onAnswer: (answered) => (sets = answered) },
  });
  const pid = sets[0]?.[0]?.[TIDY_PID];
  scn.inlineVisits.push({
    pid: typeof pid === 'number' ? pid : null,
    sets,
    seq: step.seq,
    startMs: step.startMs,
    ok: !step.error && !step.timedOut && sets.length === statements.length,
  });
  return step;
}

/** Whether the inline visits stood for the tidy-up's: the backends they covered, or why not. */
export type InlineCoverage = { on: number[] } | { missed: string };

/**
 * Whether the inline visits stand for the tidy-up's (see the file comment): the backends they
 * covered, or why the visits must run after all (said in the check's cleanup detail, so a
 * reader sees why a check was visited; null when no step carried the tidy-up at all).
 */
export function inlineCoverage(scn: Scenario, poolSize: number | null): InlineCoverage | null {
  const visits = scn.inlineVisits;
  if (visits.length === 0) return null;
  if (poolSize === null) return { missed: 'the pool size is unknown' };
  const carriers = new Set(visits.map((v) => v.seq));
  const others = scn.steps.filter((st) => scn.throughTarget(st) && !carriers.has(st.seq));
  // Recorded times are rounded to a tenth of a millisecond: a step awaited before the carriers
  // were sent can seem to end a tenth after they began.
  const lastOtherEnd = Math.max(0, ...others.map((st) => st.startMs + st.durationMs)) - 0.5;
  const last = visits.filter((v) => v.startMs >= lastOtherEnd);
  if (last.length === 0) return { missed: 'a step through the target ran after the steps that carried it' };
  if (last.some((v) => !v.ok || v.pid === null)) return { missed: 'a step that carried it failed or went unanswered' };
  const covered = new Set(last.map((v) => v.pid!));
  const touched = scn.pooledBackends();
  const uncovered = touched.filter((p) => !covered.has(p));
  if (uncovered.length > 0 || covered.size < poolSize) {
    const where = [...covered].sort((a, b) => a - b).join(', ');
    return {
      missed:
        covered.size < last.length
          ? `the steps that carried it landed on one backend (${where}), not on the ${poolSize} of the pool`
          : `the steps that carried it reached backend(s) ${where}, not ${uncovered.length > 0 ? uncovered.join(', ') : `all ${poolSize} of the pool`}`,
    };
  }
  return { on: [...covered].sort((a, b) => a - b) };
}
