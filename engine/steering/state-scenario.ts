/**
 * The scenario every state check shares ("A creates state, its next transaction runs
 * elsewhere, another client sits on A's old backend and looks"):
 *
 *   A:   SELECT pg_backend_pid() AS pid; <create>                       -- tag A.create, backend b1
 *   O1..On: [BEGIN;] SELECT pg_backend_pid() AS pid; <observe>; <cleanup if on b1>
 *        -- tag observe.take; candidates until one lands on b1 (it holds b1) or one is queued
 *   (the candidates that missed b1 commit, so A has somewhere else to go)
 *   A:   SELECT pg_backend_pid() AS pid; <readback>                     -- tag A.readback, must not be b1
 *   O:   COMMIT                                                          -- the observer lets b1 go,
 *   A:   DO $$ <cleanup> $$                                              -- tag A.cleanup, meanwhile
 *
 * Cleanup runs inside the observer's own take, guarded by `pg_backend_pid() = b1`, so it
 * commits with the observer in both holder strategies and only ever touches A's old backend.
 */
import { landOn } from './land-on.js';
import { runWithTidy } from './inline-tidy.js';
import { LANDING_TAGS } from '../record/tags.js';

export { STATE_SCENARIO } from '../record/tags.js';
import { landingHoldMs, letGoAll, type Hold } from './holders.js';
import type { Scenario } from './scenario.js';
import type { Session } from '../session/session.js';

export interface StateProbe {
  /** SQL with which A creates the state (runs after reading the pid, on the same backend). */
  create: string;
  /** Statements the other client runs on A's old backend; their named columns feed the judge. */
  observe: string[];
  /** A's next transaction: reads the state back (may fail, e.g. SQLSTATE 26000). */
  readback: string;
  /** PL/pgSQL statements that undo the state, each guarded by the run's marker. */
  cleanup: string;
}

/** Wraps PL/pgSQL cleanup statements in a DO block, optionally only for one backend. */
export function cleanupBlock(cleanup: string, onlyPid?: number): string {
  const body = onlyPid === undefined ? cleanup : `IF pg_backend_pid() = ${onlyPid} THEN ${cleanup} END IF;`;
  return `DO $pooltest$ BEGIN ${body} END $pooltest$`;
}

export interface StateOptions {
  /**
   * Runs the script as one phase of a check that tries several forms of the same state (`SET`
   * and `set_config`): every tag is prefixed `<phase>:`, and `phaseSteps` gives a judge the
   * phase's steps back under the plain tags.
   */
  phase?: string;
  /**
   * The startup application_name of the other clients (the candidates and the observer); A
   * keeps the run's. '' sends none, as node-postgres and many drivers do by default.
   */
  observerApplicationName?: string;
}

/** Drives the shared state scenario; the record ends up in `scn.steps`. */
export async function runStateScenario(scn: Scenario, probe: StateProbe, opts: StateOptions = {}): Promise<void> {
  const t = (tag: string): string => (opts.phase ? `${opts.phase}:${tag}` : tag);
  const a = await scn.open('A');
  const ownName = scn.applicationName;
  if (opts.observerApplicationName !== undefined) scn.applicationName = opts.observerApplicationName;
  try {
    await observeAndReadBack(scn, a, probe, t);
  } finally {
    scn.applicationName = ownName;
  }
}

async function observeAndReadBack(
  scn: Scenario,
  a: Session,
  probe: StateProbe,
  t: (tag: string) => string,
): Promise<void> {
  const created = await a.run(t(LANDING_TAGS.create), `SELECT pg_backend_pid() AS pid; ${probe.create}`);
  if (created.error || created.pid === null) return;
  const b1 = created.pid;
  const holdMs = landingHoldMs(scn.discovery);
  const landing = await landOn(scn, b1, {
    tag: t(LANDING_TAGS.observe),
    statements: [...probe.observe, cleanupBlock(probe.cleanup, b1)],
    releaseBy: 'wait',
    holdMs,
  });
  // The candidates that missed b1 let go of their backends so that A has somewhere to go. Where
  // a connected client holds no backend once its transaction ended (as for spares), their
  // goodbyes are not waited for: closeAll ends them with the rest, at a distance a round trip later.
  await letGoAll(scn, landing.others);
  await a.run(t(LANDING_TAGS.readback), `SELECT pg_backend_pid() AS pid; ${probe.readback}`);
  await endLanding(scn, a, landing.observer, cleanupBlock(probe.cleanup), t);
}

/**
 * The end of a landing, once A has read its state back: all the judge reads is in (the engine
 * asks about other runs alongside what follows, Scenario.evidenceComplete), the observer lets
 * b1 go while A cleans up wherever it lands. The observer's take already cleaned b1, so
 * neither waits for the other (the tidy-up after the check visits b1 anyway). Where the engine
 * allows it, both messages also carry the tidy-up's work (inline-tidy.ts): A's after its
 * cleanup, on the other backend; the observer's after its COMMIT, on b1. A's is written first,
 * so that it reaches the pooler while b1 is still held: sent the other way round, a pooler
 * that hands out the backend freed last (PgBouncer) put A on b1 at times, and the other
 * backend then had to be visited after all.
 */
export async function endLanding(
  scn: Scenario,
  a: Session,
  observer: Hold | null,
  cleanup: string,
  t: (tag: string) => string = (tag) => tag,
): Promise<void> {
  scn.evidenceComplete();
  // Still inside its transaction (its last step says so): a statement-strategy holder has no
  // message to carry the tidy-up, and one whose transaction failed rolls back as before.
  const last = observer ? scn.steps.filter((st) => st.session === observer.session.label).at(-1) : undefined;
  const carries = observer !== null && observer.session.alive && last?.txStatus === 'T';
  const cleaned = runWithTidy(scn, a, t(LANDING_TAGS.cleanup), cleanup, false);
  await Promise.all([
    carries
      ? runWithTidy(scn, observer.session, t(LANDING_TAGS.release), 'COMMIT', true)
      : observer?.release(t(LANDING_TAGS.release)),
    cleaned,
  ]);
}
