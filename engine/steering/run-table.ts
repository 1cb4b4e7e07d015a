/**
 * A regular table of the run's own, for checks that must know what another session committed
 * (transactions/abandoned). It is named with the run's marker, lives in whatever schema the
 * creating session resolves first, and is dropped by its check and, failing that, by the sweep.
 * Creating it needs CREATE on that schema; the fixtures' login owns its database, a staging
 * login may not (the check then says so).
 */

/** Double-quotes an identifier for SQL. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `schema.name`, both quoted. */
export function qualified(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/** LIKE pattern for every table of the run (`_` is a wildcard in LIKE, so it is escaped). */
export function runTablePattern(runId: string): string {
  return `pooltest\\_${runId}%`;
}

/** LIKE pattern matching exactly one table name. */
export function exactPattern(name: string): string {
  return name.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** SQL counting this run's regular tables, as column `tables`. */
export function countRunTablesSql(pattern: string): string {
  return `SELECT count(*)::int AS tables FROM pg_class WHERE relkind = 'r' AND relpersistence = 'p' AND relname LIKE '${pattern}'`;
}

/**
 * PL/pgSQL (for `cleanupBlock`) that drops every regular table matching `pattern`, in any
 * schema. A session left inside a transaction that touched the table (an abandoned INSERT a
 * pooler kept open) would make DROP wait for ever: such sessions are found by their lock on
 * the table - so they are only ever ours - and terminated, and lock_timeout bounds the wait
 * for them to go.
 */
export function dropTablesSql(pattern: string, lockTimeoutMs: number): string {
  return [
    `PERFORM pg_catalog.set_config('lock_timeout', '${Math.max(1, Math.round(lockTimeoutMs))}', true);`,
    `DECLARE r record; BEGIN`,
    `FOR r IN SELECT c.oid, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace`,
    `WHERE c.relkind = 'r' AND c.relpersistence = 'p' AND c.relname LIKE '${pattern}' LOOP`,
    `PERFORM pg_terminate_backend(l.pid) FROM pg_locks l WHERE l.relation = r.oid AND l.pid <> pg_backend_pid();`,
    `EXECUTE format('DROP TABLE IF EXISTS %I.%I', r.nspname, r.relname);`,
    `END LOOP;`,
    `END;`,
  ].join(' ');
}

/**
 * PL/pgSQL (for `cleanupBlock`, before the drop) that ends any other session still running
 * the statement `statementStart` begins (`CREATE TABLE <name> `), and waits for it to go, up to
 * about a second. A CREATE whose answer never came may still be running on the server (a stall
 * there, not a queue in the pooler, which drops a query whose client left): a DROP now would
 * find nothing, and the CREATE would commit after it. Only this run's statement has that text.
 */
export function endCreatorsSql(statementStart: string): string {
  const text = statementStart.replace(/'/g, "''");
  const running = `SELECT 1 FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state = 'active' AND position('${text}' in query) > 0`;
  return [
    `PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state = 'active' AND position('${text}' in query) > 0;`,
    `FOR i IN 1..50 LOOP EXIT WHEN NOT EXISTS (${running}); PERFORM pg_sleep(0.02); END LOOP;`,
  ].join(' ');
}
