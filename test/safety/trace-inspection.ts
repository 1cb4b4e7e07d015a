/**
 * "Nothing left behind", checked without pooltest's own sweep code: the tests must not trust
 * the code they test. Two independent looks:
 *
 * - As the superuser over the fixture's Unix socket: everything visible across sessions
 *   (advisory locks in pooltest's lock namespace, temp tables, schemas and tables named
 *   pooltest_*, sessions of any pooltest run idle in a transaction).
 * - Through the pooler, with as many plain clients at once as the pool has backends, each
 *   inside BEGIN so none can share a backend: what only the session itself can see (prepared
 *   statements, LISTEN, cursors, settings, a role switch). The backends reached must be
 *   exactly the pool's backends as the superuser lists them.
 */
import pg from 'pg';
import type { PostgresFixture } from '../../fixtures/postgres-fixture.js';

/** "pool" in ASCII: the first key of pooltest's advisory locks (restated, not imported). */
const POOLTEST_LOCK_NAMESPACE = 1886351212;

export interface SuperuserView {
  advisoryLocks: number;
  tempTables: string[];
  schemas: string[];
  tables: string[];
  idleInTransaction: number;
  /** Client backends logged in as the fixture role: the pooler's server connections. */
  poolBackends: number[];
}

export async function superuserView(pgFixture: PostgresFixture): Promise<SuperuserView> {
  return withSuperuser(pgFixture, async (c) => {
    const q = async <T extends pg.QueryResultRow>(sql: string): Promise<T[]> => (await c.query<T>(sql)).rows;
    const [locks] = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = ${POOLTEST_LOCK_NAMESPACE}`,
    );
    const temp = await q<{ n: string }>(
      `SELECT relname AS n FROM pg_class WHERE relpersistence = 't' AND relname LIKE 'pooltest%'`,
    );
    const schemas = await q<{ n: string }>(
      `SELECT nspname AS n FROM pg_namespace WHERE nspname LIKE 'pooltest\\_%' AND nspname <> 'pooltest_alt'`,
    );
    const tables = await q<{ n: string }>(
      `SELECT relname AS n FROM pg_class WHERE relpersistence = 'p' AND relkind = 'r' AND relname LIKE 'pooltest\\_%'`,
    );
    const [idle] = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND application_name LIKE 'pooltest%'`,
    );
    const backends = await q<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE usename = '${pgFixture.user}' AND backend_type = 'client backend' ORDER BY pid`,
    );
    return {
      advisoryLocks: locks?.n ?? -1,
      tempTables: temp.map((r) => r.n),
      schemas: schemas.map((r) => r.n),
      tables: tables.map((r) => r.n),
      idleInTransaction: idle?.n ?? -1,
      poolBackends: backends.map((r) => r.pid),
    };
  });
}

/** What one backend shows to a client sitting on it; every field is "nothing" when clean. */
export interface BackendView {
  pid: number;
  prepared: number;
  listening: number;
  cursors: number;
  tempTables: number;
  advisoryLocks: number;
  /** Settings that differ from a fresh session's (statement_timeout, search_path, TimeZone...). */
  changedSettings: string[];
  customSettings: string[];
  roleSwitched: boolean;
}

/** Holds `width` backends at once through the pooler and looks at each one. */
export async function visitPool(url: string, width: number, defaults: Record<string, string>): Promise<BackendView[]> {
  const clients: pg.Client[] = [];
  try {
    const views: BackendView[] = [];
    for (let i = 0; i < width; i++) {
      const c = new pg.Client({
        connectionString: url,
        application_name: 'trace-inspection',
        connectionTimeoutMillis: 5_000,
        query_timeout: 10_000,
      });
      c.on('error', () => undefined);
      await c.connect();
      clients.push(c);
      await c.query('BEGIN');
      views.push(await lookAtBackend(c, defaults));
    }
    return views;
  } finally {
    for (const c of clients) await c.query('ROLLBACK').catch(() => undefined);
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}

/** Settings a fresh session has, to compare each backend against (read on its own connection). */
export async function freshSettings(url: string): Promise<Record<string, string>> {
  const c = new pg.Client({
    connectionString: url,
    application_name: 'trace-inspection',
    connectionTimeoutMillis: 5_000,
  });
  c.on('error', () => undefined);
  await c.connect();
  try {
    await c.query('BEGIN');
    // Inside a transaction, through a transaction pooler this is still some backend: read the
    // values a session gets from the server, not whatever that backend was left with.
    const rows = (
      await c.query<{ name: string; reset_val: string }>(
        `SELECT name, reset_val FROM pg_settings WHERE name IN (${WATCHED.map((n) => `'${n}'`).join(', ')})`,
      )
    ).rows;
    // End the transaction before leaving: a client gone mid-transaction costs the pool a server.
    await c.query('ROLLBACK');
    return Object.fromEntries(rows.map((r) => [r.name, r.reset_val]));
  } finally {
    await c.end().catch(() => undefined);
  }
}

const WATCHED = [
  'statement_timeout',
  'search_path',
  'TimeZone',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
  'DateStyle',
  'work_mem',
];

async function lookAtBackend(c: pg.Client, defaults: Record<string, string>): Promise<BackendView> {
  const row = (
    await c.query(`SELECT pg_backend_pid() AS pid,
      (SELECT count(*)::int FROM pg_prepared_statements) AS prepared,
      (SELECT count(*)::int FROM pg_listening_channels()) AS listening,
      (SELECT count(*)::int FROM pg_cursors) AS cursors,
      (SELECT count(*)::int FROM pg_class WHERE relpersistence = 't' AND pg_table_is_visible(oid)) AS temp_tables,
      (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS advisory_locks,
      current_user <> session_user AS role_switched,
      coalesce(current_setting('app.tenant_id', true), '') AS tenant,
      coalesce(current_setting('pooltest.role', true), '') AS pooltest_role`)
  ).rows[0] as Record<string, unknown>;
  const settings = (
    await c.query<{ name: string; setting: string; reset_val: string }>(
      `SELECT name, setting, reset_val FROM pg_settings WHERE name IN (${WATCHED.map((n) => `'${n}'`).join(', ')})`,
    )
  ).rows;
  // By value, not by pg_settings.source: a pooler re-applying a client's TimeZone also shows as
  // a session setting, with the default value.
  const changed = settings
    .filter((s) => s.setting !== (defaults[s.name] ?? s.reset_val))
    .map((s) => `${s.name}=${s.setting}`);
  return {
    pid: Number(row.pid),
    prepared: Number(row.prepared),
    listening: Number(row.listening),
    cursors: Number(row.cursors),
    tempTables: Number(row.temp_tables),
    advisoryLocks: Number(row.advisory_locks),
    changedSettings: changed,
    customSettings: [row.tenant, row.pooltest_role].filter((v) => v !== ''),
    roleSwitched: row.role_switched === true,
  } as BackendView;
}

/** Runs `use` as the superuser over the fixture's Unix socket (trusted: no password there). */
export async function withSuperuser<T>(
  pgFixture: PostgresFixture,
  use: (c: pg.Client) => Promise<T>,
  database = pgFixture.database,
): Promise<T> {
  const c = new pg.Client({
    host: pgFixture.socketDir,
    port: pgFixture.port,
    user: 'postgres',
    database,
    connectionTimeoutMillis: 5_000,
  });
  c.on('error', () => undefined);
  await c.connect();
  try {
    return await use(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** A backend with nothing on it, for `expect(...).toEqual(clean(pid))`. */
export function cleanBackend(pid: number): BackendView {
  return {
    pid,
    prepared: 0,
    listening: 0,
    cursors: 0,
    tempTables: 0,
    advisoryLocks: 0,
    changedSettings: [],
    customSettings: [],
    roleSwitched: false,
  };
}

/** As many nameless clients at once as the pool is wide, each inside BEGIN: every server connection's name. */
export async function namesSeenByNamelessClients(
  url: string,
  width: number,
): Promise<Array<{ pid: number; app: string }>> {
  const clients: pg.Client[] = [];
  try {
    const seen: Array<{ pid: number; app: string }> = [];
    for (let i = 0; i < width; i++) {
      // No application_name at all in the startup packet (PGAPPNAME is not set in tests).
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, query_timeout: 10_000 });
      c.on('error', () => undefined);
      await c.connect();
      clients.push(c);
      await c.query('BEGIN');
      seen.push(
        (
          await c.query<{ pid: number; app: string }>(
            `SELECT pg_backend_pid() AS pid, current_setting('application_name') AS app`,
          )
        ).rows[0]!,
      );
    }
    return seen;
  } finally {
    for (const c of clients) await c.query('ROLLBACK').catch(() => undefined);
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}
