/**
 * The judge of a framework's migration (drivers/migration-phase.ts), pure over the record.
 * The record has: the backend the migration's transaction ran on (T) and the backend holding
 * the migrator's advisory lock (L), both read by statements the framework sent from inside the
 * migration; the client landed on L while the migration ran (`observe`), if any; and what the
 * migrator said when it finished (`readback`).
 *
 * - The migration could not start, or did not answer: inconclusive (an SQLSTATE error there is
 *   `failed`: the framework's migration fails even unsteered).
 * - It finished with an error of the framework's (ActiveRecord's ConcurrentMigrationError
 *   "Failed to release advisory lock", with no SQLSTATE: the unlock returned false) or an
 *   SQLSTATE: `failed`.
 * - It finished, and took no advisory lock: `works` (nothing can be released elsewhere). A
 *   migrator that locks but whose lock no backend held during the migration had it released
 *   by the pooler: a fact (`lockLost`), said in the reason whatever the label.
 * - It finished, with a lock: `works` where connections keep their backends (direct, session
 *   pooling). Where backends are shared, a successful unlock ran on L (no other backend can
 *   release L's lock): the steering did not move it, inconclusive.
 */
import { stepOf } from '../engine/record/step-reading.js';
import { sharesBackends } from '../engine/judging/landing.js';
import type { Discovery, Facts, Judgement, StepRecord } from '../engine/types.js';
import { DRIVER_TAGS } from './tags.js';

/** What the migration reported from inside: its backend, and the lock's. */
export interface MigrationReport {
  pid: number | null;
  lockPid: number | null;
  lockId: string | null;
  /** The migrator takes an advisory lock (ActiveRecord's advisory_locks). */
  locking: boolean;
}

/** The report of the migration's first step, from its first run. */
export function migrationReport(step: StepRecord | undefined): MigrationReport {
  const run = step?.results[0]?.[0] ?? {};
  const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
  return {
    pid: num(run.pid),
    lockPid: num(run.lockPid),
    lockId: typeof run.lockId === 'string' ? run.lockId : null,
    locking: run.locking === true,
  };
}

/** The agent's own failures (toStep's words): no answer from the framework at all. */
function agentFailure(step: StepRecord): boolean {
  return step.timedOut || (step.error?.message.startsWith('the agent ') ?? false);
}

export function judgeMigration(steps: readonly StepRecord[], discovery: Discovery): Judgement {
  const tags = DRIVER_TAGS.migration;
  const facts: Facts = {};
  const start = stepOf(steps, tags.create);
  if (!start) return { outcome: null, facts, reason: 'the migration did not run' };
  if (agentFailure(start))
    return { outcome: null, facts, reason: `the migration did not start: ${start.error?.message ?? 'no answer'}` };
  if (start.error) {
    const e = start.error;
    if (e.code)
      return { outcome: 'failed', facts, reason: `the migration failed before its own step: ${e.code} ${e.message}` };
    return {
      outcome: null,
      facts,
      reason: `the migration failed before its own step, without a server error: ${e.message}`,
    };
  }
  const report = migrationReport(start);
  facts.migrationBackend = report.pid;
  facts.lockBackend = report.lockPid;
  facts.advisoryLock = report.lockId;
  const end = stepOf(steps, tags.readback);
  if (!end) return { outcome: null, facts, reason: 'the migration was not let finish' };
  if (agentFailure(end))
    return { outcome: null, facts, reason: `the migration did not finish: ${end.error?.message ?? 'no answer'}` };
  const observer =
    report.lockPid === null
      ? undefined
      : steps.find((s) => s.tag === tags.observe && s.pid === report.lockPid && !s.timedOut && !s.error);
  facts.otherOnLockBackend = observer !== undefined;
  // A migrator that locks, and no backend holding its lock while it runs: the pooler let the
  // lock go (a DISCARD ALL between transactions releases session advisory locks).
  facts.lockLost = report.locking && report.lockPid === null;
  const where =
    report.lockPid === null
      ? report.locking
        ? `the migrator took its advisory lock, yet no backend held it while the migration ran on ${report.pid}: the pooler released it`
        : `the migration ran on backend ${report.pid}, without an advisory lock`
      : `advisory lock ${report.lockId ?? '?'} taken on backend ${report.lockPid}, migration on ${report.pid}${observer ? `, another client on ${report.lockPid} while it finished` : ''}`;
  if (end.error)
    return {
      outcome: 'failed',
      facts,
      reason: `the migrator raised ${`${end.error.code ?? ''} ${end.error.message}`.trim()} (${where})`,
    };
  if (report.lockPid === null)
    return {
      outcome: 'works',
      facts,
      reason: `${where}; it finished${facts.lockLost ? ', without the protection its lock was meant to give' : ''}`,
    };
  if (!sharesBackends(discovery))
    return {
      outcome: 'works',
      facts,
      reason: `${where}; the lock's connection kept its backend, and the unlock worked`,
    };
  return {
    outcome: null,
    facts,
    // Only a session on L can release L's lock: a successful unlock ran there, so the steering
    // did not keep it off (a queued observer lost the race, or the pooler pinned the client).
    reason: `${where}; the unlock succeeded, so it ran on ${report.lockPid} after all: nothing was moved`,
  };
}
