/**
 * Dropping what a check created in the catalog (a schema, a regular table of the run). Unlike
 * session state these outlive every backend, and the per-check tidy-up visits only look at
 * backends, so the check itself must drop them on every path. Two things made that fail under
 * load with another pooltest run holding both backends of a pool of 2 (a fresh-clone CI run
 * found a run's own schema and table at its sweep):
 *
 * - the drop was skipped when the scenario ended early (a setup step unanswered within its
 *   bound, a login that failed and threw), although the CREATE beside it had committed;
 * - the drop itself, queued behind the other run, went unanswered within its bound once, and
 *   nobody tried again.
 *
 * So: callers run it in a `finally`, and an unanswered or lost attempt (an error without a
 * SQLSTATE) is tried again on a new session, a few times. An answer from the server (done, or
 * refused with a SQLSTATE) ends it. Every attempt is a recorded step under `tag`, so the
 * check's record says whether its objects were dropped; the sweep looks again anyway.
 *
 * An interrupted run drops them too: the drop's session does not stop with the run (it is
 * bounded like any other), and is tried once, so that Ctrl-C still ends the run promptly.
 * Only a SQLSTATE is an answer from the server: pooltest's own codes (a protocol violation,
 * a timeout) say nothing about whether the statement took effect.
 *
 * With another pooltest run on the same pool the first fix was not enough (the same CI test
 * found a run's schema and table again; test/faults/creators-with-another-run.test.ts):
 *
 * - every attempt queued behind the other run's sessions for the whole pool: where the CREATE
 *   was answered, an attempt after an unanswered one goes over --direct where the run has it,
 *   which no pool queue holds up (the catalog is the database's, so any backend can drop it);
 * - a class 08 SQLSTATE (connection exception) is the pooler's, not the server's answer
 *   (PgBouncer's `server conn crashed?` for a server connection lost mid-query): the CREATE
 *   may have committed, so it is not a refusal;
 * - a drop refused for a passing reason (a lock wait past lock_timeout, a cancel, a
 *   serialization failure, the server short of connections) is tried again, as an unanswered
 *   one is: only a lasting refusal (a missing privilege) ends the attempts;
 * - a drop refused through the pool may have met the pooled backend's state, not the login's:
 *   another run's session/tracked-parameter leaves default_transaction_read_only on there
 *   (25006; PgBouncer does not track it). It is tried again over --direct, where a lasting
 *   refusal is the login's own (test/faults/creator-drop-paths.test.ts).
 */
import type { Scenario } from './scenario.js';
import type { Session } from '../session/session.js';
import { sparesAllowed } from './spare-session.js';
import type { StepRecord } from '../types.js';

/** Attempts before the check gives up and leaves the objects to the sweep. */
const ATTEMPTS = 3;

/**
 * The drop runs as the login that created the objects, whatever role the backend was left in:
 * another run's session/role-leak leaves `SET ROLE <a lesser role>` on a pooled backend (the
 * leak it reports), and a drop landing there was refused, 42501, and ended the attempts (seen
 * in test/load/honest-under-load.test.ts: the schema and its table left). Local to the drop's
 * own transaction (the statements of one query are one), so the other run's state stays as it
 * found it.
 */
const AS_LOGIN = `SELECT pg_catalog.set_config('role', 'none', true);`;

/**
 * Runs `sql` on a new session `label`, again while it goes unanswered; never throws. `early`:
 * that session, opened ahead by the caller ({@link dropLoginAhead}); a login that failed or a
 * session that died since is replaced by a fresh one, as for any attempt. `created`: the
 * CREATE was answered (it committed); only then may an attempt go around the pool over
 * --direct. A CREATE given up on may still wait in the pooler's queue (PgBouncer reads nothing
 * from a waiting client, so it does not see it leave, and runs its query once a server frees):
 * a drop over --direct would overtake it and find nothing, and the CREATE would commit after
 * it. Through the pool each attempt queues behind it, and runs after it even when given up on.
 */
export async function dropOwn(
  scn: Scenario,
  label: string,
  tag: string,
  sql: string,
  early: Promise<Session | null> | null = null,
  created = false,
): Promise<StepRecord> {
  let last: StepRecord | null = null;
  for (let i = 0; i < ATTEMPTS; i++) {
    const startMs = scn.recorder.now();
    let step: StepRecord;
    // After a first attempt through the pool went unanswered (or was refused), around it.
    const to = i > 0 && created && scn.ctx.direct ? 'direct' : 'target';
    try {
      const ready = i === 0 && early ? await early : null;
      const s = ready?.alive ? ready : await scn.open(label, { uninterruptible: true, to });
      try {
        step = await s.run(tag, `${AS_LOGIN} ${sql}`);
      } finally {
        await s.close();
      }
    } catch (err) {
      // The login itself failed (or the run was interrupted): recorded, and tried again.
      step = scn.note(label, tag, sql, { startMs, error: err instanceof Error ? err.message : String(err) });
    }
    last = step;
    if (!step.error || scn.interrupted) break;
    // A refusal through the pool may be the pooled backend's, not the login's: another run's
    // leak left it read-only (session/tracked-parameter's default_transaction_read_only,
    // 25006) or as another role, so it is tried again (over --direct where it may go). Only a
    // lasting refusal where no pool came between (over --direct, or with no --direct to go
    // over) ends the attempts.
    const ownSession = to === 'direct' || !created || !scn.ctx.direct;
    if (refusedByServer(step) && !passingRefusal(step) && ownSession) break;
  }
  return last!;
}

/** Whether the last `tag` step of a record dropped what it was for: null when none ran. */
export function droppedBy(steps: readonly StepRecord[], tag: string): boolean | null {
  const last = steps.filter((s) => s.tag === tag).at(-1);
  return last ? last.error === null : null;
}

/**
 * Whether the server refused the step with a SQLSTATE, so it took no effect. An error without
 * one (unanswered, a connection lost, a reply that broke the protocol) may have committed, and
 * so may one of class 08: a pooler sends those for a server connection it lost mid-query.
 */
export function refusedByServer(step: StepRecord): boolean {
  const code = step.error?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08');
}

/**
 * A refusal that another try may not meet: a lock not granted in time (55P03), a cancel or
 * the server shutting a session (57xxx), a transaction rolled back for a conflict (40xxx), too
 * many connections or too little of a resource (53xxx).
 */
export function passingRefusal(step: StepRecord): boolean {
  const code = step.error?.code ?? '';
  return /^(40|53|57)/.test(code) || code === '55P03';
}

/**
 * The drop's session, logging in now while the check goes on, where an idle login holds
 * nothing (transaction and statement pooling, as for spares): at a distance a login is three
 * round trips the check's end would otherwise wait for. Elsewhere null: under session pooling
 * an idle client keeps a backend the check's steering counts on. Uninterruptible like the
 * drop's own logins; closed with the scenario when it is not used.
 */
export function dropLoginAhead(scn: Scenario, label: string): Promise<Session | null> | null {
  if (!sparesAllowed(scn.ctx)) return null;
  return scn.open(label, { uninterruptible: true }).catch(() => null);
}
