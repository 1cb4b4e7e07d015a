/**
 * The SQL the sweep and the tidy-up after each check run on every backend they visit: an
 * inspection that counts what carries this run's markers (one column per kind), then a cleanup
 * that removes it. Its size is a cost, not a detail: the tidy's visit of one check must fit
 * one Query message that may wait in a pooler's queue (QUEUED_MESSAGE_MAX_BYTES in
 * steering/holders.ts), or its take splits and costs one more round trip per check. So each
 * marker pattern is written once, bound to a name (a FROM item here, PL/pgSQL variables in the
 * cleanup), and the cleanup's removals are one loop over the statements to run, not a loop
 * and an IF per kind. test/safety/visit-sql.test.ts pins the size and plants every kind.
 */
import { LOCK_NAMESPACE, ROLE_MARKER_SETTING, markersFor } from '../record/markers.js';
import { releaseHeldLocksSql } from '../steering/release-locks.js';

/**
 * Timeout settings a check may set to a marker value (markersFor(...).statementTimeout or
 * .lockTimeout: an hour or more, unique per run and check). The sweep recognises and resets
 * either marker in any of them, so a check that uses another of these needs no change here.
 */
export const MARKED_TIMEOUTS = ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout'] as const;

/** The inspection's counts, in the order it returns them: each above 0 is a leftover. */
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

/** What an inspection's counts (`count` of each column) say was left on backend `pid`: a line per count above 0. */
export function leftoversOn(pid: number, count: (column: string) => number | null): string[] {
  return LEFTOVER_COLUMNS.flatMap((col) => {
    const n = count(col) ?? 0;
    return n > 0 ? [`backend ${pid}: ${col} = ${n}`] : [];
  });
}

/**
 * The run's three marker values as SQL literals: `n`, the LIKE pattern of the names of what
 * checks create (`pooltest_<run>%`, its `_` escaped); `a`, the tag prefix of the values they
 * set (`pooltest-<run>`); `t`, every check's timeout marker values as a text array.
 */
function markerLiterals(runId: string, checkIds: readonly string[]): { n: string; a: string; t: string } {
  const timeouts = checkIds.flatMap((id) => {
    const m = markersFor(runId, id);
    return [m.statementTimeout, m.lockTimeout];
  });
  return { n: `'pooltest\\_${runId}%'`, a: `'pooltest-${runId}'`, t: `'{${timeouts.join(',')}}'::text[]` };
}

/**
 * Session settings SET to a value carrying the run's markers, other than those with a column
 * of their own (application_name, search_path; the marked timeouts are numbers in pg_settings
 * and never match). Custom placeholders such as app.tenant_id are not in pg_settings, hence
 * their own columns. `n` and `a` name the marker values (markerLiterals).
 */
function otherSettingsFilter(n: string, a: string): string {
  return `source = 'session' AND name NOT IN ('application_name', 'search_path') AND (setting LIKE '%' || ${n} OR setting LIKE '%' || ${a} || '-%')`;
}

/** Whether any marked timeout holds a value of the array `t`. */
function timeoutMarkerSql(t: string): string {
  return MARKED_TIMEOUTS.map((name) => `current_setting('${name}') = ANY(${t})`).join(' OR ');
}

/** Every check's two advisory lock keys (markersFor), for an `IN (...)` list. */
export function lockKeys(runId: string, checkIds: readonly string[]): number[] {
  return checkIds.flatMap((id) => {
    const m = markersFor(runId, id);
    return [m.lockKey, m.lockKey2];
  });
}

/** Counts of this run's leftovers, one column each ({@link LEFTOVER_COLUMNS}), on the backend that runs it. */
export function inspectionSql(runId: string, checkIds: readonly string[]): string {
  const { n, a, t } = markerLiterals(runId, checkIds);
  const keys = lockKeys(runId, checkIds);
  // With no check, no lock key: IN () is a syntax error, a list of none matches nothing.
  const locks = keys.length > 0 ? `objid IN (${keys.join(', ')})` : 'false';
  // One line: the recorded step carries its SQL, and indentation would only cost bytes.
  return [
    `SELECT pg_backend_pid() AS pid,`,
    `(SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND classid = ${LOCK_NAMESPACE} AND ${locks} AND pid = pg_backend_pid()) AS locks,`,
    `(SELECT count(*)::int FROM pg_class WHERE relpersistence = 't' AND relname LIKE m.n AND pg_table_is_visible(oid)) AS temp_tables,`,
    `(SELECT count(*)::int FROM pg_listening_channels() AS c WHERE c LIKE m.n) AS listens,`,
    `(SELECT count(*)::int FROM pg_prepared_statements WHERE name LIKE m.n) AS prepared,`,
    `(SELECT count(*)::int FROM pg_cursors WHERE name LIKE m.n) AS cursors,`,
    `(${timeoutMarkerSql('m.t')})::int AS timeout_marker,`,
    `(current_setting('application_name') LIKE m.a || '-%')::int AS app_marker,`,
    `(coalesce(current_setting('app.tenant_id', true), '') LIKE m.a || '%')::int AS guc_marker,`,
    `(current_setting('search_path') LIKE '%' || m.n)::int AS search_path_marker,`,
    `(coalesce(current_setting('${ROLE_MARKER_SETTING}', true), '') LIKE m.a || '%')::int AS role_marker,`,
    `(SELECT count(*)::int FROM pg_settings WHERE ${otherSettingsFilter('m.n', 'm.a')}) AS other_settings`,
    `FROM (SELECT ${n} AS n, ${a} AS a, ${t} AS t) AS m`,
  ].join(' ');
}

/**
 * PL/pgSQL that removes every marker of the run from the backend it runs on: the role switch,
 * the locks, then one loop over the statements that undo the rest (RESET, UNLISTEN,
 * DEALLOCATE, DROP, CLOSE), each row a leftover the inspection counts. The loop's query is one
 * UNION ALL whose branches run in order, each after the statements of those before it, as
 * the separate loops did: search_path is reset before temp tables are looked for.
 */
export function cleanupSql(runId: string, checkIds: readonly string[]): string {
  const { n, a, t } = markerLiterals(runId, checkIds);
  const undo = [
    // The marked timeouts are numbers in pg_settings, never matching the other settings'
    // patterns; a marker is never whole seconds, so it is exactly the setting and its unit
    // there (what SHOW prints), which needs no current_setting() of every row.
    `SELECT 'RESET ' || name AS q FROM pg_settings WHERE (name IN (${MARKED_TIMEOUTS.map((s) => `'${s}'`).join(', ')}) AND setting || unit = ANY(mt)) OR (${otherSettingsFilter('mn', 'ma')})`,
    `SELECT 'RESET application_name' WHERE current_setting('application_name') LIKE ma || '-%'`,
    `SELECT 'RESET app.tenant_id' WHERE coalesce(current_setting('app.tenant_id', true), '') LIKE ma || '%'`,
    `SELECT 'RESET search_path' WHERE current_setting('search_path') LIKE '%' || mn`,
    `SELECT 'UNLISTEN ' || quote_ident(c) FROM pg_listening_channels() AS c WHERE c LIKE mn`,
    `SELECT 'DEALLOCATE ' || quote_ident(name) FROM pg_prepared_statements WHERE name LIKE mn`,
    // Tables before sequences: a sequence a table's column uses cannot be dropped before it,
    // and one the table owned (serial) goes with it, hence IF EXISTS.
    `(SELECT format('DROP %s IF EXISTS pg_temp.%I', CASE relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, relname) FROM pg_class WHERE relpersistence = 't' AND relkind IN ('r', 'S') AND relname LIKE mn AND pg_table_is_visible(oid) ORDER BY relkind = 'S')`,
    // Only holdable cursors outlive a transaction; the others are gone already.
    `SELECT 'CLOSE ' || quote_ident(name) FROM pg_cursors WHERE name LIKE mn AND is_holdable`,
  ];
  return [
    // The role first, so that everything after runs as the login again: RESET of
    // session_authorization resets the role too (SET ROLE's and SET SESSION AUTHORIZATION's,
    // for any login; measured on PostgreSQL 15 and 18), in fewer bytes than both RESETs. The
    // marker also rides with session/tracked-parameter's identity and read-only switches (its
    // MARKED_PARAMETERS). A missing marker reads NULL, and IF takes NULL as false.
    `IF current_setting('${ROLE_MARKER_SETTING}', true) LIKE 'pooltest-${runId}%' THEN RESET session_authorization; RESET default_transaction_read_only; RESET ${ROLE_MARKER_SETTING}; END IF;`,
    // Only locks the backend holds: an unlock of one it does not hold is a WARNING in the server log.
    releaseHeldLocksSql(LOCK_NAMESPACE, lockKeys(runId, checkIds)),
    // Names no catalog column the loop's query reads has, so none is ambiguous in PL/pgSQL.
    `DECLARE mn text := ${n}; ma text := ${a}; mt text[] := ${t}; r record; BEGIN`,
    // A DROP ... IF EXISTS that finds nothing says so in a NOTICE: not for the client.
    `PERFORM pg_catalog.set_config('client_min_messages', 'error', true);`,
    `FOR r IN ${undo.join(' UNION ALL ')} LOOP EXECUTE r.q; END LOOP;`,
    `END;`,
  ].join(' ');
}
