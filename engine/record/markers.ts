/**
 * Names and values that identify one run's state on a shared pooler. Every marker derives from
 * the run id, so two runs (or a run and the application's own traffic) never collide, and the
 * sweep can recognise - and only ever touch - what this run created. Values are chosen to be
 * harmless if another client inherits them: a statement timeout of an hour or more, names in a
 * `pooltest_` namespace, an advisory-lock namespace of its own.
 */
import { createHash, randomBytes } from 'node:crypto';

/** First key of every two-key advisory lock pooltest takes: "pool" in ASCII. */
export const LOCK_NAMESPACE = 0x706f6f6c;

/**
 * A custom setting that travels with a `SET ROLE` (and with session/tracked-parameter's
 * `SET SESSION AUTHORIZATION` and `SET default_transaction_read_only = on`): a role name or
 * `on` is not unique to a run, so cleanup and the sweep recognise this run's switch by this
 * marker beside it.
 */
export const ROLE_MARKER_SETTING = 'pooltest.role';

export function newRunId(): string {
  return randomBytes(4).toString('hex');
}

export interface Markers {
  runId: string;
  /** `pg_advisory_lock(LOCK_NAMESPACE, lockKey)`; pg_locks shows it as classid/objid. */
  lockKey: number;
  /** A second key for checks that need two locks at once. */
  lockKey2: number;
  channel: string;
  tempTable: string;
  /** A regular table, for checks that must see what another session committed (dropped by the check and the sweep). */
  table: string;
  preparedName: string;
  cursorName: string;
  sequenceName: string;
  /** A regular schema, created (and dropped) only where the login may. */
  schemaName: string;
  /** A statement_timeout value nobody else uses: SHOW prints it back exactly (not whole seconds). */
  statementTimeout: string;
  /**
   * The same kind of value for lock_timeout, drawn apart from statementTimeout: a check that
   * sets lock_timeout never shares its marker with one that sets statement_timeout.
   */
  lockTimeout: string;
  /** A value for application_name and custom GUCs. */
  tag: string;
}

/** All markers of a run, plus a per-check suffix so checks in one run stay apart too. */
export function markersFor(runId: string, check = ''): Markers {
  const suffix = check ? `_${check.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}` : '';
  // Numbers come from a hash of (run, check): two runs - or two checks of one run - share a
  // lock key or a timeout value only by a 1-in-2^31 (or 1-in-2^30) accident. A small space
  // here would let one run's sweep reset another run's state mid-check.
  const h = createHash('sha256').update(`${runId}/${check}`).digest();
  return {
    runId,
    lockKey: h.readUInt32BE(0) & 0x7fffffff,
    lockKey2: h.readUInt32BE(4) & 0x7fffffff,
    channel: `pooltest_${runId}${suffix}`,
    tempTable: `pooltest_${runId}${suffix}`,
    table: `pooltest_${runId}${suffix}`,
    preparedName: `pooltest_${runId}${suffix}`,
    cursorName: `pooltest_${runId}${suffix}`,
    sequenceName: `pooltest_${runId}${suffix}`,
    schemaName: `pooltest_${runId}${suffix}`,
    statementTimeout: `${timeoutMs(h.readUInt32BE(8))}ms`,
    lockTimeout: `${timeoutMs(h.readUInt32BE(12))}ms`,
    tag: `pooltest-${runId}${suffix.replace(/_/g, '-')}`,
  };
}

/**
 * At least an hour (harmless to whoever inherits it: long queries still run) and below
 * the timeouts' int32 limit (about 24 days), never a whole number of seconds, so SHOW
 * prints it back in milliseconds exactly as it was set.
 */
function timeoutMs(random: number): number {
  const ms = 3_600_000 + (random % 2_000_000_000);
  return ms % 1000 === 0 ? ms + 7 : ms;
}
