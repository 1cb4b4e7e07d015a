/**
 * The SQL the sweep and the tidy run on each backend they visit: one query that counts what
 * carries this run's markers (inspectionSql) and one PL/pgSQL block that removes it
 * (cleanupSql). Both are also used by checks and tests that need the same look.
 */
import { LOCK_NAMESPACE, ROLE_MARKER_SETTING, markersFor } from './markers.js';
import { releaseHeldLocksSql } from './steering/release-locks.js';

/**
 * Timeout settings a check may set to a marker value (markersFor(...).statementTimeout or
 * .lockTimeout: an hour or more, unique per run and check). The sweep recognises and resets
 * either marker in any of them, so a check that uses another of these needs no change here.
 */
export const MARKED_TIMEOUTS = ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout'] as const;

/** This run's timeout marker values, quoted, for an `IN (...)` list. */
function timeoutMarkers(runId: string, checkIds: readonly string[]): string {
  return checkIds
    .flatMap((id) => {
      const m = markersFor(runId, id);
      return [`'${m.statementTimeout}'`, `'${m.lockTimeout}'`];
    })
    .join(', ');
}

/** Whether any marked timeout holds one of this run's marker values. */
function timeoutMarkerSql(timeouts: string): string {
  return MARKED_TIMEOUTS.map((name) => `current_setting('${name}') IN (${timeouts})`).join(' OR ');
}

/** Counts of this run's leftovers, one column each, on the backend that runs it. */
export function inspectionSql(runId: string, checkIds: readonly string[]): string {
  const like = `'pooltest\\_${runId}%'`;
  const keys = lockKeys(runId, checkIds).join(', ');
  const timeouts = timeoutMarkers(runId, checkIds);
  return `SELECT pg_backend_pid() AS pid,
    (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND classid = ${LOCK_NAMESPACE} AND objid IN (${keys}) AND pid = pg_backend_pid()) AS locks,
    (SELECT count(*)::int FROM pg_class WHERE relpersistence = 't' AND relname LIKE ${like} AND pg_table_is_visible(oid)) AS temp_tables,
    (SELECT count(*)::int FROM pg_listening_channels() AS c WHERE c LIKE ${like}) AS listens,
    (SELECT count(*)::int FROM pg_prepared_statements WHERE name LIKE ${like}) AS prepared,
    (SELECT count(*)::int FROM pg_cursors WHERE name LIKE ${like}) AS cursors,
    (${timeoutMarkerSql(timeouts)})::int AS timeout_marker,
    (current_setting('application_name') LIKE 'pooltest-${runId}-%')::int AS app_marker,
    (coalesce(current_setting('app.tenant_id', true), '') LIKE 'pooltest-${runId}%')::int AS guc_marker,
    (current_setting('search_path') LIKE '%pooltest\\_${runId}%')::int AS search_path_marker,
    (coalesce(current_setting('${ROLE_MARKER_SETTING}', true), '') LIKE 'pooltest-${runId}%')::int AS role_marker,
    (SELECT count(*)::int FROM pg_settings WHERE ${otherSettingsFilter(runId)}) AS other_settings`;
}

/**
 * Any other setting SET in this session to a value carrying the run's marker (a check added
 * later that SETs something the columns above do not name). Custom placeholders such as
 * app.tenant_id are not in pg_settings, hence their own columns.
 */
function otherSettingsFilter(runId: string): string {
  return `source = 'session' AND name NOT IN ('application_name', 'search_path', ${MARKED_TIMEOUTS.map((n) => `'${n}'`).join(', ')}) AND (setting LIKE '%pooltest\\_${runId}%' OR setting LIKE '%pooltest-${runId}-%')`;
}

/** PL/pgSQL that removes every marker of the run from the backend it runs on. */
export function cleanupSql(runId: string, checkIds: readonly string[]): string {
  // The role first, so that everything after runs as the login again.
  const parts: string[] = [
    `IF coalesce(current_setting('${ROLE_MARKER_SETTING}', true), '') LIKE 'pooltest-${runId}%' THEN RESET ROLE; RESET ${ROLE_MARKER_SETTING}; END IF;`,
  ];
  // Only locks the backend holds: an unlock of one it does not hold is a WARNING in the server log.
  parts.push(releaseHeldLocksSql(LOCK_NAMESPACE, lockKeys(runId, checkIds)));
  const timeouts = timeoutMarkers(runId, checkIds);
  if (checkIds.length > 0)
    for (const name of MARKED_TIMEOUTS)
      parts.push(`IF current_setting('${name}') IN (${timeouts}) THEN RESET ${name}; END IF;`);
  parts.push(
    `PERFORM pg_catalog.set_config('client_min_messages', 'error', true);`,
    `IF current_setting('application_name') LIKE 'pooltest-${runId}-%' THEN RESET application_name; END IF;`,
    `IF coalesce(current_setting('app.tenant_id', true), '') LIKE 'pooltest-${runId}%' THEN RESET app.tenant_id; END IF;`,
    `IF current_setting('search_path') LIKE '%pooltest\\_${runId}%' THEN RESET search_path; END IF;`,
    `DECLARE r record; BEGIN`,
    `FOR r IN SELECT c AS n FROM pg_listening_channels() AS c WHERE c LIKE 'pooltest\\_${runId}%' LOOP EXECUTE format('UNLISTEN %I', r.n); END LOOP;`,
    `FOR r IN SELECT name AS n FROM pg_prepared_statements WHERE name LIKE 'pooltest\\_${runId}%' LOOP EXECUTE format('DEALLOCATE %I', r.n); END LOOP;`,
    `FOR r IN SELECT relname AS n, relkind AS k FROM pg_class WHERE relpersistence = 't' AND relkind IN ('r', 'S') AND relname LIKE 'pooltest\\_${runId}%' AND pg_table_is_visible(oid) LOOP EXECUTE format(CASE r.k WHEN 'S' THEN 'DROP SEQUENCE pg_temp.%I' ELSE 'DROP TABLE pg_temp.%I' END, r.n); END LOOP;`,
    `FOR r IN SELECT name AS n FROM pg_cursors WHERE name LIKE 'pooltest\\_${runId}%' AND is_holdable LOOP EXECUTE format('CLOSE %I', r.n); END LOOP;`,
    `FOR r IN SELECT name AS n FROM pg_settings WHERE ${otherSettingsFilter(runId)} LOOP EXECUTE 'RESET ' || r.n; END LOOP;`,
    `END;`,
  );
  return parts.join(' ');
}

/** The run's advisory lock keys, two per check (markersFor). */
export function lockKeys(runId: string, checkIds: readonly string[]): number[] {
  return checkIds.flatMap((id) => {
    const m = markersFor(runId, id);
    return [m.lockKey, m.lockKey2];
  });
}

/** The columns of inspectionSql that count leftovers (pid aside). */
export const LEFTOVER_COLUMNS = [
  'locks',
  'temp_tables',
  'listens',
  'prepared',
  'cursors',
  'timeout_marker',
  'app_marker',
  'guc_marker',
  'search_path_marker',
  'role_marker',
  'other_settings',
] as const;
