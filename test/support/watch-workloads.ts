/**
 * Labelled workloads for `pooltest watch`, driven with the real `pg` driver through the proxy.
 * Each case says which dependency it must produce (check id and state) or none: together they
 * are the labelled set the precision and recall are measured on. The patterns mimic what real
 * code does: a job queue that LISTENs once and waits, a repository with named statements, a
 * request handler that sets the tenant for the session, a report that pages with a WITH HOLD
 * cursor.
 */
import pg from 'pg';

export interface Endpoint {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** A case of the labelled workload. */
export interface LabelledCase {
  name: string;
  /** `check|state` the watch must report, or empty for a control that must report nothing. */
  expect: string[];
  run(connect: () => Promise<pg.Client>): Promise<void>;
}

export async function connectTo(e: Endpoint, applicationName: string): Promise<pg.Client> {
  const client = new pg.Client({
    host: e.host,
    port: e.port,
    user: e.user,
    password: e.password,
    database: e.database,
    application_name: applicationName,
    ssl: false,
    connectionTimeoutMillis: 10_000,
    query_timeout: 10_000,
  });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function each(connect: () => Promise<pg.Client>, body: (c: pg.Client) => Promise<void>): Promise<void> {
  const c = await connect();
  try {
    await body(c);
  } finally {
    await c.end();
  }
}

/** Cases that leave state in one transaction and rely on it in a later one. */
export const DEPENDENT: LabelledCase[] = [
  {
    name: 'search_path set for the session, then an unqualified query',
    expect: ['session/search-path-leak|search_path'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('SET search_path = watch_app, public');
        await c.query('SELECT count(*) FROM watch_items');
      }),
  },
  {
    name: 'tenant set with set_config(..., false), read by current_setting later',
    expect: ['session/custom-guc-leak|app.tenant_id'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query("SELECT set_config('app.tenant_id', '42', false)");
        await c.query("SELECT current_setting('app.tenant_id')");
      }),
  },
  {
    name: 'SQL PREPARE, EXECUTE in a later transaction',
    expect: ['prepared/sql-prepare|prepared statement get_item'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('PREPARE get_item(int) AS SELECT $1 + 1');
        await c.query('EXECUTE get_item(1)');
      }),
  },
  {
    name: 'node-postgres named statement parsed once, bound in later transactions',
    expect: ['prepared/protocol-named|prepared statement fetch-item'],
    run: (connect) =>
      each(connect, async (c) => {
        for (let i = 0; i < 3; i++) await c.query({ name: 'fetch-item', text: 'SELECT $1::int AS id', values: [i] });
      }),
  },
  {
    name: 'temp table kept after its transaction',
    expect: ['temp/temp-table|temporary relation scratch_rows'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('CREATE TEMP TABLE scratch_rows (i int)');
        await c.query('INSERT INTO scratch_rows VALUES (1)');
      }),
  },
  {
    name: 'WITH HOLD cursor fetched after COMMIT',
    expect: ['cursors/with-hold|cursor pages'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('BEGIN');
        await c.query('DECLARE pages CURSOR WITH HOLD FOR SELECT generate_series(1, 10)');
        await c.query('COMMIT');
        await c.query('FETCH 5 FROM pages');
        await c.query('CLOSE pages');
      }),
  },
  {
    name: 'currval after nextval in another transaction',
    expect: ["sequences/lastval|the session's value of sequence watch_seq"],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query("SELECT nextval('watch_seq')");
        await c.query("SELECT currval('watch_seq')");
      }),
  },
  {
    name: 'session advisory lock taken with a parameter, unlocked later',
    expect: ['locks/advisory-session|advisory lock 7001'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('SELECT pg_advisory_lock($1)', [7001]);
        await c.query('SELECT 1');
        await c.query('SELECT pg_advisory_unlock($1)', [7001]);
      }),
  },
  {
    name: 'SET ROLE for the session',
    expect: ['session/role-leak|role'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('SET ROLE pooltest');
        await c.query('SELECT current_user');
      }),
  },
  {
    name: 'statement_timeout set in autocommit, later work runs under it',
    expect: ['session/set-leak|statement_timeout'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query("SET statement_timeout = '5s'");
        await c.query('SELECT 2');
      }),
  },
  {
    // graphile-worker: LISTEN "worker:migrate" once, then nothing arrives while the run lasts.
    name: 'LISTEN with no notification during the run',
    expect: ['notify/listen|LISTEN worker:migrate'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('LISTEN "worker:migrate"');
        await c.query('SELECT 1');
      }),
  },
  {
    // graphile-worker's complete_job_q: a named statement used once per connection.
    name: 'named statement prepared and used once on its connection',
    expect: ['prepared/protocol-named|prepared statement complete_job_q'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query({ name: 'complete_job_q', text: 'SELECT $1::int AS done', values: [1] });
        await c.query('SELECT 2');
      }),
  },
  {
    // The qualified query runs first, but only the unqualified one resolves through search_path.
    name: 'search_path, then a qualified and an unqualified query',
    expect: ['session/search-path-leak|search_path'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('SET search_path TO watch_app, public');
        await c.query('SELECT count(*) FROM information_schema.tables');
        await c.query('SELECT count(*) FROM watch_items');
      }),
  },
  {
    // Issue 40: the CREATE TEMP was reported as resolving scratch through search_path; a temp
    // table lives in pg_temp, which is searched first, so the later uses do not depend on it.
    name: 'search_path set, then a temp table created and named in later transactions',
    expect: ['temp/temp-table|temporary relation scratch'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('SET search_path = public, watch_app');
        await c.query('CREATE TEMP TABLE scratch (id int, note text)');
        await c.query("INSERT INTO scratch VALUES (1, 'a')");
        await c.query('SELECT count(*) FROM scratch');
      }),
  },
  {
    // The control of the case above: the same without TEMP does resolve through the path.
    name: 'search_path set, then a plain table created and named in later transactions',
    expect: ['session/search-path-leak|search_path'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('SET search_path = watch_app');
        await c.query('CREATE TABLE IF NOT EXISTS scratch_plain (id int, note text)');
        await c.query('SELECT count(*) FROM scratch_plain');
      }),
  },
  {
    name: 'TimeZone set for the session, then now() in a later transaction',
    expect: ['session/tracked-parameter|timezone'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query("SET timezone = 'UTC'");
        await c.query('SELECT 1');
        await c.query('SELECT now()::text AS at');
      }),
  },
  {
    // Leaked, a read-only switch refuses the next client's writes (25006): issue 38 part 5.
    name: 'default_transaction_read_only set for the session, then reads in later transactions',
    expect: ['session/tracked-parameter|default_transaction_read_only'],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('SET default_transaction_read_only = on');
        await c.query('SELECT count(*) FROM watch_app.watch_items');
        await c.query('RESET default_transaction_read_only');
      }),
  },
];

/** Controls: only transaction-scoped state, or state undone in time. Must give no finding. */
export const CONTROL: LabelledCase[] = [
  {
    name: 'transaction-scoped everything',
    expect: [],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('BEGIN');
        await c.query('SET LOCAL search_path = watch_app, public');
        await c.query("SELECT set_config('app.tenant_id', '7', true)");
        await c.query("SELECT current_setting('app.tenant_id'), count(*) FROM watch_items");
        await c.query('SELECT pg_advisory_xact_lock(99)');
        await c.query('CREATE TEMP TABLE t_drop (i int) ON COMMIT DROP');
        await c.query('INSERT INTO t_drop VALUES (1)');
        await c.query('PREPARE p_in(int) AS SELECT $1');
        await c.query('EXECUTE p_in(1)');
        await c.query('DEALLOCATE p_in');
        await c.query('DECLARE c_in CURSOR WITH HOLD FOR SELECT 1');
        await c.query('FETCH 1 FROM c_in');
        await c.query('CLOSE c_in');
        await c.query("SELECT nextval('watch_seq'), currval('watch_seq')");
        await c.query('COMMIT');
        await c.query('SELECT 1');
      }),
  },
  {
    name: 'state undone before its transaction ends',
    expect: [],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query("SET statement_timeout = '5s'; SELECT 1; RESET statement_timeout");
        await c.query('SELECT pg_advisory_lock(5); SELECT pg_advisory_unlock(5)');
        await c.query('SELECT 2');
      }),
  },
  {
    name: 'SET rolled back, and SET in a failed implicit transaction',
    expect: [],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query('BEGIN');
        await c.query('SET search_path = watch_app, public');
        await c.query('ROLLBACK');
        await c.query('SET lock_timeout = 1000; SELECT 1/0').catch(() => undefined);
        await c.query('SELECT count(*) FROM pg_class');
      }),
  },
  {
    // Nothing later resolves through the setting: qualified names only, no date or time.
    name: 'search_path and TimeZone set, then only statements that do not depend on them',
    expect: [],
    run: (connect) =>
      each(connect, async (c) => {
        await c.query("SET search_path = watch_app, public; SET timezone = 'UTC'");
        await c.query('SELECT count(*) FROM watch_app.watch_items');
        await c.query('WITH watch_items AS (SELECT 1 AS id) SELECT count(*) FROM watch_items');
      }),
  },
  {
    name: 'unnamed parameterised queries (node-postgres default)',
    expect: [],
    run: (connect) =>
      each(connect, async (c) => {
        for (let i = 0; i < 3; i++) await c.query('SELECT $1::int + 1 AS n', [i]);
      }),
  },
];
