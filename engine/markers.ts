/**
 * Names and values that identify one run's state on a shared pooler. Every marker derives from
 * the run id, so two runs (or a run and the application's own traffic) never collide, and the
 * sweep can recognise - and only ever touch - what this run created. Values are chosen to be
 * harmless if another client inherits them: a statement timeout of about an hour, names in a
 * `pooltest_` namespace, an advisory-lock namespace of its own.
 */
import { randomBytes } from 'node:crypto';

/** First key of every two-key advisory lock pooltest takes: "pool" in ASCII. */
export const LOCK_NAMESPACE = 0x706f6f6c;

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
  /** A statement_timeout value nobody else uses: SHOW prints it back exactly (not whole seconds). */
  statementTimeout: string;
  /** A value for application_name and custom GUCs. */
  tag: string;
}

/** All markers of a run, plus a per-check suffix so checks in one run stay apart too. */
export function markersFor(runId: string, check = ''): Markers {
  const suffix = check ? `_${check.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}` : '';
  const n = parseInt(runId.slice(0, 7), 16) || 1;
  const c = [...check].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7);
  return {
    runId,
    lockKey: (n ^ c) & 0x7fffffff,
    lockKey2: ((n ^ c) + 1) & 0x7fffffff,
    channel: `pooltest_${runId}${suffix}`,
    tempTable: `pooltest_${runId}${suffix}`,
    table: `pooltest_${runId}${suffix}`,
    preparedName: `pooltest_${runId}${suffix}`,
    cursorName: `pooltest_${runId}${suffix}`,
    sequenceName: `pooltest_${runId}${suffix}`,
    statementTimeout: `${3_600_000 + ((n ^ c) % 900) * 1000 + 7}ms`,
    tag: `pooltest-${runId}${suffix.replace(/_/g, '-')}`,
  };
}
