/**
 * The frameworks (ActiveRecord, Django, SQLAlchemy on asyncpg) through PgBouncer 1.18 in
 * transaction mode, pool of 2, and directly: each framework's documented break appears in its
 * default configuration, in the framework's own words and with its own statement, cursor or
 * lock; the documented fix makes it go away; directly, none of it happens (the control); and
 * the runs leave nothing behind (the migrator's lock, its bookkeeping tables).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import pg from 'pg';
import { startStack, type Stack } from '../../fixtures/index.js';
import { DRIVERS, type DriverSpec } from '../../drivers/catalogue.js';
import { runDrivers, type DriversReport } from '../../drivers/run-drivers.js';
import { resolveTarget } from '../../engine/target/target.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('pgbouncer-transaction');
});
afterAll(async () => {
  await stack?.stop();
});

const frameworks = (defaultsOnly = false): DriverSpec[] =>
  DRIVERS.filter((d) => d.builtOn !== undefined).map((d) =>
    defaultsOnly ? { ...d, configs: d.configs.filter((c) => c.name === 'default') } : d,
  );

const result = (r: DriversReport, id: string) => {
  const found = r.results.find((x) => x.id === id);
  if (!found) throw new Error(`no result ${id}`);
  return found;
};
const outcome = (r: DriversReport, id: string) => {
  const x = result(r, id);
  return x.outcome ?? `inconclusive: ${x.reason}`;
};

/** What a run could have left on the server: advisory locks, the migrator's tables. */
async function leftovers(): Promise<{ locks: number; tables: string[] }> {
  const c = new pg.Client({ connectionString: stack.postgres.url() });
  c.on('error', () => undefined);
  await c.connect();
  try {
    const locks = await c.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'");
    const tables = await c.query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'pooltest\\_%'");
    return { locks: locks.rows[0].n as number, tables: tables.rows.map((r) => r.tablename as string) };
  } finally {
    await c.end();
  }
}

describe('frameworks', () => {
  test('through PgBouncer 1.18 transaction mode the defaults break as documented, and the fixes work', async () => {
    const r = await runDrivers(resolveTarget({ target: stack.target.url() }), { drivers: frameworks() });
    expect(r.skipped).toEqual([]);
    // ActiveRecord: its own statement a1, and its migrator's lock released on another backend.
    expect(outcome(r, 'activerecord/moved@default')).toBe('failed');
    expect(result(r, 'activerecord/moved@default').reason).toMatch(
      /26000 ActiveRecord::StatementInvalid: PG::InvalidSqlStatementName: .*prepared statement "a1" does not exist/,
    );
    expect(result(r, 'activerecord/collision@default').reason).toMatch(/42P05 .*"a1" already exists/);
    expect(outcome(r, 'activerecord/migration@default')).toBe('failed');
    expect(result(r, 'activerecord/migration@default').reason).toMatch(
      /ActiveRecord::ConcurrentMigrationError: Failed to release advisory lock \(advisory lock \d+ taken on backend \d+/,
    );
    expect(outcome(r, 'activerecord/migration@advisory_locks=false')).toBe('works');
    expect(outcome(r, 'activerecord/moved@advisory_locks=false')).toBe('failed');
    for (const s of ['moved', 'collision', 'migration'])
      expect(outcome(r, `activerecord/${s}@prepared_statements=false, advisory_locks=false`), s).toBe('works');
    // Django: the iterator's WITH HOLD cursor, fetched from on another backend.
    expect(outcome(r, 'django/cursor@default')).toBe('failed');
    expect(result(r, 'django/cursor@default').reason).toMatch(
      /34000 InvalidCursorName: cursor "_django_curs_\w+" does not exist/,
    );
    expect(result(r, 'django/cursor@default').advice).toMatch(
      /^Use 'DISABLE_SERVER_SIDE_CURSORS': True .*no pooler carries a cursor/,
    );
    expect(outcome(r, 'django/cursor@DISABLE_SERVER_SIDE_CURSORS')).toBe('works');
    // Django's migrate takes no lock: nothing of it is left to a later transaction.
    expect(outcome(r, 'django/migration@default')).toBe('works');
    expect(result(r, 'django/cursor@DISABLE_SERVER_SIDE_CURSORS').facts.aNextBackend).not.toBe(
      result(r, 'django/cursor@DISABLE_SERVER_SIDE_CURSORS').facts.aBackend,
    );
    // SQLAlchemy: the dialect's asyncpg statements; its documented cache setting does not name
    // them any less (SQLAlchemy 1.4 prepares every statement through asyncpg).
    expect(outcome(r, 'sqlalchemy/moved@default')).toBe('failed');
    expect(result(r, 'sqlalchemy/moved@default').reason).toMatch(
      /26000 .*prepared statement "__asyncpg_stmt_\w+__" does not exist/,
    );
    expect(outcome(r, 'sqlalchemy/moved@prepared_statement_cache_size=0')).toBe('works');
    expect(outcome(r, 'sqlalchemy/collision@prepared_statement_cache_size=0')).toBe('failed');
    expect(result(r, 'activerecord/migration@default').advice).toMatch(/advisory_locks: false/);
    expect(await leftovers()).toEqual({ locks: 0, tables: [] });
  }, 400_000);

  test('directly, no framework error appears in the defaults', async () => {
    const r = await runDrivers(resolveTarget({ target: stack.postgres.url() }), { drivers: frameworks(true) });
    expect(r.skipped).toEqual([]);
    expect(r.results.map((x) => x.id).sort()).toEqual([
      'activerecord/collision@default',
      'activerecord/migration@default',
      'activerecord/moved@default',
      'django/collision@default',
      'django/cursor@default',
      'django/migration@default',
      'django/moved@default',
      'sqlalchemy/collision@default',
      'sqlalchemy/moved@default',
    ]);
    for (const x of r.results) expect(`${x.id}: ${x.outcome ?? x.reason}`).toBe(`${x.id}: works`);
    // The migration took its lock on a connection of its own, and released it there.
    expect(result(r, 'activerecord/migration@default').facts.lockBackend).toEqual(expect.any(Number));
    expect(await leftovers()).toEqual({ locks: 0, tables: [] });
  }, 300_000);
});
