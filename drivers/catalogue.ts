/**
 * The drivers pooltest runs through a pooler, each with the configurations that matter for
 * transaction pooling: its defaults, and what its documentation (or PgBouncer's) advises. Facts
 * per driver: /work/shared/reference/drivers.md, summarised in docs/drivers.md.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileJavaAgent, compiledAgentDir } from './java-agent.js';
import { buildGoAgent, goAgentCommand } from './go-agent.js';
import { pdoHow, pdoPoolerFix, pgxHow } from './driver-versions.js';
import { DRIVER_SCENARIOS, type DriverScenarioId } from './tags.js';

/** How to start an agent process. */
export interface AgentCommand {
  cmd: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

export interface DriverConfig {
  /** Stable within the driver: `default`, `statement_cache_size=0`... */
  name: string;
  /** Passed to the driver as it is (connect keywords, JDBC properties, client options). */
  options: Record<string, string | number | boolean | null>;
  /** Autocommit off: every unit of work in its own transaction (Spring, Hibernate). */
  transaction?: boolean;
  /** The configuration the driver's or PgBouncer's documentation advises for transaction pooling. */
  advised: boolean;
  /** The option as a developer would write it. */
  how: string;
  /**
   * Whether the driver names statements in this configuration (the audit joins a name with
   * these only); by default the configurations not advised do.
   */
  names?: boolean;
  /** Only these phases run in this configuration (an option that changes nothing else); all when absent. */
  scenarios?: readonly DriverScenarioId[];
}

export interface DriverSpec {
  id: string;
  title: string;
  language: string;
  /** How the driver names its statements, for the audit and the report. */
  statementNames: string;
  /** A pattern that recognises those names in a server log or pg_prepared_statements. */
  namePattern: RegExp | null;
  /** The driver has a server-side cursor with a fetch size (named portals, or DECLARE). */
  cursor: string | null;
  /**
   * The driver's own batch or pipeline call, as the batch phase uses it (the agents' `batch`
   * op); null when the driver has none, and the batch phase is not run.
   */
  batch: string | null;
  /**
   * Statements the driver prepares on its own, beyond the application's (an SQL condition over
   * pg_prepared_statements' name and statement): the cleanup deallocates them too, but only
   * those prepared since the configuration started, on backends it touched.
   */
  ownStatements?: string;
  /**
   * A framework: the driver it runs on. Its agent runs the framework's own statements (model
   * queries, iterators, migrations), so the SQL pooltest sends only lends them its marker.
   */
  builtOn?: string;
  /** A framework's migration, as its own migrator runs it (drivers/migration-phase.ts), or absent. */
  migration?: string;
  configs: DriverConfig[];
  /**
   * A configuration's option as the given version of the driver spells it (`how` is the
   * installed version's): the advice names the option of the version the agent reported.
   */
  howFor?(config: DriverConfig, version: string | null): string;
  /** The pooler-side fix for this version of the driver, when the general one does not hold. */
  poolerFix?(version: string | null): string | null;
  command(): AgentCommand;
  /** Work done once per run before the first agent starts (compiling the Java agent). */
  prepare?(): Promise<void>;
}

/** The agents' folder, from engine sources (drivers/) or the build (dist/drivers/). */
const AGENTS = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ['agents', '../../drivers/agents']) if (existsSync(join(here, up))) return join(here, up);
  return join(here, 'agents');
})();

/** Debian's interpreter: another python3 first on PATH may lack the Debian driver modules. */
export const PYTHON = '/usr/bin/python3';

const pythonFramework = (framework: string) => (): AgentCommand => ({
  cmd: PYTHON,
  args: [join(AGENTS, 'python', 'frameworks.py'), framework],
});
/** Debian's pgjdbc (libpostgresql-jdbc-java). */
export const PGJDBC_JAR = '/usr/share/java/postgresql.jar';

const python = (driver: string) => (): AgentCommand => ({
  cmd: PYTHON,
  args: [join(AGENTS, 'python', 'agent.py'), driver],
});
const node = (driver: string) => (): AgentCommand => ({
  cmd: process.execPath,
  args: [join(AGENTS, 'node', 'agent.mjs'), driver],
});

export const DRIVERS: readonly DriverSpec[] = [
  {
    id: 'asyncpg',
    title: 'asyncpg (Python)',
    language: 'python',
    statementNames: '__asyncpg_stmt_<n>__, from a counter shared by the whole process',
    namePattern: /^__asyncpg_stmt_[0-9a-f]+__$/,
    cursor: 'conn.cursor(prefetch=N) in a transaction',
    batch: 'conn.executemany(sql, args): every Bind/Execute, then one Sync',
    configs: [
      { name: 'default', options: {}, advised: false, how: 'asyncpg.connect(...)' },
      {
        name: 'statement_cache_size=0',
        options: { statement_cache_size: 0 },
        advised: true,
        how: 'asyncpg.connect(..., statement_cache_size=0)',
      },
    ],
    command: python('asyncpg'),
  },
  {
    id: 'psycopg',
    title: 'psycopg 3 (Python)',
    language: 'python',
    statementNames: '_pg3_<n>, per connection, after prepare_threshold (5) executions',
    namePattern: /^_pg3_\d+$/,
    cursor: 'a named (server-side) cursor with itersize=N',
    batch: 'with conn.pipeline(): conn.execute(...) per statement (pipeline mode, one Sync at the end)',
    configs: [
      { name: 'default', options: {}, advised: false, how: 'psycopg.connect(...)' },
      {
        name: 'prepare_threshold=None',
        options: { prepare_threshold: null },
        advised: true,
        how: 'psycopg.connect(..., prepare_threshold=None)',
      },
    ],
    command: python('psycopg'),
  },
  {
    id: 'psycopg2',
    title: 'psycopg2 (Python)',
    language: 'python',
    statementNames: 'none: parameters are interpolated on the client, simple protocol',
    namePattern: null,
    cursor: 'a named (server-side) cursor with itersize=N',
    batch:
      'psycopg2.extras.execute_batch(cur, sql, args): the statements interpolated on the client and joined into one multi-statement Query per page',
    configs: [
      { name: 'default', options: {}, advised: true, how: 'psycopg2.connect(...)' },
      {
        // The other batch helper: one INSERT with every row in its VALUES, one Query message.
        name: 'execute_values',
        options: { batch: 'execute_values' },
        advised: false,
        how: 'psycopg2.extras.execute_values(cur, "INSERT ... VALUES %s", rows)',
        scenarios: ['batch'],
      },
    ],
    command: python('psycopg2'),
  },
  {
    id: 'pgjdbc',
    title: 'pgjdbc (Java)',
    language: 'java',
    statementNames: 'S_<n> per connection after prepareThreshold (5) executions; portals C_<n>',
    namePattern: /^S_\d+$/,
    cursor: 'setFetchSize(N) with autocommit off (a named portal)',
    batch: 'addBatch() per row, then executeBatch(): every Bind/Execute, then one Sync',
    // pgjdbc names its COMMIT too after 5 uses.
    ownStatements: "name ~ '^S_[0-9]+$' AND upper(statement) IN ('BEGIN', 'COMMIT', 'ROLLBACK')",
    configs: [
      { name: 'default', options: {}, advised: false, how: 'jdbc:postgresql://... (autocommit on)' },
      {
        name: 'default, autocommit off',
        options: {},
        transaction: true,
        advised: false,
        how: 'connection.setAutoCommit(false), as Spring and Hibernate do',
      },
      { name: 'prepareThreshold=0', options: { prepareThreshold: 0 }, advised: true, how: '?prepareThreshold=0' },
      {
        name: 'prepareThreshold=0, autocommit off',
        options: { prepareThreshold: 0 },
        transaction: true,
        advised: true,
        how: '?prepareThreshold=0 with setAutoCommit(false)',
      },
      {
        // Rewrites a batch of INSERTs into multi-row INSERTs: a path of its own for the batch only.
        name: 'reWriteBatchedInserts=true',
        options: { reWriteBatchedInserts: true },
        advised: false,
        how: '?reWriteBatchedInserts=true',
        scenarios: ['batch'],
      },
    ],
    command: () => {
      const source = join(AGENTS, 'java', 'Agent.java');
      const compiled = compiledAgentDir(source);
      // Quick start over peak speed: the agent runs a few dozen statements.
      const flags = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xshare:auto'];
      return compiled
        ? { cmd: 'java', args: [...flags, '-cp', `${PGJDBC_JAR}:${compiled}`, 'Agent'] }
        : { cmd: 'java', args: [...flags, '-cp', PGJDBC_JAR, source] };
    },
    prepare: () => compileJavaAgent(join(AGENTS, 'java', 'Agent.java'), PGJDBC_JAR),
  },
  {
    id: 'ruby-pg',
    title: 'ruby-pg (Ruby)',
    language: 'ruby',
    statementNames: 'only what the application names with prepare(); pooltest uses pooltest_a1 as Rails uses a1',
    namePattern: /^a\d+$/,
    cursor: null,
    batch: 'pipeline mode: enter_pipeline_mode, send_query_params per row, pipeline_sync (ruby-pg 1.3+, libpq 14+)',
    configs: [
      { name: 'exec_params', options: {}, advised: true, how: 'conn.exec_params(sql, params)' },
      {
        name: 'prepare',
        options: { prepare: true },
        advised: false,
        how: "conn.prepare(name, sql) + exec_prepared (Rails' prepared_statements: true)",
      },
    ],
    command: () => ({ cmd: 'ruby', args: [join(AGENTS, 'ruby', 'agent.rb')] }),
  },
  {
    id: 'node-postgres',
    title: 'node-postgres (pg)',
    language: 'node',
    statementNames: 'only when the query config has a name',
    namePattern: null,
    cursor: null,
    // No batch or pipeline API: every query waits for the answer to the one before.
    batch: null,
    configs: [
      { name: 'unnamed', options: {}, advised: true, how: 'client.query(text, values)' },
      {
        name: 'named',
        options: { name: 'pooltest_pg_q' },
        advised: false,
        how: "client.query({ name: 'q', text, values })",
      },
    ],
    command: node('pg'),
  },
  {
    id: 'postgres.js',
    title: 'postgres.js (postgres)',
    language: 'node',
    statementNames: 'generated per connection (prepare: true is the default)',
    namePattern: null,
    cursor: 'sql`...`.cursor(N) in a transaction',
    batch:
      'queries issued without awaiting (Promise.all; sql.begin returning an array): pipelined on the connection, each with its own Sync',
    // Its array-type lookup at connect, and begin/commit/rollback, are prepared too.
    ownStatements:
      "name ~ '^[a-z0-9]+$' AND (lower(statement) IN ('begin', 'commit', 'rollback') OR statement LIKE '%pg_catalog.pg_type a%a.typelem%')",
    configs: [
      { name: 'default', options: {}, advised: false, how: 'postgres(url)' },
      { name: 'prepare=false', options: { prepare: false }, advised: true, how: 'postgres(url, { prepare: false })' },
    ],
    command: node('postgres'),
  },
  {
    id: 'pgx',
    title: 'pgx (Go)',
    language: 'go',
    statementNames:
      'lrupsc_<cache>_<n> in pgx v4 (its statement cache, 512 per connection; <cache> counts the caches of the process, so every process starts at lrupsc_1_0); stmtcache_<hash of the SQL> in pgx v5',
    namePattern: /^(lrupsc_\d+_\d+|stmtcache_[0-9a-f]+)$/,
    // pgx reads a query's rows through one Execute without a row limit: no fetch size to test.
    cursor: null,
    batch:
      'conn.SendBatch(ctx, batch): every queued query in one round trip (its statement prepared through the cache first by default; one multi-statement Query with prefer_simple_protocol)',
    configs: [
      { name: 'default', options: {}, advised: false, how: 'pgx.Connect(ctx, url)' },
      {
        name: 'prefer_simple_protocol=true',
        options: { prefer_simple_protocol: true },
        advised: true,
        how: 'prefer_simple_protocol=true in the connection string (ConnConfig.PreferSimpleProtocol = true)',
      },
      {
        name: 'statement_cache_mode=describe',
        options: { statement_cache_mode: 'describe' },
        advised: true,
        how: 'statement_cache_mode=describe in the connection string',
      },
      // Not advised by pgx (its PgBouncer tests run the two above): without a cache, pgx v4
      // describes the unnamed statement in one round trip and binds it in the next, which a
      // transaction pooler may send to another backend ("unnamed prepared statement does not
      // exist", seen through Odyssey 1.5.1 with pool_reserve_prepared_statement no).
      {
        name: 'statement_cache_capacity=0',
        options: { statement_cache_capacity: 0 },
        advised: false,
        names: false,
        how: 'statement_cache_capacity=0 in the connection string',
      },
    ],
    howFor: pgxHow,
    command: () => goAgentCommand(join(AGENTS, 'go', 'agent.go')),
    prepare: () => buildGoAgent(join(AGENTS, 'go', 'agent.go')),
  },
  {
    id: 'pdo-pgsql',
    title: 'PDO pgsql (PHP)',
    language: 'php',
    statementNames:
      'pdo_stmt_<8 hex digits> per connection (every process starts at pdo_stmt_00000001), freed with SQL DEALLOCATE (protocol Close with PHP >= 8.4 and libpq >= 17); scrollable cursors pdo_crsr_<8 hex digits>',
    namePattern: /^pdo_stmt_[0-9a-f]{8}$/,
    cursor:
      'a scrollable cursor (PDO::ATTR_CURSOR => PDO::CURSOR_SCROLL: DECLARE ... WITH HOLD, one FETCH a row) in a transaction',
    // No batch or pipeline API: every execute() waits for its answer.
    batch: null,
    configs: [
      {
        name: 'default',
        options: {},
        advised: false,
        how: 'new PDO($dsn, ...) with $pdo->prepare($sql) once and execute() per use (native prepares)',
      },
      {
        name: 'ATTR_EMULATE_PREPARES=true',
        options: { ATTR_EMULATE_PREPARES: true },
        advised: true,
        how: 'new PDO($dsn, $user, $password, [PDO::ATTR_EMULATE_PREPARES => true])',
      },
      {
        name: 'PGSQL_ATTR_DISABLE_PREPARES=true',
        options: { PGSQL_ATTR_DISABLE_PREPARES: true },
        advised: true,
        how: 'new PDO($dsn, $user, $password, [PDO::PGSQL_ATTR_DISABLE_PREPARES => true])',
      },
    ],
    howFor: pdoHow,
    poolerFix: pdoPoolerFix,
    command: () => ({ cmd: 'php', args: [join(AGENTS, 'php', 'agent.php')] }),
  },
  // Frameworks, in the same list: a framework is what most applications configure instead of a
  // driver, and its rows are read beside its driver's (ruby-pg, psycopg2, asyncpg). Each agent
  // runs the framework's own code path (drivers/agents/ruby/activerecord.rb,
  // drivers/agents/python/frameworks.py); the SQL pooltest passes only gives the marker comment
  // and, for SQLAlchemy, the text of the statement.
  {
    id: 'activerecord',
    builtOn: 'ruby-pg',
    title: 'ActiveRecord (Rails, Ruby)',
    language: 'ruby',
    statementNames: 'a1, a2... per connection (prepared_statements: true, the default), the same in every process',
    namePattern: /^a\d+$/,
    cursor: null,
    // No batch call of its own: ActiveRecord's insert_all is one multi-row INSERT statement.
    batch: null,
    migration:
      'MigrationContext#migrate: pg_try_advisory_lock on a connection of its own, the migration in a transaction, then pg_advisory_unlock',
    configs: [
      {
        name: 'default',
        options: {},
        advised: false,
        how: 'database.yml defaults (prepared_statements: true, advisory_locks: true)',
      },
      {
        name: 'advisory_locks=false',
        options: { advisory_locks: false },
        advised: false,
        how: 'advisory_locks: false in database.yml (prepared statements left on)',
      },
      {
        name: 'prepared_statements=false, advisory_locks=false',
        options: { prepared_statements: false, advisory_locks: false },
        advised: true,
        how: 'prepared_statements: false and advisory_locks: false in database.yml',
      },
    ],
    command: () => ({ cmd: 'ruby', args: [join(AGENTS, 'ruby', 'activerecord.rb')] }),
  },
  {
    id: 'django',
    builtOn: 'psycopg2',
    title: 'Django (Python, psycopg2)',
    language: 'python',
    statementNames:
      'none (psycopg2 interpolates); QuerySet.iterator() declares WITH HOLD cursors _django_curs_<thread>_<task>_<n>',
    namePattern: null,
    cursor: 'QuerySet.iterator(chunk_size=N) in autocommit (DECLARE ... WITH HOLD, FETCH in later transactions)',
    // bulk_create is one multi-row INSERT: no batch call to test apart from psycopg2's own.
    batch: null,
    migration: 'manage.py migrate of a one-migration app: the migration in a transaction, recorded there; no lock',
    configs: [
      { name: 'default', options: {}, advised: false, how: "DATABASES['default'] as Django's defaults leave it" },
      {
        name: 'DISABLE_SERVER_SIDE_CURSORS',
        options: { DISABLE_SERVER_SIDE_CURSORS: true },
        advised: true,
        how: "'DISABLE_SERVER_SIDE_CURSORS': True in DATABASES['default']",
      },
    ],
    command: pythonFramework('django'),
  },
  {
    id: 'sqlalchemy',
    builtOn: 'asyncpg',
    title: 'SQLAlchemy (asyncpg dialect, Python)',
    language: 'python',
    statementNames:
      '__asyncpg_stmt_<n>__: the dialect prepares every statement through asyncpg and caches it per connection',
    namePattern: /^__asyncpg_stmt_[0-9a-f]+__$/,
    cursor: null,
    // Not tested apart from asyncpg's executemany (the asyncpg row).
    batch: null,
    // The dialect's own statements at connect (version, current_schema, ...) are prepared too.
    ownStatements: "name ~ '^__asyncpg_stmt_[0-9a-f]+__$'",
    configs: [
      { name: 'default', options: {}, advised: false, how: 'create_async_engine("postgresql+asyncpg://...")' },
      {
        name: 'prepared_statement_cache_size=0',
        options: { prepared_statement_cache_size: 0 },
        advised: true,
        how: 'postgresql+asyncpg://...?prepared_statement_cache_size=0',
      },
    ],
    command: pythonFramework('sqlalchemy'),
  },
];

/** The phases `driver` runs in `config`, in order: the cursor, batch and migration only where the driver has them. */
export function phasesOf(driver: DriverSpec, config: DriverConfig): DriverScenarioId[] {
  return DRIVER_SCENARIOS.filter(
    (s) =>
      (s !== 'cursor' || driver.cursor !== null) &&
      (s !== 'batch' || driver.batch !== null) &&
      (s !== 'migration' || driver.migration !== undefined) &&
      (config.scenarios === undefined || config.scenarios.includes(s)),
  );
}

/** The phases a driver runs in some configuration: the cursor, batch and migration only where it has them. */
export function scenariosOf(driver: Pick<DriverSpec, 'cursor' | 'batch' | 'migration'>): DriverScenarioId[] {
  return DRIVER_SCENARIOS.filter(
    (s) =>
      (s !== 'cursor' || driver.cursor !== null) &&
      (s !== 'batch' || driver.batch !== null) &&
      (s !== 'migration' || driver.migration !== undefined),
  );
}

/** The drivers named in `--driver a,b` (all when empty); unknown names are refused. */
export function selectDrivers(names: readonly string[]): DriverSpec[] | { unknown: string[] } {
  if (names.length === 0) return [...DRIVERS];
  const unknown = names.filter((n) => !DRIVERS.some((d) => d.id === n));
  if (unknown.length > 0) return { unknown };
  return DRIVERS.filter((d) => names.includes(d.id));
}

/** The driver whose statement names match `name` (the audit's attribution), or null. */
export function driverOfStatement(name: string): DriverSpec | null {
  return DRIVERS.find((d) => d.namePattern?.test(name)) ?? null;
}
